#!/usr/bin/env bash
# session 20, run 4: per-instruction SASS counts of B's canonical chunk kernel (ncu source page).
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && cd ..
export LD_LIBRARY_PATH=$S/lib; B=$S/bin
SECONDS=0
mkdir -p $OUT/b
timeout 150 ncu --kernel-name regex:chunk_parts --launch-count 1 --section SourceCounters --section InstructionStats --page source --print-source sass --csv $B/gpu_bench 1 B > $OUT/b/sass_B.csv 2> $OUT/b/sass_B.err; echo "ncu rc=$? t=$SECONDS"; wc -l $OUT/b/sass_B.csv; head -c 600 $OUT/b/sass_B.err
timeout 100 ncu --kernel-name regex:chunk_parts --launch-count 1 --section InstructionStats --print-details all $B/gpu_bench 1 B > $OUT/b/istats_B.txt 2>&1; echo "ncu2 rc=$? t=$SECONDS"; grep -iE "inst|pipe" $OUT/b/istats_B.txt | head -40
cd $OUT && tar czf logs2.tgz b && rm -rf b
