#!/usr/bin/env bash
# session 20, run 6 (the committed device code): spread launches and small-grid signal tables,
# each against its absence on gpu_bench B (median of 9; variant gpu_bench_nospread built with
# -DWFOD_SPREAD_BLOCKS_PER_SM=0; tables off by WFOD_CUDA_SIGNAL_BITS=0) with ncu's duration of
# the chunk kernel for each; gpu_bench A C D E; walk_bench against cpu; parity in five layouts;
# memcheck with tables for every grid.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && xz -dc var.txz | tar xf - && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
SECONDS=0
mkdir -p $OUT/b
for v in default:$B/gpu_bench nospread:$S/gpu_bench_nospread; do
  for tb in tables: notables:0; do
    name=${v%%:*}_${tb%%:*}
    WFOD_CUDA_SIGNAL_BITS=${tb#*:} timeout 60 ${v#*:} 9 B > $OUT/b/B_$name.txt 2>&1; echo "$name rc=$? $(grep -E 'chosen ' $OUT/b/B_$name.txt | grep -v 'top id' | cut -c1-140)"
    WFOD_CUDA_SIGNAL_BITS=${tb#*:} timeout 60 ncu --section SpeedOfLight --kernel-name regex:"chunk_parts" --launch-count 1 ${v#*:} 1 B > $OUT/b/ncuB_$name.txt 2>&1; echo "  ncu: $(grep -E 'chunk_parts' $OUT/b/ncuB_$name.txt | grep -oE '\([0-9]+, 1, 1\)x\([0-9]+, 1, 1\)' | head -1) $(grep -E '^    Duration' $OUT/b/ncuB_$name.txt | head -1)"
  done
done
echo "t=$SECONDS"
for c in A C D E; do
  timeout 60 $B/gpu_bench 5 $c > $OUT/b/gpu_bench_$c.txt 2>&1; echo "$c rc=$? t=$SECONDS"; grep -E "chosen|plain|fast " $OUT/b/gpu_bench_$c.txt | cut -c1-160
done
D=/work/shared/data/btcperp_ftx_m1_2022-01.csv
timeout 150 $B/walk_bench cuda $D 10000 1000 200 200 5 0 1 1 > $OUT/b/walk_bench.txt 2>&1
echo "walk rc=$? t=$SECONDS"; grep -E '^\| cuda' $OUT/b/walk_bench.txt | cut -c1-300
for pass in "chosen:WFOD_CUDA_SIGNAL_BITS=" "sigall:WFOD_CUDA_SIGNAL_BITS=all" "fused:WFOD_CUDA_FORCE_CHUNKS=1" "chunked64:WFOD_CUDA_FORCE_CHUNKS=64" "plain:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=plain"; do
  name=${pass%%:*}
  env ${pass#*:} timeout 150 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='*cuda*:*Stream*:*Selection*:*Walk*' > $OUT/b/parity_$name.log 2>&1
  echo "parity $name rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/b/parity_$name.log | tr '\n' ' ') t=$SECONDS"
  grep -E "FAILED|Failure" -A3 $OUT/b/parity_$name.log | head -20
  [ $SECONDS -gt 480 ] && { echo "time: stopping parity"; break; }
done
[ $SECONDS -lt 530 ] && { WFOD_CUDA_SIGNAL_BITS=all timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='Synthetic*cuda*:LevelFamilies/*cuda*:Backends/ScoresFollow.*/cuda' > $OUT/b/memcheck.log 2>&1; echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $OUT/b/memcheck.log | tail -1) t=$SECONDS"; }
cd $OUT && tar czf logs.tgz b && rm -rf b
