#!/usr/bin/env bash
# The state directory vanishing or turning unwritable under a running daemon is said, not
# silent (docs/reliability.md). 1: `rm -rf STATE` while bars come in: health degraded naming
# the deleted bar log, /healthz 503, wfod_storage_ok 0, publications withheld, error lines
# rate-limited, and SIGTERM exits 4 counting the bars no start will find. 2: `chmod 000
# STATE` (the daemon runs as an ordinary user: as root, through setpriv as nobody): health
# degraded "not writable", 503, wfod_storage_ok 0, error lines rate-limited while every run
# fails to save; chmod back and publishing resumes, health ok, SIGTERM exits 0 (every bar was
# persisted: the open logs kept taking writes). Exit 0 pass, 1 fail, 77 skipped.
#
# usage: daemon_state_dir_test.sh WFOD WFO_REPLAY WFO_SUB CSV
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
CSV=${4:?usage: daemon_state_dir_test.sh WFOD WFO_REPLAY WFO_SUB CSV}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_state_dir "$WFOD" "$REPLAY" "$SUB"

SYMBOL=GOOG
# every = 5: a run (and a save of its live state) every few bars, so failures repeat fast.
TABLES=$(ma_strategy sd "$SYMBOL" | sed 's/^every = 50$/every = 5/')

# setup NAME: a fresh state dir and config with HTTP on a free port.
setup() {
  new_endpoints
  HTTP_PORT=$(free_port) || fail "no free port"
  STATE="$TMP/$1"
  mkdir -p "$STATE"
  write_config "$TMP/$1.toml" "$STATE" binary "$SYMBOL" "$TABLES"
  sed -i "s/^http = \"\"/http = \"127.0.0.1:$HTTP_PORT\"/" "$TMP/$1.toml"
  sed -i 's/^log_level = "info"/log_level = "info"\nstop_retry_s = 1/' "$TMP/$1.toml"
}
send() {  # $1 first row, $2 count, $3 rate
  "$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format binary \
    --start "$1" --count "$2" --seq-start $(($1 + 1)) --rate "$3" --wait-ms 800 --quiet ||
    fail "wfo-replay rows $1+$2 failed"
  wait_bars "$SNAP_EP" "$SYMBOL" $(($1 + $2))
}
# wait_storage JQ_TEST: until the health reply's .storage passes the jq test (10 s at most).
wait_storage() {
  for _ in $(seq 1 50); do
    [[ "$(snap "$SNAP_EP" --health | jq -r ".storage | $1")" == true ]] && return 0
    sleep 0.2
  done
  fail "health .storage never passed '$1': $(snap "$SNAP_EP" --health | jq -c '{status, storage}')"
}
status_line() { http_get "$HTTP_PORT" "$1" | head -n 1 | tr -d '\r'; }
expect_degraded() {  # $1 what the storage error must say
  [[ "$(health_field "$SNAP_EP" .status)" == degraded ]] || fail "health is not degraded"
  health_field "$SNAP_EP" .storage.error | grep -q "$1" ||
    fail "storage error '$(health_field "$SNAP_EP" .storage.error)' does not say '$1'"
  [[ "$(status_line /healthz)" == "HTTP/1.1 503 Service Unavailable" ]] ||
    fail "/healthz answered '$(status_line /healthz)', expected 503"
  http_get "$HTTP_PORT" /metrics | grep -qx "wfod_storage_ok 0" || fail "/metrics has no 'wfod_storage_ok 0'"
}
error_lines() { grep -cE "^[0-9T:.-]+ (error|critical) " "$1"; }

# --- 1: rm -rf while feeding
setup gone
start_daemon "$TMP/gone.toml" "$SNAP_EP" gone
send 0 300 2000
[[ "$(status_line /healthz)" == "HTTP/1.1 200 OK" ]] || fail "/healthz before: $(status_line /healthz)"
[[ "$(health_field "$SNAP_EP" .storage.ok)" == true ]] || fail "storage not ok before the rm"
rm -rf "$STATE"
send 300 300 300  # a second: a run every 5 bars, each withheld
wait_storage '.ok == false'
expect_degraded "deleted while open"
grep -q "state_dir $STATE was removed" "$TMP/gone.log" || fail "no line saying the state_dir was removed"
grep -q "symbol $SYMBOL: bar log .* was deleted while open" "$TMP/gone.log" ||
  fail "no line naming the deleted bar log"
# 60 runs withheld: their lines are rate-limited (20 per 10 s with the first of each kind).
n=$(error_lines "$TMP/gone.log")
((n <= 30)) || fail "$n error lines while the state_dir was gone: not rate-limited"
pubs=$(grep -c "published topic=" "$TMP/gone.log")
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID"
rc=$?
[[ "$rc" == 4 ]] || fail "exit $rc at SIGTERM with the bar log deleted, expected 4"
grep -q "600 accepted bars not persisted at shutdown (GOOG=600): their bar logs were deleted" \
  "$TMP/gone.log" || fail "no shutdown line counting the 600 bars not persisted"
grep -q "wfod stopped exit=4" "$TMP/gone.log" || fail "no 'wfod stopped exit=4'"
echo "rm -rf: degraded, 503, storage_ok 0, $n error lines, $pubs publications (none after the rm: withheld), exit 4"

# --- 2: chmod 000 while feeding (as an ordinary user: root writes there anyway)
RUN_AS=()
if [[ "$(id -u)" == 0 ]]; then
  if ! command -v setpriv >/dev/null 2>&1; then
    echo "chmod part SKIPPED: running as root and setpriv (util-linux) is not installed"
    echo "PASS (rm -rf part)"
    exit 0
  fi
  RUN_AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
setup locked
chmod 755 "$TMP"
[[ ${#RUN_AS[@]} -eq 0 ]] || chown -R 65534:65534 "$STATE"
"${RUN_AS[@]}" "$WFOD" --config "$TMP/locked.toml" >"$TMP/locked.log" 2>&1 &
DAEMON_PID=$!
PIDS+=("$DAEMON_PID")
for _ in $(seq 1 100); do
  kill -0 "$DAEMON_PID" 2>/dev/null || fail "wfod exited at start (locked)"
  snap "$SNAP_EP" --health >/dev/null && break
  sleep 0.2
done
send 0 300 2000
seq_before=$(jq -r '.seq // 0' <<<"$(snap "$SNAP_EP" --get --symbol "$SYMBOL" --strategy sd)")
chmod 000 "$STATE"
before=$(error_lines "$TMP/locked.log")
send 300 400 200  # two seconds: a run every 5 bars, each failing to save its live state
wait_storage '.ok == false'
expect_degraded "is not writable"
n=$(($(error_lines "$TMP/locked.log") - before))
((n >= 1 && n <= 30)) || fail "$n error lines in 2 s while the state_dir was unwritable: not rate-limited"
chmod 755 "$STATE"
send 700 100 500  # publications save again
wait_storage '.ok == true'
[[ "$(health_field "$SNAP_EP" .status)" == ok ]] || fail "health still degraded after chmod 755"
[[ "$(status_line /healthz)" == "HTTP/1.1 200 OK" ]] || fail "/healthz after chmod back: $(status_line /healthz)"
seq_after=$(jq -r '.seq // 0' <<<"$(snap "$SNAP_EP" --get --symbol "$SYMBOL" --strategy sd)")
((seq_after > seq_before)) || fail "no publication after the state_dir took writes again"
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID"
rc=$?
[[ "$rc" == 0 ]] || fail "exit $rc at SIGTERM after chmod back, expected 0 (every bar persisted)"
echo "chmod 000: degraded, 503, storage_ok 0, $n error lines in 2 s; chmod 755: ok again, exit 0"
echo "PASS"
