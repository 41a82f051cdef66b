#!/usr/bin/env bash
# session 23, run 9: where B's canonical evaluation goes, two passes (this tree) against one
# (main 7347b49, old): ncu kernel durations of one gpu_bench B sweep.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && xz -dc var.txz | tar xf - && cd ..
export LD_LIBRARY_PATH=$S/lib; B=$S/bin
SECONDS=0
mkdir -p $OUT/b
for v in new:$B/gpu_bench old:$S/old/gpu_bench; do
  timeout 100 ncu --kernel-name regex:'chunk|join' --launch-skip 3 --launch-count 4 --metrics gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active ${v#*:} 1 B > $OUT/b/ncu_${v%%:*}.txt 2>&1
  echo "ncu ${v%%:*} rc=$? t=$SECONDS"
  grep -E "chunk_|join_|duration|grid_size|warps_active" $OUT/b/ncu_${v%%:*}.txt | cut -c1-120 | head -24
done
cd $OUT && tar czf logs.tgz b && rm -rf b
