#!/usr/bin/env bash
# session 21, run 3: the per-bar evaluator's bars branchless (RangeWalk::step<true>) against
# branched (main afe4189), with the accounting step of 8, 16 and 32 bars: gpu_bench B (median
# of 9) and D (median of 5, bollinger: the per-bar evaluator in the sweep itself), and ncu's
# time and instructions of B's canonical chunk kernel. Variants built with
# -DWFOD_ACCOUNT_BRANCHLESS=1 [-DWFOD_ACCOUNT_STEP=16|32].
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && xz -dc var.txz | tar xf - && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
SECONDS=0
mkdir -p $OUT/b
for v in branched:$B/gpu_bench branchless:$S/v/gpu_bench_branchless branchless16:$S/v/gpu_bench_branchless16 branchless32:$S/v/gpu_bench_branchless32; do
  name=${v%%:*}; bin=${v#*:}
  timeout 60 $bin 9 B > $OUT/b/B_$name.txt 2>&1; echo "$name B rc=$? $(grep -E 'chosen |plain ' $OUT/b/B_$name.txt | grep -v 'top id' | cut -c1-120 | tr '\n' '|')"
  grep -E "top id" $OUT/b/B_$name.txt | head -2
  timeout 60 $bin 5 D > $OUT/b/D_$name.txt 2>&1; echo "$name D rc=$? $(grep -E 'chosen ' $OUT/b/D_$name.txt | grep -v 'top id' | cut -c1-120)"
  timeout 60 ncu --metrics smsp__inst_executed.sum,gpu__time_duration.sum --kernel-name regex:"chunk_parts" --launch-count 1 $bin 1 B > $OUT/b/ncuB_$name.txt 2>&1
  echo "  ncu: $(grep -E 'inst_executed|gpu__time_duration' $OUT/b/ncuB_$name.txt | sed 's/  */ /g' | tr '\n' '|') t=$SECONDS"
done
cd $OUT && tar czf logs.tgz b && rm -rf b
