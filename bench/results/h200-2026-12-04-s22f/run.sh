#!/usr/bin/env bash
# session 22, run 7: Tally's five counters as 32-bit ints (-DWFOD_TALLY_INT=1: fewer registers,
# A's fused kernel spilling 146/112 bytes instead of 218/164) against main c6b9564's build:
# gpu_bench A C D E (median of 5), B (median of 9), run twice alternating.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && xz -dc var.txz | tar xf - && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
SECONDS=0
mkdir -p $OUT/b
for round in 1 2; do
for v in main:$B/gpu_bench int:$S/v/gpu_bench_ti; do
  name=${v%%:*}; bin=${v#*:}
  for c in A C D E B; do
    n=5; [ $c = B ] && n=9
    timeout 60 $bin $n $c > $OUT/b/${c}_${name}_$round.txt 2>&1; echo "$round $name $c rc=$? $(grep -E 'chosen ' $OUT/b/${c}_${name}_$round.txt | grep -v 'top id' | cut -c1-110)"
    grep -E "top id" $OUT/b/${c}_${name}_$round.txt | head -1 | cut -c1-150
  done
done
done
cd $OUT && tar czf logs.tgz b && rm -rf b
