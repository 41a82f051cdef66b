#!/usr/bin/env bash
# Issue 42 §3, the window's end: --end DATE|INDEX (inclusive; a date to its last
# nanosecond) and --start DATE|INDEX (SPEC §2's anchor moves there: EMA and RSI seeds with it)
# on sweep, walk and positions give exactly the result of the file cut to those bars.
# usage: wfo_window_end_test.sh WFO SHARED_DATA_DIR
set -euo pipefail
WFO=${1:?usage: wfo_window_end_test.sh WFO SHARED_DATA_DIR}
DATA=${2:?usage: wfo_window_end_test.sh WFO SHARED_DATA_DIR}
source "$(dirname "$0")/lib.sh"
GOOG="$DATA/goog_d1_2004-2013.csv"
M1="$DATA/gbpusd_fxcm_bid_m1_2012-02.csv"
[[ -r "$GOOG" && -r "$M1" ]] || { echo "SKIP: no shared data in $DATA"; exit 77; }
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
same_result() {
  cmp -s <(grep -vE '"(seconds|[a-z_]*_seconds|[a-z_]*per_second|[a-z_]*_ms)"' "$1") \
    <(grep -vE '"(seconds|[a-z_]*_seconds|[a-z_]*per_second|[a-z_]*_ms)"' "$2")
}
# The same run on a file and on a cut with flags: equal results.
agree() {  # agree WHAT FILE_CUT CMD FLAGS... -- CUT_FLAGS...
  local what=$1 cut=$2 cmd=$3
  shift 3
  local flags=() cutf=()
  while [[ $1 != -- ]]; do flags+=("$1"); shift; done
  shift
  cutf=("$@")
  run_wfo "$cmd" --csv "$cut" "${flags[@]}"
  expect_rc 0 "$what, cut file"
  cp "$TMP/out" "$TMP/cut.out"
  run_wfo "$cmd" "${flags[@]}" "${cutf[@]}"
  expect_rc 0 "$what, flags"
  same_result "$TMP/out" "$TMP/cut.out" || fail "$what: differs from the file cut to the same bars"
  echo "ok $what"
}

SW=(--family ma_cross --fast 5:20:5 --slow 30,60 --ma sma,ema --top 3 --json --no-selection)
# --end DATE: up to and including that day.
awk -F, 'NR == 1 || $1 <= "2010-12-31"' "$GOOG" >"$TMP/to2010.csv"
agree "sweep --end 2010-12-31" "$TMP/to2010.csv" sweep "${SW[@]}" -- --csv "$GOOG" --end 2010-12-31
[[ $(field "$TMP/out" 'd["window"]["last_ts"]') == 2010-12-31T00:00:00Z ]] || fail "--end 2010-12-31: window ends $(field "$TMP/out" 'd["window"]["last_ts"]')"
# --end INDEX: bar 1200 the last.
head -n 1202 "$GOOG" >"$TMP/to1200.csv"
agree "sweep --end 1200" "$TMP/to1200.csv" sweep "${SW[@]}" -- --csv "$GOOG" --end 1200
# --start DATE: the anchor moves (EMA seeds with it): as a file starting there.
awk -F, 'NR == 1 || $1 >= "2006-01-01"' "$GOOG" >"$TMP/from2006.csv"
agree "sweep --start 2006-01-01 (ema)" "$TMP/from2006.csv" sweep "${SW[@]}" -- --csv "$GOOG" --start 2006-01-01
awk -F, 'NR == 1 || ($1 >= "2006-01-01" && $1 <= "2010-12-31")' "$GOOG" >"$TMP/2006_2010.csv"
agree "walk --start --end" "$TMP/2006_2010.csv" walk --family ma_cross --fast 5:20:5 --slow 30,60 \
  --is 300 --oos 100 --json -- --csv "$GOOG" --start 2006-01-01 --end 2010-12-31
idx=$(awk -F, 'NR > 1 && $1 >= "2006-01-01" { print NR - 2; exit }' "$GOOG")
agree "positions --start INDEX --end DATE" "$TMP/2006_2010.csv" positions --family ma_cross \
  --fast 5 --slow 30 --ma ema --id 0 -- --csv "$GOOG" --start "$idx" --end 2010-12-31
run_wfo positions --csv "$GOOG" --family rsi_reversion --n 14 --lo 30 --hi 70 --id 0 --end 2006-03-31
cp "$TMP/out" "$TMP/rsi_full.out"
run_wfo positions --csv "$GOOG" --family rsi_reversion --n 14 --lo 30 --hi 70 --id 0 --start 2006-01-01 --end 2006-03-31
[[ $(wc -l <"$TMP/out") -lt $(wc -l <"$TMP/rsi_full.out") ]] || fail "positions --start: not cut"

# Intraday, --end DATE runs to the day's last minute.
awk -F, 'NR == 1 || $1 < "2012-02-09"' "$M1" >"$TMP/m1_to08.csv"
agree "minute sweep --end 2012-02-08" "$TMP/m1_to08.csv" sweep "${SW[@]}" --bars-per-year 525600 -- \
  --csv "$M1" --end 2012-02-08
[[ $(field "$TMP/out" 'd["window"]["last_ts"]') == 2012-02-08T23:59:00Z ]] || fail "minute --end: window ends $(field "$TMP/out" 'd["window"]["last_ts"]')"

# Errors name the problem.
run_wfo sweep --csv "$GOOG" "${SW[@]}" --start 2011-01-01 --end 2010-12-31
expect_rc 2 "--start after --end"
expect_err "no bar is left between --start 2011-01-01 and --end 2010-12-31" "--start after --end"
run_wfo sweep --csv "$GOOG" "${SW[@]}" --end 31/12/2010
expect_rc 2 "--end 31/12/2010"
expect_err "--end: expected a date (YYYY-MM-DD)" "--end 31/12/2010"
run_wfo sweep --csv "$GOOG" "${SW[@]}" --end 9999
expect_rc 2 "--end 9999"
expect_err "--end 9999: the file has 2148 bars" "--end 9999"
run_wfo sweep --help
grep -q "EMA and RSI seeds" "$TMP/out" || fail "sweep --help does not say the seeds move with --start"
echo "PASS"
