#!/usr/bin/env bash
# session 18, run 3 (measurement only, the committed code): case B (HMA, 80 combos x 150k
# bars) at 256 ... 8192 time chunks per combo (gpu_bench's chunks argument; 4096 is the
# backend's choice), and ncu on B's chunk kernel and finalize at the chosen layout.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && cd ..
export LD_LIBRARY_PATH=$S/lib; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
SECONDS=0
for ch in 0 256 512 1024 2048 4096 8192; do
  echo "== gpu_bench 5 B chunks=$ch"
  timeout 60 $B/gpu_bench 5 B $ch > $OUT/gpu_bench_B_$ch.txt 2>&1; echo "rc=$? t=$SECONDS"
  grep -E "^B " $OUT/gpu_bench_B_$ch.txt
done
echo "== ncu: B chosen (sweep_chunks_kernel, finalize_rank_kernel, topk and settle kernels)"
timeout 120 ncu --clock-control none --launch-skip 0 --launch-count 40 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section InstructionStats $B/gpu_bench 1 B > $OUT/ncu_B.txt 2>&1
echo "rc=$? t=$SECONDS"
grep -E "^  [a-z_]+.*\(|^ +(Duration|Grid Size|Block Size|Registers Per|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Executed Instructions  |Issue Slots Busy|Dynamic Shared|Static Shared)" $OUT/ncu_B.txt | sed -E 's/\(wfod::cuda::GridTables.*//; s/void wfod::cuda::\(anonymous namespace\)::/  /' | cut -c1-140 | head -120
echo "t=$SECONDS"
