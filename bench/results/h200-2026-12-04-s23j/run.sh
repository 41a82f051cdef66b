#!/usr/bin/env bash
# session 23, run 10: review mend, PrefixData without the per-array pointers the records
# replaced (no kernel reads them): gpu_bench A C (median of 5), parity chosen and thread per
# combo (split), memcheck on SplitSweep.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
SECONDS=0
mkdir -p $OUT/b
for c in A C; do
  timeout 60 $B/gpu_bench 5 $c > $OUT/b/gpu_bench_$c.txt 2>&1; echo "$c rc=$? t=$SECONDS"; grep -E "chosen " $OUT/b/gpu_bench_$c.txt | cut -c1-160
done
F='*cuda*:*Stream*:*Selection*:*Walk*:ExactTies*:SplitSweep*'
for pass in "chosen:WFOD_CUDA_SIGNAL_BITS=" "split1:WFOD_CUDA_FORCE_CHUNKS=1"; do
  name=${pass%%:*}
  env ${pass#*:} timeout 150 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter="$F" > $OUT/b/parity_$name.log 2>&1
  echo "parity $name rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/b/parity_$name.log | tr '\n' ' ') t=$SECONDS"
  grep -E "FAILED|Failure" -A3 $OUT/b/parity_$name.log | head -20
done
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='SplitSweep*' > $OUT/b/memcheck.log 2>&1; echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $OUT/b/memcheck.log | tail -1) t=$SECONDS"
cd $OUT && tar czf logs.tgz b && rm -rf b
