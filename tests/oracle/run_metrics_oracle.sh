#!/usr/bin/env bash
# The metrics oracle (metrics_oracle.py, written from SPEC alone: exact indicators, positions,
# segment returns, every SPEC §6 metric, §7 rankings, §8 walk-forwards) against `wfo sweep`,
# `wfo positions` and `wfo walk` on real data: the bundled GOOG daily file, and from
# ../shared/data a one-minute index-futures file and a one-minute FX file (short windows at
# minute annualisation: where a plain product's total return would lose cagr's and calmar's
# digits), each on the backends given.
# usage: run_metrics_oracle.sh WFO SHARED_DATA_DIR BUNDLED_CSV BACKEND...
# Exits 77 (skipped, saying why) without python3.
set -euo pipefail
wfo=$1 shared=$2 bundled=$3
shift 3
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
files=("$bundled")
for f in estx50fut_m1_2006-01-02.csv usdjpy_fxcm_bid_m1_2013-02.csv; do
  if [ -r "$shared/$f" ]; then files+=("$shared/$f"); else echo "note: $shared/$f not found, not used"; fi
done
backends=$(IFS=,; echo "$*")
exec python3 "$(dirname "$0")/metrics_oracle.py" "$wfo" "${files[@]}" --backends "$backends"
