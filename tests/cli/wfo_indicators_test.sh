#!/usr/bin/env bash
# wfo indicators refuses a period at which the indicator is undefined at every bar (SPEC §4:
# only HMA(1)) with exit 2 and the rule, instead of printing empty values with exit 0; every
# other indicator at period 1, and HMA at 2, prints a value at every bar its lookback allows;
# bbands prints upper,middle,lower and needs --k > 0.
# usage: wfo_indicators_test.sh WFO CSV
set -euo pipefail
WFO=${1:?usage: wfo_indicators_test.sh WFO CSV}
CSV=${2:?usage: wfo_indicators_test.sh WFO CSV}
source "$(dirname "$0")/lib.sh"

BARS=$(($(grep -c . "$CSV") - 1))

run_wfo indicators --csv "$CSV" --name hma --period 1
expect_rc 2 "hma --period 1"
expect_err "--period 1: HMA(1) is undefined at every bar" "hma --period 1"
expect_err "hma needs --period >= 2" "hma --period 1"
[[ ! -s "$TMP/out" ]] || fail "hma --period 1 printed values"

# values NAME PERIOD EXPECTED: the indicator prints EXPECTED non-empty values, one per bar.
values() {
  run_wfo indicators --csv "$CSV" --name "$1" --period "$2"
  expect_rc 0 "$1 --period $2"
  [[ $(($(wc -l <"$TMP/out") - 1)) -eq $BARS ]] || fail "$1 --period $2: not one row per bar"
  local n
  n=$(awk -F, 'NR > 1 && $2 != ""' "$TMP/out" | wc -l)
  [[ $n -eq $3 ]] || fail "$1 --period $2: $n values, expected $3"
}
for name in sma ema wma std; do values "$name" 1 "$BARS"; done
values hh 1 $((BARS - 1))  # the previous bar's: none at the first bar
values ll 1 $((BARS - 1))
values hma 2 $((BARS - 1))
values rsi 1 $((BARS - 1))  # RSI(n) from bar n, the first with n changes
values rsi 3 $((BARS - 3))

# bbands: three columns; at period 1 STD is 0, so the bands are the middle (the close).
run_wfo indicators --csv "$CSV" --name bbands --period 1 --k 2
expect_rc 0 "bbands --period 1 --k 2"
[[ $(head -1 "$TMP/out") == "timestamp,upper,middle,lower" ]] || fail "bbands header"
n=$(awk -F, 'NR > 1 && $2 != "" && $2 == $3 && $3 == $4' "$TMP/out" | wc -l)
[[ $n -eq $BARS ]] || fail "bbands --period 1: $n rows with upper = middle = lower, expected $BARS"
run_wfo indicators --csv "$CSV" --name bbands --period 3 --k 1.5
expect_rc 0 "bbands --period 3 --k 1.5"
n=$(awk -F, 'NR > 1 && $2 != "" && $2 + 0 >= $3 + 0 && $3 + 0 >= $4 + 0' "$TMP/out" | wc -l)
[[ $n -eq $((BARS - 2)) ]] || fail "bbands --period 3: $n ordered rows, expected $((BARS - 2))"
run_wfo indicators --csv "$CSV" --name bbands --period 3
expect_rc 2 "bbands without --k"
expect_err "--k K is required for bbands" "bbands without --k"
run_wfo indicators --csv "$CSV" --name bbands --period 3 --k 0
expect_rc 2 "bbands --k 0"
expect_err "--k: must be > 0" "bbands --k 0"
run_wfo indicators --csv "$CSV" --name sma --period 3 --k 2
expect_rc 2 "sma --k"
expect_err "--k applies only to bbands" "sma --k"

run_wfo indicators --csv "$CSV" --name sma --period 0
expect_rc 2 "sma --period 0"
expect_err "--period: must be in [1," "sma --period 0"
echo "OK"
