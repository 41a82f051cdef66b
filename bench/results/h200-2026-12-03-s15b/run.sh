#!/usr/bin/env bash
# session 15, run 2: the final kernel (8-bar loads, hoisted defined check) with parity and
# memcheck; variants of it for the next steps; the walk.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && xz -dc var.txz | tar xf - -C bin && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
echo "== walk_bench"
$B/walk_bench cuda /work/shared/data/btcperp_ftx_m1_2022-01.csv 10000 1000 200 200 5 0 1 1 > $OUT/walk_bench.txt 2>&1
echo "rc=$?"; cat $OUT/walk_bench.txt
for pass in "chosen:WFOD_CUDA_FORCE_CHUNKS=0" "fused:WFOD_CUDA_FORCE_CHUNKS=1" "chunked64:WFOD_CUDA_FORCE_CHUNKS=64" "plain:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=plain" "rows:WFOD_CUDA_LEVEL_BITS=0"; do
  name=${pass%%:*}
  env ${pass#*:} timeout 300 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='*cuda*:*Stream*:*Selection*:*Walk*' > $OUT/parity_$name.log 2>&1
  echo "parity $name rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/parity_$name.log | tr '\n' ' ')"
  grep -E "FAILED|Failure" $OUT/parity_$name.log | head -8
done
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='Synthetic*cuda*:LevelFamilies/*cuda*' > $OUT/memcheck.log 2>&1
echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $OUT/memcheck.log | tail -1)"
echo "== gpu_bench (final code), median of 5"
timeout 200 $B/gpu_bench 5 > $OUT/gpu_bench.txt 2>&1; echo "rc=$?"; cat $OUT/gpu_bench.txt
VARS="gpu_bench gpu_bench_nh gpu_bench_np16 gpu_bench_np8v8 gpu_bench_np8b3"
for round in 1; do
for bin in $VARS; do
  for c in A C; do echo "-- r$round $bin $c: $($B/$bin 5 $c 2>&1 | grep ' chosen ' | head -3)"; done
done
done 2>&1 | tee $OUT/variants.txt
cd $OUT && tar czf logs.tgz parity_*.log memcheck.log && rm parity_*.log memcheck.log
