#!/usr/bin/env bash
# session 23, run 3: the stretch records (one 128-byte record per bar for the stretch
# evaluator's loads): main 7347b49's sweep (old) against this tree's fused and split sweeps
# and the split with 4 decision blocks/SM (d4r), gpu_bench A C E (median of 5), B (of 9);
# parity split, fused, cap 2, 64 chunks.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && xz -dc var.txz | tar xf - && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit,driver_version --format=csv
SECONDS=0
mkdir -p $OUT/b
run() {  # name env... binary args
  local name=$1; shift
  env "$@" > $OUT/b/gpu_bench_$name.txt 2>&1; echo "$name rc=$? t=$SECONDS"
  grep -E "chosen  " $OUT/b/gpu_bench_$name.txt | cut -c1-160
}
for c in A C E; do
  run ${c}_old timeout 60 $S/old/gpu_bench 5 $c
  run ${c}_fused WFOD_CUDA_KERNEL=fused timeout 60 $B/gpu_bench 5 $c
  run ${c}_split timeout 60 $B/gpu_bench 5 $c
  run ${c}_d4r timeout 60 $S/d4r/gpu_bench 5 $c
done
run B_old timeout 60 $S/old/gpu_bench 9 B
run B_new timeout 60 $B/gpu_bench 9 B
for pass in "split:WFOD_CUDA_FORCE_CHUNKS=1" "cap2:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_EVENT_CAP=2" "fused:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=fused" "chunked64:WFOD_CUDA_FORCE_CHUNKS=64"; do
  name=${pass%%:*}
  env ${pass#*:} timeout 150 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='*cuda*:*Walk*:ExactTies*' > $OUT/b/parity_$name.log 2>&1
  echo "parity $name rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/b/parity_$name.log | tr '\n' ' ') t=$SECONDS"
  grep -E "FAILED|Failure" -A3 $OUT/b/parity_$name.log | head -20
  [ $SECONDS -gt 450 ] && { echo "time: stopping parity"; break; }
done
cd $OUT && tar czf logs.tgz b && rm -rf b
