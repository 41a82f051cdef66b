#!/usr/bin/env bash
# The README's test command: installs dependencies, builds with warnings as errors, runs
# every test (ctest), then repeats the host tests under AddressSanitizer + UBSan, then fuzzes
# every parser for a while (tools/run-fuzz.sh; WFOD_SKIP_FUZZ=1 skips it).
# GPU tests skip with a visible reason where no GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup/install-deps.sh
jobs=$(nproc)

echo "== clang-format check"
git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' | xargs clang-format --dry-run --Werror

echo "== release build (-Werror) and tests"
# Without a GPU nothing here can run device code, so the CUDA files are compiled to PTX only
# (90-virtual): every .cu file still goes through nvcc's front end with -Werror, and ptxas
# (a third of the cuda backend's compile time, docs/operations.md "Build time") is skipped.
# With a GPU the preset's sm_90 machine code is built and the GPU tests run.
cuda_arch=()
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "   no NVIDIA GPU visible: CUDA compiled to PTX only (WFOD_CUDA_ARCHITECTURES=90-virtual)"
  cuda_arch=(-DWFOD_CUDA_ARCHITECTURES=90-virtual)
fi
cmake --preset ci "${cuda_arch[@]}"
cmake --build --preset ci -j "$jobs"
ctest --preset ci -j "$jobs"

# The .deb from the ci build above (cpack: no second compile): dpkg -i, --version,
# check-config, systemd-analyze verify, dpkg -r / -P (skipped, with the reason, unless root).
echo "== package check (tools/check-package.sh)"
bash tools/check-package.sh build/ci

if [ "${WFOD_SKIP_ASAN:-0}" != "1" ]; then
  echo "== ASan + UBSan build and tests"
  cmake --preset asan
  cmake --build --preset asan -j "$jobs"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --preset asan -j "$jobs"
fi

if [ "${WFOD_SKIP_FUZZ:-0}" != "1" ]; then
  # Eight targets, two at a time: 4 x WFOD_FUZZ_SECONDS (2 min) plus the clang build.
  echo "== fuzzing (libFuzzer + ASan + UBSan, ${WFOD_FUZZ_SECONDS:-30}s per target)"
  bash tools/run-fuzz.sh "${WFOD_FUZZ_SECONDS:-30}"
fi
