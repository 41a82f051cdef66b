#!/usr/bin/env bash
# Stream checkpoints (docs/operations.md "Memory and restart time"): a daemon stopped with
# SIGTERM writes every stream's exact state to <state_dir>/checkpoints, and the next start
# resumes from it instead of replaying from the anchor; its next publications must equal, to
# SPEC §9's tolerance, those of a daemon that ran through, for both families, with robust
# selection on. A damaged checkpoint is said loudly and replayed, with the same result. Then
# kill -9 at random moments while checkpoints are written every second: every restart holds
# every bar and the last publications still equal the uninterrupted run's. Exit 0/1/77.
#
# usage: daemon_checkpoint_test.sh WFOD WFO_REPLAY WFO_SUB CSV
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
CSV=${4:?usage: daemon_checkpoint_test.sh WFOD WFO_REPLAY WFO_SUB CSV}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_checkpoint "$WFOD" "$REPLAY" "$SUB"

SYMBOL=GOOG
# every = 1: whatever runs a burst of bars coalesces, the last one ends at the last bar.
TABLES="$(ma_strategy trend "$SYMBOL" | sed 's/^every = 50$/every = 1/')

[strategy.selection]
pbo_blocks = 8

[[strategy]]
name = \"brk\"
symbols = [\"$SYMBOL\"]
family = \"channel_breakout\"
window = 300
warmup = 80
every = 1
fill = \"next_open\"
[strategy.grid]
n = [10, 20, 40]
source = \"close,high_low\""

# $1 config file, $2 state dir, $3 checkpoint_every_s
config() {
  new_endpoints
  mkdir -p "$2"
  write_config "$1" "$2" binary "$SYMBOL" "$TABLES"
  sed -i "s/^log_level = \"info\"$/log_level = \"info\"\ncheckpoint_every_s = $3/" "$1"
}
send() {  # $1 start row, $2 count
  "$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format binary \
    --start "$1" --count "$2" --seq-start $(($1 + 1)) --rate 5000 --wait-ms 800 --quiet ||
    fail "wfo-replay rows $1+$2 failed"
  wait_bars "$SNAP_EP" "$SYMBOL" $(($1 + $2))
}
# What must be equal across daemons: the window's result. Not seq or timings, nor what
# depends on which earlier windows ran (live_oos, changed, selection's current combo): runs
# coalesce differently while bars arrive in a burst; with every = 1 the last run's window
# ends at the last bar everywhere. Sums are compared to 1e-9 relative (SPEC §9): a stream's
# window total depends on where earlier runs cut it (docs/engine.md), and bursts cut it
# differently; ids, parameters and counts must be equal. (Bit-identity of a restored stream
# on the same advances is tested in tests/parity/stream_checkpoint_test.cpp.)
pick='[.window, .id, .params, .metrics, .top, .selection.pbo, .selection.dsr, .selection.winner_id]'
last_of() {  # $1 strategy: the stream's payload once settled, reduced by $pick
  jq -c "$pick" <<<"$(wait_settled "$SNAP_EP" "$SYMBOL" "$1")"
}
stop_daemon() {
  kill -TERM "$DAEMON_PID"
  wait "$DAEMON_PID"
  local rc=$?
  [[ $rc == 0 ]] || fail "wfod exited $rc on SIGTERM"
}

# --- A: 981 bars, no restart
config "$TMP/a.toml" "$TMP/stateA" 0
start_daemon "$TMP/a.toml" "$SNAP_EP" daemonA
send 0 700
send 700 281
A_TREND=$(last_of trend)
A_BRK=$(last_of brk)
[[ "$(jq -r '.[0].last_ts' <<<"$A_TREND")" != "" ]] || fail "run A published nothing"
stop_daemon

# --- B: 700 bars, SIGTERM (checkpoints), restart, the last 281
config "$TMP/b.toml" "$TMP/stateB" 0
start_daemon "$TMP/b.toml" "$SNAP_EP" daemonB1
send 0 700
wait_settled "$SNAP_EP" "$SYMBOL" trend >/dev/null
stop_daemon
ls "$TMP/stateB/checkpoints/GOOG.trend.ckpt" "$TMP/stateB/checkpoints/GOOG.brk.ckpt" >/dev/null ||
  fail "no checkpoint files after SIGTERM"
cp -r "$TMP/stateB" "$TMP/stateC"  # for run C
start_daemon "$TMP/b.toml" "$SNAP_EP" daemonB2
grep -q "stream GOOG.trend: resumed from checkpoint at bar 700" "$TMP/daemonB2.log" ||
  fail "the restart did not resume from the checkpoint"
grep -q "stream GOOG.brk: resumed from checkpoint at bar 700" "$TMP/daemonB2.log" ||
  fail "the restart did not resume brk from its checkpoint"
send 700 281
B_TREND=$(last_of trend)
B_BRK=$(last_of brk)
json_equal_9 "$B_TREND" "$A_TREND" || fail "trend after a checkpoint restart differs:
restarted: $B_TREND
through:   $A_TREND"
json_equal_9 "$B_BRK" "$A_BRK" || fail "brk after a checkpoint restart differs:
restarted: $B_BRK
through:   $A_BRK"
stop_daemon
echo "checkpoint restart: both streams equal the uninterrupted run"

# --- C: the same, with one byte of trend's checkpoint flipped: replayed, same result
sed -i "s|$TMP/stateB|$TMP/stateC|" "$TMP/b.toml"
cp "$TMP/b.toml" "$TMP/c.toml"
CK="$TMP/stateC/checkpoints/GOOG.trend.ckpt"
printf '\x5a' | dd of="$CK" bs=1 seek=$(($(stat -c %s "$CK") / 2)) conv=notrunc 2>/dev/null
start_daemon "$TMP/c.toml" "$SNAP_EP" daemonC
grep -q "checkpoint .*GOOG.trend.ckpt not used (.*CRC mismatch.*): replaying 700 bars" \
  "$TMP/daemonC.log" || fail "a damaged checkpoint was not reported"
grep -q "stream GOOG.brk: resumed from checkpoint at bar 700" "$TMP/daemonC.log" ||
  fail "the intact checkpoint was not used"
send 700 281
json_equal_9 "$(last_of trend)" "$A_TREND" || fail "trend after a replay differs"
json_equal_9 "$(last_of brk)" "$A_BRK" || fail "brk after a replay differs"
stop_daemon
echo "damaged checkpoint: reported, replayed, same publications"

# --- D: checkpoints every second, kill -9 at random moments between chunks
config "$TMP/d.toml" "$TMP/stateD" 1
start_daemon "$TMP/d.toml" "$SNAP_EP" daemonD0
sent=0
for i in 1 2 3 4 5; do
  n=$((i < 5 ? 200 : 181))
  send $sent $n
  sent=$((sent + n))
  sleep "0.$((RANDOM % 10))$((RANDOM % 10))"
  kill -KILL "$DAEMON_PID"
  wait "$DAEMON_PID" 2>/dev/null
  start_daemon "$TMP/d.toml" "$SNAP_EP" "daemonD$i"
  wait_bars "$SNAP_EP" "$SYMBOL" $sent
done
[[ $(ls "$TMP/stateD/checkpoints/"*.tmp 2>/dev/null | wc -l) -le 2 ]] || fail "stray temp files"
json_equal_9 "$(last_of trend)" "$A_TREND" || fail "trend after 5 kill -9 restarts differs"
json_equal_9 "$(last_of brk)" "$A_BRK" || fail "brk after 5 kill -9 restarts differs"
echo "5 x kill -9 with checkpoints every second: same publications"
echo "PASS"
