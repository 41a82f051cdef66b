#!/usr/bin/env bash
# SPEC §5a rules strategies through wfo, as a user runs them: the two strategies of
# config/examples/rules.toml swept on cpu_ref (combos counted from the axes, top-K ordered,
# params by name, ids mixed-radix over the params then the stops), walked, positions; a rules
# text of ma_cross giving the built-in family's ids, metrics and positions bar for bar; stop
# flags on a rules grid; the cpu (and default) backend giving cpu_ref's results; and the
# errors: a bad rule located in the file, family flags.
# usage: wfo_rules_test.sh WFO SOURCE_DIR SHARED_DATA_DIR
set -euo pipefail
WFO=${1:?usage: wfo_rules_test.sh WFO SOURCE_DIR SHARED_DATA_DIR}
SRC=${2:?usage: wfo_rules_test.sh WFO SOURCE_DIR SHARED_DATA_DIR}
DATA=${3:?usage: wfo_rules_test.sh WFO SOURCE_DIR SHARED_DATA_DIR}
source "$(dirname "$0")/lib.sh"
CSV="$DATA/nvda_d1_1999-2014.csv"
EXAMPLE="$SRC/config/examples/rules.toml"
[[ -r "$CSV" ]] || { echo "SKIP: no $CSV"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }

# pullback: fast 5:20:5 x slow 20,40,60 x lvl 30,40,50 x stop_loss 0,0.02,0.04 (take_profit
# and trailing_stop size 1) = 108 combos; fast < slow fails for (20, 20) only: 9 skipped.
run_wfo sweep --config "$EXAMPLE" --strategy pullback --backend cpu_ref --csv "$CSV" --json \
  --no-selection --top 200 --min-trades 0
expect_rc 0 "pullback sweep"
python3 - "$TMP/out" <<'PY' || fail "pullback sweep JSON"
import json, sys
d = json.load(open(sys.argv[1]))
fast, slow, lvl, sl = [5, 10, 15, 20], [20, 40, 60], [30, 40, 50], [0, 0.02, 0.04]
assert d["evaluated"] + d["skipped"] == 4 * 3 * 3 * 3, (d["evaluated"], d["skipped"])
assert d["skipped"] == 9, d["skipped"]
top = d["top"]
assert len(top) == d["ranked"] > 0, (len(top), d["ranked"])
keys = [e["metrics"]["sharpe"] for e in top]
assert keys == sorted(keys, reverse=True), "top-K not ordered by sharpe"
for e in top:
    p = e["params"]
    assert list(p) == ["fast", "slow", "lvl", "stop_loss", "take_profit", "trailing_stop"], p
    assert p["fast"] < p["slow"], p
    i = fast.index(p["fast"]) + 4 * (slow.index(p["slow"]) + 3 * (lvl.index(p["lvl"]) + 3 * sl.index(p["stop_loss"])))
    assert e["id"] == i, (e["id"], i, p)
PY

# rsi_dip: 2 x 4 x 4 x 2 = 64 combos, lo < hi everywhere; its rule reads the bars' volume.
run_wfo sweep --config "$EXAMPLE" --strategy rsi_dip --backend cpu_ref --csv "$CSV" --json \
  --no-selection
expect_rc 0 "rsi_dip sweep"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert (d["evaluated"], d["skipped"]) == (64, 0), d; assert sorted(d["top"][0]["params"]) == ["busy","hi","lo","n"], d["top"][0]' "$TMP/out" ||
  fail "rsi_dip sweep JSON"
# The default text output names the params too.
run_wfo sweep --config "$EXAMPLE" --strategy rsi_dip --backend cpu_ref --csv "$CSV" --top 3
expect_rc 0 "rsi_dip text"
grep -qE '^rank +id +n +lo +hi +busy ' "$TMP/out" || fail "rsi_dip text header"

run_wfo walk --config "$EXAMPLE" --strategy pullback --backend cpu_ref --csv "$CSV" --is 1000 \
  --oos 500 --json
expect_rc 0 "pullback walk"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["folds"]) >= 4, len(d["folds"])' "$TMP/out" ||
  fail "pullback walk JSON"

# --stop-loss replaces the file's stop axis: 4 x 3 x 3 x 2 combos.
run_wfo sweep --config "$EXAMPLE" --strategy pullback --backend cpu_ref --csv "$CSV" --json \
  --no-selection --stop-loss 0.01,0.02
expect_rc 0 "pullback --stop-loss"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["evaluated"] + d["skipped"] == 72, d; assert all(e["params"]["stop_loss"] in (0.01, 0.02) for e in d["top"])' "$TMP/out" ||
  fail "pullback --stop-loss JSON"

# ma_cross written as rules (SPEC §5a's own text): the built-in family's ids, metrics and
# positions, the categorical axes being size 1.
cat >"$TMP/ma.toml" <<'TOML'
[[strategy]]
name = "ma_rules"
symbols = ["X"]
family = "rules"
window = 1500
[strategy.rules]
params = ["fast", "slow"]
valid = "$fast < $slow"
indicators = { fast = "sma($fast)", slow = "sma($slow)" }
long_entry = "fast > slow"
short_entry = "fast < slow"
[strategy.grid]
fast = "5:25:5"
slow = "20:60:10"
TOML
MA=(--family ma_cross --fast 5:25:5 --slow 20:60:10)
run_wfo sweep --config "$TMP/ma.toml" --backend cpu_ref --csv "$CSV" --json --no-selection \
  --top 30
expect_rc 0 "ma_rules sweep"
cp "$TMP/out" "$TMP/rules.json"
run_wfo sweep "${MA[@]}" --window 1500 --backend cpu_ref --csv "$CSV" --json --no-selection \
  --top 30
expect_rc 0 "ma_cross sweep"
python3 - "$TMP/rules.json" "$TMP/out" <<'PY' || fail "ma_cross as rules differs from ma_cross"
import json, sys
r, f = (json.load(open(p)) for p in sys.argv[1:])
for k in ("evaluated", "skipped", "ranked"):
    assert r[k] == f[k], (k, r[k], f[k])
assert [e["id"] for e in r["top"]] == [e["id"] for e in f["top"]]
for a, b in zip(r["top"], f["top"]):
    assert a["metrics"] == b["metrics"], (a["id"], a["metrics"], b["metrics"])
    assert {k: a["params"][k] for k in ("fast", "slow")} == {k: b["params"][k] for k in ("fast", "slow")}
PY
for id in 0 7 23; do
  run_wfo positions --config "$TMP/ma.toml" --backend cpu_ref --csv "$CSV" --id "$id"
  expect_rc 0 "ma_rules positions $id"
  cp "$TMP/out" "$TMP/rules_pos.csv"
  run_wfo positions "${MA[@]}" --backend cpu_ref --csv "$CSV" --id "$id"
  expect_rc 0 "ma_cross positions $id"
  cmp -s "$TMP/out" "$TMP/rules_pos.csv" || fail "positions of id $id differ"
  [[ $(grep -c ',1$' "$TMP/out") -gt 100 ]] || fail "id $id is hardly ever long"
done

# The cpu backend (and the default, auto: cpu here) runs rules too (issue 45): the same
# counts and ids as cpu_ref, metrics within SPEC §9, positions bar for bar, a walk.
run_wfo sweep --config "$EXAMPLE" --strategy pullback --backend cpu_ref --csv "$CSV" --json \
  --no-selection --top 30 --min-trades 0
expect_rc 0 "pullback sweep on cpu_ref"
cp "$TMP/out" "$TMP/ref.json"
run_wfo sweep --config "$EXAMPLE" --strategy pullback --csv "$CSV" --json --no-selection \
  --top 30 --min-trades 0
no_abort "default backend"
expect_rc 0 "pullback sweep on the default backend"
python3 - "$TMP/ref.json" "$TMP/out" <<'PY' || fail "pullback on the default backend differs from cpu_ref"
import json, math, sys
r, c = (json.load(open(p)) for p in sys.argv[1:])
for k in ("evaluated", "skipped", "ranked"):
    assert r[k] == c[k], (k, r[k], c[k])
assert [e["id"] for e in r["top"]] == [e["id"] for e in c["top"]]
for a, b in zip(r["top"], c["top"]):
    for k, v in a["metrics"].items():
        w = b["metrics"][k]
        assert v == w or math.isclose(v, w, rel_tol=1e-9, abs_tol=1e-12), (a["id"], k, v, w)
PY
for id in 0 13 50; do
  run_wfo positions --config "$EXAMPLE" --strategy pullback --csv "$CSV" --id "$id" --backend cpu
  expect_rc 0 "positions $id --backend cpu"
  cp "$TMP/out" "$TMP/cpu_pos.csv"
  run_wfo positions --config "$EXAMPLE" --strategy pullback --csv "$CSV" --id "$id" \
    --backend cpu_ref
  expect_rc 0 "positions $id --backend cpu_ref"
  cmp -s "$TMP/out" "$TMP/cpu_pos.csv" || fail "positions of id $id differ between cpu and cpu_ref"
done
run_wfo walk --config "$EXAMPLE" --strategy rsi_dip --backend cpu --csv "$CSV" --is 1000 \
  --oos 500 --json
expect_rc 0 "rsi_dip walk on cpu"
cp "$TMP/out" "$TMP/walk_cpu.json"
run_wfo walk --config "$EXAMPLE" --strategy rsi_dip --backend cpu_ref --csv "$CSV" --is 1000 \
  --oos 500 --json
expect_rc 0 "rsi_dip walk on cpu_ref"
python3 - "$TMP/walk_cpu.json" "$TMP/out" <<'PY' || fail "rsi_dip walk on cpu differs from cpu_ref"
import json, sys
c, r = (json.load(open(p)) for p in sys.argv[1:])
assert len(c["folds"]) == len(r["folds"]) >= 4
assert [f["id"] for f in c["folds"]] == [f["id"] for f in r["folds"]], "fold winners differ"
for k in ("trades", "wins", "long_bars", "short_bars", "changes"):
    assert c["oos"][k] == r["oos"][k], (k, c["oos"][k], r["oos"][k])
PY

# A bad rule: exit 2, located in the file (line 10, column 14 + the rule's 23: the closing
# quote, just past the 22 bytes of text).
sed 's/^long_entry = "fast > slow"$/long_entry = "fast > slow and (1 < 2"/' "$TMP/ma.toml" \
  >"$TMP/bad.toml"
run_wfo sweep --config "$TMP/bad.toml" --backend cpu_ref --csv "$CSV"
expect_rc 2 "bad rule"
expect_err "$TMP/bad.toml:10:37: strategy \"ma_rules\": rules.long_entry:23: expected ')' after '2'" "bad rule"

# Flags that write built-in families' axes, and --family rules without a file.
run_wfo sweep --config "$EXAMPLE" --strategy pullback --backend cpu_ref --csv "$CSV" --fast 5
expect_rc 2 "--fast on a rules strategy"
expect_err "--fast is a ma_cross parameter, but the family is rules" "--fast on rules"
run_wfo sweep --config "$EXAMPLE" --strategy pullback --backend cpu_ref --csv "$CSV" --side long_only
expect_rc 2 "--side on a rules strategy"
run_wfo sweep --family rules --csv "$CSV" --backend cpu_ref
expect_rc 2 "--family rules without --config"
expect_err "a rules strategy is written in a config's [strategy.rules]" "--family rules"
echo PASS
