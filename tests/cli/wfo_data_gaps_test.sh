#!/usr/bin/env bash
# Issue 42 §3, holes in the data: a gap longer than both 5x the median bar interval and 4
# days is warned about (count, largest, dates), since the bars either side of it count as
# consecutive; every gap over 5x the median is listed in --json "gaps" and the report's
# inputs. Weekends, holidays and session breaks of the shared real data are not holes.
# usage: wfo_data_gaps_test.sh WFO SHARED_DATA_DIR
set -euo pipefail
WFO=${1:?usage: wfo_data_gaps_test.sh WFO SHARED_DATA_DIR}
DATA=${2:?usage: wfo_data_gaps_test.sh WFO SHARED_DATA_DIR}
source "$(dirname "$0")/lib.sh"
GOOG="$DATA/goog_d1_2004-2013.csv"
FUT="$DATA/estx50fut_m1_2006-01-02.csv"
[[ -r "$GOOG" && -r "$FUT" ]] || { echo "SKIP: no shared data in $DATA"; exit 77; }
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
SW=(--family ma_cross --fast 5 --slow 20 --no-selection --json)

# Daily bars as they are: weekends and holidays are neither holes nor listed.
run_wfo sweep --csv "$GOOG" "${SW[@]}"
expect_rc 0 "goog"
! grep -q "hole" "$TMP/err" || fail "goog: a hole warned about in whole daily data"
[[ $(field "$TMP/out" 'len(d["gaps"]["list"])') == 0 ]] || fail "goog: gaps listed: $(field "$TMP/out" 'd["gaps"]')"
echo "ok goog: no gaps"

# Six months cut out of them: one hole, warned about with its dates, listed in the JSON.
awk -F, 'NR == 1 || $1 < "2008-03-01" || $1 > "2008-08-31"' "$GOOG" >"$TMP/holed.csv"
run_wfo sweep --csv "$TMP/holed.csv" "${SW[@]}"
expect_rc 0 "holed goog"
expect_err "holed.csv: 1 hole in the data (gaps over 5x the median interval of 24 hours and over 4 days); the largest, 186 days, from 2008-02-29T00:00:00Z" "holed goog"
expect_err "to 2008-09-02T00:00:00Z" "holed goog"
[[ $(field "$TMP/out" 'd["gaps"]["holes"]') == 1 ]] || fail "holed goog: holes $(field "$TMP/out" 'd["gaps"]["holes"]')"
[[ $(field "$TMP/out" '[(g["from"][:10], g["to"][:10], g["hole"]) for g in d["gaps"]["list"]]') == \
  "[('2008-02-29', '2008-09-02', True)]" ]] ||
  fail "holed goog: gaps $(field "$TMP/out" 'd["gaps"]["list"]')"
echo "ok holed goog: 1 hole warned and listed"

# Minute bars with overnight and weekend session breaks: listed, no hole.
run_wfo sweep --csv "$FUT" "${SW[@]}"
expect_rc 0 "estx50fut"
! grep -q "hole" "$TMP/err" || fail "estx50fut: session breaks warned about as holes"
n=$(field "$TMP/out" 'len(d["gaps"]["list"])')
((n > 30)) || fail "estx50fut: only $n session breaks listed"
[[ $(field "$TMP/out" 'd["gaps"]["holes"]') == 0 ]] || fail "estx50fut: holes counted"
echo "ok estx50fut: $n session breaks listed, no hole"

# Two holes: the warning counts them and names the largest; walk and the report list them.
awk -F, 'NR == 1 || $1 < "2011-01-03" || $1 > "2011-01-31"' "$TMP/holed.csv" >"$TMP/holed3.csv"
run_wfo walk --csv "$TMP/holed3.csv" --family ma_cross --fast 5 --slow 20 --is 500 --oos 250 \
  --no-selection --json --report "$TMP/rep"
expect_rc 0 "walk, two holes"
expect_err "2 holes in the data" "walk, two holes"
expect_err "the largest, 186 days" "walk, two holes"
[[ $(field "$TMP/out" 'd["gaps"]["holes"]') == 2 ]] || fail "walk --json: holes"
[[ $(field "$TMP/rep/report.json" 'd["inputs"]["gaps"]["holes"]') == 2 ]] || fail "report inputs: holes"
grep -q "gapsText" "$TMP/rep/report.html" || fail "report.html does not show the gaps"
echo "PASS"
