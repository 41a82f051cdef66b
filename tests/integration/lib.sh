# Shared shell helpers of the daemon integration tests (sourced, not run): temp dir and
# cleanup of started processes, free loopback ports (ports.sh), a wfod config writer, daemon start,
# health/snapshot queries and waits. Needs jq; callers skip (exit 77) without it.
# shellcheck shell=bash

# skip_unless_exec NAME PATH...: exit 77 with a message unless every PATH is executable.
skip_unless_exec() {
  local name=$1
  shift
  local p
  for p in "$@"; do
    if [[ -z "$p" || "$p" == none || ! -x "$p" ]]; then
      echo "SKIPPED: $name: ${p:-a target} not built"
      exit 77
    fi
  done
  if ! command -v jq >/dev/null 2>&1; then
    echo "SKIPPED: $name: jq not installed"
    exit 77
  fi
}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/wfod_it.XXXXXX")
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then
      kill -KILL "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
    fi
  done
  release_ports
  [[ -n "${KEEP_TMP:-}" ]] || rm -rf "$TMP"
}
# KEEP_TMP=1 keeps the temp dir (configs, logs, captures) for a look after a failure.
trap cleanup EXIT

fail() {
  echo "FAIL: $*"
  local log
  for log in "$TMP"/*.log; do
    [[ -f "$log" ]] || continue
    echo "--- last lines of $(basename "$log") ---"
    tail -n 30 "$log"
  done
  exit 1
}

# Loopback ports reserved across the test processes ctest runs side by side (free_port).
# shellcheck source=tests/integration/ports.sh
source "$(dirname "${BASH_SOURCE[0]}")/ports.sh"

# new_endpoints: sets FEED_EP, PUB_EP, SNAP_EP to fresh loopback endpoints.
new_endpoints() {
  local f p s
  f=$(free_port) || fail "no free port"
  p=$(free_port) || fail "no free port"
  s=$(free_port) || fail "no free port"
  FEED_EP="tcp://127.0.0.1:$f"
  PUB_EP="tcp://127.0.0.1:$p"
  SNAP_EP="tcp://127.0.0.1:$s"
}

# write_config FILE STATE_DIR FORMAT SYMBOL STRATEGY_TABLES: a one-symbol config on the
# current endpoints; STRATEGY_TABLES is TOML text appended verbatim ([[strategy]] tables).
write_config() {
  cat >"$1" <<EOF
[daemon]
state_dir = "$2"
backend = "cpu"
threads = 1
log_level = "info"

[publish]
endpoint = "$PUB_EP"
snapshot = "$SNAP_EP"
http = ""

[[feed]]
endpoint = "$FEED_EP"
format = "$3"

[[symbol]]
name = "$4"
bars_per_year = 252

$5
EOF
}

# ma_strategy NAME SYMBOL: a small ma_cross grid, window 200, every 50, cost 1 bp.
ma_strategy() {
  cat <<EOF
[[strategy]]
name = "$1"
symbols = ["$2"]
family = "ma_cross"
window = 200
every = 50
cost_bps = 1.0

[strategy.grid]
fast = "5:20:5"
slow = "30:60:10"
EOF
}

# idle_strategy NAME SYMBOL: a strategy that never runs within a test (window 100,000): for
# tests of everything but optimisation, since a config with no [[strategy]] is refused.
idle_strategy() { ma_strategy "$1" "$2" | sed "s/^window = 200/window = 100000/"; }

# snap EP ARGS...: one snapshot request, its reply on stdout.
snap() {
  local ep=$1
  shift
  "$SUB" --snapshot "$ep" "$@" --timeout-ms 1000 2>/dev/null
}

# start_daemon CONFIG SNAP_EP LOG: starts wfod, waits for a health reply; sets DAEMON_PID.
start_daemon() {
  "$WFOD" --config "$1" >"$TMP/$3.log" 2>&1 &
  DAEMON_PID=$!
  PIDS+=("$DAEMON_PID")
  for _ in $(seq 1 100); do
    kill -0 "$DAEMON_PID" 2>/dev/null || fail "wfod exited at start ($3)"
    if snap "$2" --health >/dev/null; then return 0; fi
    sleep 0.2
  done
  fail "wfod did not answer health within 20 s ($3)"
}

# http_get PORT PATH: the whole response (head and body) to GET PATH on the loopback port;
# status 1 when nothing listens there.
http_get() {
  local fd
  { exec {fd}<>"/dev/tcp/127.0.0.1/$1"; } 2>/dev/null || return 1
  printf 'GET %s HTTP/1.0\r\n\r\n' "$2" >&"$fd"
  timeout 5 cat <&"$fd"
  exec {fd}<&-
}

# health_field SNAP_EP JQ_EXPR: a value of the health reply.
health_field() { jq -r "$2 // empty" <<<"$(snap "$1" --health)"; }

# wait_bars SNAP_EP SYMBOL N: until health reports N bars for SYMBOL.
wait_bars() {
  local bars=""
  for _ in $(seq 1 150); do
    bars=$(health_field "$1" ".symbols[\"$2\"].bars")
    [[ "$bars" == "$3" ]] && return 0
    sleep 0.2
  done
  fail "health reports ${bars:-no} bars for $2, expected $3"
}

# wait_settled SNAP_EP SYMBOL STRATEGY: until the stream's snapshot seq stays the same for
# 1.5 s (the worker finished the last optimisation); prints the final get payload.
wait_settled() {
  local prev="" seq got
  for _ in $(seq 1 80); do
    got=$(snap "$1" --get --symbol "$2" --strategy "$3")
    seq=$(jq -r '.seq // empty' <<<"$got" 2>/dev/null)
    if [[ -n "$seq" && "$seq" == "$prev" ]]; then
      echo "$got"
      return 0
    fi
    prev=$seq
    sleep 1.5
  done
  fail "stream $2.$3 did not settle (seq ${seq:-none})"
}

# csv_row_of_ts CSV TS_NS: the 0-based data row of the bar whose date is TS_NS (daily bars,
# timestamps at midnight UTC).
csv_row_of_ts() {
  local day line
  day=$(jq -rn "($2 / 1000000000 | floor | todate)[0:10]")
  line=$(grep -n "^$day," "$1" | head -n 1 | cut -d: -f1)
  [[ -n "$line" ]] || return 1
  echo $((line - 2))
}

# Two JSON documents equal per SPEC §9: the same keys, strings, booleans, integers and
# array lengths; floats within 1e-9 relative (or 1e-12 absolute). Publications of one
# window computed through different histories of a stream (restart, reload) sum their
# returns in another order, so their last digits may differ. Usage: json_equal_9 A B.
json_equal_9() {
  jq -n --argjson a "$1" --argjson b "$2" '
    def close($x; $y):
      if ($x|type) == "number" and ($y|type) == "number" then
        (($x - $y) | fabs) <= ([1e-12, 1e-9 * ([($x|fabs), ($y|fabs)] | max)] | max)
      elif ($x|type) == "object" and ($y|type) == "object" then
        ($x|keys) == ($y|keys) and all($x|keys[]; . as $k | close($x[$k]; $y[$k]))
      elif ($x|type) == "array" and ($y|type) == "array" then
        ($x|length) == ($y|length) and all(range($x|length); . as $i | close($x[$i]; $y[$i]))
      else $x == $y end;
    close($a; $b)' | grep -qx true
}
