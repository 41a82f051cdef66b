#!/usr/bin/env bash
# session 20, run 2: ncu (full set) of gpu_bench B's canonical chunk kernel and its join, the
# first sweep of `gpu_bench 1 B` (the chosen layout's warm-up: the direct canonical path).
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && cd ..
export LD_LIBRARY_PATH=$S/lib; B=$S/bin
SECONDS=0
mkdir -p $OUT/b
timeout 200 ncu --set full --kernel-name regex:"chunk_parts|join_chunks" --launch-count 2 $B/gpu_bench 1 B > $OUT/b/ncu_B_chunks.txt 2>&1; echo "ncu rc=$? t=$SECONDS"
grep -E "^  [a-zA-Z_<].*\(|Duration|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Executed Ipc A|Stall|Executed Instructions  |Theoretical Occ|Block Limit" $OUT/b/ncu_B_chunks.txt | cut -c1-180 | head -60
timeout 100 ncu --section WarpStateStats --section SourceCounters --kernel-name regex:"chunk_parts" --launch-count 1 --print-details all $B/gpu_bench 1 B > $OUT/b/ncu_B_stalls.txt 2>&1; echo "ncu2 rc=$? t=$SECONDS"
cd $OUT && tar czf logs2.tgz b && rm -rf b
