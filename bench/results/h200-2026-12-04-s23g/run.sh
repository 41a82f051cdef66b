#!/usr/bin/env bash
# session 23, run 7: main 945dc43 plus the SplitSweep test on test::spike_series (its own spike
# loop before): the test, the thread-per-combo parity passes (split, cap 2) and memcheck on it.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,driver_version --format=csv
SECONDS=0
mkdir -p $OUT/b
timeout 100 $B/wfod_parity_tests --gtest_filter='SplitSweep*' > $OUT/b/split_sweep.log 2>&1
echo "SplitSweep rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/b/split_sweep.log | tr '\n' ' ') t=$SECONDS"
grep -E "Failure" -A6 $OUT/b/split_sweep.log | head -30
for pass in "split1:WFOD_CUDA_FORCE_CHUNKS=1" "cap2:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_EVENT_CAP=2"; do
  name=${pass%%:*}
  env ${pass#*:} timeout 150 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='*cuda*:*Walk*:ExactTies*:SplitSweep*' > $OUT/b/parity_$name.log 2>&1
  echo "parity $name rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/b/parity_$name.log | tr '\n' ' ') t=$SECONDS"
done
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='SplitSweep*' > $OUT/b/memcheck.log 2>&1; echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $OUT/b/memcheck.log | tail -1) t=$SECONDS"
cd $OUT && tar czf logs.tgz b && rm -rf b
