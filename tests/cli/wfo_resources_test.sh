#!/usr/bin/env bash
# Running out of threads or memory ends a run cleanly, never with std::terminate (exit 134):
# --threads above the machine's count is lowered with a warning; a thread the system
# refuses (huge stacks under an address-space limit) leaves the run on fewer threads with
# a warning and the same result; memory running out (beyond what the plan knows of) is
# "wfo: error: out of memory", exit 1.
# usage: wfo_resources_test.sh WFO CSV
set -euo pipefail
WFO=${1:?usage: wfo_resources_test.sh WFO CSV}
CSV=${2:?usage: wfo_resources_test.sh WFO CSV}
if [[ "${WFOD_SANITIZED:-0}" == 1 ]]; then
  echo "SKIPPED: ulimit -v cannot apply to an AddressSanitizer build (its shadow memory); the release build runs this test"
  exit 77
fi
source "$(dirname "$0")/lib.sh"

GRID=(--csv "$CSV" --family ma_cross --fast 5:20:5 --slow 30:60:10 --no-selection --json)
run_wfo sweep "${GRID[@]}" --threads 1
expect_rc 0 "sweep --threads 1"
grep -Ev '"([a-z]+_)?seconds"' "$TMP/out" >"$TMP/one.json"

# Far more threads than cores under a tight address space: 500 threads in 4 GB.
WFO_PREFIX="ulimit -v 4000000;" run_wfo sweep "${GRID[@]}" --threads 500
no_abort "--threads 500 under ulimit -v 4000000"
expect_rc 0 "--threads 500 under ulimit -v 4000000"
expect_err "wfo: warning: --threads 500 is more than the" "--threads 500"
grep -Ev '"([a-z]+_)?seconds"' "$TMP/out" | cmp -s - "$TMP/one.json" || fail "--threads 500 changed the result"
run_wfo sweep "${GRID[@]}" --threads 5000
expect_rc 2 "--threads 5000"
expect_err "--threads: must be in [0, 4096]" "--threads 5000"

# Every thread refused: each would reserve a 1.9 GiB stack (ulimit -s) in a 1.4 GiB address
# space. The run continues on the calling thread alone.
if (($(nproc) >= 2)); then
  for cmd in "sweep ${GRID[*]}" "walk ${GRID[*]} --is 500 --oos 250"; do
    # shellcheck disable=SC2086
    WFO_PREFIX="ulimit -s 2000000; ulimit -v 1500000;" run_wfo $cmd --threads 2
    no_abort "$cmd, threads refused"
    expect_rc 0 "$cmd, threads refused"
    expect_err "wfo: warning: could not start 1 of 2 threads" "$cmd, threads refused"
  done
  WFO_PREFIX="ulimit -s 2000000; ulimit -v 1500000;" run_wfo sweep "${GRID[@]}" --threads 2
  grep -Ev '"([a-z]+_)?seconds"' "$TMP/out" | cmp -s - "$TMP/one.json" || fail "fewer threads changed the result"
else
  echo "note: one hardware thread, the refused-thread cases are not run"
fi

# Memory runs out: 1,001 series of 40,000 bars, 305 MiB in one chunk, in a 117 MiB data
# limit (ulimit -d, RLIMIT_DATA: not a limit the plan reads; under ulimit -v the plan now
# takes the address space as its budget and the run fits, wfo_memory_limits_test.sh).
MIN="$TMP/minute.csv"
minute_csv "$MIN" 40000
WFO_PREFIX="ulimit -d 120000;" run_wfo sweep --csv "$MIN" --family ma_cross --fast 2:3:1 \
  --slow 1:2000:2 --warmup 2000 --no-selection --threads 1
no_abort "out of memory"
expect_rc 1 "out of memory"
expect_err "wfo: error: out of memory" "out of memory"
echo "PASS: wfo_resources"
