#!/usr/bin/env bash
# session 23, run 6 (the last CUDA edit): the split sweep (4 decision blocks/SM, events by
# warp, batches by free memory) and the stretch records: gpu_bench B (median of 9) and A C D E
# (of 5), main 7347b49 (old) on A C E beside it, walk_bench, parity in six layouts (the
# SplitSweep test included), memcheck.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && xz -dc var.txz | tar xf - && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit,driver_version --format=csv
SECONDS=0
mkdir -p $OUT/b
timeout 60 $B/gpu_bench 9 B > $OUT/b/gpu_bench_B.txt 2>&1; echo "B rc=$?"; grep -E "chosen|plain|fast " $OUT/b/gpu_bench_B.txt | cut -c1-160
for c in A C D E; do
  timeout 60 $B/gpu_bench 5 $c > $OUT/b/gpu_bench_$c.txt 2>&1; echo "$c rc=$? t=$SECONDS"; grep -E "chosen|plain|fast " $OUT/b/gpu_bench_$c.txt | cut -c1-160
  [ $c != D ] && { timeout 60 $S/old/gpu_bench 5 $c > $OUT/b/gpu_bench_${c}_old.txt 2>&1; echo "$c old rc=$?"; grep -E "chosen  " $OUT/b/gpu_bench_${c}_old.txt | cut -c1-160; }
done
D=/work/shared/data/btcperp_ftx_m1_2022-01.csv
timeout 150 $B/walk_bench cuda $D 10000 1000 200 200 5 0 1 1 > $OUT/b/walk_bench.txt 2>&1
echo "walk rc=$? t=$SECONDS"; grep -E '^\| cuda' $OUT/b/walk_bench.txt | cut -c1-300
F='*cuda*:*Stream*:*Selection*:*Walk*:ExactTies*:SplitSweep*'
for pass in "chosen:WFOD_CUDA_SIGNAL_BITS=" "split1:WFOD_CUDA_FORCE_CHUNKS=1" "cap2:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_EVENT_CAP=2" "fused1:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=fused" "chunked64:WFOD_CUDA_FORCE_CHUNKS=64" "sigall:WFOD_CUDA_SIGNAL_BITS=all" "plain:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=plain"; do
  name=${pass%%:*}
  env ${pass#*:} timeout 150 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter="$F" > $OUT/b/parity_$name.log 2>&1
  echo "parity $name rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/b/parity_$name.log | tr '\n' ' ') t=$SECONDS"
  grep -E "FAILED|Failure" -A3 $OUT/b/parity_$name.log | head -20
  [ $SECONDS -gt 440 ] && { echo "time: stopping parity"; break; }
done
[ $SECONDS -lt 490 ] && { timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='SplitSweep*:Synthetic*cuda*:LevelFamilies/*cuda*' > $OUT/b/memcheck.log 2>&1; echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $OUT/b/memcheck.log | tail -1) t=$SECONDS"; }
cd $OUT && tar czf logs.tgz b && rm -rf b
