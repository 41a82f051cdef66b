#!/usr/bin/env bash
# session 24, run 3: review mends, same kernels' work: the thread-per-combo sweeps' shared
# rank-and-keep (sweep_block.cuh: rank_sweep_block) and signals_loaded's ma_cross branch on
# screen_signals, against main 54b0251's sweep_kernels.cu + sweep_split.cu (base). gpu_bench
# A B C E (A fused too), parity in the chosen, split and fused layouts.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && mkdir -p var && xz -dc var.txz | tar xf - -C var && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin; V=$S/var
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit,driver_version --format=csv
SECONDS=0
mkdir -p $OUT/b
F='*cuda*:*Stream*:*Selection*:*Walk*:ExactTies*:SplitSweep*'
timeout 200 $B/wfod_parity_tests --gtest_filter="$F" > $OUT/b/parity_chosen.txt 2>&1; echo "parity chosen rc=$? t=$SECONDS"; tail -1 $OUT/b/parity_chosen.txt
WFOD_CUDA_FORCE_CHUNKS=1 timeout 200 $B/wfod_parity_tests --gtest_filter="$F" > $OUT/b/parity_split.txt 2>&1; echo "parity split rc=$? t=$SECONDS"; tail -1 $OUT/b/parity_split.txt
WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=fused timeout 200 $B/wfod_parity_tests --gtest_filter="$F" > $OUT/b/parity_fused.txt 2>&1; echo "parity fused rc=$? t=$SECONDS"; tail -1 $OUT/b/parity_fused.txt
run() {  # name env... binary args
  local name=$1; shift
  env "$@" > $OUT/b/gpu_bench_$name.txt 2>&1; echo "$name rc=$? t=$SECONDS"
  grep -E "chosen  " $OUT/b/gpu_bench_$name.txt | cut -c1-160
}
for i in 1 2; do
  for c in A C E; do
    run ${c}_base$i timeout 60 $V/base/gpu_bench 5 $c
    run ${c}_new$i timeout 60 $B/gpu_bench 5 $c
  done
  run A_fused_base$i WFOD_CUDA_KERNEL=fused timeout 60 $V/base/gpu_bench 5 A
  run A_fused_new$i WFOD_CUDA_KERNEL=fused timeout 60 $B/gpu_bench 5 A
  run B_base$i timeout 60 $V/base/gpu_bench 9 B
  run B_new$i timeout 60 $B/gpu_bench 9 B
done
cd $OUT && tar czf logs.tgz b && rm -rf b
