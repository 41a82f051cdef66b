#!/usr/bin/env bash
# The daemon at universe size (issue 47 item 4): SYMBOLS symbols x one ma_cross SMA strategy
# (20,000 combos: fast 2..21 x slow 10..1009, W = 1,000, every = 1) on daily bars, each
# symbol's bar of the day arriving together with the others'. Writes a synthetic daily
# backfill per symbol and a config, starts wfod on loopback, sends BATCHES batches with
# daemon_latency universe and prints its table (from the batch's last bar sent to the first
# and to the last of its SYMBOLS publications), the daemon's plan and memory, then stops it.
#   bench/daemon_universe.sh WFOD DAEMON_LATENCY [SYMBOLS=500] [BATCHES=20] [BACKEND=auto]
set -euo pipefail
wfod=$1 client=$2 symbols=${3:-500} batches=${4:-20} backend=${5:-auto}
work=$(mktemp -d)
trap 'kill "${pid:-}" 2>/dev/null || true; wait "${pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
warmup=3027  # SPEC §3's default: 3 x the longest period (1,009)
backfill=$((warmup + 1000 + 1 + 8))
mkdir -p "$work/data"
"$client" universe-csv "$work/data" "$symbols" $((backfill + batches + 2)) 11
# The backfill files hold the first `backfill` bars; the rest arrive over the feed.
for f in "$work"/data/*.csv; do head -n $((backfill + 1)) "$f" > "$f.tmp" && mv "$f.tmp" "$f"; done
base=$((20000 + RANDOM % 20000))
{
  cat <<TOML
[daemon]
state_dir = "$work/state"
backend = "$backend"
log_level = "${WFOD_LATENCY_LOG:-info}"
fsync = "none"
[publish]
endpoint = "tcp://127.0.0.1:$((base + 1))"
snapshot = "tcp://127.0.0.1:$((base + 2))"
http = ""
[[feed]]
endpoint = "tcp://127.0.0.1:$base"
format = "binary"
TOML
  list=""
  for ((k = 0; k < symbols; k++)); do
    s=$(printf 'S%03d' "$k")
    printf '[[symbol]]\nname = "%s"\nbars_per_year = 252\nbackfill = "data/%s.csv"\n' "$s" "$s"
    list+="${list:+, }\"$s\""
  done
  cat <<TOML
[[strategy]]
name = "uni"
symbols = [$list]
family = "ma_cross"
window = 1000
every = 1
[strategy.grid]
fast = "2:21:1"
slow = "10:1009:1"
TOML
} > "$work/wfod.toml"
"$wfod" --check-config "$work/wfod.toml" 2>&1 | tail -3
start=$(date +%s.%N)
"$wfod" --config "$work/wfod.toml" > "$work/wfod.log" 2>&1 &
pid=$!
# Ready when every stream has opened (one "stream ... opened" line each).
for _ in $(seq 1 3600); do
  opened=$(grep -c "stream .* opened" "$work/wfod.log" || true)
  ((opened >= symbols)) && break
  kill -0 "$pid" 2>/dev/null || { tail -20 "$work/wfod.log"; exit 1; }
  sleep 0.5
done
ready=$(date +%s.%N)
echo "# daemon_universe: $symbols symbols x 20,000 combos, W=1000, every=1, backend $backend, $(date -u +%F)"
echo "# start to every stream open: $(awk -v a="$start" -v b="$ready" 'BEGIN { printf "%.1f", b - a }') s; RSS $(($(awk '/VmRSS/{print $2}' /proc/$pid/status) / 1024)) MB"
rc=0
"$client" universe "tcp://127.0.0.1:$base" "tcp://127.0.0.1:$((base + 1))" "$symbols" uni \
  "$backfill" $((batches + 2)) 11 || rc=$?
"$client" stages "tcp://127.0.0.1:$((base + 2))" || true
echo "# RSS after: $(($(awk '/VmRSS/{print $2}' /proc/$pid/status) / 1024)) MB"
kill -TERM "$pid"; wait "$pid" || true
grep -E "backend=|plan|memory|error" "$work/wfod.log" | head -6
[ -n "${WFOD_LATENCY_KEEP_LOG:-}" ] && cp "$work/wfod.log" "$WFOD_LATENCY_KEEP_LOG"
exit $rc
