#!/usr/bin/env bash
# session 23, run 8: the per-bar evaluator in two passes for few (combo, chunk) threads
# (chunk_tiles_kernel + chunk_walk_kernel): the CanonicalTwoPass test, gpu_bench B (median of
# 9) and A C E (of 5), parity in four layouts, memcheck.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,driver_version --format=csv
SECONDS=0
mkdir -p $OUT/b
timeout 120 $B/wfod_parity_tests --gtest_filter='CanonicalTwoPass*:SplitSweep*' > $OUT/b/two_pass.log 2>&1
echo "CanonicalTwoPass rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)|OK \]' $OUT/b/two_pass.log | tr '\n' ' ') t=$SECONDS"
grep -E "Failure" -A6 $OUT/b/two_pass.log | head -30
timeout 60 $B/gpu_bench 9 B > $OUT/b/gpu_bench_B.txt 2>&1; echo "B rc=$?"; grep -E "chosen|plain|fast " $OUT/b/gpu_bench_B.txt | cut -c1-160
for c in A C E; do
  timeout 60 $B/gpu_bench 5 $c > $OUT/b/gpu_bench_$c.txt 2>&1; echo "$c rc=$? t=$SECONDS"; grep -E "chosen  " $OUT/b/gpu_bench_$c.txt | cut -c1-160
done
F='*cuda*:*Stream*:*Selection*:*Walk*:ExactTies*:SplitSweep*:CanonicalTwoPass*'
for pass in "chosen:WFOD_CUDA_SIGNAL_BITS=" "split1:WFOD_CUDA_FORCE_CHUNKS=1" "chunked64:WFOD_CUDA_FORCE_CHUNKS=64" "plain:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=plain"; do
  name=${pass%%:*}
  env ${pass#*:} timeout 150 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter="$F" > $OUT/b/parity_$name.log 2>&1
  echo "parity $name rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/b/parity_$name.log | tr '\n' ' ') t=$SECONDS"
  grep -E "FAILED|Failure" -A3 $OUT/b/parity_$name.log | head -20
  [ $SECONDS -gt 400 ] && { echo "time: stopping parity"; break; }
done
[ $SECONDS -lt 440 ] && { timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='Synthetic*cuda*:ExactTies*' > $OUT/b/memcheck.log 2>&1; echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $OUT/b/memcheck.log | tail -1) t=$SECONDS"; }
cd $OUT && tar czf logs.tgz b && rm -rf b
