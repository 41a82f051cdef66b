#!/usr/bin/env bash
# session 16, run 2: parity (five layouts) and memcheck of what is committed next (float
# screen floor, vol screen without a division, fused kernel at 3 blocks per SM, the block
# Summaries kernel in blocks of 128 threads); the block Summaries' denormal test on the old
# screen (it must fail there); the whole gpu_bench; the walk with block-kernel variants.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && xz -dc var.txz | tar xf - -C bin && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
SECONDS=0
echo "== the block Summaries' denormal test on the old screen (expected to FAIL)"
timeout 120 $B/wfod_parity_tests_old2 --gtest_brief=1 --gtest_filter='*DenormalFloat*' > $OUT/parity_old_screen.log 2>&1
echo "old screen rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/parity_old_screen.log | tr '\n' ' ')"
grep -E "^\[  FAILED|Failure|field|trades|Expected" $OUT/parity_old_screen.log | head -12
for pass in "chosen:WFOD_CUDA_FORCE_CHUNKS=0" "fused:WFOD_CUDA_FORCE_CHUNKS=1" "chunked64:WFOD_CUDA_FORCE_CHUNKS=64" "plain:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=plain" "rows:WFOD_CUDA_LEVEL_BITS=0"; do
  name=${pass%%:*}
  env ${pass#*:} timeout 300 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='*cuda*:*Stream*:*Selection*:*Walk*' > $OUT/parity_$name.log 2>&1
  echo "parity $name rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/parity_$name.log | tr '\n' ' ') t=$SECONDS"
  grep -E "FAILED|Failure" $OUT/parity_$name.log | head -8
done
timeout 120 $B/wfod_parity_tests_t256 --gtest_brief=1 --gtest_filter='*Selection*:*Walk*' > $OUT/parity_t256.log 2>&1
echo "parity t256 (selection, walk) rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/parity_t256.log | tr '\n' ' ') t=$SECONDS"
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='Synthetic*cuda*:LevelFamilies/*cuda*:SelectionDeviceParity.BlockSummaries*' > $OUT/memcheck.log 2>&1
echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $OUT/memcheck.log | tail -1) t=$SECONDS"
echo "== walk_bench: rolling, default selection and none; block kernel variants"
for w in walk_bench walk_bench_t256 walk_bench_t64 walk_bench_bb3 walk_bench; do
  timeout 60 $B/$w cuda /work/shared/data/btcperp_ftx_m1_2022-01.csv 10000 1000 200 200 5 0 1 1 > $OUT/$w.txt 2>&1
  echo "$w rc=$?"; grep -E '^\| cuda' $OUT/$w.txt | cut -c1-300; grep "rolling selection=default" $OUT/$w.txt | grep -o "select = .*"
done
echo "== gpu_bench (this build), median of 5 t=$SECONDS"
timeout 150 $B/gpu_bench 5 > $OUT/gpu_bench.txt 2>&1; echo "rc=$?"; cat $OUT/gpu_bench.txt
echo "t=$SECONDS"
cd $OUT && tar czf logs.tgz parity_*.log memcheck.log walk_bench_*.txt && rm parity_*.log memcheck.log walk_bench_*.txt
