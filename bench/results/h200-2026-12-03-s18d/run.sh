#!/usr/bin/env bash
# session 18, run 4: the sweep's time-chunked layout laid out chunk-major (chunk_parts_kernel
# with the kinds' evaluator, then join_chunks_kernel in groups of 256 chunks per combo) in
# place of sweep_chunks_kernel's combo-major blocks: the walk checked against cpu (median of
# 5), parity in five layouts and a sixth with 1024 forced chunks (groups > 1), memcheck,
# gpu_bench (median of 3) and case B at 256 ... 4096 chunks.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
SECONDS=0
D=/work/shared/data/btcperp_ftx_m1_2022-01.csv
echo "== walk_bench (this build), checked against cpu"
timeout 150 $B/walk_bench cuda $D 10000 1000 200 200 5 0 1 1 > $OUT/walk_bench.txt 2>&1
echo "rc=$? t=$SECONDS"; grep -E '^\| cuda' $OUT/walk_bench.txt | cut -c1-300; grep -E "^- cuda rolling" $OUT/walk_bench.txt | cut -c1-400
for pass in "chosen:WFOD_CUDA_FORCE_CHUNKS=0" "fused:WFOD_CUDA_FORCE_CHUNKS=1" "chunked64:WFOD_CUDA_FORCE_CHUNKS=64" "plain:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=plain" "rows:WFOD_CUDA_LEVEL_BITS=0" "chunked1024:WFOD_CUDA_FORCE_CHUNKS=1024"; do
  name=${pass%%:*}
  env ${pass#*:} timeout 300 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='*cuda*:*Stream*:*Selection*:*Walk*' > $OUT/parity_$name.log 2>&1
  echo "parity $name rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/parity_$name.log | tr '\n' ' ') t=$SECONDS"
  grep -E "FAILED|Failure" -A3 $OUT/parity_$name.log | head -20
done
timeout 240 compute-sanitizer --tool memcheck --error-exitcode 9 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='Synthetic*cuda*:LevelFamilies/*cuda*:SelectionDeviceParity.RobustScoresEqualHostPipeline:Backends/ScoresFollow.*/cuda' > $OUT/memcheck.log 2>&1
echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $OUT/memcheck.log | tail -1) t=$SECONDS"
echo "== gpu_bench (this build), median of 3 t=$SECONDS"
timeout 100 $B/gpu_bench 3 > $OUT/gpu_bench.txt 2>&1; echo "rc=$?"; grep -vE "top id" $OUT/gpu_bench.txt
for ch in 256 1024 4096; do timeout 60 $B/gpu_bench 5 B $ch > $OUT/gpu_bench_B_$ch.txt 2>&1; echo "B chunks=$ch rc=$?"; grep -E "^B hma 80 x 150k +chosen" $OUT/gpu_bench_B_$ch.txt; done
echo "t=$SECONDS"
cd $OUT && tar czf logs.tgz parity_*.log memcheck.log && rm parity_*.log memcheck.log
