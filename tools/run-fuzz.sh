#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each one for
# SECONDS (default 60) on a scratch copy of its seed corpus (fuzz/corpus/<target>; never
# written to), two at a time. Prints executions and coverage per target; exits non-zero on
# any crash, leak, sanitizer report, broken invariant or timeout.
#   tools/run-fuzz.sh [SECONDS]      WFOD_FUZZ_JOBS=N runs N targets at once (default 2)
# The build: preset `fuzz` (build/fuzz) by default; WFOD_FUZZ_PRESET=asan uses the sanitizer
# pass's build (the asan preset is clang with WFOD_FUZZ=ON, so tools/run-tests.sh builds the
# libraries once for its sanitizer tests and the fuzzers).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
jobs=${WFOD_FUZZ_JOBS:-2}
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "usage: $0 [seconds-per-target]" >&2; exit 2; }

targets=()
for src in fuzz/*_fuzz.cpp; do
  name=$(basename "$src" _fuzz.cpp)
  targets+=("$name")
done

preset=${WFOD_FUZZ_PRESET:-fuzz}
build=build/$preset
echo "run-fuzz: building ${#targets[@]} targets (preset $preset)"
cmake --preset "$preset" >/dev/null
cmake --build "$build" -j "$jobs" --target "${targets[@]/#/fuzz_}"

run_root=$build/fuzz-run
rm -rf "$run_root"
mkdir -p "$run_root"

# One target: fresh corpus copy, its dictionary if any, artifacts beside the log.
run_one() {
  local name=$1 dir="$run_root/$1"
  mkdir -p "$dir/corpus"
  cp -R "fuzz/corpus/$name/." "$dir/corpus/"
  local args=(-max_total_time="$seconds" -detect_leaks=1 -print_final_stats=1 -timeout=30
              -rss_limit_mb=2048 -artifact_prefix="$dir/")
  [[ -f "fuzz/$name.dict" ]] && args+=(-dict="fuzz/$name.dict")
  local rc=0
  ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/fuzz/fuzz_$name" "${args[@]}" "$dir/corpus" >"$dir/log" 2>&1 || rc=$?
  echo "$rc" >"$dir/rc"
}

# A bounded pool: start up to $jobs targets, start the next as one finishes.
running=0
for name in "${targets[@]}"; do
  if ((running >= jobs)); then
    wait -n || true
    running=$((running - 1))
  fi
  echo "run-fuzz: $name for ${seconds}s"
  run_one "$name" &
  running=$((running + 1))
done
wait

# libFuzzer's own summary: the last "cov: .. ft: .. corp: .." status line and the final
# stats printed by -print_final_stats=1.
failed=()
printf '\n%-14s %12s %8s %6s %7s %9s  %s\n' target executions exec/s cov ft corpus result
for name in "${targets[@]}"; do
  dir="$run_root/$name"
  log="$dir/log"
  rc=$(cat "$dir/rc")
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  status=$(grep -E '^#[0-9]+.*cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$status")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$status")
  corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9A-Za-z]*\).*/\1/p' <<<"$status")
  result=ok
  if [[ "$rc" != 0 ]] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|invariant broken|deadly signal' "$log"; then
    result="FAILED (rc $rc, log $log)"
    failed+=("$name")
  fi
  printf '%-14s %12s %8s %6s %7s %9s  %s\n' "$name" "${execs:--}" "${rate:--}" "${cov:--}" \
    "${ft:--}" "${corp:--}" "$result"
done

if ((${#failed[@]})); then
  for name in "${failed[@]}"; do
    echo
    echo "== fuzz_$name failed; reproducer(s):"
    shopt -s nullglob
    repro=("$run_root/$name"/{crash,leak,timeout,oom,slow-unit}-*)
    shopt -u nullglob
    if ((${#repro[@]})); then printf '  %s\n' "${repro[@]}"; else echo "  (none written)"; fi
    grep -E -m 5 'ERROR:|runtime error:|invariant broken|SUMMARY' "$run_root/$name/log" || true
  done
  echo
  echo "run-fuzz: FAILED: ${failed[*]} (rerun one input: $build/fuzz/fuzz_NAME FILE)"
  exit 1
fi
echo
echo "run-fuzz: all ${#targets[@]} targets clean for ${seconds}s each"
