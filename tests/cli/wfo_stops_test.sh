#!/usr/bin/env bash
# SPEC §5b stops through wfo: --stop-loss/--take-profit/--trailing-stop axes run on the
# cpu_ref backend (params in the JSON, positions that differ from the family's), on cpu and
# on auto (the device where there is one, else cpu) with cpu_ref's results (ids, trades,
# metrics within SPEC §9, positions to the bit), out-of-range and malformed values. (cuda's
# stops, which need a device, are held to cpu_ref by tests/parity/cuda_stops_parity_test.cpp.)
# usage: wfo_stops_test.sh WFO CSV
set -euo pipefail
WFO=${1:?usage: wfo_stops_test.sh WFO CSV}
CSV=${2:?usage: wfo_stops_test.sh WFO CSV}
source "$(dirname "$0")/lib.sh"
[[ -r "$CSV" ]] || { echo "SKIP: no $CSV"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }

GRID=(--csv "$CSV" --family ma_cross --fast 5:20:5 --slow 30:60:10)

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

# cpu and auto give cpu_ref's sweep: every stop kind, both sides, next_open fills, a walk.
STOPS=(--stop-loss 0,0.03 --take-profit 0,0.08 --trailing-stop 0,0.04 --side long_short,long_only
  --fill next_open --cost-bps 2 --json --no-selection --top 40)
run_wfo sweep "${GRID[@]}" "${STOPS[@]}" --backend cpu_ref
expect_rc 0 "cpu_ref sweep with every stop"
cp "$TMP/out" "$TMP/ref.json"
for backend in cpu auto; do
  run_wfo sweep "${GRID[@]}" "${STOPS[@]}" --backend "$backend"
  no_abort "--backend $backend"
  expect_rc 0 "--backend $backend with stops"
  python3 - "$TMP/out" "$TMP/ref.json" <<'PY' || fail "--backend $backend: not cpu_ref's sweep"
import json, sys
got, want = (json.load(open(p)) for p in sys.argv[1:3])
assert got["evaluated"] == want["evaluated"] == 256, (got["evaluated"], want["evaluated"])
assert [e["id"] for e in got["top"]] == [e["id"] for e in want["top"]], "top ids differ"
for g, w in zip(got["top"], want["top"]):
    for k, a in w["metrics"].items():
        b = g["metrics"][k]
        if k in ("trades", "wins"):
            assert a == b, (g["id"], k, a, b)
        elif isinstance(a, (int, float)):
            assert abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-300) or abs(a - b) <= 1e-12, (
                g["id"], k, a, b)
PY
done
# Robust selection (SPEC §10's defaults: DSR, PBO from block summaries) with stops: cpu's
# decisions are cpu_ref's.
SEL=(sweep "${GRID[@]}" --stop-loss 0,0.03 --trailing-stop 0,0.04 --side long_short,long_only
  --json)
for backend in cpu_ref cpu; do
  run_wfo "${SEL[@]}" --backend "$backend"
  expect_rc 0 "--backend $backend sweep with stops and selection"
  cp "$TMP/out" "$TMP/sel_$backend.json"
done
python3 - "$TMP/sel_cpu.json" "$TMP/sel_cpu_ref.json" <<'PY' || fail "selection with stops: cpu is not cpu_ref"
import json, sys
got, want = (json.load(open(p))["selection"] for p in sys.argv[1:3])
for k in ("raw", "winner", "published"):
    assert got[k]["id"] == want[k]["id"], (k, got[k]["id"], want[k]["id"])
for k in ("pbo", "dsr"):
    a, b = got[k][k], want[k][k]
    assert abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-300) or abs(a - b) <= 1e-12, (k, a, b)
PY
for backend in cpu cpu_ref; do
  run_wfo positions --csv "$CSV" --family ma_cross --fast 10 --slow 50 --stop-loss 0.02 \
    --trailing-stop 0.03 --fill next_open --id 0 --backend "$backend"
  expect_rc 0 "positions --backend $backend with stops"
  cp "$TMP/out" "$TMP/positions_$backend.csv"
done
cmp -s "$TMP/positions_cpu.csv" "$TMP/positions_cpu_ref.csv" ||
  fail "positions with stops: cpu differs from cpu_ref"
# A walk with stops on cpu: cpu_ref's fold winners and out-of-sample series (its positions
# come from positions(), which carries the stops too).
WALK=(walk "${GRID[@]}" --take-profit 0,0.1 --trailing-stop 0,0.05 --is 500 --oos 250
  --no-selection --json)
run_wfo "${WALK[@]}" --backend cpu_ref
expect_rc 0 "cpu_ref walk with stops"
cp "$TMP/out" "$TMP/walk_ref.json"
run_wfo "${WALK[@]}" --backend cpu
expect_rc 0 "cpu walk with stops"
python3 - "$TMP/out" "$TMP/walk_ref.json" <<'PY' || fail "cpu walk with stops: not cpu_ref's"
import json, sys
got, want = (json.load(open(p)) for p in sys.argv[1:3])
assert [f["id"] for f in got["folds"]] == [f["id"] for f in want["folds"]], "fold winners differ"
for k in ("trades", "wins", "long_bars", "short_bars", "changes"):
    assert got["oos"][k] == want["oos"][k], (k, got["oos"][k], want["oos"][k])
a, b = got["oos"]["total_return"], want["oos"]["total_return"]
assert abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-300) or abs(a - b) <= 1e-12, (a, b)
PY

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
