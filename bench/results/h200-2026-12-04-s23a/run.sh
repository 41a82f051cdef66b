#!/usr/bin/env bash
# session 23, run 1: the split sweep (decisions kernel + accounting kernel) against the fused
# kernel: gpu_bench A C E (median of 5) by WFOD_CUDA_KERNEL, decisions blocks/SM 4 5 6 and
# event caps 128 256 512 on A; parity (thread per combo) split, fused and cap 2.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && xz -dc var.txz | tar xf - && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
SECONDS=0
mkdir -p $OUT/b
run() {  # name env... -- binary case
  local name=$1; shift
  env "$@" > $OUT/b/gpu_bench_$name.txt 2>&1; echo "$name rc=$? t=$SECONDS"
  grep -E "chosen" $OUT/b/gpu_bench_$name.txt | cut -c1-160
}
run A_split timeout 60 $B/gpu_bench 5 A
run A_fused WFOD_CUDA_KERNEL=fused timeout 60 $B/gpu_bench 5 A
run A_d4 timeout 60 $S/d4/gpu_bench 5 A
run A_d5 timeout 60 $S/d5/gpu_bench 5 A
run A_cap128 WFOD_CUDA_EVENT_CAP=128 timeout 60 $B/gpu_bench 5 A
run A_cap512 WFOD_CUDA_EVENT_CAP=512 timeout 60 $B/gpu_bench 5 A
for c in C E; do
  run ${c}_split timeout 60 $B/gpu_bench 5 $c
  run ${c}_fused WFOD_CUDA_KERNEL=fused timeout 60 $B/gpu_bench 5 $c
  run ${c}_d4 timeout 60 $S/d4/gpu_bench 5 $c
done
for pass in "split:WFOD_CUDA_FORCE_CHUNKS=1" "cap2:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_EVENT_CAP=2" "fused:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=fused"; do
  name=${pass%%:*}
  env ${pass#*:} timeout 150 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='*cuda*:*Walk*:ExactTies*' > $OUT/b/parity_$name.log 2>&1
  echo "parity $name rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/b/parity_$name.log | tr '\n' ' ') t=$SECONDS"
  grep -E "FAILED|Failure" -A3 $OUT/b/parity_$name.log | head -20
  [ $SECONDS -gt 450 ] && { echo "time: stopping parity"; break; }
done
cd $OUT && tar czf logs.tgz b && rm -rf b
