#!/usr/bin/env bash
# session 24, run 7 (the last CUDA edit): -s24f with whole aligned tiles on a compile-time
# count again (next_by_bits<true>). gpu_bench A B C against main 07b3613 (base), parity in
# three layouts (chosen; signal tables for every grid: the partial tiles on table bits;
# thread per combo split).
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && mkdir -p var && xz -dc var.txz | tar xf - -C var && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin; V=$S/var
SECONDS=0
mkdir -p $OUT/b
for c in C A B; do
  n=5; [ $c = B ] && n=9
  timeout 60 $B/gpu_bench $n $c > $OUT/b/gpu_bench_$c.txt 2>&1; echo "$c rc=$? t=$SECONDS"; grep -E "chosen  " $OUT/b/gpu_bench_$c.txt | cut -c1-160
  timeout 60 $V/base/gpu_bench $n $c > $OUT/b/gpu_bench_${c}_base.txt 2>&1; echo "$c base rc=$?"; grep -E "chosen  " $OUT/b/gpu_bench_${c}_base.txt | cut -c1-160
done
F='*cuda*:*Stream*:*Selection*:*Walk*:ExactTies*:SplitSweep*'
for pass in "sigall:WFOD_CUDA_SIGNAL_BITS=all" "chosen:WFOD_CUDA_SIGNAL_BITS=" "split1:WFOD_CUDA_FORCE_CHUNKS=1"; do
  name=${pass%%:*}
  env ${pass#*:} timeout 150 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter="$F" > $OUT/b/parity_$name.log 2>&1
  echo "parity $name rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/b/parity_$name.log | tr '\n' ' ') t=$SECONDS"
  grep -E "FAILED|Failure" -A3 $OUT/b/parity_$name.log | head -20
done
cd $OUT && tar czf logs.tgz b && rm -rf b
