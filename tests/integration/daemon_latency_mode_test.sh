#!/usr/bin/env bash
# Latency mode ([daemon] busy_poll_us, docs/operations.md): the loop and the worker poll
# before sleeping. With it on, the daemon must publish exactly what it publishes without it
# (the same bars give the same winners and metrics), answer snapshots and health (latency_ms
# per stage), reload on SIGHUP and stop cleanly on SIGTERM; and once the feed is quiet it
# must go back to sleep: it costs CPU only while bars keep coming. Exit 0/1/77.
#
# usage: daemon_latency_mode_test.sh WFOD WFO_REPLAY WFO_SUB CSV
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
CSV=${4:?usage: daemon_latency_mode_test.sh WFOD WFO_REPLAY WFO_SUB CSV}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_latency_mode "$WFOD" "$REPLAY" "$SUB"

SYMBOL=GOOG
STRATEGY=lm
FIRST=381  # window 200 + warm-up 180 + 1: exactly one run is due, so no timing can coalesce it
MORE=120

# run_daemon NAME BUSY_POLL_US: a fresh daemon fed the first FIRST bars; its first
# publication goes to $TMP/NAME.json (run in this shell: DAEMON_PID and the endpoints stay
# set).
run_daemon() {
  new_endpoints
  mkdir -p "$TMP/$1"
  write_config "$TMP/$1.toml" "$TMP/$1" binary "$SYMBOL" "$(ma_strategy "$STRATEGY" "$SYMBOL")"
  sed -i "s/^log_level = \"info\"/log_level = \"info\"\nbusy_poll_us = $2/" "$TMP/$1.toml"
  start_daemon "$TMP/$1.toml" "$SNAP_EP" "$1"
  "$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format binary \
    --count "$FIRST" --seq-start 1 --rate 400 --wait-ms 800 --quiet || fail "wfo-replay failed ($1)"
  wait_bars "$SNAP_EP" "$SYMBOL" "$FIRST"
  wait_settled "$SNAP_EP" "$SYMBOL" "$STRATEGY" >"$TMP/$1.json"
}

# CPU seconds (user + system) the process has used so far.
cpu_seconds() {
  awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "/proc/$1/stat"
}

run_daemon plain 0
PLAIN=$(cat "$TMP/plain.json")
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null

run_daemon fast 2000
FAST=$(cat "$TMP/fast.json")
grep -q "latency mode busy_poll_us=2000" "$TMP/fast.log" || fail "no 'latency mode' log line"

# The same bars, the same run: the same publication but for its timing and the config's
# hash (the two files differ in busy_poll_us).
strip='del(.published_ns, .elapsed_ms, .config_version)'
[[ "$(jq -r .seq <<<"$FAST")" == 1 ]] || fail "latency mode: first publication missing"
[[ "$(jq -c "$strip" <<<"$PLAIN")" == "$(jq -c "$strip" <<<"$FAST")" ]] ||
  fail "latency mode published something else than the plain loop:
plain: $(jq -c "$strip" <<<"$PLAIN")
fast:  $(jq -c "$strip" <<<"$FAST")"

# More bars in latency mode: more publications (every = 50), live_oos on the later ones.
"$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format binary \
  --start "$FIRST" --count "$MORE" --seq-start $((FIRST + 1)) --rate 400 --wait-ms 300 --quiet ||
  fail "wfo-replay failed (more bars)"
wait_bars "$SNAP_EP" "$SYMBOL" $((FIRST + MORE))
LAST=$(wait_settled "$SNAP_EP" "$SYMBOL" "$STRATEGY")
[[ "$(jq -r .seq <<<"$LAST")" -ge 2 && "$(jq -r '.live_oos.bars // 0' <<<"$LAST")" -ge 1 ]] ||
  fail "latency mode: no later publication with live_oos: $(jq -c '{seq, live_oos}' <<<"$LAST")"

SAMPLES=$(health_field "$SNAP_EP" .latency_ms.samples)
[[ -n "$SAMPLES" && "$SAMPLES" -ge 1 ]] || fail "health latency_ms.samples=${SAMPLES:-missing}"
HANDOFF=$(health_field "$SNAP_EP" .latency_ms.handoff.p50)
[[ -n "$HANDOFF" ]] || fail "health latency_ms.handoff missing"

# Quiet feed: after busy_poll_us both threads sleep again; over 2 s the process may use a
# little CPU (timers, snapshot replies), never the ~4 CPU-seconds of two spinning threads.
sleep 1
BEFORE=$(cpu_seconds "$DAEMON_PID")
sleep 2
AFTER=$(cpu_seconds "$DAEMON_PID")
awk -v a="$BEFORE" -v b="$AFTER" 'BEGIN { exit !(b - a < 0.5) }' ||
  fail "latency mode kept polling on a quiet feed: $BEFORE -> $AFTER CPU seconds in 2 s"
echo "quiet feed: $(awk -v a="$BEFORE" -v b="$AFTER" 'BEGIN { printf "%.2f", b - a }') CPU s in 2 s"

kill -HUP "$DAEMON_PID"
for _ in $(seq 1 50); do
  grep -qE "reload (done|unchanged)" "$TMP/fast.log" && break
  sleep 0.1
done
grep -qE "reload (done|unchanged)" "$TMP/fast.log" || fail "no reload after SIGHUP in latency mode"
snap "$SNAP_EP" --health >/dev/null || fail "no health reply after the reload"

kill -TERM "$DAEMON_PID"
for _ in $(seq 1 50); do
  kill -0 "$DAEMON_PID" 2>/dev/null || break
  sleep 0.1
done
kill -0 "$DAEMON_PID" 2>/dev/null && fail "wfod did not stop within 5 s of SIGTERM in latency mode"
wait "$DAEMON_PID"
RC=$?
[[ "$RC" == 0 ]] || fail "wfod exited $RC after SIGTERM in latency mode"
grep -q "wfod stopped exit=0" "$TMP/fast.log" || fail "no clean-stop log line"
echo "PASS"
