#!/usr/bin/env bash
# session 25, run 3: past 256 canonical chunks a join thread takes a subtree of 2 or 4 chunks
# (one join launch). gpu_bench B (median of 9, two rounds) at base (the default 256 chunks),
# c512 (max 1024 chunks, >= 256 bars: B 512) and c1024 (>= 128 bars: B 1024); walk_bench at
# base and c1024 (its 10k windows take 64 chunks there, not 32); parity of each variant in
# the chosen layout, with the new windows past 131,072 bars; memcheck of those at c1024.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && mkdir -p var && xz -dc var.txz | tar xf - -C var && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin; V=$S/var
D=/work/shared/data/btcperp_ftx_m1_2022-01.csv
SECONDS=0
mkdir -p $OUT/b
for round in 1 2; do
  for v in base c512 c1024; do
    timeout 60 $V/$v/gpu_bench 9 B > $OUT/b/gpu_bench_B_${v}_$round.txt 2>&1; echo "B $v r$round rc=$? t=$SECONDS"; grep -E "chosen  " $OUT/b/gpu_bench_B_${v}_$round.txt | cut -c1-170
  done
done
for w in base:$B/walk_bench c1024:$V/c1024/walk_bench; do
  timeout 150 ${w#*:} cuda $D 10000 1000 200 200 5 0 1 1 > $OUT/b/walk_bench_${w%%:*}.txt 2>&1
  echo "walk ${w%%:*} rc=$? t=$SECONDS"; grep -E '^\| cuda' $OUT/b/walk_bench_${w%%:*}.txt | cut -c1-300
done
F='*cuda*:*Stream*:*Selection*:*Walk*:ExactTies*:SplitSweep*'
for v in c1024 c512; do
  timeout 150 $V/$v/wfod_parity_tests --gtest_brief=1 --gtest_filter="$F" > $OUT/b/parity_$v.log 2>&1
  echo "parity $v rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/b/parity_$v.log | tr '\n' ' ') t=$SECONDS"
  grep -E "FAILED|Failure" -A3 $OUT/b/parity_$v.log | head -20
  grep -E "window_past" $OUT/b/parity_$v.log | head -4
done
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $V/c1024/wfod_parity_tests --gtest_brief=1 --gtest_filter='*window_past*cuda*' > $OUT/b/memcheck.log 2>&1; echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $OUT/b/memcheck.log | tail -1) t=$SECONDS"
cd $OUT && tar czf logs.tgz b && rm -rf b
