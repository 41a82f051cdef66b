#!/usr/bin/env bash
# session 19, run 1a: the tile decider's signal-bit path (set-or-hold families: the tile's
# signals as bit masks, positions by tile_positions' forward fill) and the shared signal
# tables (signal_bits.cu: per (rows pair, bar) and per (filter, bar) bits where >= 16 combos
# share a key). gpu_bench of this build (tables on by default, and off), and two variants of
# sweep_kernels.cu: the per-bar decision loop (WFOD_TILE_BITS=0: the s18 loop) and the
# bit path's loads fully unrolled (WFOD_TILE_BITS_ROLLED=0); walk_bench against cpu.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && xz -dc var.txz | tar xf - && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
SECONDS=0
for c in A C D E; do
  timeout 60 $B/gpu_bench 5 $c > $OUT/gpu_bench_$c.txt 2>&1; echo "$c rc=$? t=$SECONDS"; grep -E "chosen|plain|fast " $OUT/gpu_bench_$c.txt | grep -v "top id" | cut -c1-140
done
WFOD_CUDA_SIGNAL_BITS=0 timeout 60 $B/gpu_bench 5 C > $OUT/gpu_bench_C_sigoff.txt 2>&1; echo "C sigoff rc=$?"; grep -E "chosen" $OUT/gpu_bench_C_sigoff.txt | grep -v "top id"
for v in nobits unrolled; do
  for c in A C; do
    timeout 60 $S/var/gpu_bench_$v 5 $c > $OUT/gpu_bench_${v}_$c.txt 2>&1; echo "$v $c rc=$? t=$SECONDS"; grep -E "chosen" $OUT/gpu_bench_${v}_$c.txt | grep -v "top id"
  done
done
WFOD_CUDA_SIGNAL_BITS=0 timeout 60 $S/var/gpu_bench_unrolled 5 C > $OUT/gpu_bench_unrolled_C_sigoff.txt 2>&1; echo "unrolled C sigoff rc=$?"; grep -E "chosen" $OUT/gpu_bench_unrolled_C_sigoff.txt | grep -v "top id"
D=/work/shared/data/btcperp_ftx_m1_2022-01.csv
echo "== walk_bench (this build), checked against cpu t=$SECONDS"
timeout 150 $B/walk_bench cuda $D 10000 1000 200 200 5 0 1 1 > $OUT/walk_bench.txt 2>&1
echo "rc=$? t=$SECONDS"; grep -E '^\| cuda' $OUT/walk_bench.txt | cut -c1-300; grep -E "^- cuda rolling" $OUT/walk_bench.txt | cut -c1-400
