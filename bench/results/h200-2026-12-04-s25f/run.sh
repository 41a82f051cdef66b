#!/usr/bin/env bash
# session 25, run 6: the canonical chunk kernel in blocks of 64 threads (bin; 512 chunks x 80
# combos = 640 blocks, 4-5 per SM, where 160 blocks of 256 left 28 SMs with two) against 128
# and 256 (main 00c0aa7). gpu_bench B alternated three times (median of 9), walk_bench (its
# default selection scores 40k combos in the canonical order) at 64 and 256, parity of 64 in
# three layouts, memcheck.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && mkdir -p var && xz -dc var.txz | tar xf - -C var && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin; V=$S/var
D=/work/shared/data/btcperp_ftx_m1_2022-01.csv
SECONDS=0
mkdir -p $OUT/b
timeout 60 $B/gpu_bench 5 A > /dev/null 2>&1
for round in 1 2 3; do
  for v in cb64:$B/gpu_bench cb128:$V/cb128/gpu_bench cb256:$V/cb256/gpu_bench; do
    timeout 60 ${v#*:} 9 B > $OUT/b/gpu_bench_B_${v%%:*}_$round.txt 2>&1; echo "B ${v%%:*} r$round rc=$? $(grep -E 'chosen  ' $OUT/b/gpu_bench_B_${v%%:*}_$round.txt | cut -c1-120)"
  done
done
for w in cb64:$B/walk_bench cb256:$V/cb256/walk_bench; do
  timeout 150 ${w#*:} cuda $D 10000 1000 200 200 5 0 1 1 > $OUT/b/walk_bench_${w%%:*}.txt 2>&1
  echo "walk ${w%%:*} rc=$? t=$SECONDS"; grep -E '^\| cuda' $OUT/b/walk_bench_${w%%:*}.txt | cut -c1-300
done
F='*cuda*:*Stream*:*Selection*:*Walk*:ExactTies*:SplitSweep*'
for pass in "chosen:WFOD_CUDA_SIGNAL_BITS=" "sigall:WFOD_CUDA_SIGNAL_BITS=all" "plain:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=plain"; do
  name=${pass%%:*}
  env ${pass#*:} timeout 150 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter="$F" > $OUT/b/parity_$name.log 2>&1
  echo "parity $name rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/b/parity_$name.log | tr '\n' ' ') $(grep -c 'cuda vs cpu_ref: window_past' $OUT/b/parity_$name.log) t=$SECONDS"
  grep -E "FAILED|Failure" -A3 $OUT/b/parity_$name.log | head -20
done
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='*window_past*cuda*:Synthetic/*long_window*cuda*' > $OUT/b/memcheck.log 2>&1; echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $OUT/b/memcheck.log | tail -1) t=$SECONDS"
cd $OUT && tar czf logs.tgz b && rm -rf b
