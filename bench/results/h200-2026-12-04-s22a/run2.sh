#!/usr/bin/env bash
# session 22, run 2: per-instruction SASS counts of A's fused kernel (ncu source page, cuda+sass
# from a -lineinfo build of the same code: main 2ee295d's sweep_kernels.cu). logs-sass.tgz.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && xz -dc var.txz | tar xf - && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main
SECONDS=0
mkdir -p $OUT/b
timeout 200 ncu --kernel-name regex:sweep_fused --launch-count 1 --section SourceCounters --section InstructionStats --section WarpStateStats --page source --print-source cuda,sass --csv $S/v/gpu_bench_li 1 A > $OUT/b/sass_A.csv 2> $OUT/b/sass_A.err; echo "ncu rc=$? t=$SECONDS"; wc -l $OUT/b/sass_A.csv; head -c 600 $OUT/b/sass_A.err
timeout 100 ncu --kernel-name regex:sweep_fused --launch-count 1 --section SourceCounters --section WarpStateStats --section LaunchStats --section Occupancy $S/v/gpu_bench_li 1 A > $OUT/b/ncu_A.txt 2>&1; echo "ncu2 rc=$? t=$SECONDS"; grep -vE "^==PROF" $OUT/b/ncu_A.txt | tail -60 | cut -c1-150
cd $OUT && tar czf logs.tgz b && rm -rf b
