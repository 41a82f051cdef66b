#!/usr/bin/env bash
# session 15 device run: variants of the fused kernel (park / load step / blocks), walk overlap
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && xz -dc var.txz | tar xf - -C bin && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv | tee $OUT/gpu.txt
VARS="gpu_bench gpu_bench_base gpu_bench_park gpu_bench_p4 gpu_bench_np8 gpu_bench_p8b3"
for bin in $VARS; do
  cuobjdump -sass -fun 'sweep_fused' $B/$bin > /tmp/sass_$bin.txt 2>&1
  python3 $S/loops.py /tmp/sass_$bin.txt > $OUT/loops_$bin.txt 2>&1
  xz -c /tmp/sass_$bin.txt > $OUT/sass_$bin.txt.xz
done
echo "== walk_bench (overlapped tails)"
$B/walk_bench cuda /work/shared/data/btcperp_ftx_m1_2022-01.csv 10000 1000 200 200 5 0 1 1 > $OUT/walk_bench.txt 2>&1
echo "rc=$?"; grep -E '^\| cuda|^- ' $OUT/walk_bench.txt | cut -c1-400
for round in 1 2; do
for bin in $VARS; do
  for c in A C D E; do echo "-- r$round $bin $c: $($B/$bin 5 $c 2>&1 | grep ' chosen ' | head -3)"; done
done
done 2>&1 | tee $OUT/variants.txt
echo "-- B: $($B/gpu_bench 5 B 2>&1 | grep ' chosen ')"
timeout 120 ncu --clock-control none --launch-skip 0 --launch-count 40 --metrics gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread $B/gpu_bench 1 B > $OUT/ncu_B.txt 2>&1
grep -E '^  [a-z_]|duration|grid_size' $OUT/ncu_B.txt | paste - - - - | awk '{print $1, $NF}' | head -50
for pass in "chosen:WFOD_CUDA_FORCE_CHUNKS=0" "fused:WFOD_CUDA_FORCE_CHUNKS=1" "chunked64:WFOD_CUDA_FORCE_CHUNKS=64" "plain:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=plain" "rows:WFOD_CUDA_LEVEL_BITS=0"; do
  name=${pass%%:*}
  env ${pass#*:} timeout 300 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='*cuda*:*Stream*:*Selection*:*Walk*' > $OUT/parity_$name.log 2>&1
  echo "parity $name rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/parity_$name.log | tr '\n' ' ')"
  grep -E "FAILED|Failure" $OUT/parity_$name.log | head -8
done
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='Synthetic*cuda*:LevelFamilies/*cuda*' > $OUT/memcheck.log 2>&1
echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $OUT/memcheck.log | tail -1)"
