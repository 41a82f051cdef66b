#!/usr/bin/env bash
# The level-family oracle (level_families_oracle.py, written from SPEC alone) against
# `wfo positions` on real data: the bundled GOOG daily file, and from ../shared/data a
# one-minute futures file and a minute file with long flat stretches (STD 0, RSI 50).
# usage: run_oracle.sh WFO SHARED_DATA_DIR BUNDLED_CSV BACKEND...
# Exits 77 (skipped, saying why) without python3.
set -euo pipefail
wfo=$1 shared=$2 bundled=$3
shift 3
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
here=$(dirname "$0")
files=("$bundled")
for f in 6eh4_cme_m1_2024-01.csv unittestbtc_m1_2017-11.csv; do
  if [ -r "$shared/$f" ]; then files+=("$shared/$f"); else echo "note: $shared/$f not found, not used"; fi
done
for f in "${files[@]}"; do
  echo "== $f"
  python3 "$here/level_families_oracle.py" "$wfo" "$f" "$@"
done
