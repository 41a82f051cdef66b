#!/usr/bin/env bash
# session 22, run 5: with the branchless screens, the signal-bit path's loads 16 bars ahead
# (-DWFOD_BITS_STEP=16), its tile of loads fully unrolled (-DWFOD_TILE_BITS_ROLLED=0), and 4
# fused blocks per SM (-DWFOD_FUSED_BLOCKS=4), against main's build: gpu_bench A C E (median
# of 5), ncu time and instructions of A's kernel.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && xz -dc var.txz | tar xf - && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
SECONDS=0
mkdir -p $OUT/b
for v in main:$B/gpu_bench bs16:$S/v/gpu_bench_bs16 unr:$S/v/gpu_bench_unr fb4:$S/v/gpu_bench_fb4; do
  name=${v%%:*}; bin=${v#*:}
  for c in A C E; do
    timeout 60 $bin 5 $c > $OUT/b/${c}_$name.txt 2>&1; echo "$name $c rc=$? $(grep -E 'chosen ' $OUT/b/${c}_$name.txt | grep -v 'top id' | cut -c1-110)"
    grep -E "top id" $OUT/b/${c}_$name.txt | head -1 | cut -c1-150
  done
  timeout 60 ncu --metrics smsp__inst_executed.sum,gpu__time_duration.sum --kernel-name regex:"sweep_fused" --launch-count 1 $bin 1 A > $OUT/b/ncuA_$name.txt 2>&1
  echo "  ncu A: $(grep -E 'inst_executed|gpu__time_duration' $OUT/b/ncuA_$name.txt | sed 's/  */ /g' | tr '\n' '|') t=$SECONDS"
done
cd $OUT && tar czf logs.tgz b && rm -rf b
