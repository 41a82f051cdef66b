#!/usr/bin/env bash
# The README's test command: installs dependencies, builds with warnings as errors, runs
# every test (ctest), then repeats the host tests under AddressSanitizer + UBSan, then fuzzes
# every parser for a while (tools/run-fuzz.sh; WFOD_SKIP_FUZZ=1 skips it).
# GPU tests skip with a visible reason where no GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."

# Where CI's time goes: each phase's wall time, printed as it ends and summed at the end.
run_start=$SECONDS
phase_start=$SECONDS
phase_times=()
phase_done() {
  local spent=$((SECONDS - phase_start))
  phase_times+=("$(printf '%-28s %5d s' "$1" "$spent")")
  echo "== time: $1 took ${spent} s"
  phase_start=$SECONDS
}
print_phase_times() {
  echo "== where the time went"
  printf '   %s\n' "${phase_times[@]}"
  echo "   total $((SECONDS - run_start)) s"
}
# A failure before the sanitizer build is waited for leaves it running: stop it (its own
# process group, started with setsid below).
asan_build_pid=
on_exit() {
  if [ -n "$asan_build_pid" ] && kill -0 "$asan_build_pid" 2>/dev/null; then
    kill -- "-$asan_build_pid" 2>/dev/null || true
  fi
  print_phase_times
}
trap on_exit EXIT

bash tools/setup/install-deps.sh
jobs=$(nproc)
phase_done "install dependencies"

echo "== clang-format check"
git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' | xargs clang-format --dry-run --Werror
phase_done "clang-format"

echo "== release build (-Werror) and tests"
# Without a GPU nothing here can run device code, so the CUDA files are compiled to PTX only
# (90-virtual) and the device code unoptimised (WFOD_CUDA_COMPILE_CHECK): every .cu file still
# goes through nvcc's front end and code generation, and ptxas (a third of the cuda backend's
# compile time, docs/operations.md "Build time") is skipped.
# With a GPU the preset's sm_90 machine code is built and the GPU tests run.
cuda_arch=()
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "   no NVIDIA GPU visible: CUDA compiled to PTX only (WFOD_CUDA_ARCHITECTURES=90-virtual)," \
    "device code unoptimised (WFOD_CUDA_COMPILE_CHECK=ON)"
  cuda_arch=(-DWFOD_CUDA_ARCHITECTURES=90-virtual -DWFOD_CUDA_COMPILE_CHECK=ON)
fi
cmake --preset ci "${cuda_arch[@]}"

# The sanitizer build (clang, ASan + UBSan, the fuzzers' libraries too) runs beside the
# release build and its tests, at the lowest CPU priority (nice 19): it takes the cycles the
# release pass leaves idle (its link steps, the tests waiting on daemons and sockets) without
# slowing the release tests, which keep their CPU. Its log: build/asan-build.log.
if [ "${WFOD_SKIP_ASAN:-0}" != "1" ]; then
  cmake --preset asan >/dev/null
  setsid nice -n 19 cmake --build --preset asan -j "$jobs" >build/asan-build.log 2>&1 &
  asan_build_pid=$!
fi

cmake --build --preset ci -j "$jobs"
phase_done "release build"
# More ctest slots than cores: the tests that keep a core busy share one slot per core (the
# `cpus` resource of the test presets, tests/CMakeLists.txt), and the integration scripts,
# which mostly wait on daemons, run in the slots beyond them.
test_jobs=$((jobs + 4))
ctest --preset ci -j "$test_jobs"
phase_done "release tests"

# The .deb from the ci build above (cpack: no second compile): dpkg -i, --version,
# check-config, systemd-analyze verify, dpkg -r / -P (skipped, with the reason, unless root).
echo "== package check (tools/check-package.sh)"
bash tools/check-package.sh build/ci
phase_done "package check"

if [ -n "$asan_build_pid" ]; then
  echo "== ASan + UBSan build (started beside the release pass) and tests"
  asan_rc=0
  wait "$asan_build_pid" || asan_rc=$?
  asan_build_pid=
  if [ "$asan_rc" != 0 ]; then
    tail -n 60 build/asan-build.log
    echo "sanitizer build failed (whole log: build/asan-build.log)" >&2
    exit 1
  fi
  tail -n 1 build/asan-build.log
  phase_done "sanitizer build (rest)"
  # Two slots beyond the cores here, not four: the instrumented daemons need more CPU.
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --preset asan -j "$((jobs + 2))"
  phase_done "sanitizer tests"
fi

if [ "${WFOD_SKIP_FUZZ:-0}" != "1" ]; then
  # Ten targets, two at a time: 5 x WFOD_FUZZ_SECONDS (2.5 min) plus linking the drivers.
  echo "== fuzzing (libFuzzer + ASan + UBSan, ${WFOD_FUZZ_SECONDS:-30}s per target)"
  # With the sanitizer pass above, its build (clang, WFOD_FUZZ=ON) holds the fuzzers' libraries
  # already: only the ten fuzz drivers are compiled and linked here.
  fuzz_preset=asan
  [ "${WFOD_SKIP_ASAN:-0}" = "1" ] && fuzz_preset=fuzz
  WFOD_FUZZ_PRESET=$fuzz_preset bash tools/run-fuzz.sh "${WFOD_FUZZ_SECONDS:-30}"
  phase_done "fuzzing"
fi
