#!/usr/bin/env bash
# Issue 42 §3, exports people have: a MetaTrader 5 export (tab separated, <ANGLE> headers,
# <DATE> and <TIME> columns, dotted dates, TICKVOL/VOL/SPREAD), a Stooq-style intraday file
# (Date,Time,Open,...) and headerless exchange klines named with --columns (ts or close_time,
# '_' to skip one) each give wfo the bars, and the result, of the canonical file. Written
# here, in those exact shapes, from the shared real minute data; and the errors name the
# problem (file, line, field).
# usage: wfo_csv_exports_test.sh WFO SHARED_DATA_DIR
set -euo pipefail
WFO=${1:?usage: wfo_csv_exports_test.sh WFO SHARED_DATA_DIR}
DATA=${2:?usage: wfo_csv_exports_test.sh WFO SHARED_DATA_DIR}
source "$(dirname "$0")/lib.sh"
SRC="$DATA/gbpusd_fxcm_bid_m1_2012-02.csv"
[[ -r "$SRC" ]] || { echo "SKIP: no shared data in $DATA"; exit 77; }

# The canonical file: the first 3,000 minute bars (timestamps YYYY-MM-DDTHH:MM:SSZ).
head -n 3001 "$SRC" >"$TMP/canonical.csv"
# MetaTrader 5: "<DATE>\t<TIME>\t<OPEN>\t<HIGH>\t<LOW>\t<CLOSE>\t<TICKVOL>\t<VOL>\t<SPREAD>".
awk -F, 'NR == 1 { printf "<DATE>\t<TIME>\t<OPEN>\t<HIGH>\t<LOW>\t<CLOSE>\t<TICKVOL>\t<VOL>\t<SPREAD>\n"; next }
         { d = substr($1, 1, 10); gsub("-", ".", d); t = substr($1, 12, 8);
           printf "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%d\n", d, t, $2, $3, $4, $5, NR, $6, 12 }' \
  "$TMP/canonical.csv" >"$TMP/mt5.csv"
# Stooq intraday: "Date,Time,Open,High,Low,Close,Volume".
awk -F, 'NR == 1 { print "Date,Time,Open,High,Low,Close,Volume"; next }
         { printf "%s,%s,%s,%s,%s,%s,%s\n", substr($1, 1, 10), substr($1, 12, 8), $2, $3, $4, $5, $6 }' \
  "$TMP/canonical.csv" >"$TMP/stooq.csv"
# Exchange klines, no header, 12 columns: open_time ms, o, h, l, c, v, close_time ms, quote
# volume, trades, taker base, taker quote, ignore. The canonical time is the close time.
python3 - "$TMP/canonical.csv" "$TMP/klines.csv" <<'PY'
import csv, sys
from datetime import datetime, timezone
rows = list(csv.reader(open(sys.argv[1])))[1:]
with open(sys.argv[2], "w") as out:
    for r in rows:
        ms = int(datetime.strptime(r[0], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).timestamp()) * 1000
        out.write(",".join([str(ms - 60000), r[1], r[2], r[3], r[4], r[5], str(ms), "0", "7", "0", "0", "0"]) + "\n")
PY

# same_result A B: two --json results agree in everything but the run's timings.
same_result() {
  cmp -s <(grep -vE '"(seconds|[a-z_]*_seconds|[a-z_]*per_second|[a-z_]*_ms)"' "$1") \
    <(grep -vE '"(seconds|[a-z_]*_seconds|[a-z_]*per_second|[a-z_]*_ms)"' "$2")
}
SW=(--family ma_cross --fast 5:15:5 --slow 30,60 --top 3 --no-selection --json)
run_wfo sweep --csv "$TMP/canonical.csv" "${SW[@]}"
expect_rc 0 "canonical"
cp "$TMP/out" "$TMP/canonical.json"

check() {  # check WHAT FILE [flags]
  local what=$1 file=$2
  shift 2
  run_wfo sweep --csv "$file" "${SW[@]}" "$@"
  expect_rc 0 "$what"
  same_result "$TMP/out" "$TMP/canonical.json" || fail "$what: result differs from the canonical file's"
  echo "ok $what"
}
check "MetaTrader 5 export" "$TMP/mt5.csv"
check "Stooq intraday (Date,Time)" "$TMP/stooq.csv"
check "klines, --columns with close_time" "$TMP/klines.csv" \
  --columns _,open,high,low,close,volume,close_time,_,_,_,_,_
# ts = the open time: the bars are a minute earlier, the same returns and ranking.
run_wfo sweep --csv "$TMP/klines.csv" "${SW[@]}" --columns ts,open,high,low,close,volume,_,_,_,_,_,_
expect_rc 0 "klines, --columns ts"
cmp -s <(grep -F '"id"' "$TMP/out") <(grep -F '"id"' "$TMP/canonical.json") || fail "klines ts: ranking differs"
echo "ok klines, --columns ts"
run_wfo walk --csv "$TMP/mt5.csv" --family ma_cross --fast 5 --slow 30 --is 1000 --oos 500 --no-selection --json
expect_rc 0 "walk on the MT5 export"

# Errors that name the problem.
run_wfo sweep --csv "$TMP/klines.csv" "${SW[@]}"
expect_rc 2 "klines without --columns"
expect_err "klines.csv:1: the first line is data, not a header" "klines without --columns"
expect_err "--columns" "klines without --columns"
run_wfo sweep --csv "$TMP/klines.csv" "${SW[@]}" --columns ts,open,high,low,close,volume
expect_rc 2 "klines, too few names"
expect_err "klines.csv:1: wrong number of fields: expected 6, got 12" "klines, too few names"
expect_err "name every column, '_' for one not used" "klines, too few names"
run_wfo sweep --csv "$TMP/klines.csv" "${SW[@]}" --columns ts,open,high,low,close,_,_,_,_,_,_,_
expect_rc 2 "klines, no volume named"
expect_err "missing column 'volume'" "klines, no volume named"
sed '3s/\t[0-9:]*\t/\t25:02:00\t/' "$TMP/mt5.csv" >"$TMP/mt5_bad.csv"
run_wfo sweep --csv "$TMP/mt5_bad.csv" "${SW[@]}"
expect_rc 2 "MT5, bad time"
expect_err "mt5_bad.csv:3: field 'timestamp': not a date and time of day (\"2012.02.01\", \"25:02:00\")" "MT5, bad time"
echo "PASS"
