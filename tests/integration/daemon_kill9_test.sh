#!/usr/bin/env bash
# Crash recovery: wfod is SIGKILLed mid-stream, restarted on the same state dir, and the replay
# resumes from the persisted last_ts; the bar count must equal the distinct bars sent and the
# final winner/metrics must equal an uninterrupted daemon's on the same bars. Exit 0/1/77.
#
# usage: daemon_kill9_test.sh WFOD WFO_REPLAY WFO_SUB CSV
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
CSV=${4:?usage: daemon_kill9_test.sh WFOD WFO_REPLAY WFO_SUB CSV}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_kill9 "$WFOD" "$REPLAY" "$SUB"

SYMBOL=GOOG
STRATEGY=crash
TOTAL=800
# every = 1: both runs' final publications then cover all TOTAL bars, whatever the restart did
# to the every-k schedule (it counts from the start), so they are comparable.
TABLES=$(ma_strategy "$STRATEGY" "$SYMBOL" | sed 's/^every = 50/every = 1/')

replay() {  # $1 start row, $2 count, $3 rate
  "$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format binary \
    --start "$1" --count "$2" --seq-start $(($1 + 1)) --rate "$3" --wait-ms 1000 --quiet
}

# --- the crashed run
new_endpoints
mkdir -p "$TMP/state1"
write_config "$TMP/crash.toml" "$TMP/state1" binary "$SYMBOL" "$TABLES"
start_daemon "$TMP/crash.toml" "$SNAP_EP" daemon1
"$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format binary \
  --count "$TOTAL" --seq-start 1 --rate 200 --wait-ms 1000 --quiet &
REPLAY_PID=$!
PIDS+=("$REPLAY_PID")
# Kill once a few publications are out, mid-stream.
for _ in $(seq 1 150); do
  seq=$(jq -r '.seq // 0' <<<"$(snap "$SNAP_EP" --get --symbol "$SYMBOL" --strategy "$STRATEGY")" 2>/dev/null)
  [[ "${seq:-0}" -ge 20 ]] && break
  sleep 0.1
done
[[ "${seq:-0}" -ge 20 ]] || fail "no 20th publication before the kill"
kill -KILL "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null
kill "$REPLAY_PID" 2>/dev/null
wait "$REPLAY_PID" 2>/dev/null
echo "killed wfod -9 after publication seq $seq"

start_daemon "$TMP/crash.toml" "$SNAP_EP" daemon2
H=$(snap "$SNAP_EP" --health)
BARS=$(jq -r ".symbols[\"$SYMBOL\"].bars" <<<"$H")
LAST_TS=$(jq -r ".symbols[\"$SYMBOL\"].last_ts" <<<"$H")
[[ "$BARS" -ge 1 && "$BARS" -lt "$TOTAL" ]] || fail "persisted $BARS bars: not mid-stream"
ROW=$(csv_row_of_ts "$CSV" "$LAST_TS") || fail "no CSV row for last_ts $LAST_TS"
[[ "$ROW" == $((BARS - 1)) ]] || fail "persisted $BARS bars but last_ts is row $ROW"
echo "restart: $BARS bars persisted (last row $ROW); resending from row $((ROW - 2))"
# A publisher re-sending from before the restart point (SPEC §1): the two older bars are
# out_of_order, the last persisted one a duplicate; all three are dropped.
replay $((ROW - 2)) $((TOTAL - ROW + 2)) 1000 || fail "wfo-replay (resume) failed"
wait_bars "$SNAP_EP" "$SYMBOL" "$TOTAL"
DUP=$(health_field "$SNAP_EP" '.rejects.duplicate')
OOO=$(health_field "$SNAP_EP" '.rejects.out_of_order')
[[ "$DUP" == 1 && "$OOO" == 2 ]] ||
  fail "expected 1 duplicate and 2 out_of_order rejects, got ${DUP:-none} and ${OOO:-none}"
CRASHED=$(wait_settled "$SNAP_EP" "$SYMBOL" "$STRATEGY") || exit 1

# --- the uninterrupted run on the same bars
CRASH_SNAP=$SNAP_EP
new_endpoints
mkdir -p "$TMP/state2"
write_config "$TMP/clean.toml" "$TMP/state2" binary "$SYMBOL" "$TABLES"
start_daemon "$TMP/clean.toml" "$SNAP_EP" daemon3
replay 0 "$TOTAL" 1000 || fail "wfo-replay (clean run) failed"
wait_bars "$SNAP_EP" "$SYMBOL" "$TOTAL"
CLEAN=$(wait_settled "$SNAP_EP" "$SYMBOL" "$STRATEGY") || exit 1

# Equal per SPEC §9 (json_equal_9): the restarted daemon's stream reopened on the persisted
# history and sums some returns in another order than the uninterrupted one.
json_equal_9 "$(jq -c '[.window, .id, .params, .metrics]' <<<"$CRASHED")" \
  "$(jq -c '[.window, .id, .params, .metrics]' <<<"$CLEAN")" ||
  fail "crashed run's final publication differs from the clean run's:
crashed: $CRASHED
clean:   $CLEAN"
echo "final winner id $(jq -r .id <<<"$CLEAN") and metrics equal the uninterrupted run's" \
  "(crashed seq $(jq -r .seq <<<"$CRASHED"), snapshot $CRASH_SNAP)"
echo "PASS"
