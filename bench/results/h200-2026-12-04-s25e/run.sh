#!/usr/bin/env bash
# session 25, run 5: gpu_bench B only, the committed 512 canonical chunks (bin) against base
# (256: main's order), after a warm-up (A), alternated 4 times (median of 9 each); then ncu
# of every chunk and join launch of one B run of each, to read the chosen row's kernels.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && mkdir -p var && xz -dc var.txz | tar xf - -C var && cd ..
export LD_LIBRARY_PATH=$S/lib; B=$S/bin; V=$S/var
SECONDS=0
mkdir -p $OUT/b
timeout 60 $B/gpu_bench 5 A > /dev/null 2>&1
for round in 1 2 3 4; do
  for v in new:$B/gpu_bench base:$V/base/gpu_bench; do
    timeout 60 ${v#*:} 9 B > $OUT/b/gpu_bench_B_${v%%:*}_$round.txt 2>&1; echo "B ${v%%:*} r$round rc=$? $(grep -E 'chosen  ' $OUT/b/gpu_bench_B_${v%%:*}_$round.txt | cut -c1-120)"
  done
done
for v in new:$B/gpu_bench base:$V/base/gpu_bench; do
  timeout 100 ncu --kernel-name regex:'chunk_parts|join_chunks' --launch-count 16 --metrics gpu__time_duration.sum,launch__grid_size ${v#*:} 1 B > $OUT/b/ncu_${v%%:*}.txt 2>&1
  echo "ncu ${v%%:*} rc=$? t=$SECONDS"
  grep -E "chunk_parts|join_chunks|duration|grid_size" $OUT/b/ncu_${v%%:*}.txt | sed -E 's/\(wfod::cuda::GridTables.*//; s/\(const Summary.*//' | awk '{printf "%s ", $NF} /grid_size/{print ""}' | head -16
done
cd $OUT && tar czf logs.tgz b && rm -rf b
