#!/usr/bin/env bash
# Per-bar signals are exact (PROTOCOL §2a, SPEC §2): a live wfod is fed real data bar by bar,
# a daily equity file (GOOG) and an intraday one (6E futures, minute bars, symbol 6E.H4), each
# with an ma_cross strategy (sma and ema, state and cross entries, the volatility filter) and
# a channel_breakout one (close and high_low, both sides, the filter, next_open fills), a
# bollinger one (both styles and sides, the filter) and an rsi_reversion one (next_open),
# every combo with stops (SPEC §5b, run on the cpu backend: trailing, stop-loss and
# take-profit levels tight enough to fire on minute bars too). One
# subscriber records every publication and signal in arrival order; check_signals.py checks
# each signal against `wfo positions --backend cpu_ref` of the combo of the newest
# publication at or before its bar, that publication arriving first, one signal per bar, and
# each publication's position. Then a restart: signals go on from the first bar accepted
# after it, with the restored combo, and stay exact. Exit 0 pass, 1 fail, 77 skipped.
#
# usage: daemon_signals_test.sh WFOD WFO_REPLAY WFO_SUB WFO DATA_DIR
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
WFO=${4:-}
DATA=${5:?usage: daemon_signals_test.sh WFOD WFO_REPLAY WFO_SUB WFO DATA_DIR}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_signals "$WFOD" "$REPLAY" "$SUB" "$WFO"
command -v python3 >/dev/null || { echo "SKIPPED: daemon_signals: python3 not installed"; exit 77; }
CHECK="$(dirname "${BASH_SOURCE[0]}")/check_signals.py"
DAILY="$DATA/goog_d1_2004-2013.csv"
INTRADAY="$DATA/6eh4_cme_m1_2024-01.csv"
for f in "$DAILY" "$INTRADAY"; do
  [[ -r "$f" ]] || { echo "SKIPPED: daemon_signals: $f not found (../shared/data)"; exit 77; }
done

BARS=900     # fed per symbol before the restart
MORE=120     # and after it
new_endpoints
f2=$(free_port) || fail "no free port"
FEED2_EP="tcp://127.0.0.1:$f2"
mkdir -p "$TMP/state"
CONFIG="$TMP/wfod.toml"
strategies() {  # both on both symbols
  cat <<EOF
[[strategy]]
name = "trend"
symbols = ["GOOG", "6E.H4"]
family = "ma_cross"
window = 150
every = 5
cost_bps = 1.0
top = 3
[strategy.grid]
fast = "5:15:5"
slow = "20:40:10"
ma = ["sma", "ema"]
entry = ["state", "cross"]
vol_short = 5
vol_long = 20
vol_threshold = [0.8, 1.1]
trailing_stop = [0.0005, 0.02]

[[strategy]]
name = "breakout"
symbols = ["GOOG", "6E.H4"]
family = "channel_breakout"
window = 120
every = 3
cost_bps = 2.0
fill = "next_open"
top = 3
[strategy.grid]
n = "10:40:10"
source = ["close", "high_low"]
side = ["long_short", "long_only"]
vol_short = 5
vol_long = 20
vol_threshold = 0.9
stop_loss = [0.0003, 0.01]
take_profit = [0, 0.05]

[[strategy]]
name = "bands"
symbols = ["GOOG", "6E.H4"]
family = "bollinger"
window = 140
every = 4
cost_bps = 1.0
top = 3
[strategy.grid]
n = "10:30:10"
k = [1.5, 2.0]
style = ["reversion", "breakout"]
side = ["long_short", "long_only"]
vol_short = 5
vol_long = 20
vol_threshold = 0.8
take_profit = [0.0004, 0.03]

[[strategy]]
name = "rsi"
symbols = ["GOOG", "6E.H4"]
family = "rsi_reversion"
window = 130
every = 6
cost_bps = 0.5
fill = "next_open"
top = 3
[strategy.grid]
n = [7, 14]
lo = [25, 30]
hi = [70, 75]
side = "long_short"
stop_loss = [0.0005, 0.02]
trailing_stop = [0, 0.01]
EOF
}
cat >"$CONFIG" <<EOF
[daemon]
state_dir = "$TMP/state"
backend = "cpu"
threads = 1

[publish]
endpoint = "$PUB_EP"
snapshot = "$SNAP_EP"
http = ""

[[feed]]
endpoint = "$FEED_EP"
format = "json"

[[feed]]
endpoint = "$FEED2_EP"
format = "binary"

[[symbol]]
name = "GOOG"
bars_per_year = 252

[[symbol]]
name = "6E.H4"
bars_per_year = 362880

$(strategies)
EOF
"$WFOD" --check-config "$CONFIG" >"$TMP/check.out" 2>&1 || fail "config: $(cat "$TMP/check.out")"

# subscribe_all NAME: one subscriber to every topic, payloads in arrival order.
subscribe_all() {
  "$SUB" --endpoint "$PUB_EP" --topic params.,signal. --json --timeout-ms 60000 >"$TMP/$1.jsonl" \
    2>"$TMP/$1.err" &
  SUB_PID=$!
  PIDS+=("$SUB_PID")
  sleep 0.5
}
# feed NAME START COUNT: bars [START, START + COUNT) of both files, both feeds at once; then
# waits until capture NAME holds the last bar's signal of every stream (it goes out only
# after every run that ends at that bar is published or dropped) and stops the subscriber.
feed() {
  local name=$1 start=$2 count=$3 sym lt n
  "$REPLAY" --csv "$DAILY" --symbol GOOG --endpoint "$FEED_EP" --format json --start "$start" \
    --count "$count" --rate 800 --wait-ms 800 --quiet &
  local a=$!
  "$REPLAY" --csv "$INTRADAY" --symbol 6E.H4 --endpoint "$FEED2_EP" --format binary \
    --start "$start" --count "$count" --rate 800 --wait-ms 800 --quiet ||
    fail "wfo-replay 6E.H4 failed"
  wait "$a" || fail "wfo-replay GOOG failed"
  for sym in GOOG 6E.H4; do
    wait_bars "$SNAP_EP" "$sym" $((start + count))
    lt=$(health_field "$SNAP_EP" ".symbols[\"$sym\"].last_ts")
    for _ in $(seq 1 100); do
      n=$(grep -c "{\"schema\":1,\"symbol\":\"$sym\",\"strategy\":\"[a-z]*\",\"ts\":$lt," \
        "$TMP/$name.jsonl")
      [[ "$n" -ge 4 ]] && break
      sleep 0.2
    done
    [[ "$n" -ge 4 ]] || fail "$name: $n of 4 $sym streams signalled the last bar ($lt)"
  done
  kill "$SUB_PID" 2>/dev/null
  wait "$SUB_PID" 2>/dev/null
}
# check NAME BARS [FROM]: every stream's messages in capture NAME against bars [0, BARS).
check() {
  head -n $(($2 + 1)) "$DAILY" >"$TMP/GOOG.csv"
  head -n $(($2 + 1)) "$INTRADAY" >"$TMP/6E.H4.csv"
  for sym in GOOG 6E.H4; do
    for strat in trend breakout bands rsi; do
      python3 "$CHECK" "$TMP/$1.jsonl" "$TMP/$sym.csv" "$2" "$sym" "$strat" "$WFO" "$CONFIG" \
        ${3:-} || fail "$1: $sym.$strat"
    done
  done
}

start_daemon "$CONFIG" "$SNAP_EP" daemon
subscribe_all run1
feed run1 0 "$BARS"
check run1 "$BARS"

# A restart: each stream follows its restored combo from the first bar fed after it.
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null
start_daemon "$CONFIG" "$SNAP_EP" daemon2
[[ $(grep -c "signals follow combo" "$TMP/daemon2.log") == 8 ]] ||
  fail "the restart does not follow the 8 restored combos"
# The restored publications come first: what a client holds from before the restart.
for sym in GOOG 6E.H4; do
  for strat in trend breakout bands rsi; do
    snap "$SNAP_EP" --get --symbol "$sym" --strategy "$strat" >>"$TMP/restored.jsonl"
  done
done
subscribe_all run2
feed run2 "$BARS" "$MORE"
cat "$TMP/restored.jsonl" "$TMP/run2.jsonl" >"$TMP/after.jsonl"
check after $((BARS + MORE)) "$BARS"
echo "PASS"
