#!/usr/bin/env bash
# SPEC v1.2 on the shared real data, on every backend this build can run: §6's dead band (a
# trade within rounding of 0 is flat: 782 wins, where cpu_ref once counted a +3.7e-20 trade as
# the 783rd) and §7's rank key (two bollinger combos making the same trades up to rounding rank
# by id: [0, 1], where cpu and cuda once ranked [1, 0]). A backend that cannot run here (cuda
# without a GPU) is skipped with its reason; cpu_ref and cpu always run.
# usage: wfo_spec_v12_test.sh WFO SHARED_DATA_DIR
set -euo pipefail
WFO=${1:?usage: wfo_spec_v12_test.sh WFO SHARED_DATA_DIR}
DATA=${2:?usage: wfo_spec_v12_test.sh WFO SHARED_DATA_DIR}
source "$(dirname "$0")/lib.sh"

CSV="$DATA/unittestbtc_m1_2017-11.csv"
if [[ ! -r "$CSV" ]]; then
  echo "SKIP: $CSV not readable (the shared data beside the checkout)"
  exit 77
fi

# field JSON_FILE EXPR: a Python expression over the parsed document `d`.
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

ran=0
for backend in cpu_ref cpu cuda; do
  run_wfo sweep --backend "$backend" --csv "$CSV" --family ma_cross --fast 3 --slow 5 --ma sma \
    --side long_only --entry cross --fill next_open --window 13000 --warmup 60 \
    --bars-per-year 525600 --json
  if [[ $RC -ne 0 && $backend == cuda ]]; then
    echo "SKIP backend cuda: $(tail -n 1 "$TMP/err")"
    continue
  fi
  expect_rc 0 "$backend: ma_cross 3/5 sweep"
  cp "$TMP/out" "$TMP/wins.json"
  wins=$(field "$TMP/wins.json" 'd["top"][0]["metrics"]["wins"]')
  [[ $wins == 782 ]] || fail "$backend: wins $wins, SPEC v1.2 §6 gives 782 (a trade of +3.7e-20 is flat)"

  run_wfo sweep --backend "$backend" --csv "$CSV" --family bollinger --n 16,18 --k 0.5 \
    --style reversion --fill next_open --window 300 --warmup 100 --bars-per-year 525600 \
    --objective calmar --json
  expect_rc 0 "$backend: bollinger near-tie sweep"
  cp "$TMP/out" "$TMP/tie.json"
  ids=$(field "$TMP/tie.json" '[e["id"] for e in d["top"]]')
  [[ $ids == "[0, 1]" ]] || fail "$backend: top ids $ids, SPEC v1.2 §7's rank key gives [0, 1]"
  echo "ok $backend: 782 wins, ids [0, 1]"
  ran=$((ran + 1))
done
((ran >= 2)) || fail "fewer than two backends ran"
echo "PASS ($ran backends)"
