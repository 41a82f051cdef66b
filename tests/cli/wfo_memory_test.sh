#!/usr/bin/env bash
# Large grids in bounded memory: a sweep says its plan up front (combos valid of total,
# memory, rough time), holds one chunk of indicator rows at a time (results bit-identical to
# one pass), keeps running on a 40-million-combo grid under a 700 MB address-space limit,
# and stops before any work, exit 2, when the plan does not fit --memory-budget.
# usage: wfo_memory_test.sh WFO CSV
set -euo pipefail
WFO=${1:?usage: wfo_memory_test.sh WFO CSV}
CSV=${2:?usage: wfo_memory_test.sh WFO CSV}
if [[ "${WFOD_SANITIZED:-0}" == 1 ]]; then
  echo "SKIPPED: ulimit -v cannot apply to an AddressSanitizer build (its shadow memory); the release build runs this test"
  exit 77
fi
source "$(dirname "$0")/lib.sh"

# The plan line, before the result.
run_wfo sweep --csv "$CSV" --family ma_cross --fast 5:20:5 --slow 30:60:10 --no-selection
expect_rc 0 "small sweep"
expect_err "wfo: plan: 16 combos, 16 valid; 8 indicator series x 2,148 bars" "small sweep plan"
run_wfo sweep --csv "$CSV" --family ma_cross --fast 5:40:5 --slow 10:60:10 --no-selection
expect_err "wfo: plan: 48 combos, 32 valid (16 skipped: 16 fast >= slow)" "plan with invalid combos"

MIN="$TMP/minute.csv"
minute_csv "$MIN" 40000
# 2 x 1,000 combos reading 1,001 series of 40,000 bars: 320 MB at once; chunked, 16 MB.
GRID=(sweep --csv "$MIN" --family ma_cross --fast 2:3:1 --slow 1:2000:2 --warmup 2000
  --no-selection --json --threads 2)
run_wfo "${GRID[@]}" --memory-budget 4096
expect_rc 0 "one-chunk sweep"
grep -Ev '"([a-z]+_)?seconds"' "$TMP/out" >"$TMP/whole.json"
expect_err "1,001 indicator series x 40,000 bars = 305 MiB; memory" "one-chunk plan"
# The chunked run under an address-space limit the one-pass run would not fit in, its peak
# RSS measured where /usr/bin/time exists.
TIME=()
[[ -x /usr/bin/time ]] && TIME=(/usr/bin/time -f "maxrss_kb %M")
set +e
bash -c 'ulimit -v 450000; exec "$@"' _ "${TIME[@]}" "$WFO" "${GRID[@]}" --memory-budget 64 \
  >"$TMP/out" 2>"$TMP/err"
RC=$?
set -e
expect_rc 0 "chunked sweep under ulimit -v 450000"
grep -Ev '"([a-z]+_)?seconds"' "$TMP/out" >"$TMP/chunked.json"
cmp -s "$TMP/whole.json" "$TMP/chunked.json" || fail "chunked and one-chunk results differ"
expect_err "16 MiB at a time" "chunked plan"
if ((${#TIME[@]})); then
  rss=$(awk '/^maxrss_kb/ {print $2}' "$TMP/err")
  ((rss < 160000)) || fail "chunked sweep peak RSS ${rss} kB, expected < 160000"
  echo "chunked sweep peak RSS: ${rss} kB"
fi

# 40 million combos: the plan says so at once; the run holds bounded memory (still running
# after 3 s under a 700 MB address-space limit, where holding every row would take 6 GB).
BIG=(sweep --csv "$MIN" --family ma_cross --fast 1:2000:1 --slow 1:20000:1 --warmup 20000)
set +e
bash -c 'ulimit -v 700000; exec timeout 3 "$@"' _ "$WFO" "${BIG[@]}" --no-selection --threads 2 \
  --memory-budget 1024 \
  >/dev/null 2>"$TMP/err"
RC=$?
set -e
expect_err "wfo: plan: 40,000,000 combos, 37,999,000 valid (2,001,000 skipped: 2,001,000 fast >= slow)" \
  "40M-combo plan"
expect_err "7.6e+11 combo-bars, ~" "40M-combo work and time estimate"
no_abort "40M-combo sweep"
[[ $RC -eq 124 ]] || fail "40M-combo sweep under ulimit -v 700000: exit $RC, expected to be still running (124)"
# With robust selection (per-combo scores) over a 512 MiB budget: stopped before any work.
start=$(date +%s)
run_wfo "${BIG[@]}" --memory-budget 512
expect_rc 2 "40M combos with selection, budget 512 MiB"
expect_err "for robust selection, over --memory-budget 512 MiB" "40M combos with selection"
expect_err "--no-selection" "40M combos with selection"
(($(date +%s) - start < 10)) || fail "the over-budget plan was not refused at once"
# PBO's block summaries and every series over budget: refused, naming what to change.
run_wfo sweep --csv "$MIN" --family ma_cross --fast 2:3:1 --slow 1:2000:2 --warmup 2000 \
  --memory-budget 64
expect_rc 2 "PBO over budget"
expect_err "pbo_blocks = 0" "PBO over budget"
echo "PASS: wfo_memory"
