#!/usr/bin/env bash
# A feed publisher dies (kill -9) mid-stream and a new one binds the same endpoint: the
# daemon's SUB reconnects on its own (ZeroMQ), bars flow again without a daemon restart, and
# the publisher's skipped seq numbers are counted as missing bars (health `gaps`: 50) and
# logged.
# Exit 0/1/77.
#
# usage: daemon_publisher_restart_test.sh WFOD WFO_REPLAY WFO_SUB CSV
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
CSV=${4:?usage: daemon_publisher_restart_test.sh WFOD WFO_REPLAY WFO_SUB CSV}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_publisher_restart "$WFOD" "$REPLAY" "$SUB"

SYMBOL=GOOG
new_endpoints
mkdir -p "$TMP/state"
write_config "$TMP/wfod.toml" "$TMP/state" binary "$SYMBOL" "$(ma_strategy pr "$SYMBOL")"
start_daemon "$TMP/wfod.toml" "$SNAP_EP" daemon

# Publisher 1: 400 bars at 200/s, killed after about one second.
"$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format binary \
  --count 400 --seq-start 1 --rate 200 --wait-ms 800 --quiet &
PUB1=$!
PIDS+=("$PUB1")
sleep 2
kill -KILL "$PUB1"
wait "$PUB1" 2>/dev/null
# Let the last received bars land, then read how far it got.
sleep 0.5
GOT=$(health_field "$SNAP_EP" ".symbols[\"$SYMBOL\"].bars")
[[ "$GOT" -ge 1 && "$GOT" -lt 400 ]] || fail "publisher 1 delivered ${GOT:-no} bars before kill -9, expected 1..399"
[[ "$(health_field "$SNAP_EP" .gaps)" == 0 ]] || fail "gaps before the publisher restart"
echo "publisher 1 killed -9 after $GOT bars"

# Publisher 2 on the same endpoint, 50 rows later: seq jumps from $GOT to $((GOT + 51)).
NEXT=$((GOT + 50))
"$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format binary \
  --start "$NEXT" --count 100 --seq-start $((NEXT + 1)) --rate 500 --wait-ms 1500 --quiet ||
  fail "publisher 2 failed"
wait_bars "$SNAP_EP" "$SYMBOL" $((GOT + 100))
GAPS=$(health_field "$SNAP_EP" .gaps)
[[ "$GAPS" == 50 ]] || fail "expected 50 missing bars after the publisher restart, health says ${GAPS:-none}"
grep -q "feed gap symbol=$SYMBOL expected_seq=$((GOT + 1)) got_seq=$((NEXT + 1)) missing=50 " "$TMP/daemon.log" ||
  fail "no 'feed gap' log line for the restart"
kill -0 "$DAEMON_PID" 2>/dev/null || fail "wfod died"
echo "publisher 2 resumed on the same SUB: $((GOT + 100)) bars, 1 gap of 50 missing bars logged"
echo "PASS"
