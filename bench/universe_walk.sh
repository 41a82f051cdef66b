#!/usr/bin/env bash
# `wfo walk --universe` at issue 47's shape, whole process timed: SYMBOLS synthetic daily
# symbols (bench/universe_gen.py: regimes, holidays, halts, later listings; ~2,520 bars each)
# plus the shared real daily files, one ma_cross SMA grid of 20,000 combos (fast 5..104 x
# slow 110..309, all valid), IS 1,000 / OOS 250 after a warm-up of 310 bars (4 folds a
# synthetic symbol; estx50's 255 bars are skipped and listed), default robust selection unless
# SELECTION=none. Prints one table row.
#   bench/universe_walk.sh WFO [BACKEND=auto] [SYMBOLS=500] [THREADS=all] [SELECTION=default]
#   e.g. bench/universe_walk.sh build/ci/tools/wfo cpu 20 2
set -euo pipefail
wfo=$1 backend=${2:-auto} symbols=${3:-500} threads=${4:-0} selection=${5:-default}
here=$(cd "$(dirname "$0")" && pwd)
shared=${WFOD_SHARED_DATA:-$here/../../shared/data}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
real=()
for f in "$shared"/*_d1_*.csv; do [ -f "$f" ] && real+=("$f"); done
python3 "$here/universe_gen.py" "$work/u" "$symbols" 2520 11 "${real[@]}"
args=(walk --universe "$work/u/universe.csv" --family ma_cross --fast 5:104:1 --slow 110:309:1
      --warmup 310 --is 1000 --oos 250 --backend "$backend" --skip-bad-files --json)
[ "$threads" != 0 ] && args+=(--threads "$threads")
[ "$selection" = none ] && args+=(--no-selection)
t0=$(date +%s.%N)
"$wfo" "${args[@]}" > "$work/out.json" 2> "$work/err.txt" || { cat "$work/err.txt" >&2; exit 1; }
t1=$(date +%s.%N)
python3 - "$work/out.json" "$t0" "$t1" "$backend" "$selection" "$threads" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
t0, t1 = float(sys.argv[2]), float(sys.argv[3])
rows = doc["symbols"]
folds = sum(len(s["walk"]["folds"]) for s in rows)
combos = rows[0]["walk"]["folds"][0]["evaluated"] if rows and rows[0]["walk"]["folds"] else 0
wall = t1 - t0
print("| backend | selection | threads | symbols | folds | valid combos | whole process s | s a symbol |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
print(f"| {sys.argv[4]} | {sys.argv[5]} | {sys.argv[6] if sys.argv[6] != '0' else 'all'} | "
      f"{len(rows)} | {folds} | {combos:,} | {wall:.2f} | {wall / max(1, len(rows)):.3f} |")
PY
