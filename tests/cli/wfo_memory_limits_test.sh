#!/usr/bin/env bash
# Memory before work (issue 42 §3): the process's own limits bind as a lower budget than
# --memory-budget, and a CSV too large for the budget is refused from its size before it is
# read. A plan over the address-space limit (ulimit -v) stops at once, exit 2, naming the
# limit, the estimate and what to change (where it started a run before); a 300 MB file is
# refused in well under a second naming its load estimate (where it was read whole before).
# usage: wfo_memory_limits_test.sh WFO CSV
set -euo pipefail
WFO=${1:?usage: wfo_memory_limits_test.sh WFO CSV}
CSV=${2:?usage: wfo_memory_limits_test.sh WFO CSV}
if [[ "${WFOD_SANITIZED:-0}" == 1 ]]; then
  echo "SKIPPED: ulimit -v cannot apply to an AddressSanitizer build (its shadow memory); the release build runs this test"
  exit 77
fi
source "$(dirname "$0")/lib.sh"

# now_ms: wall clock in milliseconds.
now_ms() { date +%s%3N; }
# run_under PREFIX ARGS...: run_wfo with PREFIX (ulimits, a timeout) in front of the binary.
run_under() {
  local prefix=$1
  shift
  set +e
  bash -c "$prefix \"\$@\"" _ "$WFO" "$@" >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
}

MIN="$TMP/minute.csv"
minute_csv "$MIN" 40000
# 90 million combos with robust selection: about 2 GiB (its per-combo scores), within the
# 4 GiB --memory-budget, over a 1.5 GB address space. Bounded by timeout: before this
# check the run started (a multi-hour run, or out of memory).
BIG=(sweep --csv "$MIN" --family ma_cross --fast 1:3000:1 --slow 1:30000:1 --warmup 30000
  --memory-budget 4096 --threads 2)
start=$(now_ms)
run_under "ulimit -v 1500000; exec timeout 20" "${BIG[@]}"
elapsed=$(($(now_ms) - start))
no_abort "plan over ulimit -v"
expect_rc 2 "plan over ulimit -v 1500000"
expect_err "for robust selection, over the address-space limit (RLIMIT_AS, ulimit -v 1500000) of 1.4 GiB" \
  "plan over ulimit -v"
expect_err "--no-selection" "plan over ulimit -v: what to change"
expect_err "raise the address-space limit (ulimit -v)" "plan over ulimit -v: what to change"
expect_err "(ulimit -v)" "the plan line names the budget's source"
((elapsed < 5000)) || fail "the plan over ulimit -v was refused after ${elapsed} ms, expected at once"
echo "ok: plan over ulimit -v refused in ${elapsed} ms: $(grep -F 'wfo: error' "$TMP/err")"
# The same plan without the limit is not refused for memory (stopped by timeout instead).
run_under "exec timeout 3" "${BIG[@]}" --no-selection
! grep -qF "address-space limit" "$TMP/err" || fail "no ulimit -v, yet the limit named"
# A limit above the budget does not bind: the small sweep runs as before.
WFO_PREFIX="ulimit -v 4000000;" run_wfo sweep --csv "$CSV" --family ma_cross --fast 5:20:5 \
  --slow 30:60:10 --no-selection --memory-budget 512
expect_rc 0 "small sweep under ulimit -v 4000000"
expect_err "of 512 MiB budget; " "the flag binds under a higher limit"

# A 300 MB file (its head real bars, the rest a hole) against a 64 MiB budget: refused from
# its size before it is read.
LARGE="$TMP/large.csv"
head -2000 "$MIN" >"$LARGE"
truncate -s 300M "$LARGE"
for cmd in sweep walk; do
  args=(--csv "$LARGE" --family ma_cross --fast 5:20:5 --slow 30:60:10 --memory-budget 64)
  [[ $cmd == walk ]] && args+=(--is 500 --oos 100)
  start=$(now_ms)
  WFO_PREFIX="ulimit -v 1000000;" run_wfo "$cmd" "${args[@]}"
  elapsed=$(($(now_ms) - start))
  expect_rc 2 "$cmd: 300 MB file over --memory-budget 64"
  # The text as read_csv grows it (64 KiB doubled to 512 MiB), and a bar per shortest line.
  expect_err "wfo: error: loading $LARGE (300 MiB) needs about " "$cmd: the load estimate"
  expect_err " MiB (its text 512 MiB and up to " "$cmd: the load estimate"
  expect_err "over --memory-budget 64 MiB: refused before reading it" "$cmd: the budget"
  expect_err "or raise --memory-budget" "$cmd: what to change"
  ((elapsed < 1000)) || fail "$cmd: the 300 MB file was refused after ${elapsed} ms, expected before reading it"
  echo "ok: $cmd 300 MB file refused in ${elapsed} ms"
done
# The address-space limit binds the load as well.
WFO_PREFIX="ulimit -v 600000;" run_wfo sweep --csv "$LARGE" --family ma_cross --fast 5:20:5 \
  --slow 30:60:10
expect_rc 2 "300 MB file over ulimit -v 600000"
expect_err "over the address-space limit (RLIMIT_AS, ulimit -v 600000)" "the load against ulimit -v"
expect_err "raise the address-space limit (ulimit -v)" "the load against ulimit -v"
echo "PASS: wfo_memory_limits"
