#!/usr/bin/env bash
# Bar-to-publication latency through a real wfod: writes a synthetic backfill and
# a config (ma_cross SMA, W = 10,000, every = 1), starts wfod on loopback, sends BARS bars one
# at a time with daemon_latency and prints its table, then stops the daemon.
#   bench/daemon_latency.sh WFOD DAEMON_LATENCY [GRID=1m|20k|tiny] [BARS=1000] [BACKEND=auto]
set -euo pipefail
wfod=$1 client=$2 grid=${3:-1m} bars=${4:-1000} backend=${5:-auto}
work=$(mktemp -d)
trap 'kill "${pid:-}" 2>/dev/null || true; wait "${pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
case $grid in
  1m) fast="2:201:1" slow="10:5009:1" warmup=15027 ;;
  20k) fast="2:21:1" slow="10:1009:1" warmup=3027 ;;
  tiny) fast="2:6:1" slow="10:60:10" warmup=180 ;;  # the daemon's own overhead
  *) echo "grid: 1m, 20k or tiny" >&2; exit 2 ;;
esac
backfill=$((warmup + 10000 + 1 + 64))
"$client" csv "$work/backfill.csv" "$backfill" 7
base=$((20000 + RANDOM % 20000))
cat > "$work/wfod.toml" <<TOML
[daemon]
state_dir = "$work/state"
backend = "$backend"
log_level = "${WFOD_LATENCY_LOG:-warn}"
fsync = "none"
busy_poll_us = ${WFOD_LATENCY_BUSY_POLL_US:-0}
[publish]
endpoint = "tcp://127.0.0.1:$((base + 1))"
snapshot = "tcp://127.0.0.1:$((base + 2))"
http = ""
[[feed]]
endpoint = "tcp://127.0.0.1:$base"
format = "binary"
[[symbol]]
name = "SYN"
bars_per_year = 98280
backfill = "backfill.csv"
[[strategy]]
name = "lat"
symbols = ["SYN"]
family = "ma_cross"
window = 10000
every = 1
[strategy.grid]
fast = "$fast"
slow = "$slow"
TOML
"$wfod" --config "$work/wfod.toml" > "$work/wfod.log" 2>&1 &
pid=$!
sleep 3
echo "# daemon_latency: grid $grid, W=10000, every=1, backend $backend, busy_poll_us=${WFOD_LATENCY_BUSY_POLL_US:-0}, client spin=${WFOD_LATENCY_CLIENT_SPIN:-0}, $(date -u +%F)"
rc=0
"$client" run "tcp://127.0.0.1:$base" "tcp://127.0.0.1:$((base + 1))" SYN lat "$backfill" "$bars" 7 || rc=$?
"$client" stages "tcp://127.0.0.1:$((base + 2))" || true
kill -TERM "$pid"; wait "$pid" || true
grep -E "backend|stream|error" "$work/wfod.log" | head -8
[ -n "${WFOD_LATENCY_KEEP_LOG:-}" ] && cp "$work/wfod.log" "$WFOD_LATENCY_KEEP_LOG"
exit $rc
