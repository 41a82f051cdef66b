#!/usr/bin/env bash
# session 20, run 3: spread launches (blocks of fewer threads when a launch would give under 4
# blocks per SM) and signal tables for small grids. gpu_bench all cases (median of 5), ncu
# of B's canonical chunk kernel, then parity in three layouts.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
SECONDS=0
mkdir -p $OUT/b
for c in B A C D E; do
  timeout 60 $B/gpu_bench 5 $c > $OUT/b/gpu_bench_$c.txt 2>&1; echo "$c rc=$? t=$SECONDS"; grep -E "chosen|plain|fast |top id" $OUT/b/gpu_bench_$c.txt | cut -c1-160
done
timeout 100 ncu --set full --kernel-name regex:"chunk_parts|join_chunks" --launch-count 2 $B/gpu_bench 1 B > $OUT/b/ncu_B_chunks.txt 2>&1; echo "ncu rc=$? t=$SECONDS"
grep -E "^  [a-zA-Z_<].*\(|Duration|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Executed Ipc A|Executed Instructions  " $OUT/b/ncu_B_chunks.txt | cut -c1-180 | head -20
D=/work/shared/data/btcperp_ftx_m1_2022-01.csv
timeout 150 $B/walk_bench cuda $D 10000 1000 200 200 5 0 1 1 > $OUT/b/walk_bench.txt 2>&1
echo "walk rc=$? t=$SECONDS"; grep -E '^\| cuda' $OUT/b/walk_bench.txt | cut -c1-300
for pass in "chosen:WFOD_CUDA_SIGNAL_BITS=" "sigoff:WFOD_CUDA_SIGNAL_BITS=0" "chunked64:WFOD_CUDA_FORCE_CHUNKS=64"; do
  name=${pass%%:*}
  env ${pass#*:} timeout 150 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='*cuda*:*Stream*:*Selection*:*Walk*' > $OUT/b/parity_$name.log 2>&1
  echo "parity $name rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/b/parity_$name.log | tr '\n' ' ') t=$SECONDS"
  grep -E "FAILED|Failure" -A3 $OUT/b/parity_$name.log | head -20
  [ $SECONDS -gt 470 ] && { echo "time: stopping parity"; break; }
done
cd $OUT && tar czf logs.tgz b && rm -rf b
