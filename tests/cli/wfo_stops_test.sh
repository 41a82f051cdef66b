#!/usr/bin/env bash
# SPEC §5b stops through wfo: --stop-loss/--take-profit/--trailing-stop axes run on the
# cpu_ref backend (params in the JSON, positions that differ from the family's), out-of-range
# and malformed values, and the clean refusal (exit 2, the message naming cpu_ref) of the
# backends that do not run stops yet: cpu, and auto (which routes to cpu).
# usage: wfo_stops_test.sh WFO CSV
set -euo pipefail
WFO=${1:?usage: wfo_stops_test.sh WFO CSV}
CSV=${2:?usage: wfo_stops_test.sh WFO CSV}
source "$(dirname "$0")/lib.sh"
[[ -r "$CSV" ]] || { echo "SKIP: no $CSV"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }

GRID=(--csv "$CSV" --family ma_cross --fast 5:20:5 --slow 30:60:10)
REFUSAL="the cpu backend does not run stops yet (SPEC §5b); use --backend cpu_ref"

# cpu_ref runs a stop axis: 4 x 4 x 5 combos, every one valid, each top entry's params name
# the three stops (an absent axis is 0: off).
run_wfo sweep "${GRID[@]}" --stop-loss 0.01:0.05:0.01 --backend cpu_ref --json --no-selection
expect_rc 0 "cpu_ref sweep with --stop-loss"
python3 - "$TMP/out" <<'PY' || fail "cpu_ref sweep JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["evaluated"] == 80 and d["skipped"] == 0, (d["evaluated"], d["skipped"])
for e in d["top"]:
    p = e["params"]
    assert p["stop_loss"] in (0.01, 0.02, 0.03, 0.04, 0.05), p
    assert p["take_profit"] == 0 and p["trailing_stop"] == 0, p
    # ids: fast, slow, ma, side, entry, then stop_loss (SPEC §5's canonical order)
    assert e["id"] // 16 == [0.01, 0.02, 0.03, 0.04, 0.05].index(p["stop_loss"]), e
PY

# Without a stop axis the JSON's params are those of every earlier release.
run_wfo sweep "${GRID[@]}" --backend cpu_ref --json --no-selection --top 1
expect_rc 0 "cpu_ref sweep without stops"
python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["top"][0]["params"]; assert sorted(p) == ["entry","fast","ma","side","slow"], p' "$TMP/out" ||
  fail "params without stops"

# A stop changes positions: a 1% trailing stop flattens some bars the family holds.
run_wfo positions --csv "$CSV" --family ma_cross --fast 10 --slow 50 --id 0 --backend cpu_ref
expect_rc 0 "positions without stops"
cp "$TMP/out" "$TMP/plain.csv"
run_wfo positions --csv "$CSV" --family ma_cross --fast 10 --slow 50 --trailing-stop 0.01 --id 0 \
  --backend cpu_ref
expect_rc 0 "positions with a trailing stop"
cmp -s "$TMP/out" "$TMP/plain.csv" && fail "a 1% trailing stop changed no position"

# A walk with stops runs on cpu_ref.
run_wfo walk "${GRID[@]}" --take-profit 0,0.1 --backend cpu_ref --is 500 --oos 250 \
  --no-selection --json
expect_rc 0 "cpu_ref walk with --take-profit"

# Refusals: exit 2 with the message, no crash, for cpu and auto; positions too.
for backend in cpu auto; do
  run_wfo sweep "${GRID[@]}" --stop-loss 0.01:0.05:0.01 --backend "$backend"
  no_abort "--backend $backend"
  expect_rc 2 "--backend $backend with stops"
  expect_err "$REFUSAL" "--backend $backend with stops"
done
run_wfo positions --csv "$CSV" --family ma_cross --fast 10 --slow 50 --stop-loss 0.02 --id 0 \
  --backend cpu
expect_rc 2 "positions --backend cpu with stops"
expect_err "$REFUSAL" "positions --backend cpu with stops"

# Values: out of range is a skipped combo; a grid of nothing else is an input error.
run_wfo sweep "${GRID[@]}" --stop-loss 0.02,1 --backend cpu_ref --json --no-selection
expect_rc 0 "stop_loss 1 among valid values"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["evaluated"] == 16 and d["skipped"] == 16, d["skipped"]' "$TMP/out" ||
  fail "stop_loss 1 is skipped"
run_wfo sweep "${GRID[@]}" --trailing-stop 1.5 --backend cpu_ref
expect_rc 2 "trailing_stop out of range"
expect_err "have a stop out of its range" "trailing_stop out of range"
run_wfo sweep "${GRID[@]}" --take-profit abc --backend cpu_ref
expect_rc 2 "malformed --take-profit"
expect_err "--take-profit: not a number 'abc'" "malformed --take-profit"
run_wfo sweep "${GRID[@]}" --stop-loss 0.01,0.01 --backend cpu_ref
expect_rc 2 "repeated --stop-loss"
expect_err "--stop-loss: lists 0.01 more than once" "repeated --stop-loss"
echo PASS
