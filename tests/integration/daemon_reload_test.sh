#!/usr/bin/env bash
# SIGHUP reload (docs/operations.md "Signals and reload"): a valid edited config adding a second
# strategy makes that stream publish; an invalid config is rejected, the daemon stays up (health
# ok) and keeps publishing the running streams. Exit 0 pass, 1 fail, 77 skipped.
#
# usage: daemon_reload_test.sh WFOD WFO_REPLAY WFO_SUB CSV
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
CSV=${4:?usage: daemon_reload_test.sh WFOD WFO_REPLAY WFO_SUB CSV}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_reload "$WFOD" "$REPLAY" "$SUB"

SYMBOL=GOOG
new_endpoints
mkdir -p "$TMP/state"
CONFIG="$TMP/wfod.toml"
write_config "$CONFIG" "$TMP/state" json "$SYMBOL" "$(ma_strategy first "$SYMBOL")"
start_daemon "$CONFIG" "$SNAP_EP" daemon

replay() {  # $1 start row, $2 count
  "$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format json --start "$1" \
    --count "$2" --seq-start $(($1 + 1)) --rate 500 --wait-ms 1000 --quiet || fail "wfo-replay failed"
  wait_bars "$SNAP_EP" "$SYMBOL" $(($1 + $2))
}
get_seq() { jq -r '.seq // empty' <<<"$(snap "$SNAP_EP" --get --symbol "$SYMBOL" --strategy "$1")"; }
wait_log() {  # $1: pattern in daemon.log
  for _ in $(seq 1 100); do
    grep -q "$1" "$TMP/daemon.log" && return 0
    sleep 0.1
  done
  fail "no '$1' in the daemon log"
}

replay 0 450
A1=$(wait_settled "$SNAP_EP" "$SYMBOL" first | jq -r .seq) || exit 1
echo "stream first: seq $A1 before any reload"

# --- valid reload: a second strategy (a different window) on the same symbol.
SECOND=$(ma_strategy second "$SYMBOL" | sed 's/^window = 200/window = 150/')
write_config "$CONFIG" "$TMP/state" json "$SYMBOL" "$(ma_strategy first "$SYMBOL")
$SECOND"
"$WFOD" --check-config "$CONFIG" >"$TMP/check.out" 2>&1 || fail "edited config invalid: $(cat "$TMP/check.out")"
kill -HUP "$DAEMON_PID"
wait_log "reload done"
replay 450 100
B1=$(wait_settled "$SNAP_EP" "$SYMBOL" second | jq -r .seq) || exit 1
A2=$(get_seq first)
[[ "$B1" -ge 1 ]] || fail "no publication for the added stream"
[[ "$A2" -gt "$A1" ]] || fail "stream first stopped publishing after the reload ($A2 <= $A1)"
snap "$SNAP_EP" --list | jq -e '[.streams[].strategy] | index("second") != null' >/dev/null ||
  fail "list does not name the added stream"
echo "after a valid reload: second seq $B1, first seq $A2"

# --- non-strategy keys: log_level and http apply at once, publish.sndhwm needs a restart.
HTTP_PORT=$(free_port) || fail "no free port"
sed -i -e 's/^log_level = "info"/log_level = "debug"/' \
  -e "s/^http = \"\"/http = \"127.0.0.1:$HTTP_PORT\"\nsndhwm = 500/" "$CONFIG"
"$WFOD" --check-config "$CONFIG" >"$TMP/check.out" 2>&1 || fail "edited config invalid: $(cat "$TMP/check.out")"
kill -HUP "$DAEMON_PID"
wait_log 'applied_live="daemon.log_level, publish.http" needs_restart="publish.sndhwm"'
exec 3<>"/dev/tcp/127.0.0.1/$HTTP_PORT" || fail "the reloaded http listener is not up"
printf 'GET /healthz HTTP/1.0\r\n\r\n' >&3
HEALTHZ=$(timeout 5 cat <&3)
exec 3<&-
[[ "$HEALTHZ" == *"200"* ]] || fail "GET /healthz on the reloaded http port: $HEALTHZ"
echo "after a non-strategy reload: log_level and http applied live, sndhwm logged as restart"

# --- invalid reload: the daemon keeps the running configuration.
echo 'this is = = not toml [' >>"$CONFIG"
kill -HUP "$DAEMON_PID"
wait_log "reload failed"
kill -0 "$DAEMON_PID" 2>/dev/null || fail "wfod died on an invalid config"
[[ "$(health_field "$SNAP_EP" .status)" == ok ]] || fail "health not ok after a failed reload"
replay 550 100
wait_settled "$SNAP_EP" "$SYMBOL" first >/dev/null || exit 1
A3=$(get_seq first)
B2=$(get_seq second)
[[ "$A3" -gt "$A2" ]] || fail "stream first stopped publishing after a failed reload"
[[ "$B2" -gt "$B1" ]] || fail "stream second stopped publishing after a failed reload"
kill -0 "$DAEMON_PID" 2>/dev/null || fail "wfod died"
echo "after an invalid reload: alive, health ok, first seq $A3, second seq $B2"
echo "PASS"
