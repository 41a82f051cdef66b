#!/usr/bin/env bash
# session 24, run 5: the decisions kernel's knobs again now that the signal-bit path loads
# 4 bars per 128-bit load (main 07b3613 = new): bits step 16 / 4 (from 8), the tile fully
# unrolled, 5 blocks/SM (48 registers). gpu_bench A and C.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && mkdir -p var && xz -dc var.txz | tar xf - -C var && cd ..
export LD_LIBRARY_PATH=$S/lib; B=$S/bin; V=$S/var
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit,driver_version --format=csv
SECONDS=0
mkdir -p $OUT/b
run() {  # name env... binary args
  local name=$1; shift
  env "$@" > $OUT/b/gpu_bench_$name.txt 2>&1; echo "$name rc=$? t=$SECONDS"
  grep -E "chosen  " $OUT/b/gpu_bench_$name.txt | cut -c1-160
}
for i in 1 2; do
  run A_new$i timeout 60 $B/gpu_bench 5 A
  for v in s16 s4 unrolled d5; do run A_$v$i timeout 60 $V/$v/gpu_bench 5 A; done
done
run C_new timeout 60 $B/gpu_bench 5 C
for v in s16 s4 unrolled d5; do run C_$v timeout 60 $V/$v/gpu_bench 5 C; done
run Cnobits_new WFOD_CUDA_SIGNAL_BITS=0 timeout 90 $B/gpu_bench 3 C
run Cnobits_s16 WFOD_CUDA_SIGNAL_BITS=0 timeout 90 $V/s16/gpu_bench 3 C
cd $OUT && tar czf logs.tgz b && rm -rf b
