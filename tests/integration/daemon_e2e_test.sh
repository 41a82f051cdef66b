#!/usr/bin/env bash
# End-to-end daemon test on loopback (PROTOCOL §1-§3): wfo-replay feeds wfod, wfo-sub reads its
# publications and snapshots; then a SIGTERM and restart on the same state dir must lose no
# bar and reuse no sequence number. Exit 0 pass, 1 fail, 77 skipped (no wfod built).
#
# usage: daemon_e2e_test.sh WFOD WFO_REPLAY WFO_SUB CSV
set -u

WFOD=${1:-}
REPLAY=${2:?usage: daemon_e2e_test.sh WFOD WFO_REPLAY WFO_SUB CSV}
SUB=${3:?usage: daemon_e2e_test.sh WFOD WFO_REPLAY WFO_SUB CSV}
CSV=${4:?usage: daemon_e2e_test.sh WFOD WFO_REPLAY WFO_SUB CSV}

if [[ -z "$WFOD" || ! -x "$WFOD" ]]; then
  echo "SKIPPED: wfod not built"
  exit 77
fi

SYMBOL=GOOG
STRATEGY=e2e
FIRST_BARS=1000   # bars sent before the restart
MORE_BARS=150     # bars sent after it: enough for at least one more publication (every = 50)

TMP=$(mktemp -d "${TMPDIR:-/tmp}/wfod_e2e.XXXXXX")
DAEMON_PID=""
SUB_PID=""
cleanup() {
  for pid in "$SUB_PID" "$DAEMON_PID"; do
    if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
      kill -KILL "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
    fi
  done
  declare -F release_ports >/dev/null && release_ports
  rm -rf "$TMP"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*"
  for log in "$TMP"/daemon*.log; do
    [[ -f "$log" ]] || continue
    echo "--- last lines of $(basename "$log") ---"
    tail -n 30 "$log"
  done
  exit 1
}

HAVE_JQ=0
# WFOD_E2E_NO_JQ=1 forces the grep checks (to test them where jq is installed).
if [[ -z "${WFOD_E2E_NO_JQ:-}" ]] && command -v jq >/dev/null 2>&1; then HAVE_JQ=1; fi
echo "checks use $([[ $HAVE_JQ == 1 ]] && echo jq || echo grep)"

# Loopback ports nothing listens on, reserved across the tests ctest runs side by side.
# shellcheck source=tests/integration/ports.sh
source "$(dirname "${BASH_SOURCE[0]}")/ports.sh"
FEED_PORT=$(free_port) || fail "no free port"
PUB_PORT=$(free_port) || fail "no free port"
SNAP_PORT=$(free_port) || fail "no free port"
FEED_EP="tcp://127.0.0.1:$FEED_PORT"
PUB_EP="tcp://127.0.0.1:$PUB_PORT"
SNAP_EP="tcp://127.0.0.1:$SNAP_PORT"
echo "feed $FEED_EP, publish $PUB_EP, snapshot $SNAP_EP, state $TMP/state"

mkdir -p "$TMP/state"
CONFIG="$TMP/wfod.toml"
cat >"$CONFIG" <<EOF
[daemon]
state_dir = "$TMP/state"
backend = "cpu"
log_level = "info"

[publish]
endpoint = "$PUB_EP"
snapshot = "$SNAP_EP"
http = ""

[[feed]]
endpoint = "$FEED_EP"
format = "json"

[[symbol]]
name = "$SYMBOL"
bars_per_year = 252

[[strategy]]
name = "$STRATEGY"
symbols = ["$SYMBOL"]
family = "ma_cross"
window = 200
every = 50

[strategy.grid]
fast = "5:20:5"
slow = "30:60:10"
EOF

"$WFOD" --check-config "$CONFIG" >"$TMP/check.log" 2>&1 || {
  cat "$TMP/check.log"
  fail "wfod --check-config rejected the test config"
}

# --- JSON field access: jq where installed, else grep on the compact JSON line. ---
# num FIELD JSON: a top-level numeric field ("seq", "schema").
num() {
  if [[ $HAVE_JQ == 1 ]]; then
    jq -r ".$1 // empty" <<<"$2"
  else
    grep -o "\"$1\": *[0-9]*" <<<"$2" | head -n 1 | grep -o '[0-9]*$'
  fi
}
# health_bars JSON: bars held for $SYMBOL in a health reply.
health_bars() {
  if [[ $HAVE_JQ == 1 ]]; then
    jq -r ".symbols[\"$SYMBOL\"].bars // empty" <<<"$1"
  else
    grep -o "\"$SYMBOL\": *{[^}]*" <<<"$1" | grep -o '"bars": *[0-9]*' | grep -o '[0-9]*$'
  fi
}
health() { "$SUB" --snapshot "$SNAP_EP" --health --timeout-ms 1000 2>/dev/null; }

start_daemon() {  # $1: log name
  "$WFOD" --config "$CONFIG" >"$TMP/$1.log" 2>&1 &
  DAEMON_PID=$!
  for _ in $(seq 1 100); do
    kill -0 "$DAEMON_PID" 2>/dev/null || fail "wfod exited at start"
    if health >/dev/null; then return 0; fi
    sleep 0.2
  done
  fail "wfod did not answer health within 20 s"
}

# Waits until health reports $1 bars for $SYMBOL (the daemon persisted and counted them).
wait_bars() {
  local bars=""
  for _ in $(seq 1 150); do
    bars=$(health_bars "$(health)")
    [[ "$bars" == "$1" ]] && return 0
    sleep 0.2
  done
  fail "health reports ${bars:-no} bars for $SYMBOL, expected $1"
}

# Waits until the publications settle: the snapshot's seq equals the last one received in
# file $1 and stays so for a second.
wait_settled() {
  local prev="" seq last
  for _ in $(seq 1 60); do
    seq=$(num seq "$("$SUB" --snapshot "$SNAP_EP" --get --symbol "$SYMBOL" --strategy "$STRATEGY" \
      --timeout-ms 1000 2>/dev/null)")
    last=$(num seq "$(tail -n 1 "$1")")
    if [[ -n "$seq" && "$seq" == "$last" && "$seq" == "$prev" ]]; then return 0; fi
    prev=$seq
    sleep 0.5
  done
  fail "publications did not settle (snapshot seq ${seq:-none}, last received ${last:-none})"
}

check_publication() {  # $1: one publication payload
  local p=$1 m
  if [[ $HAVE_JQ == 1 ]]; then
    jq -e . >/dev/null <<<"$p" || fail "publication is not JSON: $p"
    jq -e '.schema == 1' >/dev/null <<<"$p" || fail "schema is not 1: $p"
    jq -e ".symbol == \"$SYMBOL\" and .strategy == \"$STRATEGY\"" >/dev/null <<<"$p" ||
      fail "wrong symbol/strategy: $p"
    jq -e '(.seq | type) == "number" and .seq >= 1' >/dev/null <<<"$p" || fail "seq < 1: $p"
    jq -e '.params | has("fast") and has("slow")' >/dev/null <<<"$p" ||
      fail "params lack fast/slow: $p"
    for m in total_return cagr sharpe sortino max_drawdown calmar trades wins win_rate \
      profit_factor exposure long_bars short_bars flat_bars changes; do
      jq -e ".metrics | has(\"$m\")" >/dev/null <<<"$p" || fail "metrics lack $m: $p"
    done
  else
    [[ "$(num schema "$p")" == 1 ]] || fail "schema is not 1: $p"
    grep -q "\"symbol\": *\"$SYMBOL\"" <<<"$p" || fail "wrong symbol: $p"
    grep -q "\"strategy\": *\"$STRATEGY\"" <<<"$p" || fail "wrong strategy: $p"
    [[ "$(num seq "$p")" -ge 1 ]] 2>/dev/null || fail "seq < 1: $p"
    if ! grep -q '"fast":' <<<"$p" || ! grep -q '"slow":' <<<"$p"; then
      fail "params lack fast/slow: $p"
    fi
    for m in total_return cagr sharpe sortino max_drawdown calmar trades wins win_rate \
      profit_factor exposure long_bars short_bars flat_bars changes; do
      grep -q "\"$m\":" <<<"$p" || fail "metrics lack $m: $p"
    done
  fi
}

# ---------------------------------------------------------------- first run
start_daemon daemon1
echo "wfod running (pid $DAEMON_PID)"

"$SUB" --endpoint "$PUB_EP" --topic "params.$SYMBOL.$STRATEGY" --json --timeout-ms 60000 \
  >"$TMP/pubs1.jsonl" 2>"$TMP/sub1.err" &
SUB_PID=$!

# --wait-ms: the daemon's SUB reconnects every 100 ms by default; give it time to join.
# --rate: paced (2 s), so the worker keeps up and publishes several times rather than
# coalescing everything into one optimisation.
"$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format json \
  --count "$FIRST_BARS" --seq-start 1 --rate 500 --wait-ms 1500 || fail "wfo-replay failed"
wait_bars "$FIRST_BARS"
echo "health: $(health)"
wait_settled "$TMP/pubs1.jsonl"
kill "$SUB_PID" 2>/dev/null
wait "$SUB_PID" 2>/dev/null
SUB_PID=""

COUNT=$(wc -l <"$TMP/pubs1.jsonl")
[[ "$COUNT" -ge 1 ]] || fail "no publication arrived"
# health latency_ms: one sample per publication sent, every stage reported.
HEALTH=$(health)
if [[ $HAVE_JQ == 1 ]]; then
  SAMPLES=$(jq -r '.latency_ms.samples // empty' <<<"$HEALTH")
  [[ -n "$SAMPLES" && "$SAMPLES" -ge "$COUNT" ]] ||
    fail "health latency_ms.samples=${SAMPLES:-missing}, expected >= $COUNT publications"
  for stage in ingest handoff job result publish bar_to_send; do
    jq -e ".latency_ms.$stage.p99 >= 0 and .latency_ms.$stage.max >= .latency_ms.$stage.p50" \
      <<<"$HEALTH" >/dev/null || fail "health latency_ms.$stage missing or inconsistent"
  done
fi
FIRST=$(head -n 1 "$TMP/pubs1.jsonl")
LAST=$(tail -n 1 "$TMP/pubs1.jsonl")
check_publication "$FIRST"
check_publication "$LAST"
echo "$COUNT publications, seq $(num seq "$FIRST")..$(num seq "$LAST")"

# Sequence numbers: 1, 2, 3 ... per stream, nothing skipped on a fresh state dir.
EXPECT=1
while IFS= read -r line; do
  [[ "$(num seq "$line")" == "$EXPECT" ]] || fail "publication $EXPECT has seq $(num seq "$line")"
  EXPECT=$((EXPECT + 1))
done <"$TMP/pubs1.jsonl"

SNAP=$("$SUB" --snapshot "$SNAP_EP" --get --symbol "$SYMBOL" --strategy "$STRATEGY") ||
  fail "snapshot get failed: $SNAP"
[[ "$SNAP" == "$LAST" ]] || fail "snapshot get differs from the last publication:
get:  $SNAP
last: $LAST"
echo "snapshot get == last publication (seq $(num seq "$LAST"))"

LIST=$("$SUB" --snapshot "$SNAP_EP" --list) || fail "list failed: $LIST"
grep -q "\"$STRATEGY\"" <<<"$LIST" || fail "list does not name the stream: $LIST"

SEQ_BEFORE=$(num seq "$LAST")

# ---------------------------------------------------------------- restart
kill -TERM "$DAEMON_PID"
for _ in $(seq 1 100); do
  kill -0 "$DAEMON_PID" 2>/dev/null || break
  sleep 0.2
done
kill -0 "$DAEMON_PID" 2>/dev/null && fail "wfod did not exit within 20 s of SIGTERM"
wait "$DAEMON_PID"
RC=$?
DAEMON_PID=""
[[ "$RC" == 0 ]] || fail "wfod exited with $RC after SIGTERM"
echo "wfod stopped cleanly on SIGTERM"

start_daemon daemon2
BARS=$(health_bars "$(health)")
[[ "$BARS" == "$FIRST_BARS" ]] || fail "after restart health reports ${BARS:-no} bars, expected $FIRST_BARS"
echo "after restart: $SYMBOL still has $BARS bars"

# Clone pattern: subscribe, snapshot, then the first update newer than the snapshot.
"$SUB" --endpoint "$PUB_EP" --snapshot "$SNAP_EP" --symbol "$SYMBOL" --strategy "$STRATEGY" \
  --json --count 1 --timeout-ms 60000 >"$TMP/pubs2.jsonl" 2>"$TMP/sub2.err" &
SUB_PID=$!
"$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format json \
  --start "$FIRST_BARS" --count "$MORE_BARS" --seq-start $((FIRST_BARS + 1)) --wait-ms 1500 ||
  fail "wfo-replay (after restart) failed"
wait_bars $((FIRST_BARS + MORE_BARS))
wait "$SUB_PID"
RC=$?
SUB_PID=""
[[ "$RC" == 0 ]] || fail "no publication after the restart (wfo-sub exit $RC: $(cat "$TMP/sub2.err"))"
echo "after restart, snapshot: $(head -n 1 "$TMP/pubs2.jsonl" | cut -c 1-120)"
NEXT=$(tail -n 1 "$TMP/pubs2.jsonl")
check_publication "$NEXT"
SEQ_AFTER=$(num seq "$NEXT")
[[ "$SEQ_AFTER" -gt "$SEQ_BEFORE" ]] ||
  fail "seq after restart ($SEQ_AFTER) is not greater than before it ($SEQ_BEFORE)"
echo "seq after restart $SEQ_AFTER > $SEQ_BEFORE before it"

echo "PASS"
