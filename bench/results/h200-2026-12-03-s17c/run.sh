#!/usr/bin/env bash
# session 17, run 3: the committed build's walk three more times (the s17b binaries), to see
# how the default-selection / no-selection ratio spreads between runs.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
D=/work/shared/data/btcperp_ftx_m1_2022-01.csv
for i in 1 2 3; do
  timeout 60 $B/walk_bench cuda $D 10000 1000 200 200 5 0 1 0 > $OUT/walk_bench_$i.txt 2>&1
  echo "round $i rc=$? t=$SECONDS"; grep -E '^\| cuda \| rolling' $OUT/walk_bench_$i.txt | cut -c1-120
done
