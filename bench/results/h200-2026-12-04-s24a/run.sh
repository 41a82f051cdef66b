#!/usr/bin/env bash
# session 24, run 1: shared-row decisions (a thread decides R ma_cross combos of one slow
# value) against main 54b0251's sweep_split.cu (base) and the same binary with
# WFOD_CUDA_SHARED_ROWS=0; variants R2, R4 step 2, 3 blocks/SM, R8 step 2 at 2 blocks/SM.
# Parity: the SplitSweep tests (the new shared-row one too) and the cuda parity set; memcheck.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && mkdir -p var && xz -dc var.txz | tar xf - -C var && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin; V=$S/var
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit,driver_version --format=csv
SECONDS=0
mkdir -p $OUT/b
timeout 240 $B/wfod_parity_tests --gtest_filter='SplitSweep*' > $OUT/b/parity_split.txt 2>&1; echo "parity split rc=$? t=$SECONDS"; tail -3 $OUT/b/parity_split.txt
F='*cuda*:*Stream*:*Selection*:*Walk*:ExactTies*'
WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_SIGNAL_BITS=0 timeout 300 $B/wfod_parity_tests --gtest_filter="$F" > $OUT/b/parity_tpc_nobits.txt 2>&1; echo "parity tpc nobits rc=$? t=$SECONDS"; tail -2 $OUT/b/parity_tpc_nobits.txt
run() {  # name env... binary args
  local name=$1; shift
  env "$@" > $OUT/b/gpu_bench_$name.txt 2>&1; echo "$name rc=$? t=$SECONDS"
  grep -E "chosen  " $OUT/b/gpu_bench_$name.txt | cut -c1-160
}
for i in 1 2; do
  run A_base$i timeout 60 $V/base/gpu_bench 5 A
  run A_new$i timeout 60 $B/gpu_bench 5 A
  run A_off$i WFOD_CUDA_SHARED_ROWS=0 timeout 60 $B/gpu_bench 5 A
done
for v in r2 r4s2 b3 r8; do run A_$v timeout 60 $V/$v/gpu_bench 5 A; done
run Cnobits_base WFOD_CUDA_SIGNAL_BITS=0 timeout 90 $V/base/gpu_bench 3 C
run Cnobits_new WFOD_CUDA_SIGNAL_BITS=0 timeout 90 $B/gpu_bench 3 C
run Cnobits_b3 WFOD_CUDA_SIGNAL_BITS=0 timeout 90 $V/b3/gpu_bench 3 C
run C_base timeout 60 $V/base/gpu_bench 5 C
run C_new timeout 60 $B/gpu_bench 5 C
run E_new timeout 60 $B/gpu_bench 5 E
timeout 200 compute-sanitizer --tool memcheck $B/wfod_parity_tests --gtest_filter='SplitSweep.SharedRow*' > $OUT/b/memcheck.txt 2>&1; echo "memcheck rc=$? t=$SECONDS"; tail -3 $OUT/b/memcheck.txt
cd $OUT && tar czf logs.tgz b && rm -rf b
