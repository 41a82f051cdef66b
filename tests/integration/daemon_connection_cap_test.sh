#!/usr/bin/env bash
# Connection caps (docs/operations.md "Descriptors and connection caps"): however many
# connections clients hold, /healthz answers. A daemon with max_http_connections = 8 and
# max_snapshot_connections = 4: 300 idle TCP connections to the HTTP port (each over the cap
# closes the oldest one still sending its request) and /healthz still answers 200 each time;
# 10 idle connections to the snapshot port, and a real client is refused at its handshake
# (counted, logged) while /healthz answers; once they close, the client is served again.
# Then 1,000 idle snapshot connections and 200 HTTP ones at once: /healthz still answers.
# Exit 0 pass, 1 fail, 77 skipped.
#
# usage: daemon_connection_cap_test.sh WFOD WFO_REPLAY WFO_SUB
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_connection_cap "$WFOD" "$REPLAY" "$SUB"
# This shell holds the idle connections: 1,200 descriptors and some.
ulimit -n 4096 2>/dev/null || { echo "SKIPPED: daemon_connection_cap: cannot raise the open files limit to 4096"; exit 77; }

new_endpoints
HTTP_PORT=$(free_port) || fail "no free port"
SNAP_PORT=${SNAP_EP##*:}
mkdir -p "$TMP/state"
write_config "$TMP/wfod.toml" "$TMP/state" json GOOG "$(ma_strategy s GOOG)"
sed -i "s/^http = \"\"/http = \"127.0.0.1:$HTTP_PORT\"/" "$TMP/wfod.toml"
sed -i 's/^log_level = "info"/log_level = "info"\nmax_http_connections = 8\nmax_snapshot_connections = 4/' \
  "$TMP/wfod.toml"
"$WFOD" --check-config "$TMP/wfod.toml" >"$TMP/check.out" 2>&1 || fail "config: $(cat "$TMP/check.out")"
start_daemon "$TMP/wfod.toml" "$SNAP_EP" daemon
grep -q "open files limit" "$TMP/daemon.log" || fail "no line naming the open files limit"

IDLE=()
hold() {  # $1 port, $2 count: idle connections, kept open by this shell
  local fd
  for _ in $(seq 1 "$2"); do
    { exec {fd}<>"/dev/tcp/127.0.0.1/$1"; } 2>/dev/null || fail "connection to port $1 refused"
    IDLE+=("$fd")
  done
}
release() {
  local fd
  for fd in "${IDLE[@]}"; do exec {fd}<&-; done
  IDLE=()
}
healthz_ok() {  # $1 what is going on
  local line
  line=$(http_get "$HTTP_PORT" /healthz | head -n 1 | tr -d '\r')
  [[ "$line" == "HTTP/1.1 200 OK" ]] || fail "/healthz answered '$line' with $1"
}
metric() {  # $1 sample name with labels: its value
  http_get "$HTTP_PORT" /metrics | awk -v k="$1" 'index($0, k " ") == 1 { print substr($0, length(k) + 2) }'
}

# --- HTTP: 300 idle connections, cap 8
hold "$HTTP_PORT" 300
for i in 1 2 3 4 5; do healthz_ok "300 idle HTTP connections (probe $i)"; done
refused=$(metric 'wfod_connections_refused_total{socket="http"}')
open=$(metric 'wfod_connections{socket="http"}')
((refused >= 292)) || fail "wfod_connections_refused_total{socket=\"http\"} = $refused, expected >= 292"
((open <= 8)) || fail "wfod_connections{socket=\"http\"} = $open, above the cap of 8"
grep -q "http: 8 connections open, the cap (max_http_connections) is 8: closed the oldest one" \
  "$TMP/daemon.log" || fail "no log line for the HTTP cap"
release
echo "HTTP: 300 idle connections, /healthz 200 five times, $refused closed at the cap"

# --- snapshot: 10 idle connections, cap 4: a real client is refused, health still answers
hold "$SNAP_PORT" 10
sleep 0.3
if snap "$SNAP_EP" --health >/dev/null; then fail "a snapshot client was served past the cap"; fi
healthz_ok "10 idle snapshot connections"
[[ "$(metric 'wfod_connections{socket="snapshot"}')" -ge 10 ]] ||
  fail "wfod_connections{socket=\"snapshot\"} = $(metric 'wfod_connections{socket="snapshot"}'), expected >= 10"
[[ "$(metric 'wfod_connections_refused_total{socket="snapshot"}')" -ge 1 ]] ||
  fail "no snapshot refusal counted"
grep -q "snapshot: 10 connections open, the cap (max_snapshot_connections) is 4: a new client refused at its handshake" \
  "$TMP/daemon.log" || fail "no log line for the snapshot cap"
release
served=""
for _ in $(seq 1 20); do
  if snap "$SNAP_EP" --health >"$TMP/health.json"; then served=1; break; fi
  sleep 0.2
done
[[ -n "$served" ]] || fail "the snapshot socket did not serve again once the idle connections closed"
jq -e '.connections.snapshot.max == 4 and .connections.snapshot.refused >= 1 and
       .connections.http.max == 8 and .connections.http.refused >= 292' "$TMP/health.json" >/dev/null ||
  fail "health connections: $(jq -c .connections "$TMP/health.json")"
echo "snapshot: past the cap a client is refused at its handshake, /healthz 200; served again after"

# --- 1,000 idle snapshot connections and 200 HTTP ones at once
hold "$SNAP_PORT" 1000
hold "$HTTP_PORT" 200
for i in 1 2 3; do healthz_ok "1,000 snapshot and 200 HTTP idle connections (probe $i)"; done
release
kill -0 "$DAEMON_PID" 2>/dev/null || fail "wfod died"
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" || fail "wfod exited $? on SIGTERM"
echo "1,000 snapshot + 200 HTTP idle connections: /healthz 200"
echo "PASS"
