#!/usr/bin/env bash
# A feed message over 16 MiB must not make the daemon deaf (docs/protocol.md "Feed
# sessions"). libzmq drops the SUB's session on a frame past ZMQ_MAXMSGSIZE as a protocol
# error and, on a connecting socket, never reconnects it: a publisher sends one 17 MB frame,
# then goes; the daemon must count the disconnect for that feed, log it with the endpoint,
# connect again by itself, and hear the next publisher on the same endpoint. Health and
# /metrics show the feed's connected, last_message_age_s, disconnects and reconnects; an
# ordinary publisher stop after that (libzmq reconnects itself) needs no re-connect.
# Exit 0 pass, 1 fail, 77 skipped.
#
# usage: daemon_feed_oversize_test.sh WFOD WFO_REPLAY WFO_SUB SEND_FRAMES CSV
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
SEND=${4:-}
CSV=${5:?usage: daemon_feed_oversize_test.sh WFOD WFO_REPLAY WFO_SUB SEND_FRAMES CSV}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_feed_oversize "$WFOD" "$REPLAY" "$SUB" "$SEND"

SYMBOL=GOOG
new_endpoints
HTTP_PORT=$(free_port) || fail "no free port"
mkdir -p "$TMP/state"
write_config "$TMP/wfod.toml" "$TMP/state" json "$SYMBOL" "$(ma_strategy s "$SYMBOL")"
sed -i "s/^http = \"\"/http = \"127.0.0.1:$HTTP_PORT\"/" "$TMP/wfod.toml"
start_daemon "$TMP/wfod.toml" "$SNAP_EP" daemon
feed() { jq -c '.feeds[0]' <<<"$(snap "$SNAP_EP" --health)"; }
wait_feed() {  # $1 jq test on the feed's health entry, $2 what it means
  for _ in $(seq 1 60); do
    [[ "$(jq -r "$1" <<<"$(feed)")" == true ]] && return 0
    sleep 0.2
  done
  fail "feed health never showed $2: $(feed)"
}
replay() {  # $1 first row, $2 count
  "$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format json --start "$1" \
    --count "$2" --seq-start $(($1 + 1)) --rate 500 --wait-ms 1000 --quiet ||
    fail "wfo-replay rows $1+$2 failed"
  wait_bars "$SNAP_EP" "$SYMBOL" $(($1 + $2))
}

[[ "$(jq -r .endpoint <<<"$(feed)")" == "$FEED_EP" ]] || fail "health feeds[0]: $(feed)"
# A first publisher: heard; the feed is connected and has a last message.
replay 0 20
wait_feed '.connected == false and .last_message_age_s != null' "the first publisher gone"

# One 17 MB frame: the session ends without a reconnect from libzmq.
"$SEND" "$FEED_EP" 1000 "bars.$SYMBOL" rep:17000000:x >"$TMP/send.out" 2>&1 ||
  fail "wfod_send_frames failed: $(cat "$TMP/send.out")"
wait_feed '.disconnects >= 2 and .reconnects >= 1' "the oversized frame's disconnect and a re-connect"
grep -q "feed $FEED_EP: its session ended and libzmq did not reconnect" "$TMP/daemon.log" ||
  fail "no log line naming the feed's endpoint and the re-connect"
http_get "$HTTP_PORT" /metrics >"$TMP/metrics.txt"
grep -qE "^wfod_feed_disconnects_total\{feed=\"$FEED_EP\"\} [2-9]" "$TMP/metrics.txt" ||
  fail "no wfod_feed_disconnects_total for $FEED_EP: $(grep wfod_feed_ "$TMP/metrics.txt")"
grep -qE "^wfod_feed_reconnects_total\{feed=\"$FEED_EP\"\} [1-9]" "$TMP/metrics.txt" ||
  fail "no wfod_feed_reconnects_total for $FEED_EP"
grep -qE "^wfod_feed_last_message_age_seconds\{feed=\"$FEED_EP\"\} " "$TMP/metrics.txt" ||
  fail "no wfod_feed_last_message_age_seconds for $FEED_EP"

# The next publisher on that endpoint is heard.
replay 20 30
wait_feed '.last_message_age_s < 5' "a recent message"
reconnects=$(jq -r .reconnects <<<"$(feed)")
http_get "$HTTP_PORT" /metrics | grep -q "^wfod_feed_connected{feed=\"$FEED_EP\"} [01]$" ||
  fail "no wfod_feed_connected for $FEED_EP"

# An ordinary publisher stop and start: libzmq reconnects by itself, no re-connect counted.
replay 50 30
[[ "$(jq -r .reconnects <<<"$(feed)")" == "$reconnects" ]] ||
  fail "an ordinary publisher restart was re-connected by the daemon: $(feed)"
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" || fail "wfod exited $? on SIGTERM"
echo "17 MB frame: disconnect counted, feed re-connected ($reconnects), the next publisher heard: 80 bars"
echo "PASS"
