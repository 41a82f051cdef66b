#!/usr/bin/env bash
# Issue 47, `wfo sweep --universe`: (a) on the shared real daily files, each symbol's entry
# equals its own `wfo sweep --csv --json` (less "seconds" and "timing") on cpu_ref and cpu,
# bit for bit, with the default window (every bar after the warm-up, so a window per file)
# and one symbol taking its bars per year from the universe file; the table has a row per
# symbol with its winner; (b) a file too short for --window ends the run naming the symbol,
# or with --skip-bad-files is skipped and listed; (c) --shard, --out, --report and --csv
# beside --universe are refused.
# usage: wfo_universe_sweep_test.sh WFO SHARED_DATA_DIR
set -euo pipefail
WFO=${1:?usage: wfo_universe_sweep_test.sh WFO SHARED_DATA_DIR}
DATA=${2:?usage: wfo_universe_sweep_test.sh WFO SHARED_DATA_DIR}
source "$(dirname "$0")/lib.sh"
shopt -s nullglob
DAILY=("$DATA"/*_d1_*.csv)
((${#DAILY[@]} >= 2)) || { echo "SKIP: no shared daily data in $DATA"; exit 77; }
U="$TMP/universe.csv"
{
  echo "symbol,path,bars_per_year"
  first=1
  for f in "${DAILY[@]}"; do
    s=$(basename "$f" .csv)
    # The first symbol's bars per year from the universe file's column.
    ((first)) && echo "${s%%_*},$f,250" || echo "${s%%_*},$f,"
    first=0
  done
} >"$U"
G=(--family ma_cross --fast 5:20:5 --slow 30:60:10 --ma sma,ema --warmup 60)

for backend in cpu_ref cpu; do
  run_wfo sweep --universe "$U" "${G[@]}" --backend "$backend" --json
  expect_rc 0 "sweep --universe on $backend"
  no_abort "sweep --universe on $backend"
  cp "$TMP/out" "$TMP/universe_$backend.json"
  mkdir -p "$TMP/single_$backend"
  while IFS=, read -r sym path bpy; do
    [[ $sym == symbol ]] && continue
    extra=()
    [[ -n $bpy ]] && extra=(--bars-per-year "$bpy")
    run_wfo sweep --csv "$path" "${G[@]}" --backend "$backend" --json "${extra[@]}"
    expect_rc 0 "single sweep of $sym on $backend"
    cp "$TMP/out" "$TMP/single_$backend/$sym.json"
  done <"$U"
  python3 - "$TMP/universe_$backend.json" "$TMP/single_$backend" "$U" "$backend" <<'PY' || fail "sweep parity on $backend"
import csv, json, sys
u = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[3])))
assert [e["symbol"] for e in u["symbols"]] == [r["symbol"] for r in rows], "symbol order"
assert u["universe"]["swept"] == len(rows) and not u["universe"]["skipped"]
assert u["run_specific"] == ["run"] and u["run"]["backend"] == sys.argv[4]
for e, r in zip(u["symbols"], rows):
    single = json.load(open(f"{sys.argv[2]}/{r['symbol']}.json"))
    # Run-specific: times.
    single.pop("timing"); single.pop("seconds")
    sweep = dict(e["sweep"])
    assert "seconds" not in sweep and "timing" not in sweep
    if r["bars_per_year"]:
        assert sweep["bars_per_year_source"] == "universe", sweep["bars_per_year_source"]
        assert single["bars_per_year_source"] == "flag"
        sweep.pop("bars_per_year_source"); single.pop("bars_per_year_source")
    if sweep != single or json.dumps(sweep, sort_keys=True) != json.dumps(single, sort_keys=True):
        diff = [k for k in set(sweep) | set(single) if sweep.get(k) != single.get(k)]
        sys.exit(f"{r['symbol']}: universe entry differs from its single sweep in {diff}")
    s = e["summary"]
    pub = single["selection"]["published"]
    assert s["winner_source"] == "selection" and s["winner"]["id"] == pub["id"], (s, pub)
    assert s["winner"]["metrics"] == pub["metrics"]
    assert s["window_bars"] == single["window"]["bars"] and s["pbo"] == single["selection"]["pbo"]["pbo"]
print(f"ok sweep parity on {sys.argv[4]}: {len(rows)} symbols equal their single sweeps")
PY
done

# The table: a row per symbol, with the published winner's id.
run_wfo sweep --universe "$U" "${G[@]}" --backend cpu
expect_rc 0 "sweep --universe table"
python3 - "$TMP/out" "$TMP/universe_cpu.json" <<'PY' || fail "the table"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
u = json.load(open(sys.argv[2]))
assert lines[0].startswith("universe ") and f"{len(u['symbols'])} swept" in lines[0], lines[0]
body = [l for l in lines[4:] if l.strip()]
assert len(body) == len(u["symbols"]), body
for line, e in zip(body, u["symbols"]):
    assert line.split()[0] == e["symbol"], (line, e["symbol"])
    assert f"id {e['summary']['winner']['id']} " in line, line
print("ok the table: a row per symbol with its winner")
PY
# --no-selection: the winner is the sweep's best-ranked combo.
run_wfo sweep --universe "$U" "${G[@]}" --backend cpu --no-selection --json
expect_rc 0 "--no-selection"
python3 -c '
import json, sys
u = json.load(open(sys.argv[1]))
for e in u["symbols"]:
    s, top = e["summary"], e["sweep"]["top"]
    assert s["winner_source"] == "top" and s["winner"]["id"] == top[0]["id"], e["symbol"]
    assert s["pbo"] is None
' "$TMP/out" || fail "--no-selection winners"
echo "ok --no-selection: each winner is the sweep's best-ranked combo"

# (b) a file too short for the window: named, or skipped with --skip-bad-files.
LONG=(--window 1000 --backend cpu --no-selection)
SHORT_SYM=
while IFS=, read -r sym path _; do
  [[ $sym == symbol ]] && continue
  bars=$(($(wc -l <"$path") - 1))
  ((bars < 1061)) && SHORT_SYM=$sym
done <"$U"
if [[ -n $SHORT_SYM ]]; then
  run_wfo sweep --universe "$U" "${G[@]}" "${LONG[@]}"
  expect_rc 2 "a file too short for the window"
  no_abort "a file too short for the window"
  expect_err "symbol $SHORT_SYM: " "the short file's symbol"
  expect_err "(--skip-bad-files runs the other symbols)" "the hint"
  run_wfo sweep --universe "$U" "${G[@]}" "${LONG[@]}" --skip-bad-files --json
  expect_rc 0 "--skip-bad-files"
  python3 -c '
import json, sys
u = json.load(open(sys.argv[1]))
assert sys.argv[2] in [s["symbol"] for s in u["universe"]["skipped"]], u["universe"]["skipped"]
assert sys.argv[2] not in [e["symbol"] for e in u["symbols"]]
assert u["universe"]["swept"] + len(u["universe"]["skipped"]) == u["universe"]["symbols"]
' "$TMP/out" "$SHORT_SYM" || fail "--skip-bad-files result"
  expect_err "warning: skipping symbol $SHORT_SYM" "the skip said"
  echo "ok a file too short for the window: named, or skipped with --skip-bad-files"
fi
printf 'symbol,path\nmissing,%s\n' "$TMP/no_such.csv" >"$TMP/all_bad.csv"
run_wfo sweep --universe "$TMP/all_bad.csv" "${G[@]}" --skip-bad-files
expect_rc 2 "every file skipped"
expect_err "no symbol of the universe could be swept" "every file skipped"

# (c) refused flags.
run_wfo sweep --universe "$U" "${G[@]}" --shard 0/2 --out "$TMP/p.json"
expect_rc 2 "--shard"
expect_err "wfo sweep --universe runs on one host" "--shard refused"
run_wfo sweep --universe "$U" "${G[@]}" --report "$TMP/rep"
expect_rc 2 "--report"
[[ ! -e $TMP/rep ]] || fail "--report refused but a folder made"
run_wfo sweep --universe "$U" --csv "${DAILY[0]}" "${G[@]}"
expect_rc 2 "--csv and --universe"
run_wfo sweep --csv "${DAILY[0]}" "${G[@]}" --skip-bad-files
expect_rc 2 "--skip-bad-files without --universe"
echo "ok refused: --shard, --report, --csv with --universe, --skip-bad-files alone"
echo "PASS"
