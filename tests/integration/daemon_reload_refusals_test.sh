#!/usr/bin/env bash
# Issue 43 item 5: a SIGHUP with an emptied or truncated config is refused, not applied (it
# used to remove every stream and move /metrics to the default port). A config with no
# [[symbol]] or no [[strategy]] is invalid for --check-config and at start too (exit 2); each
# refused reload keeps the running streams and shows in health (`last_reload`,
# `reload_failures`) and /metrics (wfod_reload_failures_total); a good file then applies.
# Exit 0 pass, 1 fail, 77 skipped.
#
# usage: daemon_reload_refusals_test.sh WFOD WFO_REPLAY WFO_SUB
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_reload_refusals "$WFOD" "$SUB"
: "$REPLAY"  # not needed here; the argument list is the other tests'

SYMBOL=GOOG
new_endpoints
HTTP_PORT=$(free_port) || fail "no free port"
CONFIG="$TMP/wfod.toml"
write_config "$CONFIG" "$TMP/state" json "$SYMBOL" "$(ma_strategy first "$SYMBOL")"
sed -i "s/^http = \"\"/http = \"127.0.0.1:$HTTP_PORT\"/" "$CONFIG"
cp "$CONFIG" "$TMP/good.toml"

# --- check-config and start refuse a file with nothing to run, saying what to add.
: >"$TMP/empty.toml"
"$WFOD" --check-config "$TMP/empty.toml" >"$TMP/empty.check" 2>&1
rc=$?
[[ "$rc" == 2 ]] || fail "check-config of an empty file: exit $rc, expected 2: $(cat "$TMP/empty.check")"
grep -q "^wfod: $TMP/empty.toml:1:1: key 'symbol': no \[\[symbol\]\] table" "$TMP/empty.check" &&
  grep -q "key 'strategy': no \[\[strategy\]\] table" "$TMP/empty.check" ||
  fail "check-config of an empty file does not name both tables: $(cat "$TMP/empty.check")"
timeout 10 "$WFOD" --config "$TMP/empty.toml" >"$TMP/empty.run" 2>&1
rc=$?
[[ "$rc" == 2 ]] || fail "wfod --config of an empty file: exit $rc, expected 2"
sed '/^\[\[strategy\]\]/,$d' "$TMP/good.toml" >"$TMP/no_strategy.toml"
"$WFOD" --check-config "$TMP/no_strategy.toml" >"$TMP/no_strategy.check" 2>&1
rc=$?
[[ "$rc" == 2 ]] && grep -q "key 'strategy': no \[\[strategy\]\] table" "$TMP/no_strategy.check" ||
  fail "a config without [[strategy]]: exit $rc: $(cat "$TMP/no_strategy.check")"
echo "check-config and start: an empty file and one without [[strategy]] are refused (exit 2)"

start_daemon "$CONFIG" "$SNAP_EP" daemon
[[ "$(health_field "$SNAP_EP" .last_reload)" == "" ]] || fail "last_reload set before any SIGHUP"

metric() {  # $1: a sample name; its value on /metrics
  exec 3<>"/dev/tcp/127.0.0.1/$HTTP_PORT" || fail "no http listener on $HTTP_PORT"
  printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3
  timeout 5 cat <&3 | awk -v m="$1" '$1 == m { print $2 }'
  exec 3<&-
}
# refused_reload N: SIGHUP, wait for the Nth refusal, check the daemon kept its streams.
refused_reload() {
  local n=$1 status failures
  kill -HUP "$DAEMON_PID"
  for _ in $(seq 1 100); do
    [[ "$(grep -c 'reload failed' "$TMP/daemon.log")" -ge "$n" ]] && break
    sleep 0.1
  done
  [[ "$(grep -c 'reload failed' "$TMP/daemon.log")" -ge "$n" ]] || fail "reload $n not refused"
  grep -q "reload done" "$TMP/daemon.log" && fail "a refused config was applied ('reload done')"
  grep -q "SIGHUP: stream .* removed" "$TMP/daemon.log" && fail "a refused reload removed a stream"
  kill -0 "$DAEMON_PID" 2>/dev/null || fail "wfod died on a refused reload"
  status=$(health_field "$SNAP_EP" .last_reload.status)
  failures=$(health_field "$SNAP_EP" .reload_failures)
  [[ "$status" == error && "$failures" == "$n" ]] ||
    fail "after refusal $n: last_reload.status '$status', reload_failures '$failures'"
  [[ "$(metric wfod_reload_failures_total)" == "$n" ]] ||
    fail "wfod_reload_failures_total is '$(metric wfod_reload_failures_total)', expected $n (the http port moved?)"
  [[ "$(health_field "$SNAP_EP" ".symbols[\"$SYMBOL\"].bars")" == 0 ]] ||
    fail "symbol $SYMBOL gone after a refused reload"
}

# --- the issue's reproduction: the file emptied in place, then SIGHUP.
: >"$CONFIG"
refused_reload 1
health_field "$SNAP_EP" .last_reload.message | grep -q "no \[\[symbol\]\] table" ||
  fail "last_reload.message: $(health_field "$SNAP_EP" .last_reload.message)"
[[ -n "$(health_field "$SNAP_EP" .last_reload.time)" ]] || fail "last_reload.time missing"
echo "emptied config: refused, health $(snap "$SNAP_EP" --health | jq -c .last_reload)"

# --- a truncated copy (cut inside [[strategy]]: its required keys missing).
head -n 22 "$TMP/good.toml" >"$CONFIG"
refused_reload 2
echo "truncated config: refused: $(health_field "$SNAP_EP" .last_reload.message)"

# --- only the symbol left: valid TOML, nothing to run.
cp "$TMP/no_strategy.toml" "$CONFIG"
refused_reload 3
echo "config without [[strategy]]: refused"

# --- the good file again: applied, last_reload ok, the failures still counted.
cp "$TMP/good.toml" "$CONFIG"
kill -HUP "$DAEMON_PID"
for _ in $(seq 1 100); do
  [[ "$(health_field "$SNAP_EP" .last_reload.status)" == ok ]] && break
  sleep 0.1
done
[[ "$(health_field "$SNAP_EP" .last_reload.status)" == ok ]] || fail "a good reload is not ok"
[[ "$(health_field "$SNAP_EP" .reload_failures)" == 3 ]] || fail "reload_failures reset by a good reload"
snap "$SNAP_EP" --health | jq -e '.last_reload.message == null' >/dev/null || fail "message after ok"
echo "good config: last_reload ok, reload_failures 3"
echo "PASS"
