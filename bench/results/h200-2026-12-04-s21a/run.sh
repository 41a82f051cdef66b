#!/usr/bin/env bash
# session 21, run 1: the canonical order as leaves (>= 32 bars, at most 4096) joined by one tree,
# threads per combo chosen to fill the device. gpu_bench B by WFOD_CUDA_CANONICAL_PARTS (median
# of 9, ncu's kernel times for two of them), A C D E, walk_bench, the CanonicalLayout test,
# parity in four layouts, memcheck.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
SECONDS=0
mkdir -p $OUT/b
for parts in default 256 512 1024 2048 4096; do
  p=$parts; [ $p = default ] && p=
  WFOD_CUDA_CANONICAL_PARTS=$p timeout 60 $B/gpu_bench 9 B > $OUT/b/B_$parts.txt 2>&1; echo "B parts=$parts rc=$? $(grep -E 'chosen ' $OUT/b/B_$parts.txt | grep -v 'top id' | cut -c1-150)"
done
for parts in default 1024; do
  p=$parts; [ $p = default ] && p=
  WFOD_CUDA_CANONICAL_PARTS=$p timeout 60 ncu --section SpeedOfLight --section Occupancy --kernel-name regex:"canonical_parts|join_chunks" --launch-count 3 $B/gpu_bench 1 B > $OUT/b/ncuB_$parts.txt 2>&1
  echo "ncu parts=$parts: $(grep -E '^  (canonical_parts|join_chunks)|^    Duration|Achieved Occupancy' $OUT/b/ncuB_$parts.txt | sed 's/  */ /g' | cut -c1-60 | tr '\n' '|')"
done
echo "t=$SECONDS"
for c in A C D E; do
  timeout 60 $B/gpu_bench 5 $c > $OUT/b/gpu_bench_$c.txt 2>&1; echo "$c rc=$? t=$SECONDS"; grep -E "chosen|plain|fast " $OUT/b/gpu_bench_$c.txt | cut -c1-160
done
D=/work/shared/data/btcperp_ftx_m1_2022-01.csv
timeout 150 $B/walk_bench cuda $D 10000 1000 200 200 5 0 1 1 > $OUT/b/walk_bench.txt 2>&1
echo "walk rc=$? t=$SECONDS"; grep -E '^\| cuda' $OUT/b/walk_bench.txt | cut -c1-300
timeout 120 $B/wfod_parity_tests --gtest_filter='CanonicalLayout.*:ExactTies*' > $OUT/b/canonical_layout.log 2>&1
echo "layout test rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/b/canonical_layout.log | tr '\n' ' ') t=$SECONDS"
grep -E "Failure" -A6 $OUT/b/canonical_layout.log | head -30
for pass in "chosen:WFOD_CUDA_SIGNAL_BITS=" "sigall:WFOD_CUDA_SIGNAL_BITS=all" "chunked64:WFOD_CUDA_FORCE_CHUNKS=64" "plain:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=plain"; do
  name=${pass%%:*}
  env ${pass#*:} timeout 150 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='*cuda*:*Stream*:*Selection*:*Walk*:*Canonical*' > $OUT/b/parity_$name.log 2>&1
  echo "parity $name rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/b/parity_$name.log | tr '\n' ' ') t=$SECONDS"
  grep -E "FAILED|Failure" -A3 $OUT/b/parity_$name.log | head -20
  [ $SECONDS -gt 470 ] && { echo "time: stopping parity"; break; }
done
[ $SECONDS -lt 500 ] && { timeout 80 compute-sanitizer --tool memcheck --error-exitcode 9 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='Synthetic*cuda*:LevelFamilies/*cuda*:Backends/ScoresFollow.*/cuda:CanonicalLayout.*' > $OUT/b/memcheck.log 2>&1; echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $OUT/b/memcheck.log | tail -1) t=$SECONDS"; }
cd $OUT && tar czf logs.tgz b && rm -rf b
