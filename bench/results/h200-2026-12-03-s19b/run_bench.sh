#!/usr/bin/env bash
# session 19, run 2a: main 74582d0 (the signal-bit path; precision "fast" reads the signal
# tables too). gpu_bench of all five cases; variants of sweep_kernels.cu: the bit path's loads
# 16 bars ahead (WFOD_BITS_STEP=16), 8 with a vol filter (WFOD_BITS_STEP_VOL=8, C without
# tables), 4 blocks per SM (WFOD_FUSED_BLOCKS=4); ncu of case A's fused kernel.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && xz -dc var.txz | tar xf - && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
SECONDS=0
mkdir -p $OUT/b
for c in A B C D E; do
  timeout 60 $B/gpu_bench 5 $c > $OUT/b/gpu_bench_$c.txt 2>&1; echo "$c rc=$? t=$SECONDS"; grep -E "chosen|plain|fast |^#   " $OUT/b/gpu_bench_$c.txt | grep -v "top id" | cut -c1-160
done
for vc in "bs16 A" "bs16 B" "blk4 A" "blk4 C" "blk4 D" "blk4 E" "bsv8 C"; do
  set -- $vc
  env $([ $1 = bsv8 ] && echo WFOD_CUDA_SIGNAL_BITS=0) timeout 60 $S/var/gpu_bench_$1 5 $2 > $OUT/b/var_$1_$2.txt 2>&1; echo "$1 $2 rc=$? t=$SECONDS"; grep -E "chosen" $OUT/b/var_$1_$2.txt | grep -v "top id" | cut -c1-160
done
if command -v ncu >/dev/null; then
  timeout 200 ncu --clock-control none --kernel-name regex:sweep_fused --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
    --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section InstructionStats --section SchedulerStats \
    $B/gpu_bench 1 A > $OUT/b/ncu_A.txt 2>&1
  echo "ncu rc=$? t=$SECONDS"
  grep -E "Duration|Throughput|Pipe|Occupancy|Registers|Stall|Issued|Executed Ipc|Instructions|Eligible|No Eligible" $OUT/b/ncu_A.txt | head -50
fi
cd $OUT && tar czf bench_logs.tgz b && rm -rf b
