#!/usr/bin/env bash
# One far-future bar must not lock a symbol (PROTOCOL §1 `future`): a bar stamped more than
# [daemon] max_future_s after the daemon's clock is rejected and counted as `future`, never
# persisted, and real bars before and after it are accepted, also after a restart. A bar
# within the limit is accepted. Exit 0 pass, 1 fail, 77 skipped.
#
# usage: daemon_future_bar_test.sh WFOD WFO_REPLAY WFO_SUB SEND_FRAMES
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
SEND=${4:-}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_future_bar "$WFOD" "$SUB" "$SEND"
: "$REPLAY"  # not needed here; the argument list is the other tests'

SYMBOL=GOOG
TOPIC="bars.$SYMBOL"
new_endpoints
mkdir -p "$TMP/state"
write_config "$TMP/wfod.toml" "$TMP/state" json "$SYMBOL" "$(ma_strategy fut "$SYMBOL")"
start_daemon "$TMP/wfod.toml" "$SNAP_EP" daemon

# Whole seconds: exact in the float64 that jq reads health numbers into.
NOW=$(($(date +%s) * 1000000000))
MIN=60000000000
bar() { echo "{\"ts\":$1,\"open\":371.5,\"high\":372,\"low\":370,\"close\":371,\"volume\":1}"; }
past() { bar $((NOW - (10 - $1) * MIN)); }

# 3 real bars, the tester's far-future bar (year 2255), 2 more real bars; then one a minute
# ahead (inside the default 300 s: accepted), one an hour ahead (future), one two minutes
# ahead, which must not be out_of_order against the refused one.
"$SEND" "$FEED_EP" 1500 \
  "$TOPIC" "$(past 1)" -- "$TOPIC" "$(past 2)" -- "$TOPIC" "$(past 3)" \
  -- "$TOPIC" '{"ts": 9000000000000000000, "open":371.5,"high":372,"low":370,"close":371,"volume":1}' \
  -- "$TOPIC" "$(past 4)" -- "$TOPIC" "$(past 5)" \
  -- "$TOPIC" "$(bar $((NOW + MIN)))" \
  -- "$TOPIC" "$(bar $((NOW + 60 * MIN)))" \
  -- "$TOPIC" "$(bar $((NOW + 2 * MIN)))" >"$TMP/send1.log" 2>&1 || fail "send failed"
wait_bars "$SNAP_EP" "$SYMBOL" 7
H=$(snap "$SNAP_EP" --health)
[[ "$(jq -r .rejects.future <<<"$H")" == 2 ]] || fail "expected 2 future rejects: $(jq -c .rejects <<<"$H")"
[[ "$(jq -r .rejects.out_of_order <<<"$H")" == 0 ]] || fail "real bars rejected: $(jq -c .rejects <<<"$H")"
[[ "$(jq -r '.symbols.GOOG.last_ts' <<<"$H")" == $((NOW + 2 * MIN)) ]] || fail "last_ts $(jq -r .symbols.GOOG.last_ts <<<"$H")"
grep -q "feed reject reason=future source=$SYMBOL" "$TMP/daemon.log" || fail "no 'reason=future' log line"
echo "far-future bars rejected as future (2), 7 real bars accepted around them"

# Across a restart: the log never held the future bar, so the next real bar is accepted.
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID"
RC=$?
[[ "$RC" == 0 ]] || fail "wfod exited $RC on SIGTERM"
start_daemon "$TMP/wfod.toml" "$SNAP_EP" daemon2
[[ "$(health_field "$SNAP_EP" ".symbols[\"$SYMBOL\"].bars")" == 7 ]] || fail "restart lost bars"
"$SEND" "$FEED_EP" 1500 "$TOPIC" "$(bar $((NOW + 3 * MIN)))" >"$TMP/send2.log" 2>&1 ||
  fail "send after restart failed"
wait_bars "$SNAP_EP" "$SYMBOL" 8
[[ "$(health_field "$SNAP_EP" .rejects.out_of_order)" == 0 ]] || fail "out_of_order after restart"
echo "after a restart the next real bar is accepted"
echo "PASS"
