#!/usr/bin/env bash
# Snapshot requests at the edges (PROTOCOL §3, docs/protocol.md "Snapshot requests"): a 2 MB
# frame gets a "too large" error reply; a frame over the socket's 16 MiB limit is dropped by
# ZeroMQ without a reply (the client times out) and the daemon keeps serving; `get` of a
# stream that is not configured (never, or removed by a reload) says "unknown stream", of a
# configured one not yet published "no publication yet"; wfo-sub times out with a message
# when nothing answers. Exit 0 pass, 1 fail, 77 skipped.
#
# usage: daemon_snapshot_requests_test.sh WFOD WFO_REPLAY WFO_SUB SEND_FRAMES
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
SEND=${4:-}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_snapshot_requests "$WFOD" "$SUB" "$SEND"
: "$REPLAY"  # not needed here; the argument list is the other tests'

SYMBOL=GOOG
new_endpoints
mkdir -p "$TMP/state"
CONFIG="$TMP/wfod.toml"
write_config "$CONFIG" "$TMP/state" json "$SYMBOL" "$(ma_strategy kept "$SYMBOL")

$(ma_strategy dropped "$SYMBOL")"
start_daemon "$CONFIG" "$SNAP_EP" daemon
error_of() { jq -r '.error // empty' <<<"$1"; }

# --- oversized frames
REPLY=$("$SEND" --req "$SNAP_EP" 3000 get "rep:2097152:A" kept) ||
  fail "no reply to a 2 MB frame (exit $?)"
[[ "$(error_of "$REPLY")" == "frame too large: 2097152 bytes, at most 256" ]] ||
  fail "2 MB frame: $REPLY"
echo "2 MB frame: $REPLY"
"$SEND" --req "$SNAP_EP" 1500 get "rep:17825792:A" kept >"$TMP/huge.out" 2>&1
RC=$?
[[ "$RC" == 3 ]] || fail "17 MiB frame: expected no reply (exit 3), got exit $RC: $(cat "$TMP/huge.out")"
[[ "$(health_field "$SNAP_EP" .status)" == ok ]] || fail "no health reply after a 17 MiB frame"
echo "17 MiB frame: connection dropped by ZeroMQ, no reply; the daemon still serves"

# --- unknown vs not yet published
G=$(snap "$SNAP_EP" --get --symbol "$SYMBOL" --strategy kept)
[[ "$(error_of "$G")" == "no publication yet" ]] || fail "configured stream: $G"
G=$(snap "$SNAP_EP" --get --symbol "$SYMBOL" --strategy nosuch)
[[ "$(error_of "$G")" == "unknown stream $SYMBOL.nosuch" ]] || fail "unknown stream: $G"
G=$(snap "$SNAP_EP" --get --symbol NOPE --strategy kept)
[[ "$(error_of "$G")" == "unknown stream NOPE.kept" ]] || fail "unknown symbol: $G"

# A removed strategy: configured, then gone after a reload.
write_config "$CONFIG" "$TMP/state" json "$SYMBOL" "$(ma_strategy kept "$SYMBOL")"
kill -HUP "$DAEMON_PID"
for _ in $(seq 1 100); do
  grep -q "reload done" "$TMP/daemon.log" && break
  sleep 0.1
done
grep -q "reload done" "$TMP/daemon.log" || fail "no reload"
G=$(snap "$SNAP_EP" --get --symbol "$SYMBOL" --strategy dropped)
[[ "$(error_of "$G")" == "unknown stream $SYMBOL.dropped" ]] || fail "removed stream: $G"
G=$(snap "$SNAP_EP" --get --symbol "$SYMBOL" --strategy kept)
[[ "$(error_of "$G")" == "no publication yet" ]] || fail "kept stream after the reload: $G"
echo "get: unknown stream for unconfigured and removed streams, no publication yet otherwise"

# --- nothing answers: wfo-sub gives up with a message, exit 3.
DEAD=$(free_port) || fail "no free port"
"$SUB" --snapshot "tcp://127.0.0.1:$DEAD" --health --timeout-ms 500 >/dev/null 2>"$TMP/dead.err"
RC=$?
[[ "$RC" == 3 ]] || fail "wfo-sub without a daemon: exit $RC, expected 3"
grep -q "no reply to \"health\" from tcp://127.0.0.1:$DEAD within 500 ms" "$TMP/dead.err" ||
  fail "wfo-sub timeout message: $(cat "$TMP/dead.err")"
echo "PASS"
