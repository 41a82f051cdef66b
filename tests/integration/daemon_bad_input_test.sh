#!/usr/bin/env bash
# Malformed feed input (PROTOCOL §1, SPEC §1): wfod_send_frames sends a battery of bad messages
# on a json and a binary feed; health must count each reject reason exactly, the daemon must
# stay alive, and `bars` must equal the good bars only; each reject's log line names the feed
# endpoint it came from (PROTOCOL §1). Exit 0 pass, 1 fail, 77 skipped.
#
# usage: daemon_bad_input_test.sh WFOD WFO_REPLAY WFO_SUB SEND_FRAMES
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
SEND=${4:-}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_bad_input "$WFOD" "$SUB" "$SEND"
: "$REPLAY"  # not needed here; the argument list is the other tests'

SYMBOL=GOOG
new_endpoints
BIN_PORT=$(free_port) || fail "no free port"
BIN_EP="tcp://127.0.0.1:$BIN_PORT"
mkdir -p "$TMP/state"
CONFIG="$TMP/wfod.toml"
write_config "$CONFIG" "$TMP/state" json "$SYMBOL" "$(ma_strategy bad "$SYMBOL")
[[feed]]
endpoint = \"$BIN_EP\"
format = \"binary\""
"$WFOD" --check-config "$CONFIG" >"$TMP/check.out" 2>&1 || fail "config invalid: $(cat "$TMP/check.out")"
start_daemon "$CONFIG" "$SNAP_EP" daemon

T0=1700000000000000000
DAY=86400000000000
ts() { echo $((T0 + $1 * DAY)); }
good() { echo "{\"ts\":$(ts "$1"),\"open\":10,\"high\":11,\"low\":9,\"close\":10.5,\"volume\":100}"; }
TOPIC="bars.$SYMBOL"

# json feed: 2 good, 9 bad, 1 good.
"$SEND" "$FEED_EP" 1500 \
  "$TOPIC" "$(good 1)" -- "$TOPIC" "$(good 2)" \
  -- "$TOPIC" \
  -- "$TOPIC" "$(good 3)" "extra" \
  -- "$TOPIC" '{"ts": 5, "open":' \
  -- "$TOPIC" "{\"ts\":$(ts 3),\"open\":-10,\"high\":11,\"low\":9,\"close\":10.5,\"volume\":1}" \
  -- "$TOPIC" "{\"ts\":$(ts 3),\"open\":10,\"high\":8,\"low\":9,\"close\":10.5,\"volume\":1}" \
  -- "$TOPIC" "$(good 1)" \
  -- "$TOPIC" "$(good 2)" \
  -- "bars.NOTCONFIGURED" "$(good 3)" \
  -- "$TOPIC" "rep:5000:x" \
  -- "$TOPIC" "$(good 3)" >"$TMP/send1.log" 2>&1 || fail "send (json) failed"
wait_bars "$SNAP_EP" "$SYMBOL" 3

# binary feed: a NaN open, a 63-byte payload, then 2 good bars.
"$SEND" "$BIN_EP" 1500 \
  "$TOPIC" "bin:$(ts 4),nan,11,9,10.5,100,0" \
  -- "$TOPIC" "rep:63:x" \
  -- "$TOPIC" "bin:$(ts 4),10,11,9,10.5,100,0" \
  -- "$TOPIC" "bin:$(ts 5),10,11,9,10.5,100,0" >"$TMP/send2.log" 2>&1 || fail "send (binary) failed"
wait_bars "$SNAP_EP" "$SYMBOL" 5

# A 1 MB message: received (the feed socket's ZMQ_MAXMSGSIZE is 16 MiB) and rejected as
# `size`; the connection stays up, so later good bars on both feeds still arrive.
"$SEND" "$FEED_EP" 1500 "$TOPIC" "rep:1048576:x" >"$TMP/send3.log" 2>&1 || fail "send (1 MB) failed"
sleep 0.5
kill -0 "$DAEMON_PID" 2>/dev/null || fail "wfod died after a 1 MB message"
"$SEND" "$BIN_EP" 1500 "$TOPIC" "bin:$(ts 6),10,11,9,10.5,100,0" >"$TMP/send4.log" 2>&1 ||
  fail "send (good, binary) failed"
wait_bars "$SNAP_EP" "$SYMBOL" 6
"$SEND" "$FEED_EP" 1500 "$TOPIC" "$(good 7)" >"$TMP/send5.log" 2>&1 || fail "send (good) failed"
GOOD=7
wait_bars "$SNAP_EP" "$SYMBOL" 7
H=$(snap "$SNAP_EP" --health)
EXPECT='{"frames":2,"size":3,"parse":1,"field":0,"value":3,"duplicate":1,"out_of_order":1,"unknown_symbol":1}'
jq -e --argjson e "$EXPECT" '. as $h | $e | to_entries | all(($h.rejects[.key] // 0) == .value)' \
  >/dev/null <<<"$H" || fail "reject counts $(jq -c .rejects <<<"$H"), expected $EXPECT"
[[ "$(jq -r ".symbols[\"$SYMBOL\"].bars" <<<"$H")" == "$GOOD" ]] || fail "bars is not $GOOD"
[[ "$(jq -r ".symbols[\"$SYMBOL\"].last_ts" <<<"$H")" == "$(ts "$GOOD")" ]] ||
  fail "last_ts is not bar $GOOD's"
kill -0 "$DAEMON_PID" 2>/dev/null || fail "wfod died"
# Two feeds: each line says which one sent the bad input.
grep -qF "feed reject reason=parse source=decode feed=$FEED_EP detail=" "$TMP/daemon.log" ||
  fail "the json feed's parse reject does not name $FEED_EP"
grep -qF "feed reject reason=size source=decode feed=$BIN_EP detail=" "$TMP/daemon.log" ||
  fail "the binary feed's size reject does not name $BIN_EP"
grep -qF "feed reject reason=value source=$SYMBOL feed=$BIN_EP detail=" "$TMP/daemon.log" ||
  fail "the binary feed's value reject does not name $BIN_EP"
[[ "$(grep -c "feed reject" "$TMP/daemon.log")" == "$(grep -c "feed reject .* feed=tcp://" "$TMP/daemon.log")" ]] ||
  fail "a reject line names no feed"
echo "PASS"
