#!/usr/bin/env bash
# session 25, run 1: the canonical order with more time chunks for windows past 131,072 bars
# (kMaxCanonicalChunks, two join levels). gpu_bench B (median of 9) at the default (base:
# 256 chunks, main's order) and three variants: c512 (max 1024 chunks, >= 256 bars: B 512),
# c1024 (>= 128 bars: B 1024), c2048 (max 4096, >= 64 bars: B 2048); then A and C once each
# at c512 against base (their settle only).
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && mkdir -p var && xz -dc var.txz | tar xf - -C var && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin; V=$S/var
SECONDS=0
mkdir -p $OUT/b
for round in 1 2; do
  for v in base c512 c1024 c2048; do
    timeout 60 $V/$v/gpu_bench 9 B > $OUT/b/gpu_bench_B_${v}_$round.txt 2>&1; echo "B $v r$round rc=$? t=$SECONDS"; grep -E "chosen  " $OUT/b/gpu_bench_B_${v}_$round.txt | cut -c1-170
  done
done
for c in A C; do
  for v in base c512; do
    timeout 60 $V/$v/gpu_bench 5 $c > $OUT/b/gpu_bench_${c}_$v.txt 2>&1; echo "$c $v rc=$? t=$SECONDS"; grep -E "chosen  " $OUT/b/gpu_bench_${c}_$v.txt | cut -c1-170
  done
done
cd $OUT && tar czf logs.tgz b && rm -rf b
