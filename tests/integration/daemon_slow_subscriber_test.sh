#!/usr/bin/env bash
# Back-pressure: one subscriber that stops reading (SIGSTOP) and a snapshot client that
# never reads its replies must not slow the daemon: every bar is accepted, publications go
# on to a live subscriber (which gets the last one once the feed is quiet), health answers, and the PUB high-water mark is
# the configured `[publish] sndhwm` (PROTOCOL §4, additive). Exit 0/1/77.
#
# usage: daemon_slow_subscriber_test.sh WFOD WFO_REPLAY WFO_SUB CSV
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
CSV=${4:?usage: daemon_slow_subscriber_test.sh WFOD WFO_REPLAY WFO_SUB CSV}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_slow_subscriber "$WFOD" "$REPLAY" "$SUB"

SYMBOL=GOOG
STRATEGY=bp
TOTAL=2000
new_endpoints
mkdir -p "$TMP/state"
write_config "$TMP/wfod.toml" "$TMP/state" binary "$SYMBOL" \
  "$(ma_strategy "$STRATEGY" "$SYMBOL" | sed 's/^every = 50/every = 1/')"
sed -i 's/^http = ""/http = ""\nsndhwm = 4/' "$TMP/wfod.toml"
start_daemon "$TMP/wfod.toml" "$SNAP_EP" daemon
grep -q "sndhwm=4" "$TMP/daemon.log" || fail "the daemon did not log sndhwm=4"

# The stuck subscriber: connects, subscribes, then is stopped and never reads again.
"$SUB" --endpoint "$PUB_EP" --json >"$TMP/stuck.out" 2>&1 &
STUCK=$!
PIDS+=("$STUCK")
# The live one: prints every update until 30 s pass without one.
"$SUB" --endpoint "$PUB_EP" --json --timeout-ms 30000 >"$TMP/live.out" 2>"$TMP/live.err" &
LIVE=$!
PIDS+=("$LIVE")
sleep 1
kill -STOP "$STUCK"

"$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format binary \
  --count "$TOTAL" --seq-start 1 --rate 1000 --wait-ms 800 --quiet || fail "wfo-replay failed"
wait_bars "$SNAP_EP" "$SYMBOL" "$TOTAL"
FINAL=$(wait_settled "$SNAP_EP" "$SYMBOL" "$STRATEGY") || exit 1
SEQ=$(jq -r .seq <<<"$FINAL")
T0=$(date +%s%N)
H=$(snap "$SNAP_EP" --health) || fail "no health reply while a subscriber is stuck"
MS=$(( ($(date +%s%N) - T0) / 1000000 ))
(( MS < 1000 )) || fail "health took $MS ms with a stuck subscriber"
[[ "$(jq -r .rejects.duplicate <<<"$H")" == 0 ]] || fail "unexpected rejects: $H"
# With sndhwm = 4 even the live subscriber may lose publications while it is momentarily
# behind a burst (a loaded machine): that is what the high-water mark is for. Once the feed
# is quiet, one more bar's publication must reach it: the stuck subscriber holds nothing up.
"$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format binary \
  --start "$TOTAL" --count 1 --seq-start $((TOTAL + 1)) --wait-ms 800 --quiet ||
  fail "wfo-replay (one more bar) failed"
wait_bars "$SNAP_EP" "$SYMBOL" $((TOTAL + 1))
SEQ=$(jq -r .seq <<<"$(wait_settled "$SNAP_EP" "$SYMBOL" "$STRATEGY")") || exit 1
for _ in $(seq 1 50); do
  tail -n 1 "$TMP/live.out" | jq -e ".seq == $SEQ" >/dev/null 2>&1 && break
  sleep 0.2
done
tail -n 1 "$TMP/live.out" | jq -e ".seq == $SEQ" >/dev/null 2>&1 ||
  fail "the live subscriber's last update is not seq $SEQ: $(tail -n 1 "$TMP/live.out" | head -c 200)"
LIVE_N=$(wc -l <"$TMP/live.out")
echo "all $((TOTAL + 1)) bars accepted; $SEQ publications; the live subscriber got $LIVE_N up to seq $SEQ; health in $MS ms"
echo "dropped: $(jq -c .dropped <<<"$H")"
kill -CONT "$STUCK" 2>/dev/null
echo "PASS"
