#!/usr/bin/env bash
# session 17, run 2: what is committed next (score arrays downloaded through one pinned buffer,
# the canonical evaluator's long/short bar counts per tile): the walk checked against cpu;
# ncu: the durations of the canonical chunk kernel, the join and the window scores in the
# selection walk's first folds; parity in five layouts, memcheck, gpu_bench (median of 3).
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
SECONDS=0
D=/work/shared/data/btcperp_ftx_m1_2022-01.csv
echo "== walk_bench (this build), checked against cpu"
timeout 120 $B/walk_bench cuda $D 10000 1000 200 200 5 0 1 1 > $OUT/walk_bench.txt 2>&1
echo "rc=$? t=$SECONDS"; grep -E '^\| cuda' $OUT/walk_bench.txt | cut -c1-300; grep -E "^- cuda rolling" $OUT/walk_bench.txt | grep -o "whole [0-9.]* = sweep [0-9.]* + select [0-9.]*\|select = .*"
echo "== ncu: durations (launches 125-134 of the three kernels: the selection walk's first folds)"
timeout 120 ncu --clock-control none --kernel-name regex:'chunk_parts_kernel|join_chunks_kernel|window_scores_kernel' --launch-skip 124 --launch-count 10 --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats $B/walk_bench cuda $D 10000 1000 200 200 1 0 1 0 > $OUT/ncu_durations.txt 2>&1
echo "rc=$? t=$SECONDS"; grep -E "chunk_parts_kernel|join_chunks|window_scores|^ +(Duration|Grid Size|Registers Per|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Issued Warp|No Eligible|Compute \(SM\) Throughput|Memory Throughput|Block Limit Registers|Executed Instructions  |Executed Ipc Active|Issue Slots Busy|SM Busy)" $OUT/ncu_durations.txt | sed -E 's/\(wfod::cuda::GridTables.*//; s/void wfod::cuda::\(anonymous namespace\)::/  /' | cut -c1-150 | head -150
for pass in "chosen:WFOD_CUDA_FORCE_CHUNKS=0" "fused:WFOD_CUDA_FORCE_CHUNKS=1" "chunked64:WFOD_CUDA_FORCE_CHUNKS=64" "plain:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=plain" "rows:WFOD_CUDA_LEVEL_BITS=0"; do
  name=${pass%%:*}
  env ${pass#*:} timeout 300 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='*cuda*:*Stream*:*Selection*:*Walk*' > $OUT/parity_$name.log 2>&1
  echo "parity $name rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/parity_$name.log | tr '\n' ' ') t=$SECONDS"
  grep -E "FAILED|Failure" $OUT/parity_$name.log | head -8
done
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='Synthetic*cuda*:LevelFamilies/*cuda*:SelectionDeviceParity.BlockSummaries*:SelectionDeviceParity.RobustScoresEqualHostPipeline' > $OUT/memcheck.log 2>&1
echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $OUT/memcheck.log | tail -1) t=$SECONDS"
echo "== gpu_bench (this build), median of 3 t=$SECONDS"
timeout 100 $B/gpu_bench 3 > $OUT/gpu_bench.txt 2>&1; echo "rc=$?"; grep -vE "top id" $OUT/gpu_bench.txt
echo "t=$SECONDS"
cd $OUT && tar czf logs.tgz parity_*.log memcheck.log && rm parity_*.log memcheck.log
