#!/usr/bin/env bash
# kill -9 at random points under load, 20 times: a replay streams the GOOG bars
# while wfod is SIGKILLed 0.2-0.8 s into the feed, then restarted on the same state dir and
# the replay resumed from its last persisted bar. Every restart must read its state (no
# unreadable file), hold at least every bar health had counted before the kill (nothing
# accepted lost), and hold exactly rows 0..N-1 of the CSV (last_ts is row N-1: no bar lost
# in between or duplicated, ts strictly increasing). Finally all bars are in and published.
# Exit 0/1/77.
#
# usage: daemon_kill9_loop_test.sh WFOD WFO_REPLAY WFO_SUB CSV
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
CSV=${4:?usage: daemon_kill9_loop_test.sh WFOD WFO_REPLAY WFO_SUB CSV}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_kill9_loop "$WFOD" "$REPLAY" "$SUB"

SYMBOL=GOOG
STRATEGY=loop
TOTAL=1500
KILLS=20
new_endpoints
mkdir -p "$TMP/state"
write_config "$TMP/wfod.toml" "$TMP/state" binary "$SYMBOL" \
  "$(ma_strategy "$STRATEGY" "$SYMBOL" | sed 's/^every = 50/every = 1/')"  # the last run covers the last bar

persisted_row_check() {  # $1 log name: sets BARS, the persisted count, checked against the CSV
  local h last row
  h=$(snap "$SNAP_EP" --health) || fail "no health reply after restart ($1)"
  BARS=$(jq -r ".symbols[\"$SYMBOL\"].bars" <<<"$h")
  if [[ "$BARS" -gt 0 ]]; then
    last=$(jq -r ".symbols[\"$SYMBOL\"].last_ts" <<<"$h")
    row=$(csv_row_of_ts "$CSV" "$last") || fail "no CSV row for last_ts $last ($1)"
    [[ "$row" -eq $((BARS - 1)) ]] || fail "$1: $BARS bars persisted but the last is row $row"
  fi
}

acked=0
for i in $(seq 1 "$KILLS"); do
  start_daemon "$TMP/wfod.toml" "$SNAP_EP" "daemon$i"
  persisted_row_check "daemon$i"
  bars=$BARS
  [[ "$bars" -ge "$acked" ]] || fail "restart $i: $bars bars persisted, $acked were counted before the kill"
  from=$((bars > 0 ? bars - 1 : 0))  # resend the last persisted bar: a duplicate
  "$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format binary \
    --start "$from" --count $((TOTAL - from)) --seq-start $((from + 1)) --rate 200 \
    --wait-ms 1000 --quiet &
  replay_pid=$!
  PIDS+=("$replay_pid")
  sleep "1.$((2 + RANDOM % 7))"  # the replay waits 1 s for the SUB to connect, then feeds
  acked=$(health_field "$SNAP_EP" ".symbols[\"$SYMBOL\"].bars")
  acked=${acked:-0}
  kill -KILL "$DAEMON_PID"
  wait "$DAEMON_PID" 2>/dev/null
  kill "$replay_pid" 2>/dev/null
  wait "$replay_pid" 2>/dev/null
  echo "kill $i: $acked bars counted before the kill (restart read $bars)"
done

start_daemon "$TMP/wfod.toml" "$SNAP_EP" final
persisted_row_check final
bars=$BARS
[[ "$bars" -ge "$acked" ]] || fail "final restart: $bars bars persisted, $acked were counted"
from=$((bars > 0 ? bars - 1 : 0))
"$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format binary \
  --start "$from" --count $((TOTAL - from)) --seq-start $((from + 1)) --rate 2000 \
  --wait-ms 1000 --quiet || fail "wfo-replay (final) failed"
wait_bars "$SNAP_EP" "$SYMBOL" "$TOTAL"
persisted_row_check final
FINAL=$(wait_settled "$SNAP_EP" "$SYMBOL" "$STRATEGY") || exit 1
[[ "$(jq -r .window.last_ts <<<"$FINAL")" == "$(jq -r ".symbols[\"$SYMBOL\"].last_ts" \
  <<<"$(snap "$SNAP_EP" --health)")" ]] || fail "the last publication does not cover the last bar"
echo "$KILLS kill -9 restarts: all $TOTAL bars persisted once, in order; last publication seq" \
  "$(jq -r .seq <<<"$FINAL")"
