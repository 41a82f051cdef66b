#!/usr/bin/env bash
# session 25, run 2: ncu of gpu_bench B's canonical chunk and join kernels at 256 (base),
# 512, 1024 and 2048 chunks (-s25a's variants): duration, registers, occupancy, and the warp
# state sections at 256 and 512, to see what a chunk's fixed cost is.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && mkdir -p var && xz -dc var.txz | tar xf - -C var && cd ..
export LD_LIBRARY_PATH=$S/lib; V=$S/var
SECONDS=0
mkdir -p $OUT/b
for v in base c512 c1024 c2048; do
  timeout 100 ncu --kernel-name regex:'chunk|join' --launch-skip 4 --launch-count 4 --metrics gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__cycles_active.avg $V/$v/gpu_bench 1 B > $OUT/b/ncu_$v.txt 2>&1
  echo "ncu $v rc=$? t=$SECONDS"
  grep -E "chunk_|join_|duration|grid_size|warps_active|inst_exec|registers" $OUT/b/ncu_$v.txt | sed -E 's/\(wfod::cuda::GridTables.*//' | cut -c1-110 | head -24
done
for v in base c512; do
  timeout 120 ncu --kernel-name regex:'chunk_parts' --launch-skip 1 --launch-count 1 --section WarpStateStats --section SchedulerStats --section Occupancy --section SourceCounters $V/$v/gpu_bench 1 B > $OUT/b/ncu_sections_$v.txt 2>&1
  echo "sections $v rc=$? t=$SECONDS"
  grep -E "Stall|Warp Cycles|Issued|Eligible|Active Warps|Achieved" $OUT/b/ncu_sections_$v.txt | head -30
done
cd $OUT && tar czf logs.tgz b && rm -rf b
