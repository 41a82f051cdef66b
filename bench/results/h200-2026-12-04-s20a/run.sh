#!/usr/bin/env bash
# session 20, run 1: where gpu_bench B's 0.25 ms of canonical evaluation goes. gpu_bench B
# with and without signal tables for every grid, an nsys timeline summary and ncu's basic
# sections of every kernel of one B sweep.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && cd ..
export LD_LIBRARY_PATH=$S/lib; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
which nsys ncu
SECONDS=0
mkdir -p $OUT/b
timeout 60 $B/gpu_bench 5 B > $OUT/b/gpu_bench_B.txt 2>&1; echo "B rc=$? t=$SECONDS"; grep -E "chosen|plain|fast |top id" $OUT/b/gpu_bench_B.txt | cut -c1-160
WFOD_CUDA_SIGNAL_BITS=all timeout 60 $B/gpu_bench 5 B > $OUT/b/gpu_bench_B_sigall.txt 2>&1; echo "B sigall rc=$? t=$SECONDS"; grep -E "chosen|plain|fast |top id" $OUT/b/gpu_bench_B_sigall.txt | cut -c1-160
timeout 120 nsys profile --stats=true -o $OUT/b/nsys_B $B/gpu_bench 3 B > $OUT/b/nsys_B.txt 2>&1; echo "nsys rc=$? t=$SECONDS"
grep -A25 "cuda_gpu_kern_sum" $OUT/b/nsys_B.txt | cut -c1-220 | head -30
rm -f $OUT/b/*.nsys-rep $OUT/b/*.sqlite
timeout 200 ncu --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis --launch-count 40 $B/gpu_bench 1 B > $OUT/b/ncu_B.txt 2>&1; echo "ncu rc=$? t=$SECONDS"
grep -E "^  [a-z_].*\(|Duration|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Executed Ipc A" $OUT/b/ncu_B.txt | cut -c1-150 | head -120
cd $OUT && tar czf logs.tgz b && rm -rf b
