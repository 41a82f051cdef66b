#!/usr/bin/env bash
# SIGTERM while the state directory's disk is full (a soft RLIMIT_FSIZE, as in
# daemon_disk_full_test.sh): the daemon must not drop accepted bars silently. It retries the
# writes for [daemon] stop_retry_s, then exits 4 naming how many bars were lost and for which
# symbol; if the disk recovers inside that window (prlimit lifts the limit) every bar is
# written and it exits 0. Exit 0/1/77.
#
# usage: daemon_stop_disk_full_test.sh WFOD WFO_REPLAY WFO_SUB CSV
set -u
WFOD_REAL=${1:-}
REPLAY=${2:-}
SUB=${3:-}
CSV=${4:?usage: daemon_stop_disk_full_test.sh WFOD WFO_REPLAY WFO_SUB CSV}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_stop_disk_full "$WFOD_REAL" "$REPLAY" "$SUB"
if ! command -v prlimit >/dev/null 2>&1; then
  echo "SKIPPED: daemon_stop_disk_full: prlimit (util-linux) not installed"
  exit 77
fi

SYMBOL=GOOG
BARS=1000
FIT=639  # 40 KiB: the log's 32-byte header and 639 whole 64-byte records
WFOD="$TMP/wfod-limited"
printf '#!/usr/bin/env bash\nulimit -S -f 40\nexec %q "$@"\n' "$WFOD_REAL" >"$WFOD"
chmod +x "$WFOD"

# run_case NAME: a fresh state dir, BARS bars accepted (FIT written, the rest in memory).
run_case() {
  new_endpoints
  mkdir -p "$TMP/$1"
  write_config "$TMP/$1.toml" "$TMP/$1" binary "$SYMBOL" "$(ma_strategy sd "$SYMBOL")"
  sed -i 's/^log_level = "info"/log_level = "info"\nstop_retry_s = 2/' "$TMP/$1.toml"
  start_daemon "$TMP/$1.toml" "$SNAP_EP" "$1"
  "$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format binary \
    --count "$BARS" --seq-start 1 --rate 4000 --wait-ms 800 --quiet || fail "wfo-replay failed"
  wait_bars "$SNAP_EP" "$SYMBOL" "$BARS"
  [[ "$(health_field "$SNAP_EP" .storage.pending_bars)" == $((BARS - FIT)) ]] ||
    fail "expected $((BARS - FIT)) bars pending: $(snap "$SNAP_EP" --health | jq -c .storage)"
  LOG="$TMP/$1/bars/$SYMBOL.wfb"
}

# 1. The disk stays full: bounded retry, then exit 4 naming the loss.
run_case full
T0=$(date +%s%N)
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID"
RC=$?
MS=$((($(date +%s%N) - T0) / 1000000))
[[ "$RC" == 4 ]] || fail "exit $RC after SIGTERM on a full disk, expected 4"
((MS >= 1800 && MS < 10000)) || fail "stopped after $MS ms, expected the 2 s retry window"
grep -q "$((BARS - FIT)) accepted bars lost at shutdown" "$TMP/full.log" ||
  fail "no log line counting the lost bars"
grep -q "symbol $SYMBOL: $((BARS - FIT)) accepted bars not written" "$TMP/full.log" ||
  fail "no per-symbol loss line"
grep -q "wfod stopped exit=4" "$TMP/full.log" || fail "no 'wfod stopped exit=4' line"
[[ "$(stat -c %s "$LOG")" == $((32 + 64 * FIT)) ]] || fail "log size $(stat -c %s "$LOG")"
echo "disk still full: exit 4 after ${MS} ms, $((BARS - FIT)) lost bars named for $SYMBOL"

# 2. The disk recovers inside the retry window: everything written, exit 0.
run_case recovers
kill -TERM "$DAEMON_PID"
sleep 0.5
prlimit --pid "$DAEMON_PID" --fsize=unlimited || fail "prlimit failed"
wait "$DAEMON_PID"
RC=$?
[[ "$RC" == 0 ]] || fail "exit $RC after the disk recovered during the stop, expected 0"
[[ "$(stat -c %s "$LOG")" == $((32 + 64 * BARS)) ]] ||
  fail "log size $(stat -c %s "$LOG") after recovery, expected all $BARS bars"
grep -q "written at shutdown" "$TMP/recovers.log" || fail "no recovery line"
grep -q "wfod stopped exit=0" "$TMP/recovers.log" || fail "no 'wfod stopped exit=0' line"
echo "disk recovered during the stop: all $BARS bars written, exit 0"
echo "PASS"
