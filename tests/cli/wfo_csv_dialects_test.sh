#!/usr/bin/env bash
# Data a user already has: a Yahoo-style export (Date, Adj Close, any case) and an
# exchange-style ';' file of epoch milliseconds give wfo sweep and walk exactly the result
# of the canonical file with the same bars, with a note that Adj Close is not used; intraday
# bars without --bars-per-year are annualised at the observed rate, and the plan says so.
# usage: wfo_csv_dialects_test.sh WFO CSV   (CSV: the canonical daily file)
set -euo pipefail
WFO=${1:?usage: wfo_csv_dialects_test.sh WFO CSV}
CSV=${2:?usage: wfo_csv_dialects_test.sh WFO CSV}
source "$(dirname "$0")/lib.sh"

# The canonical file's bars as Yahoo writes them: Adj Close = close / 2 (must not be used).
awk -F, 'NR == 1 { print "Date,Open,High,Low,Close,Adj Close,Volume"; next }
         { printf "%s,%s,%s,%s,%s,%.6f,%s\n", $1, $2, $3, $4, $5, $5 / 2, $6 }' \
  "$CSV" >"$TMP/yahoo.csv"
# ... and as an exchange writes them: ';', epoch ms close times (date-only rows are 00:00 UTC).
# Days since 1970 from a civil date (proleptic Gregorian, years counted from March).
awk -F, 'function days(y, m, d,   era, yoe, doy) {
           if (m <= 2) y -= 1;
           era = int(y / 400); yoe = y - era * 400;
           doy = int((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
           return era * 146097 + yoe * 365 + int(yoe / 4) - int(yoe / 100) + doy - 719468 }
         NR == 1 { print "open_time;Open;High;Low;Close;Volume;close_time"; next }
         { split($1, d, "-"); s = days(d[1] + 0, d[2] + 0, d[3] + 0) * 86400;
           printf "%d000;%s;%s;%s;%s;%s;%d000\n", s - 86400, $2, $3, $4, $5, $6, s }' \
  "$CSV" >"$TMP/exchange.csv"

# same_result A B: two --json results agree in everything but the run's timings.
same_result() {
  cmp -s <(grep -vE '"(seconds|[a-z_]*_seconds|[a-z_]*per_second|[a-z_]*_ms)"' "$1") \
    <(grep -vE '"(seconds|[a-z_]*_seconds|[a-z_]*per_second|[a-z_]*_ms)"' "$2")
}

SWEEP=(--family ma_cross --fast 5:25:10 --slow 30:90:30 --top 3 --json)
run_wfo sweep --csv "$CSV" "${SWEEP[@]}"
expect_rc 0 "sweep, canonical file"
cp "$TMP/out" "$TMP/canonical.json"
! grep -qE "not used|warning" "$TMP/err" || fail "sweep, canonical file: a note or warning"

run_wfo sweep --csv "$TMP/yahoo.csv" "${SWEEP[@]}"
expect_rc 0 "sweep, Yahoo-style file"
expect_err "yahoo.csv: column 'Adj Close' is not used" "sweep, Yahoo-style file"
[[ $(grep -c "Adj Close" "$TMP/err") -eq 1 ]] || fail "the Adj Close note is not said once"
same_result "$TMP/out" "$TMP/canonical.json" ||
  fail "sweep, Yahoo-style file: result differs from the canonical file's"

run_wfo sweep --csv "$TMP/exchange.csv" "${SWEEP[@]}"
expect_rc 0 "sweep, exchange-style file"
same_result "$TMP/out" "$TMP/canonical.json" ||
  fail "sweep, exchange-style file: result differs from the canonical file's"

WALK=(--family ma_cross --fast 5:25:10 --slow 30:90:30 --is 500 --oos 250 --json)
run_wfo walk --csv "$CSV" "${WALK[@]}"
expect_rc 0 "walk, canonical file"
cp "$TMP/out" "$TMP/canonical_walk.json"
run_wfo walk --csv "$TMP/yahoo.csv" "${WALK[@]}"
expect_rc 0 "walk, Yahoo-style file"
same_result "$TMP/out" "$TMP/canonical_walk.json" ||
  fail "walk, Yahoo-style file: result differs from the canonical file's"

# Intraday bars without --bars-per-year: annualised at the rate observed in the file (issue
# 42 §3; this replaced the warning that they were annualised as if daily), said in the plan.
minute_csv "$TMP/minute.csv" 2000
run_wfo sweep --csv "$TMP/minute.csv" --family ma_cross --fast 5 --slow 20
expect_rc 0 "sweep, minute bars without --bars-per-year"
expect_err "525,960 bars per year (observed in the file: median interval 60 s" \
  "sweep, minute bars without --bars-per-year"
run_wfo walk --csv "$TMP/minute.csv" --family ma_cross --fast 5 --slow 20 --is 500 --oos 250
expect_rc 0 "walk, minute bars without --bars-per-year"
expect_err "525,960 bars per year (observed" "walk, minute bars without --bars-per-year"
run_wfo sweep --csv "$TMP/minute.csv" --family ma_cross --fast 5 --slow 20 --bars-per-year 252
expect_rc 0 "sweep, minute bars with --bars-per-year 252"
expect_err "252 bars per year (flag)" "sweep, minute bars with --bars-per-year 252"
echo "OK"
