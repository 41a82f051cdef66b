#!/usr/bin/env bash
# Issue 43 item 3: one wfod per state_dir, and publication seqs never reused. A second daemon
# with other symbols on the same state_dir refuses to start (exit 1) naming the holder's pid
# (both used to run and overwrite each other's publications.seq); with publications.seq
# deleted, a restart continues each stream above the seq its streams/*.live file holds
# (it restarted at 1) and logs where the number came from. Exit 0 pass, 1 fail, 77 skipped.
#
# usage: daemon_state_dir_lock_test.sh WFOD WFO_REPLAY WFO_SUB CSV
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
CSV=${4:?usage: daemon_state_dir_lock_test.sh WFOD WFO_REPLAY WFO_SUB CSV}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_state_dir_lock "$WFOD" "$REPLAY" "$SUB"

SYMBOL=GOOG
STATE="$TMP/state"
new_endpoints
A_FEED=$FEED_EP
write_config "$TMP/a.toml" "$STATE" json "$SYMBOL" "$(ma_strategy s "$SYMBOL")"
start_daemon "$TMP/a.toml" "$SNAP_EP" a
A_SNAP=$SNAP_EP
A_PID=$DAEMON_PID

# --- a second daemon, another symbol, its own endpoints, the same state_dir: refused.
new_endpoints
write_config "$TMP/b.toml" "$STATE" json MSFT "$(ma_strategy s MSFT)"
timeout 20 "$WFOD" --config "$TMP/b.toml" >"$TMP/b.log" 2>&1
rc=$?
[[ "$rc" == 1 ]] || fail "a second wfod on the same state_dir: exit $rc, expected 1"
grep -q "state_dir $STATE is in use by another wfod (pid $A_PID, it holds $STATE/wfod.lock): one wfod per state_dir" \
  "$TMP/b.log" || fail "the refusal does not name the holder: $(tail -n 3 "$TMP/b.log")"
[[ -e "$STATE/bars/MSFT.wfb" ]] && fail "the refused daemon created a bar log"
kill -0 "$A_PID" 2>/dev/null || fail "the first daemon died"
echo "second daemon refused: $(grep -o 'state_dir .* in use by another wfod (pid [0-9]*' "$TMP/b.log")"

# --- publications, then a stop and publications.seq deleted.
"$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$A_FEED" --format json --start 0 --count 400 \
  --seq-start 1 --rate 1000 --wait-ms 1000 --quiet || fail "wfo-replay failed"
wait_bars "$A_SNAP" "$SYMBOL" 400
SEQ1=$(wait_settled "$A_SNAP" "$SYMBOL" s | jq -r .seq) || exit 1
[[ "$SEQ1" -ge 1 ]] || fail "expected a publication, seq $SEQ1"
kill -TERM "$A_PID"
wait "$A_PID"
rc=$?
[[ "$rc" == 0 ]] || fail "wfod exited $rc on SIGTERM"
grep -q "seq=$SEQ1" "$STATE/streams/$SYMBOL.s.live" || fail "the live state does not hold seq $SEQ1"
rm "$STATE/publications.seq"
echo "stopped at seq $SEQ1; publications.seq deleted"

# --- restart: the seq goes on above the live state's.
SNAP_EP=$A_SNAP FEED_EP=$A_FEED
start_daemon "$TMP/a.toml" "$A_SNAP" a2
grep -q "stream $SYMBOL.s: publication seq continues after $SEQ1 from $STATE/streams/$SYMBOL.s.live (publications.seq had 0)" \
  "$TMP/a2.log" || fail "no log line saying where the seq came from: $(grep -i 'seq' "$TMP/a2.log" | head -n 5)"
"$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$A_FEED" --format json --start 400 --count 60 \
  --seq-start 401 --rate 1000 --wait-ms 1000 --quiet || fail "wfo-replay failed"
wait_bars "$A_SNAP" "$SYMBOL" 460
SEQ2=$(wait_settled "$A_SNAP" "$SYMBOL" s | jq -r .seq) || exit 1
[[ "$SEQ2" -gt "$SEQ1" ]] || fail "seq went back: $SEQ2 after $SEQ1"
echo "after the restart: seq $SEQ2 > $SEQ1"
echo "PASS"
