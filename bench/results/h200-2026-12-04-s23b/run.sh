#!/usr/bin/env bash
# session 23, run 2: main 7347b49's sweep_kernels.cu (old) against this tree's fused and split
# sweeps on the same machine, gpu_bench A C (median of 5); ncu durations of the split pair
# and the fused kernel on A.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && xz -dc var.txz | tar xf - && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit,driver_version --format=csv
SECONDS=0
mkdir -p $OUT/b
run() {  # name env... binary case
  local name=$1; shift
  env "$@" > $OUT/b/gpu_bench_$name.txt 2>&1; echo "$name rc=$? t=$SECONDS"
  grep -E "chosen  " $OUT/b/gpu_bench_$name.txt | cut -c1-160
}
for c in A C; do
  run ${c}_old timeout 60 $S/old/gpu_bench 5 $c
  run ${c}_fused WFOD_CUDA_KERNEL=fused timeout 60 $B/gpu_bench 5 $c
  run ${c}_split timeout 60 $B/gpu_bench 5 $c
  run ${c}_old2 timeout 60 $S/old/gpu_bench 5 $c
done
for v in split:WFOD_CUDA_KERNEL= fused:WFOD_CUDA_KERNEL=fused; do
  env ${v#*:} timeout 120 ncu --kernel-name regex:'decide|account|fused' --launch-skip 0 --launch-count 6 \
    --metrics gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed \
    $B/gpu_bench 1 A > $OUT/b/ncu_${v%%:*}.txt 2>&1
  echo "ncu ${v%%:*} rc=$? t=$SECONDS"
  grep -E "decide_events|account_events|sweep_fused|duration|warps_active|registers_per|inst_executed" $OUT/b/ncu_${v%%:*}.txt | head -24 | cut -c1-150
done
cd $OUT && tar czf logs.tgz b && rm -rf b
