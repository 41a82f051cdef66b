#!/usr/bin/env bash
# session 22, run 1: the stretch evaluator's change bars gathered over 1, 2, 4 or 8 tiles of
# decisions per pass (-DWFOD_CHANGE_TILES=N; 1 is main's default): gpu_bench A, C, E (median
# of 5) and ncu's time and instructions of A's fused kernel per variant, then parity (chosen
# layout) of the default build.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && xz -dc var.txz | tar xf - && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
SECONDS=0
mkdir -p $OUT/b
for v in d1:$B/gpu_bench d2:$S/v/gpu_bench_d2 d4:$S/v/gpu_bench_d4 d8:$S/v/gpu_bench_d8; do
  name=${v%%:*}; bin=${v#*:}
  for c in A C E; do
    timeout 60 $bin 5 $c > $OUT/b/${c}_$name.txt 2>&1; echo "$name $c rc=$? $(grep -E 'chosen ' $OUT/b/${c}_$name.txt | grep -v 'top id' | cut -c1-110)"
    grep -E "top id" $OUT/b/${c}_$name.txt | head -1 | cut -c1-150
  done
  timeout 60 ncu --metrics smsp__inst_executed.sum,gpu__time_duration.sum --kernel-name regex:"sweep_fused" --launch-count 1 $bin 1 A > $OUT/b/ncuA_$name.txt 2>&1
  echo "  ncu A: $(grep -E 'inst_executed|gpu__time_duration' $OUT/b/ncuA_$name.txt | sed 's/  */ /g' | tr '\n' '|') t=$SECONDS"
done
env timeout 150 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='*cuda*:*Stream*:*Selection*:*Walk*:ExactTies*' > $OUT/b/parity_chosen.log 2>&1
echo "parity chosen rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/b/parity_chosen.log | tr '\n' ' ') t=$SECONDS"
grep -E "FAILED|Failure" -A3 $OUT/b/parity_chosen.log | head -20
cd $OUT && tar czf logs.tgz b && rm -rf b
