#!/usr/bin/env bash
# Builds the CUDA-enabled binaries here (nvcc is on this machine) and stages what the GPU
# machine needs in .device/ (git-ignored): binaries, the shared libraries Debian provides
# that the device image lacks, and the shared real data. Then bench/device.sh runs there.
# usage: stage-device.sh [BUILD_DIR]: a CUDA-enabled Release build directory to take the
# binaries from (e.g. build/ci after tools/run-tests.sh); default build/device, built here.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build/device}
if [ "$B" = build/device ]; then
  # The `device` preset: Release, CUDA on, sm_90 + compute_90 only (the H200's), not the
  # five architectures of a default build.
  cmake --preset device >/dev/null
fi
cmake --build "$B" -j "$(nproc)" --target wfod_parity_tests wfod_unit_tests gpu_bench stream_bench selection_bench walk_bench wfo wfod daemon_latency soak_bench checkpoint_bench rules_bench
rm -rf .device && mkdir -p .device/bin .device/lib .device/data
cp "$B"/tests/wfod_parity_tests "$B"/tests/wfod_unit_tests \
   "$B"/bench/gpu_bench "$B"/bench/stream_bench "$B"/bench/selection_bench "$B"/bench/walk_bench \
   "$B"/tools/wfo "$B"/bench/soak_bench "$B"/bench/checkpoint_bench "$B"/bench/rules_bench \
   "$B"/daemon/wfod "$B"/bench/daemon_latency .device/bin/
# Everything but the C/C++ runtime itself (the device image has glibc and libstdc++).
for lib in $(ldd .device/bin/* | awk '/=> \//{print $3}' | sort -u |
             grep -vE '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|libresolv)\.so'); do
  cp -L "$lib" .device/lib/
done
cp ../shared/data/*.csv ../shared/data/README* .device/data/ 2>/dev/null || cp ../shared/data/*.csv .device/data/
# The repository's exclude file (in a worktree .git is a file: ask git where it is).
exclude=$(git rev-parse --git-path info/exclude)
grep -qx '/.device/' "$exclude" 2>/dev/null || echo '/.device/' >> "$exclude"
# Packed: the binaries embed the kernels (~8 MB each), and the carried tree must stay under
# the device tool's 64 MiB; bench/device.sh unpacks them.
# xz with a 64 MiB dictionary: the fatbins the binaries embed are the same bytes, so one
# copy is stored (gzip's 32 KiB window stores each again: over the limit with 8 binaries).
tar cf - -C .device bin | xz -T2 -6 --lzma2=dict=64MiB > .device/bin.txz && rm -rf .device/bin
# The data too (CSV text packs to about a quarter): the carry limit counts every byte.
tar czf .device/data.tgz -C .device data && rm -rf .device/data
du -sh .device
