#!/usr/bin/env bash
# session 22, run 4: ma_cross's unsure bars taken per step (~(up | down)) instead of per bar,
# and a variant packing the signal bits as masks (-DWFOD_BIT_PACK_MASK=1, a knob of that build
# only): gpu_bench A C (median of 5), B (median of 9), ncu time and instructions of A's kernel.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && xz -dc var.txz | tar xf - && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
SECONDS=0
mkdir -p $OUT/b
for v in main:$B/gpu_bench pack:$S/v/gpu_bench_pk; do
  name=${v%%:*}; bin=${v#*:}
  for c in A C B; do
    n=5; [ $c = B ] && n=9
    timeout 60 $bin $n $c > $OUT/b/${c}_$name.txt 2>&1; echo "$name $c rc=$? $(grep -E 'chosen ' $OUT/b/${c}_$name.txt | grep -v 'top id' | cut -c1-110)"
    grep -E "top id" $OUT/b/${c}_$name.txt | head -1 | cut -c1-150
  done
  timeout 60 ncu --metrics smsp__inst_executed.sum,gpu__time_duration.sum --kernel-name regex:"sweep_fused" --launch-count 1 $bin 1 A > $OUT/b/ncuA_$name.txt 2>&1
  echo "  ncu A: $(grep -E 'inst_executed|gpu__time_duration' $OUT/b/ncuA_$name.txt | sed 's/  */ /g' | tr '\n' '|') t=$SECONDS"
done
which cuobjdump && cuobjdump -sass -fun '_ZN4wfod4cuda49_GLOBAL__N__' $B/gpu_bench > /dev/null 2>&1; echo "cuobjdump rc=$?"
cd $OUT && tar czf logs.tgz b && rm -rf b
