#!/usr/bin/env bash
# session 24, run 2: shared-row decisions on grids large enough to fill the GPU with R = 4
# combos per thread: wfo sweep on btcperp m1, ma_cross 796k and 1.6M combos x 10,000 bars,
# --no-selection, default vs WFOD_CUDA_SHARED_ROWS=0 (3 runs each, the JSON's sweep_seconds).
S=$PWD/.device; cd .device && xz -dc bin.txz | tar xf - && tar xzf data.tgz && cd ..
export LD_LIBRARY_PATH=$S/lib; B=$S/bin
SECONDS=0
mkdir -p $OUT/b
csv=$S/data/btcperp_ftx_m1_2022-01.csv
for g in "2:400:1 10:2000:1" "2:800:1 10:2000:1"; do
  set -- $g
  for mode in on off on off on off; do
    if [ $mode = off ]; then e=WFOD_CUDA_SHARED_ROWS=0; else e=X=1; fi
    env $e $B/wfo sweep --csv $csv --family ma_cross --fast $1 --slow $2 --window 10000 --no-selection --backend cuda --json --memory-budget 60000 > $OUT/b/sweep.json 2> $OUT/b/sweep.err
    python3 -c "import json; d=json.load(open('$OUT/b/sweep.json')); t=d['timing']; print('$1 $2 $mode', d['evaluated'], 'sweep_s', t['sweep_seconds'], 'top', d['top'][0]['id'], d['top'][0]['metrics']['sharpe'])" || tail -3 $OUT/b/sweep.err
  done
done
echo t=$SECONDS
