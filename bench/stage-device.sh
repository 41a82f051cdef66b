#!/usr/bin/env bash
# Builds the CUDA-enabled binaries here (nvcc is on this machine) and stages what the GPU
# machine needs in .device/ (git-ignored): binaries, the shared libraries Debian provides
# that the device image lacks, and the shared real data. Then bench/device.sh runs there.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build/device -G Ninja -DCMAKE_BUILD_TYPE=Release -DWFOD_CUDA=ON -DWFOD_TESTS=ON >/dev/null
cmake --build build/device -j "$(nproc)" --target wfod_parity_tests wfod_unit_tests gpu_bench stream_bench selection_bench wfo wfod daemon_latency
rm -rf .device && mkdir -p .device/bin .device/lib .device/data
cp build/device/tests/wfod_parity_tests build/device/tests/wfod_unit_tests \
   build/device/bench/gpu_bench build/device/bench/stream_bench build/device/bench/selection_bench \
   build/device/tools/wfo \
   build/device/daemon/wfod build/device/bench/daemon_latency .device/bin/
# Everything but the C/C++ runtime itself (the device image has glibc and libstdc++).
for lib in $(ldd .device/bin/* | awk '/=> \//{print $3}' | sort -u |
             grep -vE '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|libresolv)\.so'); do
  cp -L "$lib" .device/lib/
done
cp ../shared/data/*.csv ../shared/data/README* .device/data/ 2>/dev/null || cp ../shared/data/*.csv .device/data/
grep -qx '/.device/' .git/info/exclude 2>/dev/null || echo '/.device/' >> .git/info/exclude
# Packed: the binaries embed the kernels (~8 MB each), and the carried tree must stay under
# the device tool's 64 MiB; bench/device.sh unpacks them.
tar czf .device/bin.tgz -C .device bin && rm -rf .device/bin
du -sh .device
