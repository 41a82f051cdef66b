#!/usr/bin/env bash
# Every accepted bar gets its signal (PROTOCOL §2a), also when thousands arrive at once after
# a restart: a daemon runs an ma_cross stream (window 2000, every 5000) on real minute bars
# (BTC-PERP), is stopped with SIGTERM (its stream checkpointed thousands of bars behind the
# newest bar: the stream advances only on runs), restarted from that checkpoint, and fed a
# 5,000-bar burst as fast as the publisher sends. The follower's tracker, seeded at the
# checkpoint, then has to be extended by thousands of bars in one go; each signal of both
# runs is checked against `wfo positions --backend cpu_ref` (check_signals.py). Exit 0 pass,
# 1 fail, 77 skipped.
#
# usage: daemon_signals_burst_test.sh WFOD WFO_REPLAY WFO_SUB WFO DATA_DIR
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
WFO=${4:-}
DATA=${5:?usage: daemon_signals_burst_test.sh WFOD WFO_REPLAY WFO_SUB WFO DATA_DIR}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_signals_burst "$WFOD" "$REPLAY" "$SUB" "$WFO"
command -v python3 >/dev/null || { echo "SKIPPED: daemon_signals_burst: python3 not installed"; exit 77; }
CHECK="$(dirname "${BASH_SOURCE[0]}")/check_signals.py"
CSV="$DATA/btcperp_ftx_m1_2022-01.csv"
[[ -r "$CSV" ]] || { echo "SKIPPED: daemon_signals_burst: $CSV not found (../shared/data)"; exit 77; }

SYMBOL=BTC-PERP
BARS=16500   # before the restart: runs at bars 2181, 7181, 12181; the checkpoint at 12181
BURST=5000   # after it, at full speed
new_endpoints
mkdir -p "$TMP/state"
CONFIG="$TMP/wfod.toml"
write_config "$CONFIG" "$TMP/state" binary "$SYMBOL" '[[strategy]]
name = "trend"
symbols = ["BTC-PERP"]
family = "ma_cross"
window = 2000
every = 5000
cost_bps = 1.0
top = 3
[strategy.grid]
fast = "5:20:5"
slow = "30:60:10"
ma = ["sma", "ema"]'
sed -i 's/^bars_per_year = 252$/bars_per_year = 525600/' "$CONFIG"
"$WFOD" --check-config "$CONFIG" >"$TMP/check.out" 2>&1 || fail "config: $(cat "$TMP/check.out")"

subscribe() {  # $1 capture name: every publication and signal, in arrival order
  "$SUB" --endpoint "$PUB_EP" --topic params.,signal. --json --timeout-ms 120000 \
    >"$TMP/$1.jsonl" 2>"$TMP/$1.err" &
  SUB_PID=$!
  PIDS+=("$SUB_PID")
  sleep 0.5
}
# feed NAME START COUNT RATE: rows [START, START + COUNT); waits for the last bar's signal.
feed() {
  local lt n=0
  "$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format binary --start "$2" \
    --count "$3" --seq-start $(($2 + 1)) --rate "$4" --wait-ms 800 --quiet ||
    fail "wfo-replay rows $2+$3 failed"
  wait_bars "$SNAP_EP" "$SYMBOL" $(($2 + $3))
  lt=$(health_field "$SNAP_EP" ".symbols[\"$SYMBOL\"].last_ts")
  for _ in $(seq 1 150); do
    n=$(grep -c "\"ts\":$lt,\"position\"" "$TMP/$1.jsonl")
    [[ "$n" -ge 1 ]] && break
    sleep 0.2
  done
  kill "$SUB_PID" 2>/dev/null
  wait "$SUB_PID" 2>/dev/null
  [[ "$n" -ge 1 ]] || fail "$1: no signal of the last bar ($lt)"
}

start_daemon "$CONFIG" "$SNAP_EP" daemon
subscribe run1
feed run1 0 "$BARS" 20000

kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" || fail "wfod exited $? on SIGTERM"
start_daemon "$CONFIG" "$SNAP_EP" daemon2
grep -q "resumed from checkpoint at bar" "$TMP/daemon2.log" || fail "the restart did not resume from a checkpoint"
grep -q "signals follow combo" "$TMP/daemon2.log" || fail "the restart does not follow the restored combo"
subscribe run2
feed run2 "$BARS" "$BURST" 0
grep -q "signals stopped" "$TMP/daemon2.log" && fail "signals stopped: $(grep -m1 'signals stopped' "$TMP/daemon2.log")"

# Both runs together: every bar from the first publication's last bar on, exactly once, with
# the combo of the newest publication at or before it.
cat "$TMP/run1.jsonl" "$TMP/run2.jsonl" >"$TMP/all.jsonl"
head -n $((BARS + BURST + 1)) "$CSV" >"$TMP/$SYMBOL.csv"
python3 "$CHECK" "$TMP/all.jsonl" "$TMP/$SYMBOL.csv" $((BARS + BURST)) "$SYMBOL" trend "$WFO" \
  "$CONFIG" || fail "signals across the burst"
echo "PASS"
