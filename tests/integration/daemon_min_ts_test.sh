#!/usr/bin/env bash
# Issue 43 item 9: feed bars stamped before [daemon] min_ts (default 1971-01-01) are rejected
# as `field` with the reason: a ts in seconds instead of nanoseconds (1970) and a bar from
# 1938 were accepted, and the first such bar would hold the symbol's series there. Backfill
# files are not held to it (a 1965 history loads). min_ts applies on SIGHUP (an integer of
# ns here), and a value that is no date is a config error at its key.
# Exit 0 pass, 1 fail, 77 skipped.
#
# usage: daemon_min_ts_test.sh WFOD WFO_REPLAY WFO_SUB SEND_FRAMES
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
SEND=${4:-}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_min_ts "$WFOD" "$SUB" "$SEND"
: "$REPLAY"  # not needed here; the argument list is the other tests'

SYMBOL=GOOG
TOPIC="bars.$SYMBOL"
new_endpoints
CONFIG="$TMP/wfod.toml"
printf 'timestamp,open,high,low,close,volume\n1965-01-04,10,11,9,10,1\n1965-01-05,10,11,9,10,1\n1965-01-06,10,11,9,10,1\n' \
  >"$TMP/history.csv"
write_config "$CONFIG" "$TMP/state" json "$SYMBOL" "$(ma_strategy s "$SYMBOL")"
sed -i 's|^bars_per_year = 252|bars_per_year = 252\nbackfill = "history.csv"|' "$CONFIG"

# A min_ts that is no date: exit 2 at its key.
sed 's|^log_level = "info"|log_level = "info"\nmin_ts = "yesterday"|' "$CONFIG" >"$TMP/bad.toml"
"$WFOD" --check-config "$TMP/bad.toml" >"$TMP/bad.check" 2>&1
rc=$?
[[ "$rc" == 2 ]] && grep -q "^wfod: $TMP/bad.toml:[0-9]*:[0-9]*: key 'daemon.min_ts': \"yesterday\" is not a date" "$TMP/bad.check" ||
  fail "min_ts = \"yesterday\": exit $rc: $(cat "$TMP/bad.check")"

start_daemon "$CONFIG" "$SNAP_EP" daemon
[[ "$(health_field "$SNAP_EP" ".symbols[\"$SYMBOL\"].bars")" == 3 ]] ||
  fail "the 1965 backfill was not loaded: $(snap "$SNAP_EP" --health | jq -c .symbols)"
echo "backfill from 1965 loaded (3 bars): files are not held to min_ts"

NOW_S=$(date +%s)
NOW=$((NOW_S * 1000000000))
MIN=60000000000
bar() { echo "{\"ts\":$1,\"open\":371.5,\"high\":372,\"low\":370,\"close\":371,\"volume\":1}"; }
# A real bar; the same instant in seconds (reads as 1970-01-01T00:00:01.7...); a 1938 bar
# as ISO text; another real bar, which must not be out_of_order against either.
"$SEND" "$FEED_EP" 1500 \
  "$TOPIC" "$(bar $((NOW - 2 * MIN)))" -- "$TOPIC" "$(bar "$NOW_S")" \
  -- "$TOPIC" '{"ts":"1938-06-01T00:00:00Z","open":371.5,"high":372,"low":370,"close":371,"volume":1}' \
  -- "$TOPIC" "$(bar $((NOW - MIN)))" >"$TMP/send1.log" 2>&1 || fail "send failed"
wait_bars "$SNAP_EP" "$SYMBOL" 5
H=$(snap "$SNAP_EP" --health)
[[ "$(jq -r .rejects.field <<<"$H")" == 2 ]] || fail "expected 2 field rejects: $(jq -c .rejects <<<"$H")"
[[ "$(jq -r .rejects.out_of_order <<<"$H")" == 0 ]] || fail "real bars rejected: $(jq -c .rejects <<<"$H")"
[[ "$(jq -r ".symbols.$SYMBOL.last_ts" <<<"$H")" == $((NOW - MIN)) ]] || fail "last_ts $(jq -r ".symbols.$SYMBOL.last_ts" <<<"$H")"
grep -q "feed reject reason=field source=$SYMBOL.*ts $NOW_S (1970-01-01T00:.*) is before min_ts 1971-01-01T00:00:00Z: a ts in seconds or milliseconds?" \
  "$TMP/daemon.log" || fail "no reject line naming the seconds ts and min_ts: $(grep 'reason=field' "$TMP/daemon.log")"
grep -q "feed reject reason=field source=$SYMBOL.*1938-06-01T00:00:00Z) is before min_ts" "$TMP/daemon.log" ||
  fail "no reject line for the 1938 bar"
echo "a ts in seconds and a 1938 bar rejected as field (2), the real bars accepted"

# min_ts on SIGHUP, as integer ns: bars before the new floor are refused from then on.
sed -i "s|^log_level = \"info\"|log_level = \"info\"\nmin_ts = $((NOW - MIN / 2))|" "$CONFIG"
kill -HUP "$DAEMON_PID"
for _ in $(seq 1 50); do
  grep -q 'applied_live="daemon.min_ts"' "$TMP/daemon.log" && break
  sleep 0.1
done
grep -q 'applied_live="daemon.min_ts"' "$TMP/daemon.log" || fail "min_ts not applied live on SIGHUP"
# After the last accepted bar but before the new floor: field; then two bars after it.
"$SEND" "$FEED_EP" 1500 "$TOPIC" "$(bar $((NOW - 3 * MIN / 4)))" -- "$TOPIC" "$(bar $((NOW - MIN / 4)))" \
  -- "$TOPIC" "$(bar $((NOW + MIN)))" >"$TMP/send2.log" 2>&1 || fail "send 2 failed"
wait_bars "$SNAP_EP" "$SYMBOL" 7
[[ "$(health_field "$SNAP_EP" .rejects.field)" == 3 ]] ||
  fail "field rejects after the reload: $(snap "$SNAP_EP" --health | jq -c .rejects)"
echo "min_ts raised on SIGHUP (integer ns): applied live"
echo "PASS"
