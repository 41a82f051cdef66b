#!/usr/bin/env bash
# session 20, run 5: the per-bar (canonical) evaluator's accounting predicated (default now)
# against branched (variant gpu_bench_branched: -DWFOD_RANGE_PREDICATED=0). gpu_bench B, A, C,
# ncu of B's chunk kernel, parity (chosen, plain kernel: the per-bar evaluator everywhere).
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && xz -dc var.txz | tar xf - && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
SECONDS=0
mkdir -p $OUT/b
for c in B A C; do
  for v in gpu_bench:$B/gpu_bench branched:$S/gpu_bench_branched; do
    timeout 60 ${v#*:} 5 $c > $OUT/b/${v%%:*}_$c.txt 2>&1; echo "${v%%:*} $c rc=$? t=$SECONDS"; grep -E "chosen|plain|fast " $OUT/b/${v%%:*}_$c.txt | grep -v "top id" | cut -c1-160
  done
done
timeout 100 ncu --set full --kernel-name regex:"chunk_parts" --launch-count 1 $B/gpu_bench 1 B > $OUT/b/ncu_B_chunks.txt 2>&1; echo "ncu rc=$? t=$SECONDS"
grep -E "^  [a-zA-Z_<].*\(|Duration|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Executed Ipc A|Executed Instructions  " $OUT/b/ncu_B_chunks.txt | cut -c1-180 | head -20
for pass in "chosen:WFOD_CUDA_SIGNAL_BITS=" "plain:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=plain"; do
  name=${pass%%:*}
  env ${pass#*:} timeout 150 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='*cuda*:*Stream*:*Selection*:*Walk*' > $OUT/b/parity_$name.log 2>&1
  echo "parity $name rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/b/parity_$name.log | tr '\n' ' ') t=$SECONDS"
  grep -E "FAILED|Failure" -A3 $OUT/b/parity_$name.log | head -20
done
cd $OUT && tar czf logs.tgz b && rm -rf b
