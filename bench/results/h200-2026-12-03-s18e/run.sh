#!/usr/bin/env bash
# session 18, run 5: the time-chunked layout's chunk count capped at ~128 bars a chunk (B now
# 1024 chunks): gpu_bench B (median of 5) and the parity table in the chosen layout.
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && cd ..
export LD_LIBRARY_PATH=$S/lib; mkdir -p /work/shared && cp -r $S/data /work/shared/data; ln -sfn $PWD /work/main; B=$S/bin
SECONDS=0
timeout 60 $B/gpu_bench 5 B > $OUT/gpu_bench_B.txt 2>&1; echo "rc=$? t=$SECONDS"; grep -vE "top id" $OUT/gpu_bench_B.txt
timeout 150 $B/wfod_parity_tests --gtest_brief=1 --gtest_filter='*cuda*:*Stream*:*Selection*:*Walk*' > $OUT/parity_chosen.log 2>&1
echo "parity chosen rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $OUT/parity_chosen.log | tr '\n' ' ') t=$SECONDS"
grep -E "FAILED|Failure" -A3 $OUT/parity_chosen.log | head -20
cd $OUT && gzip parity_chosen.log
