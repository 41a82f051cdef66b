#!/usr/bin/env bash
# session 19, run 2b (same machine): parity in five layouts (chosen; tables for every grid,
# alone and with 64 chunks; forced fused; plain kernel) and memcheck with tables everywhere.
S=$PWD/.device; B=$S/bin; export LD_LIBRARY_PATH=$S/lib
[ -x $B/wfod_parity_tests ] || { cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && cd ..; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; }
SECONDS=0
for pass in "chosen:WFOD_CUDA_FORCE_CHUNKS=0" "sigall:WFOD_CUDA_SIGNAL_BITS=all" "sigall64:WFOD_CUDA_SIGNAL_BITS=all WFOD_CUDA_FORCE_CHUNKS=64" "fused:WFOD_CUDA_FORCE_CHUNKS=1" "plain:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=plain"; do
  name=${pass%%:*}
  env ${pass#*:} timeout 200 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='*cuda*:*Stream*:*Selection*:*Walk*' > $OUT/parity_$name.log 2>&1
  echo "parity $name rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/parity_$name.log | tr '\n' ' ') t=$SECONDS"
  grep -E "FAILED|Failure" -A3 $OUT/parity_$name.log | head -20
done
WFOD_CUDA_SIGNAL_BITS=all timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='Synthetic*cuda*:LevelFamilies/*cuda*:Backends/ScoresFollow.*/cuda' > $OUT/memcheck.log 2>&1
echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $OUT/memcheck.log | tail -1) t=$SECONDS"
cd $OUT && tar czf logs.tgz parity_*.log memcheck.log && rm parity_*.log memcheck.log
