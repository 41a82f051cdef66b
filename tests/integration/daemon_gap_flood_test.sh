#!/usr/bin/env bash
# A publisher whose seq alternates 1, 1001, 1, 1001 ... on 10,000 binary bars: every bar is
# a seq gap. The `feed gap` warnings must be rate-limited (a bounded log, not one line per
# bar), health `gaps` and wfod_feed_missing_bars_total must count missing bars (999 per
# forward jump; a backwards seq, a publisher restart, counts none), wfod_feed_gaps_total the
# jumps. Exit 0/1/77.
#
# usage: daemon_gap_flood_test.sh WFOD WFO_REPLAY WFO_SUB SEND_FRAMES
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
SEND=${4:-}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_gap_flood "$WFOD" "$SUB" "$SEND"
: "$REPLAY"  # not needed here; the argument list is the other tests'

SYMBOL=GOOG
N=10000
new_endpoints
HTTP_PORT=$(free_port) || fail "no free port"
mkdir -p "$TMP/state"
# No strategy: this test is about the feed path only.
write_config "$TMP/wfod.toml" "$TMP/state" binary "$SYMBOL" "$(idle_strategy s "$SYMBOL")"
sed -i "s/^http = \"\"/http = \"127.0.0.1:$HTTP_PORT\"/" "$TMP/wfod.toml"
start_daemon "$TMP/wfod.toml" "$SNAP_EP" daemon

T0=1700000000000000000
MIN=60000000000
ARGS=()
for ((i = 0; i < N; i++)); do
  ((i > 0)) && ARGS+=(--)
  ARGS+=("bars.$SYMBOL" "bin:$((T0 + i * MIN)),10,11,9,10.5,100,$((i % 2 == 0 ? 1 : 1001))")
done
"$SEND" "$FEED_EP" 1500 "${ARGS[@]}" >"$TMP/send.log" 2>&1 || fail "send failed"
wait_bars "$SNAP_EP" "$SYMBOL" "$N"

# 5,000 forward jumps of 999 missing bars each; 4,999 backwards jumps (none missing).
MISSING=$((N * 999 / 2))
H=$(snap "$SNAP_EP" --health)
[[ "$(jq -r .gaps <<<"$H")" == "$MISSING" ]] || fail "health gaps $(jq -r .gaps <<<"$H"), expected $MISSING"
METRICS=$(exec 3<>"/dev/tcp/127.0.0.1/$HTTP_PORT" && printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3 && timeout 5 cat <&3)
grep -qx "wfod_feed_missing_bars_total $MISSING" <<<"$METRICS" ||
  fail "wfod_feed_missing_bars_total: $(grep missing <<<"$METRICS")"
grep -qx "wfod_feed_gaps_total $((N - 1))" <<<"$METRICS" ||
  fail "wfod_feed_gaps_total: $(grep gaps_total <<<"$METRICS")"

LINES=$(grep -c "feed gap" "$TMP/daemon.log")
# 20 lines per 10 s window; the send takes well under 30 s.
((LINES >= 1 && LINES <= 60)) || fail "$LINES 'feed gap' log lines for $((N - 1)) gaps"
grep -q "feed gap symbol=$SYMBOL expected_seq=2 got_seq=1001 missing=999 backwards=false feed=$FEED_EP" \
  "$TMP/daemon.log" || fail "the first gap is not logged with its size and feed endpoint"
grep -q "backwards=true" "$TMP/daemon.log" || fail "no backwards gap logged"
BYTES=$(stat -c %s "$TMP/daemon.log")
((BYTES < 65536)) || fail "daemon log is $BYTES bytes"
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID"
grep -q "feed gaps were not logged (rate limit)" "$TMP/daemon.log" || fail "no shutdown summary of unlogged gaps"
echo "$((N - 1)) seq gaps: $LINES log lines ($BYTES bytes of log), $MISSING missing bars counted"
echo "PASS"
