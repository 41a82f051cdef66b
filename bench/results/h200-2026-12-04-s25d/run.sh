#!/usr/bin/env bash
# session 25, run 4 (the last CUDA edit): the canonical order at up to 512 time chunks (>= 256
# bars each; windows past 131,072 bars), the join's threads two chunks each past 256. gpu_bench
# A-E (B of 9, twice) beside base (the same tree at 256 chunks: main's order, -s25c's base),
# walk_bench, parity in six layouts (with the new windows past 131,072 bars), memcheck.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && mkdir -p var && xz -dc var.txz | tar xf - -C var && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin; V=$S/var
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit,driver_version --format=csv
SECONDS=0
mkdir -p $OUT/b
for c in B A C D E; do
  n=5; [ $c = B ] && n=9
  timeout 60 $B/gpu_bench $n $c > $OUT/b/gpu_bench_$c.txt 2>&1; echo "$c rc=$? t=$SECONDS"; grep -E "chosen|plain|fast " $OUT/b/gpu_bench_$c.txt | cut -c1-160
  timeout 60 $V/base/gpu_bench $n $c > $OUT/b/gpu_bench_${c}_base.txt 2>&1; echo "$c base rc=$?"; grep -E "chosen  " $OUT/b/gpu_bench_${c}_base.txt | cut -c1-160
done
timeout 60 $B/gpu_bench 9 B > $OUT/b/gpu_bench_B2.txt 2>&1; grep -E "chosen  " $OUT/b/gpu_bench_B2.txt | cut -c1-160
timeout 60 $V/base/gpu_bench 9 B > $OUT/b/gpu_bench_B2_base.txt 2>&1; grep -E "chosen  " $OUT/b/gpu_bench_B2_base.txt | cut -c1-160
D=/work/shared/data/btcperp_ftx_m1_2022-01.csv
timeout 150 $B/walk_bench cuda $D 10000 1000 200 200 5 0 1 1 > $OUT/b/walk_bench.txt 2>&1
echo "walk rc=$? t=$SECONDS"; grep -E '^\| cuda' $OUT/b/walk_bench.txt | cut -c1-300
F='*cuda*:*Stream*:*Selection*:*Walk*:ExactTies*:SplitSweep*'
for pass in "chosen:WFOD_CUDA_SIGNAL_BITS=" "split1:WFOD_CUDA_FORCE_CHUNKS=1" "chunked64:WFOD_CUDA_FORCE_CHUNKS=64" "sigall:WFOD_CUDA_SIGNAL_BITS=all" "signone:WFOD_CUDA_SIGNAL_BITS=0 WFOD_CUDA_FORCE_CHUNKS=1" "plain:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=plain"; do
  name=${pass%%:*}
  env ${pass#*:} timeout 150 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter="$F" > $OUT/b/parity_$name.log 2>&1
  echo "parity $name rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/b/parity_$name.log | tr '\n' ' ') t=$SECONDS"
  grep -E "FAILED|Failure" -A3 $OUT/b/parity_$name.log | head -20
  grep -cE "window_past.*cuda vs" $OUT/b/parity_$name.log
  [ $SECONDS -gt 470 ] && { echo "time: stopping parity"; break; }
done
[ $SECONDS -lt 510 ] && { timeout 80 compute-sanitizer --tool memcheck --error-exitcode 9 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='SplitSweep*:Synthetic*cuda*:LevelFamilies/*cuda*' > $OUT/b/memcheck.log 2>&1; echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $OUT/b/memcheck.log | tail -1) t=$SECONDS"; }
cd $OUT && tar czf logs.tgz b && rm -rf b
