#!/usr/bin/env bash
# Start-up failures are clear errors with documented exit codes, never a crash:
# - a state_dir that cannot be created (under /proc, through a regular file): exit 2, the
#   message names the key and why (the config check refuses it before any mkdir);
# - a publish, snapshot or http endpoint another process holds: exit 1, the message names
#   the socket and its endpoint ("cannot bind [publish] endpoint tcp://…: Address already
#   in use").
# Exit 0/1/77.
#
# usage: daemon_start_errors_test.sh WFOD WFO_REPLAY WFO_SUB SEND_FRAMES
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
SEND=${4:-}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_start_errors "$WFOD" "$SUB" "$SEND"
: "$REPLAY"  # not needed here; the argument list is the other tests'

SYMBOL=GOOG

# expect_start_failure NAME CODE PATTERN: wfod --config $TMP/NAME.toml must exit CODE within
# 20 s and its log must hold PATTERN (fixed string).
expect_start_failure() {
  timeout 20 "$WFOD" --config "$TMP/$1.toml" >"$TMP/$1.log" 2>&1
  local rc=$?
  [[ "$rc" == "$2" ]] || fail "$1: exit $rc, expected $2"
  grep -qF -- "$3" "$TMP/$1.log" || fail "$1: the log does not say: $3"
  echo "$1: exit $rc: $(grep -F -- "$3" "$TMP/$1.log" | head -n 1 | cut -d' ' -f3-)"
}

# 1. state_dir under /proc: mkdir of a child gives ENOENT while its parent exists (this
#    recursed until the stack overflowed, exit 139). The config check now refuses it before
#    any mkdir (the iterative make_dirs itself is unit-tested on /proc: MakeDirs).
new_endpoints
write_config "$TMP/proc.toml" /proc/wfod-test/state json "$SYMBOL" "$(idle_strategy s "$SYMBOL")"
expect_start_failure proc 2 "/proc is on the proc pseudo file system"
grep -qF "key 'daemon.state_dir': \"/proc/wfod-test/state\"" "$TMP/proc.log" ||
  fail "proc: state_dir not named"

# 2. state_dir through a regular file.
touch "$TMP/plain-file"
write_config "$TMP/file.toml" "$TMP/plain-file/state" json "$SYMBOL" "$(idle_strategy s "$SYMBOL")"
expect_start_failure file 2 "$TMP/plain-file exists and is not a directory"

# 3-5. An endpoint held by another process: a PUB of wfod_send_frames, bound for 15 s.
hold() {
  "$SEND" "$1" 15000 x >/dev/null 2>&1 &
  PIDS+=("$!")
  HOLDER=$!
  sleep 0.5
}
release() {
  kill -KILL "$HOLDER" 2>/dev/null
  wait "$HOLDER" 2>/dev/null
}
mkdir -p "$TMP/state"

new_endpoints
hold "$PUB_EP"
write_config "$TMP/publish.toml" "$TMP/state" json "$SYMBOL" "$(idle_strategy s "$SYMBOL")"
expect_start_failure publish 1 "cannot bind [publish] endpoint $PUB_EP: Address already in use"
release

new_endpoints
hold "$SNAP_EP"
write_config "$TMP/snapshot.toml" "$TMP/state" json "$SYMBOL" "$(idle_strategy s "$SYMBOL")"
expect_start_failure snapshot 1 "cannot bind [snapshot] endpoint $SNAP_EP: Address already in use"
release

new_endpoints
HTTP_PORT=$(free_port) || fail "no free port"
hold "tcp://127.0.0.1:$HTTP_PORT"
write_config "$TMP/http.toml" "$TMP/state" json "$SYMBOL" "$(idle_strategy s "$SYMBOL")"
sed -i "s/^http = \"\"/http = \"127.0.0.1:$HTTP_PORT\"/" "$TMP/http.toml"
expect_start_failure http 1 "cannot bind [http] endpoint 127.0.0.1:$HTTP_PORT: Address already in use"
release

# 6. A feed endpoint ZeroMQ cannot connect to.
new_endpoints
write_config "$TMP/feed.toml" "$TMP/state" json "$SYMBOL" "$(idle_strategy s "$SYMBOL")"
sed -i "s|^endpoint = \"$FEED_EP\"|endpoint = \"tcp://127.0.0.1:notaport\"|" "$TMP/feed.toml"
# The config check refuses it before any socket exists (a config error: exit 2, at its key).
expect_start_failure feed 2 "key 'feed[0].endpoint': \"tcp://127.0.0.1:notaport\": port 'notaport' is not 1..65535"

# The same daemon starts once nothing holds its ports.
new_endpoints
write_config "$TMP/ok.toml" "$TMP/state" json "$SYMBOL" "$(idle_strategy s "$SYMBOL")"
start_daemon "$TMP/ok.toml" "$SNAP_EP" ok
echo "PASS"
