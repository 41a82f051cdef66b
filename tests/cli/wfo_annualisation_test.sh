#!/usr/bin/env bash
# Issue 42 §3, annualisation: offline, bars whose median interval is not one day and no
# --bars-per-year (or config bars_per_year) are annualised at the bars per year observed in
# the file, round((N-1) x 365.25 days / (ts_last - ts_first)); daily bars keep 252. The value
# and its source (flag|config|daily_default|observed) are in the plan line, the --json
# document and the report's inputs. On the shared real data (hourly, minute, monthly, daily).
# usage: wfo_annualisation_test.sh WFO SHARED_DATA_DIR
set -euo pipefail
WFO=${1:?usage: wfo_annualisation_test.sh WFO SHARED_DATA_DIR}
DATA=${2:?usage: wfo_annualisation_test.sh WFO SHARED_DATA_DIR}
source "$(dirname "$0")/lib.sh"
[[ -r "$DATA/eurusd_h1_2017-2018.csv" ]] || { echo "SKIP: no shared data in $DATA"; exit 77; }

# field JSON_FILE EXPR: a Python expression over the parsed document `d`.
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# observed CSV: the formula, from the file's first and last timestamps, independently.
observed() {
  python3 - "$1" <<'PY'
import csv, sys
from datetime import datetime, timezone
rows = list(csv.reader(open(sys.argv[1])))[1:]
def ts(t):
    t = t.rstrip("Z")
    d = datetime.fromisoformat(t) if "T" in t or " " in t else datetime.fromisoformat(t + "T00:00:00")
    return d.replace(tzinfo=timezone.utc).timestamp()
span = ts(rows[-1][0]) - ts(rows[0][0])
print(round((len(rows) - 1) * 365.25 * 86400 / span))
PY
}

SW=(--family ma_cross --fast 5 --slow 20 --no-selection)
check() {  # check FILE EXPECTED_A EXPECTED_SOURCE [flags...]
  local file=$1 want=$2 src=$3
  shift 3
  run_wfo sweep --csv "$file" "${SW[@]}" --json "$@"
  expect_rc 0 "sweep $(basename "$file") $*"
  local got gsrc
  got=$(field "$TMP/out" 'd["bars_per_year"]')
  gsrc=$(field "$TMP/out" 'd["bars_per_year_source"]')
  [[ $got == "$want" || $got == "$want.0" ]] || fail "$(basename "$file") $*: bars_per_year $got, expected $want"
  [[ $gsrc == "$src" ]] || fail "$(basename "$file") $*: bars_per_year_source $gsrc, expected $src"
  grep -q "wfo: plan: .*; [0-9,.]* bars per year ($src" "$TMP/err" ||
    fail "$(basename "$file") $*: the plan line does not say A and its source"
  echo "ok $(basename "$file") $*: $got ($src)"
}

H1="$DATA/eurusd_h1_2017-2018.csv"
check "$H1" "$(observed "$H1")" observed
M1="$DATA/gbpusd_fxcm_bid_m1_2012-02.csv"
check "$M1" "$(observed "$M1")" observed
MO="$DATA/btcusd_mo1_2012-2024.csv"
run_wfo sweep --csv "$MO" --family ma_cross --fast 2 --slow 4 --warmup 12 --no-selection --json
expect_rc 0 "monthly sweep"
[[ $(field "$TMP/out" 'd["bars_per_year"]') == 12* ]] || fail "monthly bars: bars_per_year $(field "$TMP/out" 'd["bars_per_year"]'), expected 12"
[[ $(field "$TMP/out" 'd["bars_per_year_source"]') == observed ]] || fail "monthly bars: source not observed"
echo "ok monthly: 12 (observed)"
check "$DATA/goog_d1_2004-2013.csv" 252 daily_default
check "$H1" 6240 flag --bars-per-year 6240
# The observed A is what the metrics use: the same run with it as a flag agrees.
run_wfo sweep --csv "$H1" "${SW[@]}" --json
cp "$TMP/out" "$TMP/observed.json"
run_wfo sweep --csv "$H1" "${SW[@]}" --json --bars-per-year "$(observed "$H1")"
cmp -s <(field "$TMP/observed.json" 'd["top"]') <(field "$TMP/out" 'd["top"]') ||
  fail "metrics with the observed A differ from those with the same A as a flag"

# A config's symbol bars_per_year is the config's.
cat >"$TMP/h1.toml" <<TOML
[[symbol]]
name = "EURUSD"
bars_per_year = 6000
backfill = "$H1"

[[strategy]]
name = "h1"
symbols = ["EURUSD"]
family = "ma_cross"
window = 1000
[strategy.grid]
fast = 5
slow = 20
TOML
run_wfo sweep --config "$TMP/h1.toml" --no-selection --json
expect_rc 0 "sweep --config"
[[ $(field "$TMP/out" 'd["bars_per_year"]') == 6000* && $(field "$TMP/out" 'd["bars_per_year_source"]') == config ]] ||
  fail "config bars_per_year: $(field "$TMP/out" '[d["bars_per_year"], d["bars_per_year_source"]]')"
echo "ok config: 6000 (config)"

# walk says it too, and the report's inputs and page carry it.
run_wfo walk --csv "$H1" --family ma_cross --fast 5 --slow 20 --is 1000 --oos 500 --no-selection \
  --json --report "$TMP/rep"
expect_rc 0 "walk --report"
[[ $(field "$TMP/out" 'd["bars_per_year_source"]') == observed ]] || fail "walk --json: source not observed"
[[ $(field "$TMP/rep/report.json" 'd["inputs"]["bars_per_year_source"]') == observed ]] ||
  fail "report.json inputs: source not observed"
[[ $(field "$TMP/rep/report.json" 'd["inputs"]["bars_per_year"]') == "$(observed "$H1")"* ]] ||
  fail "report.json inputs: bars_per_year is not the observed one"
grep -q "bpyText" "$TMP/rep/report.html" || fail "report.html does not show the source"
echo "PASS"
