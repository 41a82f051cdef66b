#!/usr/bin/env bash
# session 22, run 9: evaluate_stretches' positions as ints, its nonpositive test a bool (main 125989f + the change): gpu_bench B
# (median of 9) and A C D E (median of 5), walk_bench, parity in four layouts, memcheck.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
SECONDS=0
mkdir -p $OUT/b
timeout 60 $B/gpu_bench 9 B > $OUT/b/gpu_bench_B.txt 2>&1; echo "B rc=$?"; grep -E "chosen|plain|fast " $OUT/b/gpu_bench_B.txt | cut -c1-160
for c in A C D E; do
  timeout 60 $B/gpu_bench 5 $c > $OUT/b/gpu_bench_$c.txt 2>&1; echo "$c rc=$? t=$SECONDS"; grep -E "chosen|plain|fast " $OUT/b/gpu_bench_$c.txt | cut -c1-160
done
D=/work/shared/data/btcperp_ftx_m1_2022-01.csv
timeout 150 $B/walk_bench cuda $D 10000 1000 200 200 5 0 1 1 > $OUT/b/walk_bench.txt 2>&1
echo "walk rc=$? t=$SECONDS"; grep -E '^\| cuda' $OUT/b/walk_bench.txt | cut -c1-300
for pass in "chosen:WFOD_CUDA_SIGNAL_BITS=" "sigall:WFOD_CUDA_SIGNAL_BITS=all" "chunked64:WFOD_CUDA_FORCE_CHUNKS=64" "plain:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=plain"; do
  name=${pass%%:*}
  env ${pass#*:} timeout 150 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='*cuda*:*Stream*:*Selection*:*Walk*:ExactTies*' > $OUT/b/parity_$name.log 2>&1
  echo "parity $name rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/b/parity_$name.log | tr '\n' ' ') t=$SECONDS"
  grep -E "FAILED|Failure" -A3 $OUT/b/parity_$name.log | head -20
  [ $SECONDS -gt 470 ] && { echo "time: stopping parity"; break; }
done
[ $SECONDS -lt 500 ] && { timeout 80 compute-sanitizer --tool memcheck --error-exitcode 9 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='Synthetic*cuda*:LevelFamilies/*cuda*:Backends/ScoresFollow.*/cuda' > $OUT/b/memcheck.log 2>&1; echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $OUT/b/memcheck.log | tail -1) t=$SECONDS"; }
cd $OUT && tar czf logs.tgz b && rm -rf b
