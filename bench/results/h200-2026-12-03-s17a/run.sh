#!/usr/bin/env bash
# session 17, run 1: the canonical per-bar evaluator with its decisions a tile ahead
# (TileDecider, shared with the sweep's stretch evaluator) and the DSR returns beside the grid
# scores: the walk with and without default selection (against cpu), its per-bar accounting
# step as variants; then parity in five layouts, memcheck and the whole gpu_bench.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && { [ -f var.txz ] && xz -dc var.txz | tar xf - -C bin; cd ..; }
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
SECONDS=0
echo "== walk_bench: rolling and anchored, default selection and none (this build checked against cpu)"
for w in walk_bench $(cd $B && ls walk_bench_* 2>/dev/null); do
  check=0; [ $w = walk_bench ] && check=1  # the variants unchecked: one call's time is bounded
  timeout 120 $B/$w cuda /work/shared/data/btcperp_ftx_m1_2022-01.csv 10000 1000 200 200 5 0 1 $check > $OUT/$w.txt 2>&1
  echo "$w rc=$? t=$SECONDS"; grep -E '^\| cuda' $OUT/$w.txt | cut -c1-300; grep -E "^- cuda rolling" $OUT/$w.txt | grep -o "whole [0-9.]* = sweep [0-9.]* + select [0-9.]*\|select = .*"
done
for pass in "chosen:WFOD_CUDA_FORCE_CHUNKS=0" "fused:WFOD_CUDA_FORCE_CHUNKS=1" "chunked64:WFOD_CUDA_FORCE_CHUNKS=64" "plain:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=plain" "rows:WFOD_CUDA_LEVEL_BITS=0"; do
  name=${pass%%:*}
  env ${pass#*:} timeout 300 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='*cuda*:*Stream*:*Selection*:*Walk*' > $OUT/parity_$name.log 2>&1
  echo "parity $name rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/parity_$name.log | tr '\n' ' ') t=$SECONDS"
  grep -E "FAILED|Failure" $OUT/parity_$name.log | head -8
done
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='Synthetic*cuda*:LevelFamilies/*cuda*:SelectionDeviceParity.BlockSummaries*:SelectionDeviceParity.RobustScoresEqualHostPipeline' > $OUT/memcheck.log 2>&1
echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $OUT/memcheck.log | tail -1) t=$SECONDS"
echo "== gpu_bench (this build), median of 5 t=$SECONDS"
timeout 150 $B/gpu_bench 5 > $OUT/gpu_bench.txt 2>&1; echo "rc=$?"; cat $OUT/gpu_bench.txt
echo "t=$SECONDS"
cd $OUT && tar czf logs.tgz parity_*.log memcheck.log && rm parity_*.log memcheck.log
