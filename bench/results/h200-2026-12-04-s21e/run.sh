#!/usr/bin/env bash
# session 21, run 5: the review's mend of tally.cuh (one predicated change-or-hold bookkeeping
# for bar_predicated and change_selected, one compare-select equity update for
# RangeWalk<true>::bar and step): gpu_bench B, parity in four layouts, memcheck.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
SECONDS=0
mkdir -p $OUT/b
timeout 60 $B/gpu_bench 9 B > $OUT/b/gpu_bench_B.txt 2>&1; echo "B rc=$?"; grep -E "chosen|plain" $OUT/b/gpu_bench_B.txt | cut -c1-160
for pass in "chosen:WFOD_CUDA_SIGNAL_BITS=" "sigall:WFOD_CUDA_SIGNAL_BITS=all" "chunked64:WFOD_CUDA_FORCE_CHUNKS=64" "plain:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=plain"; do
  name=${pass%%:*}
  env ${pass#*:} timeout 150 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='*cuda*:*Stream*:*Selection*:*Walk*:ExactTies*' > $OUT/b/parity_$name.log 2>&1
  echo "parity $name rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/b/parity_$name.log | tr '\n' ' ') t=$SECONDS"
  grep -E "FAILED|Failure" -A3 $OUT/b/parity_$name.log | head -20
done
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='Synthetic*cuda*:LevelFamilies/*cuda*:Backends/ScoresFollow.*/cuda' > $OUT/b/memcheck.log 2>&1; echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $OUT/b/memcheck.log | tail -1) t=$SECONDS"
cd $OUT && tar czf logs.tgz b && rm -rf b
