#!/usr/bin/env bash
# Issue 42 §3, the trades: `wfo trades` prints every trade of the top combo (and with --walk
# of the stitched OOS series), and --report writes the same as trades.csv. On the shared real
# data, three invariants: its rows are the JSON's `trades`, its winners the JSON's `wins`, and
# its returns sum to the window's Σ s within 1e-12·Σ|v| (Σ s computed here from SPEC §2 and
# `wfo positions`, or for a walk from the report's equity.csv).
# usage: wfo_trades_test.sh WFO SHARED_DATA_DIR
set -euo pipefail
WFO=${1:?usage: wfo_trades_test.sh WFO SHARED_DATA_DIR}
DATA=${2:?usage: wfo_trades_test.sh WFO SHARED_DATA_DIR}
source "$(dirname "$0")/lib.sh"
BTC="$DATA/unittestbtc_m1_2017-11.csv"
GOOG="$DATA/goog_d1_2004-2013.csv"
[[ -r "$BTC" && -r "$GOOG" ]] || { echo "SKIP: no shared data in $DATA"; exit 77; }
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# check_sweep WHAT CSV COST FILL FLAGS...: trades vs sweep --json vs SPEC §2 from positions.
check_sweep() {
  local what=$1 csv=$2 cost=$3 fill=$4
  shift 4
  local flags=(--csv "$csv" --cost-bps "$cost" --fill "$fill" "$@")
  run_wfo sweep "${flags[@]}" --json --no-selection --top 1
  expect_rc 0 "$what: sweep"
  cp "$TMP/out" "$TMP/sweep.json"
  run_wfo trades "${flags[@]}"
  expect_rc 0 "$what: trades"
  cp "$TMP/out" "$TMP/trades.csv"
  local pflags=() skip=0 a  # positions takes no --window (it decides every bar)
  for a in "${flags[@]}"; do
    if ((skip)); then skip=0; continue; fi
    if [[ $a == --window ]]; then skip=1; continue; fi
    pflags+=("$a")
  done
  run_wfo positions "${pflags[@]}" --id "$(field "$TMP/sweep.json" 'd["top"][0]["id"]')"
  expect_rc 0 "$what: positions"
  cp "$TMP/out" "$TMP/positions.csv"
  python3 - "$csv" "$TMP/positions.csv" "$TMP/sweep.json" "$TMP/trades.csv" "$cost" "$fill" <<'PY' || fail "$what: invariants"
import csv, json, sys
bars = list(csv.DictReader(open(sys.argv[1])))
o = [float(b["open"]) for b in bars]; c = [float(b["close"]) for b in bars]
p = [int(r["position"]) for r in csv.DictReader(open(sys.argv[2]))]
d = json.load(open(sys.argv[3])); m = d["top"][0]["metrics"]
trades = list(csv.DictReader(open(sys.argv[4])))
cost = float(sys.argv[5]) / 1e4; fill = sys.argv[6]
first, last = d["window"]["first"], d["window"]["last"]
pos = lambda t: p[t] if t >= 0 else 0
sum_s = 0.0
for t in range(first, last + 1):  # SPEC §2, written again here
    p2, p1 = pos(t - 2), pos(t - 1)
    x = c[t - 1] if fill == "close" else o[t]
    ch = p1 != p2
    sum_s += p2 * (x - c[t - 1]) / c[t - 1] - (cost * abs(p2) if ch else 0)
    sum_s += p1 * (c[t] - x) / c[t - 1] - (cost * abs(p1) if ch else 0)
rows, wins = len(trades), sum(1 for r in trades if r["outcome"] == "win")
ret = sum(float(r["return"]) for r in trades); absv = sum(float(r["abs_sum"]) for r in trades)
ok = rows == m["trades"] and wins == m["wins"] and abs(ret - sum_s) <= 1e-12 * absv
print(f"rows {rows} / trades {m['trades']}, wins {wins} / {m['wins']}, "
      f"sum {ret!r} / {sum_s!r} (|diff| {abs(ret - sum_s):.3g} <= {1e-12 * absv:.3g})")
sys.exit(0 if ok else 1)
PY
  echo "ok $what"
}

check_sweep "btc 3/5 cross next_open (782 wins, flat trades)" "$BTC" 0 next_open --family ma_cross \
  --fast 3 --slow 5 --ma sma --side long_only --entry cross --window 13000 --warmup 60 --bars-per-year 525600
check_sweep "btc bollinger long_short, costs" "$BTC" 5 close --family bollinger --n 20,40 --k 1.5,2 \
  --style reversion,breakout --bars-per-year 525600
check_sweep "goog ma_cross, costs, window from a trade held" "$GOOG" 2 next_open --family ma_cross \
  --fast 5:20:5 --slow 30,60 --ma sma,ema --window 1000

# A walk: trades.csv of the report equals wfo trades --walk; invariants against walk --json
# and the report's equity (s_t = E_t / E_{t-1} - 1).
WALK=(--csv "$GOOG" --family ma_cross --fast 5:20:5 --slow 30,60 --is 500 --oos 250 --cost-bps 2)
run_wfo walk "${WALK[@]}" --json --report "$TMP/rep"
expect_rc 0 "walk --report"
cp "$TMP/out" "$TMP/walk.json"
[[ -s "$TMP/rep/trades.csv" ]] || fail "walk --report: no trades.csv"
run_wfo trades --walk "${WALK[@]}"
expect_rc 0 "trades --walk"
cmp -s "$TMP/out" "$TMP/rep/trades.csv" || fail "trades --walk differs from the report's trades.csv"
python3 - "$TMP/walk.json" "$TMP/rep/trades.csv" "$TMP/rep/equity.csv" <<'PY' || fail "walk: invariants"
import csv, json, sys
m = json.load(open(sys.argv[1]))["oos"]
trades = list(csv.DictReader(open(sys.argv[2])))
eq = [1.0] + [float(r["oos_equity"]) for r in csv.DictReader(open(sys.argv[3]))]
sum_s = sum(eq[i] / eq[i - 1] - 1 for i in range(1, len(eq)))
rows, wins = len(trades), sum(1 for r in trades if r["outcome"] == "win")
ret = sum(float(r["return"]) for r in trades); absv = sum(float(r["abs_sum"]) for r in trades)
print(f"walk: rows {rows} / {m['trades']}, wins {wins} / {m['wins']}, sum {ret!r} / {sum_s!r}")
sys.exit(0 if rows == m["trades"] and wins == m["wins"] and abs(ret - sum_s) <= 1e-12 * absv else 1)
PY
echo "ok walk: trades.csv = wfo trades --walk, invariants hold"
# A sweep's report has trades.csv too, the same as wfo trades.
run_wfo sweep --csv "$GOOG" --family ma_cross --fast 5:20:5 --slow 30,60 --no-selection --report "$TMP/srep"
expect_rc 0 "sweep --report"
run_wfo trades --csv "$GOOG" --family ma_cross --fast 5:20:5 --slow 30,60
cmp -s "$TMP/out" "$TMP/srep/trades.csv" || fail "wfo trades differs from the sweep report's trades.csv"
echo "PASS"
