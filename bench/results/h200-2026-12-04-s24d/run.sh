#!/usr/bin/env bash
# session 24, run 4: the float32 screen matrix in groups of 4 bars (float_cell: a row's 4 bars
# in one 128-bit load) and tiles aligned to multiples of 32 bars (tile_end; signal words read
# unshifted), against main 9636806's device_indicators.cu, signal_bits.cu, sweep_kernels.cu and
# sweep_split.cu (base). gpu_bench A-E (2 rounds), parity in 7 layouts, memcheck.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && mkdir -p var && xz -dc var.txz | tar xf - -C var && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin; V=$S/var
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit,driver_version --format=csv
SECONDS=0
mkdir -p $OUT/b
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
  run B_base$i timeout 60 $V/base/gpu_bench 9 B
  run B_new$i timeout 60 $B/gpu_bench 9 B
done
run D_base timeout 60 $V/base/gpu_bench 5 D
run D_new timeout 60 $B/gpu_bench 5 D
run Cnobits_base WFOD_CUDA_SIGNAL_BITS=0 timeout 90 $V/base/gpu_bench 3 C
run Cnobits_new WFOD_CUDA_SIGNAL_BITS=0 timeout 90 $B/gpu_bench 3 C
F='*cuda*:*Stream*:*Selection*:*Walk*:ExactTies*:SplitSweep*'
p() {  # name env...
  local name=$1; shift
  env "$@" timeout 200 $B/wfod_parity_tests --gtest_filter="$F" > $OUT/b/parity_$name.txt 2>&1; echo "parity $name rc=$? t=$SECONDS"; grep -E "^\[  (PASSED|FAILED) |tests? ran" $OUT/b/parity_$name.txt | head -5
}
p chosen X=1
p split WFOD_CUDA_FORCE_CHUNKS=1
p fused WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=fused
p chunks64 WFOD_CUDA_FORCE_CHUNKS=64
p bits_all WFOD_CUDA_SIGNAL_BITS=all
p bits_none WFOD_CUDA_SIGNAL_BITS=0 WFOD_CUDA_FORCE_CHUNKS=1
p plain WFOD_CUDA_KERNEL=plain
timeout 240 compute-sanitizer --tool memcheck $B/wfod_parity_tests --gtest_filter='SplitSweep*:*cuda*Sweep*' > $OUT/b/memcheck.txt 2>&1; echo "memcheck rc=$? t=$SECONDS"; tail -2 $OUT/b/memcheck.txt
cd $OUT && tar czf logs.tgz b && rm -rf b
