#!/usr/bin/env bash
# Runs on the lent GPU machine (device tool), from the repo root, with .device/ carried
# (bench/stage-device.sh made it): parity tests on both CUDA layouts, a memcheck pass, and
# the GPU benchmarks. Logs go to $OUT (bench/results/RUN.tar.xz keeps the committed copies).
set -uo pipefail
OUT=${OUT:-/tmp/wfod-out}
mkdir -p "$OUT"
S=$PWD/.device
# stage-device.sh packs the binaries (each embeds the kernels' fatbin): the carried tree must
# stay under the device tool's 64 MiB.
if [ -f "$S/bin.txz" ] && [ ! -d "$S/bin" ]; then
  # xz where the image has it, else Python's lzma module.
  if command -v xz >/dev/null; then xz -dc "$S/bin.txz" | tar xf - -C "$S"
  else python3 -c 'import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' "$S/bin.txz" | tar xf - -C "$S"; fi
fi
if [ -f "$S/bin.tgz" ] && [ ! -d "$S/bin" ]; then tar xzf "$S/bin.tgz" -C "$S"; fi
if [ -f "$S/data.tgz" ] && [ ! -d "$S/data" ]; then tar xzf "$S/data.tgz" -C "$S"; fi
export LD_LIBRARY_PATH=$S/lib:${LD_LIBRARY_PATH:-}
# The test binaries look for the real data and sources where they were built.
[ -d /work/shared/data ] || { mkdir -p /work/shared && cp -r "$S/data" /work/shared/data; }
[ -e /work/main ] || { mkdir -p /work && ln -sfn "$PWD" /work/main; }
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
} > "$OUT/device.txt" 2>&1
cat "$OUT/device.txt"

# WFOD_PARITY_QUICK=1: the shortest exactness run (a few minutes of device time): every
# parity test in the chosen layouts, the bounded cuda streams' restores again with the fused
# stream kernel and without graphs, and the unit tests that run on the device.
if [ "${WFOD_PARITY_QUICK:-0}" = "1" ]; then
  quick_pass() {  # NAME BINARY FILTER [VAR=VALUE...]
    local name=$1 bin=$2 filter=$3 t0=$SECONDS
    shift 3
    env "$@" timeout "${WFOD_PASS_TIMEOUT:-240}" "$S/bin/$bin" --gtest_brief=1 \
      --gtest_filter="$filter" > "$OUT/quick_$name.log" 2>&1
    echo "== $name ($*): rc=$? $((SECONDS - t0)) s $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$OUT/quick_$name.log" | tr '\n' ' ')"
    grep -E '^\[  FAILED' "$OUT/quick_$name.log" | head -20
  }
  # WFOD_QUICK_PARITY / WFOD_QUICK_UNIT narrow the first and last passes (default: all).
  quick_pass parity_chosen wfod_parity_tests "${WFOD_QUICK_PARITY:-*}"
  quick_pass restore_fused wfod_parity_tests 'CudaStreamBounded.*' WFOD_CUDA_STREAM_FUSED=1
  quick_pass restore_nograph wfod_parity_tests 'CudaStreamBounded.*' WFOD_CUDA_STREAM_GRAPH=0
  quick_pass unit wfod_unit_tests "${WFOD_QUICK_UNIT:-*}"
  exit 0
fi

# WFOD_PARITY_ONLY=1: the exactness run alone, no benchmarks (one call when device time is
# short): every parity test in the chosen layouts (selection and stream parity included),
# the CUDA cases in the forced split, fused and 64-chunk layouts, and the unit tests.
if [ "${WFOD_PARITY_ONLY:-0}" = "1" ]; then
  parity_pass() {  # NAME FILTER [VAR=VALUE...]
    local name=$1 filter=$2 t0=$SECONDS
    shift 2
    env "$@" timeout "${WFOD_PASS_TIMEOUT:-240}" "$S/bin/wfod_parity_tests" --gtest_brief=1 \
      --gtest_filter="$filter" > "$OUT/parity_$name.log" 2>&1
    echo "== parity $name ($*): rc=$? $((SECONDS - t0)) s $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$OUT/parity_$name.log" | tr '\n' ' ')"
    grep -E '^\[  FAILED' "$OUT/parity_$name.log" | head -20
  }
  parity_pass chosen '*'
  parity_pass split '*cuda*' WFOD_CUDA_FORCE_CHUNKS=1
  parity_pass fused '*cuda*' WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=fused
  parity_pass chunked64 '*cuda*' WFOD_CUDA_FORCE_CHUNKS=64
  t0=$SECONDS
  timeout 120 "$S/bin/wfod_unit_tests" --gtest_brief=1 > "$OUT/unit.log" 2>&1
  echo "== unit: rc=$? $((SECONDS - t0)) s $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$OUT/unit.log" | tr '\n' ' ')"
  exit 0
fi

# Walk-forward end to end: btcperp m1 (45k bars), 40,000 SMA combos, IS 10,000,
# OOS 1,000 (31 folds), rolling and anchored without selection and rolling with the default
# robust selection, each checked against the cpu backend (FAIL lines on a difference); then
# `wfo walk` and `wfo sweep` as a user runs them, timed whole. Runs before gpu_bench;
# WFOD_WALK_ONLY=1: the walk parity tests (chosen, fused and 64-chunk layouts) and this only.
# wall OUT CMD...: CMD's whole process timed (no /usr/bin/time needed), printed as
# "rc=N wall S s; <wfo's own time: line>".
wall() {
  local out=$1 t0 t1 rc
  shift
  t0=$(date +%s.%N)
  "$@" > "$out.txt" 2> "$out.err"
  rc=$?
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" -v rc=$rc -v line="$(grep -h '^time:' "$out.txt" "$out.err")" \
    'BEGIN { printf "rc=%d wall %.3f s; %s\n", rc, b - a, line }'
  grep -hE "rror" "$out.err" | head -5
}
walk_section() {
  echo "== walk_bench cuda (btcperp m1, 200 x 200 SMA, IS 10000, OOS 1000)"
  "$S/bin/walk_bench" cuda /work/shared/data/btcperp_ftx_m1_2022-01.csv 10000 1000 200 200 \
    "${WFOD_WALK_REPEAT:-3}" 0 1 1 2>&1 | tee "$OUT/walk_bench.txt"
  echo "rc=${PIPESTATUS[0]} $(grep -E '^\| cuda' "$OUT/walk_bench.txt" | cut -d'|' -f3,4,10,11,12 | tr '\n' ';')"
  W="--csv /work/shared/data/btcperp_ftx_m1_2022-01.csv --family ma_cross --fast 2:201:1 --slow 205:1200:5 --bars-per-year 525600"
  for b in cuda cpu; do
    echo "== wfo walk --backend $b --no-selection (whole process)"
    wall "$OUT/wfo_walk_$b" "$S/bin/wfo" walk $W --is 10000 --oos 1000 --no-selection --backend $b
  done
  echo "== wfo walk --backend cuda, default selection (whole process)"
  wall "$OUT/wfo_walk_cuda_selection" "$S/bin/wfo" walk $W --is 10000 --oos 1000 --backend cuda
  echo "== wfo sweep --backend cuda, 40,000 combos x 40,000 bars --no-selection (whole process)"
  wall "$OUT/wfo_sweep" "$S/bin/wfo" sweep $W --window 40000 --warmup 3600 --no-selection --backend cuda
}
if [ "${WFOD_WALK_ONLY:-0}" = "1" ]; then
  for pass in "chosen:WFOD_CUDA_FORCE_CHUNKS=0" "fused:WFOD_CUDA_FORCE_CHUNKS=1" "chunked64:WFOD_CUDA_FORCE_CHUNKS=64"; do
    name=${pass%%:*}
    echo "== walk parity ($name: ${pass#*:})"
    env ${pass#*:} "$S/bin/wfod_parity_tests" --gtest_brief=1 \
      --gtest_filter='*WalkPrepared*:*WalkPreparation*:*WalkParity*:PositionCache*' > "$OUT/walk_parity_$name.log" 2>&1
    echo "rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$OUT/walk_parity_$name.log" | tr '\n' ' ')"
    grep -sE "FAILED|Failure|Expected|Which is" "$OUT/walk_parity_$name.log" | head -20
  done
  walk_section
  exit 0
fi

# Robust selection on the device, only with WFOD_SELECTION=1: the device-vs-host
# parity tests (block summaries, robust_scores, CSCV, plateau), then selection_bench at the
# size its target is set for (200k SMA combos, W = 10k, S = 16). WFOD_SELECTION_ONLY=1: just this.
if [ "${WFOD_SELECTION:-0}" = "1" ]; then
  echo "== selection parity (device vs host)"
  "$S/bin/wfod_parity_tests" --gtest_brief=1 \
    --gtest_filter='*SelectionDevice*:*RobustScores*' > "$OUT/selection_parity.log" 2>&1
  echo "rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$OUT/selection_parity.log" | tr '\n' ' ')"
  grep -sE "FAILED|Failure|Expected|Which is|rror" "$OUT/selection_parity.log" | head -20
  if [ "${WFOD_MEMCHECK:-1}" = "1" ] && command -v compute-sanitizer >/dev/null; then
    echo "== compute-sanitizer memcheck (selection parity)"
    timeout 400 compute-sanitizer --tool memcheck --error-exitcode 9 "$S/bin/wfod_parity_tests" \
      --gtest_brief=1 --gtest_filter='SelectionDeviceParity.RobustScores*' \
      > "$OUT/selection_memcheck.log" 2>&1
    echo "rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/selection_memcheck.log" | tail -1)"
  fi
  echo "== selection_bench cuda 200 x 1000, W = 10000, S = 16"
  "$S/bin/selection_bench" cuda 200 1000 10000 16 "${WFOD_BENCH_REPEAT:-5}" 2>&1 |
    tee "$OUT/selection_bench.txt"
  [ "${WFOD_SELECTION_ONLY:-0}" = "1" ] && exit 0
fi

# The soak (bench/soak_bench: memory and restart time vs uptime), with WFOD_SOAK=1 on
# the device host's cores: WFOD_SOAK_ARGS = symbols bars report_every every [backend]
# (cpu unless a sixth word says cuda: then device memory is followed too).
if [ "${WFOD_SOAK:-0}" = "1" ]; then
  echo "== soak_bench ${WFOD_SOAK_ARGS:-10 525600 50000 60} ($(nproc) cores)"
  WFOD_SOAK_KEEP=1 "$S/bin/soak_bench" "$S/bin/wfod" ${WFOD_SOAK_ARGS:-10 525600 50000 60} 2>&1 |
    tee "$OUT/soak_bench.txt"
  [ "${WFOD_SOAK_ONLY:-0}" = "1" ] && exit 0
fi

# `wfo walk --universe` at issue 47's shape (bench/universe_walk.sh: 500 synthetic daily symbols
# and the shared real ones, 20,000 SMA combos, IS 1,000 / OOS 250, default selection), whole
# process, with WFOD_UNIVERSE=1: once per backend in WFOD_UNIVERSE_BACKENDS (default cuda).
if [ "${WFOD_UNIVERSE:-0}" = "1" ]; then
  for b in ${WFOD_UNIVERSE_BACKENDS:-cuda}; do
    echo "== universe walk $b, ${WFOD_UNIVERSE_SYMBOLS:-500} symbols"
    WFOD_SHARED_DATA=/work/shared/data timeout "${WFOD_PASS_TIMEOUT:-240}" bash bench/universe_walk.sh \
      "$S/bin/wfo" "$b" "${WFOD_UNIVERSE_SYMBOLS:-500}" 2> "$OUT/universe_walk_$b.err" |
      tee -a "$OUT/universe_walk.txt"
    tail -3 "$OUT/universe_walk_$b.err"
  done
  [ "${WFOD_UNIVERSE_ONLY:-0}" = "1" ] && exit 0
fi

# Rules strategies on the device against the built-in kernel (bench/rules_bench, issue 45 item
# 5), with WFOD_RULES=1: WFOD_RULES_ARGS = window threads reps fast_max slow_max cases.
if [ "${WFOD_RULES:-0}" = "1" ]; then
  echo "== rules_bench cuda ${WFOD_RULES_ARGS:-10000 1 5 101 1009 ARS}"
  "$S/bin/rules_bench" /work/shared/data/unittestbtc_m1_2017-11.csv ${WFOD_RULES_ARGS:-10000 1 5 101 1009 ARS} cuda 2>&1 |
    tee -a "$OUT/rules_bench_cuda.txt"
  [ "${WFOD_RULES_ONLY:-0}" = "1" ] && exit 0
fi

# Stream checkpoints at a stop (bench/checkpoint_bench), with WFOD_CKPT=1:
# WFOD_CKPT_ARGS = combos window live dir backend, one run per `;`-separated set.
if [ "${WFOD_CKPT:-0}" = "1" ]; then
  IFS=';' read -ra ckpt_sets <<< "${WFOD_CKPT_ARGS:-140800 20000 600 /tmp/wfod_ckpt cuda}"
  for set in "${ckpt_sets[@]}"; do
    echo "== checkpoint_bench $set"
    "$S/bin/checkpoint_bench" $set 2>&1 | tee -a "$OUT/checkpoint_bench.txt"
  done
  [ "${WFOD_CKPT_ONLY:-0}" = "1" ] && exit 0
fi

# Which backend a start chooses and why: the real device, then a faked
# older capability (WFOD_TEST_CUDA_CC, test only) that this sm_90 build must refuse.
echo "== backend choice"
A="sweep --csv /work/shared/data/goog_d1_2004-2013.csv --family ma_cross --window 500 --fast 5:20:5 --slow 30:60:10 --json"
{
  "$S/bin/wfod" --version
  "$S/bin/wfo" $A --backend auto 2>&1 >/dev/null | grep 'wfo: '
  WFOD_TEST_CUDA_CC=8.6 "$S/bin/wfo" $A --backend auto 2>&1 >/dev/null | grep 'wfo: '
  WFOD_TEST_CUDA_CC=8.6 "$S/bin/wfo" $A --backend cuda >/dev/null 2>&1; echo "cuda on cc 8.6: exit $?"
  WFOD_TEST_CUDA_CC=12.0 "$S/bin/wfo" $A --backend auto 2>&1 >/dev/null | grep 'wfo: '
} > "$OUT/backend_choice.txt" 2>&1
cat "$OUT/backend_choice.txt"

# Streams: every advance vs a fresh sweep on the device, then the advance benchmark
# (1M combos, W = 10k, k = 1) with and without the CUDA graph. WFOD_STREAM_ONLY=1: just this.
echo "== stream parity (cuda and cpu)"
"$S/bin/wfod_parity_tests" --gtest_brief=1 --gtest_filter='*Stream*' > "$OUT/stream_parity.log" 2>&1
echo "rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$OUT/stream_parity.log" | tr '\n' ' ')"
if [ "${WFOD_MEMCHECK:-1}" = "1" ] && command -v compute-sanitizer >/dev/null; then
  echo "== compute-sanitizer memcheck (cuda stream parity)"
  timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$S/bin/wfod_parity_tests" \
    --gtest_brief=1 --gtest_filter='Synthetic/StreamParity*cuda*' > "$OUT/stream_memcheck.log" 2>&1
  echo "rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/stream_memcheck.log" | tail -1)"
fi
echo "== stream_bench (graph, then direct launches)"
"$S/bin/stream_bench" cuda 1m "${WFOD_STREAM_BARS:-1000}" 2>&1 | tee "$OUT/stream_bench.txt"
for variant in "WFOD_CUDA_STREAM_GRAPH=0" "WFOD_CUDA_STREAM_FUSED=1"; do
  echo "-- $variant" | tee -a "$OUT/stream_bench.txt"
  env $variant "$S/bin/stream_bench" cuda 1m "${WFOD_STREAM_BARS:-1000}" 2>&1 | tail -3 | tee -a "$OUT/stream_bench.txt"
done
if [ "${WFOD_PROFILE_STREAM:-0}" = "1" ] && command -v ncu >/dev/null; then
  echo "== ncu: one steady-state advance's kernels"
  timeout 400 ncu --clock-control none --kernel-name regex:"roll_kernel|window_rank|topk|scatter|gather" \
    --launch-skip 300 --launch-count 6 --section SpeedOfLight --section LaunchStats --section Occupancy \
    "$S/bin/stream_bench" cuda 1m 80 > "$OUT/ncu_stream.txt" 2>&1
  grep -E "window_rank|roll_kernel|topk_reduce|scatter|gather|Duration|Registers Per|Achieved Occupancy|Memory Throughput|Local" "$OUT/ncu_stream.txt" | head -60
fi
grep -sE "FAILED|Failure|Expected|Which is|rror" "$OUT"/stream_parity.log | head -20
if [ "${WFOD_E2E:-0}" = "1" ]; then
  # WFOD_E2E_BUSY_POLL: the [daemon] busy_poll_us values to run (latency mode; 0 = off).
  # WFOD_E2E_CLIENT_SPIN: 0 (the subscriber sleeps in poll) and/or 1 (it spins).
  for spin in ${WFOD_E2E_CLIENT_SPIN:-0}; do
    for bp in ${WFOD_E2E_BUSY_POLL:-0}; do
      echo "== daemon_latency: bar -> wfod (cuda stream) -> publication, 1M combos, busy_poll_us=$bp, client spin=$spin"
      WFOD_LATENCY_CLIENT_SPIN=$spin WFOD_LATENCY_BUSY_POLL_US=$bp bash bench/daemon_latency.sh \
        "$S/bin/wfod" "$S/bin/daemon_latency" 1m "${WFOD_E2E_BARS:-1000}" cuda 2>&1 |
        tee -a "$OUT/daemon_latency.txt"
    done
  done
fi
[ "${WFOD_STREAM_ONLY:-0}" = "1" ] && exit 0

if [ "${WFOD_BENCH_ONLY:-0}" != "1" ]; then
echo "== parity (chosen layouts)"
"$S/bin/wfod_parity_tests" --gtest_brief=1 > "$OUT/parity.log" 2>&1
echo "rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$OUT/parity.log" | tr '\n' ' ')"
for pass in "split:WFOD_CUDA_FORCE_CHUNKS=1" "fused:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=fused" \
            "cap2:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_EVENT_CAP=2" \
            "plain:WFOD_CUDA_FORCE_CHUNKS=1 WFOD_CUDA_KERNEL=plain" \
            "chunked64:WFOD_CUDA_FORCE_CHUNKS=64" "rows:WFOD_CUDA_LEVEL_BITS=0" \
            "sigall:WFOD_CUDA_SIGNAL_BITS=all" "sigoff:WFOD_CUDA_SIGNAL_BITS=0" \
            "sigall64:WFOD_CUDA_SIGNAL_BITS=all WFOD_CUDA_FORCE_CHUNKS=64"; do
  name=${pass%%:*}
  echo "== parity (CUDA only, $name: ${pass#*:})"
  filter='*cuda*'
  # Without the decision-bit table only the level families change: run just those; the signal
  # tables change only ma_cross and channel_breakout.
  case $name in sig*) filter='*cuda*:-LevelFamilies*:Synthetic/*bollinger*:Synthetic/*rsi*' ;; esac
  [ "$name" = rows ] && filter='LevelFamilies*/*cuda*:Synthetic/*bollinger*cuda*:Synthetic/*rsi*cuda*:SelectionDeviceParity.*'
  env ${pass#*:} "$S/bin/wfod_parity_tests" --gtest_brief=1 --gtest_filter="$filter" > "$OUT/parity_$name.log" 2>&1
  echo "rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$OUT/parity_$name.log" | tr '\n' ' ')"
done
echo "== unit tests"
"$S/bin/wfod_unit_tests" --gtest_brief=1 > "$OUT/unit.log" 2>&1
echo "rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$OUT/unit.log" | tr '\n' ' ')"
if [ "${WFOD_MEMCHECK:-1}" = "1" ] && command -v compute-sanitizer >/dev/null; then
  echo "== compute-sanitizer memcheck (synthetic CUDA parity cases)"
  timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$S/bin/wfod_parity_tests" \
    --gtest_brief=1 --gtest_filter='Synthetic*cuda*:LevelFamilies/*cuda*' > "$OUT/memcheck.log" 2>&1
  echo "rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1)"
fi
fi  # WFOD_BENCH_ONLY
walk_section


echo "== gpu_bench"
"$S/bin/gpu_bench" "${WFOD_BENCH_REPEAT:-7}" 2> "$OUT/gpu_bench.err" | tee "$OUT/gpu_bench.txt"
if [ "${WFOD_PROFILE:-0}" = "1" ] && command -v ncu >/dev/null; then
  echo "== ncu profile of case A's sweep kernel (clocks left alone)"
  timeout 300 ncu --clock-control none --kernel-name regex:sweep_fused --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
    --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    "$S/bin/gpu_bench" 1 A > "$OUT/ncu_A.txt" 2>&1
  grep -E "Duration|Throughput|Pipe|Occupancy|Registers|Stall|Issued" "$OUT/ncu_A.txt" | head -30
fi
grep -sE "FAILED|Failure|Expected|Which is" "$OUT"/parity*.log | head -40
exit 0
