#!/usr/bin/env bash
# session 23, run 4: the split sweep with 4 decision blocks/SM (the new default): the
# accounting kernel at 3 (default) or 4 blocks/SM (a4), event caps 128 / 256 / 1024, against
# main 7347b49 (old): gpu_bench A C E (median of 5).
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && xz -dc var.txz | tar xf - && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit,driver_version --format=csv
SECONDS=0
mkdir -p $OUT/b
run() {  # name env... binary args
  local name=$1; shift
  env "$@" > $OUT/b/gpu_bench_$name.txt 2>&1; echo "$name rc=$? t=$SECONDS"
  grep -E "chosen  " $OUT/b/gpu_bench_$name.txt | cut -c1-160
}
for c in A C E; do
  run ${c}_old timeout 60 $S/old/gpu_bench 5 $c
  run ${c}_split timeout 60 $B/gpu_bench 5 $c
  run ${c}_a4 timeout 60 $S/a4/gpu_bench 5 $c
  run ${c}_cap128 WFOD_CUDA_EVENT_CAP=128 timeout 60 $B/gpu_bench 5 $c
  run ${c}_cap1024 WFOD_CUDA_EVENT_CAP=1024 timeout 60 $B/gpu_bench 5 $c
done
cd $OUT && tar czf logs.tgz b && rm -rf b
