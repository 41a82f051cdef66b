#!/usr/bin/env bash
# A rules strategy (SPEC §5a) with stops (§5b) on the daemon (issue 45 item 4): [daemon]
# backend = "cpu" (the daemon asks the backend seam; cpu and cpu_ref run rules streams and
# follow their positions, and --check-config accepts both). A live
# wfod is fed GOOG daily bars; check_signals.py checks every publication's position and every
# per-bar signal against `wfo positions --config --strategy --backend cpu_ref` of the
# published combo, bar by bar (its params published by name, then the stops). Then a
# restart: the restored combo is followed and stays exact. Then SIGHUP reloads: a rule with
# a syntax error is refused (the error located FILE:LINE:COL, strategy, key, column; the
# old configuration keeps running and publishing), a re-indented rule leaves the stream
# alone (same fingerprint), an edited rule restarts it (its fingerprint changed).
# Exit 0 pass, 1 fail, 77 skipped.
#
# usage: daemon_rules_test.sh WFOD WFO_REPLAY WFO_SUB WFO CSV
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
WFO=${4:-}
CSV=${5:?usage: daemon_rules_test.sh WFOD WFO_REPLAY WFO_SUB WFO CSV}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_rules "$WFOD" "$REPLAY" "$SUB" "$WFO"
command -v python3 >/dev/null || { echo "SKIPPED: daemon_rules: python3 not installed"; exit 77; }
CHECK="$(dirname "${BASH_SOURCE[0]}")/check_signals.py"
[[ -r "$CSV" ]] || { echo "SKIPPED: daemon_rules: $CSV not found"; exit 77; }

BARS=500  # fed before the restart
MORE=60   # and after it
new_endpoints
mkdir -p "$TMP/state"
CONFIG="$TMP/wfod.toml"
# config BACKEND LONG_ENTRY: the daemon's config (the rule's entry written as given).
config() {
  cat <<EOF
[daemon]
state_dir = "$TMP/state"
backend = "$1"
threads = 1

[publish]
endpoint = "$PUB_EP"
snapshot = "$SNAP_EP"
http = ""

[[feed]]
endpoint = "$FEED_EP"
format = "json"

[[symbol]]
name = "GOOG"
bars_per_year = 252

[[strategy]]
name = "pullback"
symbols = ["GOOG"]
family = "rules"
window = 120
every = 10
cost_bps = 1.0
fill = "next_open"
top = 3

[strategy.rules]
params = ["fast", "slow", "busy"]
valid = "\$fast < \$slow"
indicators = { f = "ema(\$fast)", s = "sma(\$slow)", r = "rsi(14)" }
long_entry = $2
long_exit = "crosses_below(f, s)"
short_entry = "crosses_below(f, s) and r > 45"
short_exit = "f > s"

[strategy.grid]
fast = [5, 10]
slow = [20, 40]
busy = [0, 8000000]
stop_loss = [0, 0.03]
take_profit = [0, 0.08]
EOF
}
# shellcheck disable=SC2016 # $busy is the rule's parameter, not the shell's
ENTRY='"f > s and r < 60 and volume > $busy"'
config cpu_ref "$ENTRY" >"$CONFIG"
"$WFOD" --check-config "$CONFIG" >"$TMP/check_ref.out" 2>&1 ||
  fail "--check-config with backend cpu_ref: $(cat "$TMP/check_ref.out")"
config cpu "$ENTRY" >"$CONFIG"
"$WFOD" --check-config "$CONFIG" >"$TMP/check.out" 2>&1 || fail "config: $(cat "$TMP/check.out")"

subscribe_all() {
  "$SUB" --endpoint "$PUB_EP" --topic params.,signal. --json --timeout-ms 60000 >"$TMP/$1.jsonl" \
    2>"$TMP/$1.err" &
  SUB_PID=$!
  PIDS+=("$SUB_PID")
  sleep 0.5
}
# feed NAME START COUNT: bars [START, START + COUNT), then waits for the last bar's signal.
feed() {
  local name=$1 start=$2 count=$3 lt n=0
  "$REPLAY" --csv "$CSV" --symbol GOOG --endpoint "$FEED_EP" --format json --start "$start" \
    --count "$count" --rate 800 --wait-ms 800 --quiet || fail "wfo-replay failed"
  wait_bars "$SNAP_EP" GOOG $((start + count))
  lt=$(health_field "$SNAP_EP" '.symbols["GOOG"].last_ts')
  for _ in $(seq 1 150); do
    n=$(grep -c "{\"schema\":1,\"symbol\":\"GOOG\",\"strategy\":\"pullback\",\"ts\":$lt," \
      "$TMP/$name.jsonl")
    [[ "$n" -ge 1 ]] && break
    sleep 0.2
  done
  [[ "$n" -ge 1 ]] || fail "$name: no signal of the last bar ($lt)"
  kill "$SUB_PID" 2>/dev/null
  wait "$SUB_PID" 2>/dev/null
}
check() {
  head -n $(($2 + 1)) "$CSV" >"$TMP/GOOG.csv"
  # shellcheck disable=SC2086 # FROM is optional: absent, no argument
  python3 "$CHECK" "$TMP/$1.jsonl" "$TMP/GOOG.csv" "$2" GOOG pullback "$WFO" "$CONFIG" ${3:-} ||
    fail "$1: GOOG.pullback"
}

start_daemon "$CONFIG" "$SNAP_EP" daemon
subscribe_all run1
feed run1 0 "$BARS"
check run1 "$BARS"
# Params by name in the rule's order, then the three stops (PROTOCOL §2, spec-notes item 69).
keys=$(grep -m1 '"window"' "$TMP/run1.jsonl" | jq -c '.params | keys_unsorted')
[[ "$keys" == '["fast","slow","busy","stop_loss","take_profit","trailing_stop"]' ]] ||
  fail "publication params $keys"
grep -q "backend cpu" "$TMP/daemon.log" || fail "the daemon does not run on cpu"

# A restart: the stream follows its restored combo from the first bar fed after it.
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null
start_daemon "$CONFIG" "$SNAP_EP" daemon2
grep -q "signals follow combo" "$TMP/daemon2.log" || fail "the restart follows no restored combo"
snap "$SNAP_EP" --get --symbol GOOG --strategy pullback >"$TMP/restored.jsonl"
subscribe_all run2
feed run2 "$BARS" "$MORE"
cat "$TMP/restored.jsonl" "$TMP/run2.jsonl" >"$TMP/after.jsonl"
check after $((BARS + MORE)) "$BARS"

# reload EXPECT: SIGHUP, then wait for the log line EXPECT (a grep pattern) to appear once more.
reload() {
  local before
  before=$(grep -c "$1" "$TMP/daemon2.log")
  kill -HUP "$DAEMON_PID"
  for _ in $(seq 1 50); do
    [[ $(grep -c "$1" "$TMP/daemon2.log") -gt "$before" ]] && return 0
    sleep 0.2
  done
  fail "SIGHUP: no new '$1' in the log"
}
GOOD="$TMP/good.toml"
cp "$CONFIG" "$GOOD"
# A bad rule: refused, located, the running stream kept (it publishes the next run).
# shellcheck disable=SC2016
config cpu '"f > s and r < 60 and (volume > $busy"' >"$CONFIG"
reload "reload failed"
msg=$(health_field "$SNAP_EP" .last_reload.message)
[[ "$msg" == *"wfod.toml:33:"*": strategy \"pullback\": rules.long_entry:"*": expected ')'"* ]] ||
  fail "the refused reload's message: $msg"
seq_before=$(snap "$SNAP_EP" --get --symbol GOOG --strategy pullback | jq .seq)
subscribe_all run3
feed run3 $((BARS + MORE)) 20
seq_after=$(snap "$SNAP_EP" --get --symbol GOOG --strategy pullback | jq .seq)
[[ "$seq_after" -gt "$seq_before" ]] || fail "the old configuration stopped publishing ($seq_before -> $seq_after)"
# Re-indented, the same rule: its fingerprint is the same, the stream is left alone.
sed 's/^long_entry = "f > s and r < 60/long_entry   =   "f >  s  and r < 60/' "$GOOD" >"$CONFIG"
grep -q '^long_entry   =   "f >  s  and' "$CONFIG" || fail "the re-indented config"
reload "reload done"
grep -q "SIGHUP: stream GOOG.pullback" "$TMP/daemon2.log" && fail "a re-indented rule restarted the stream"
# An edited rule: another fingerprint, the stream starts over.
# shellcheck disable=SC2016
config cpu '"f > s and r < 55 and volume > $busy"' >"$CONFIG"
reload "SIGHUP: stream GOOG.pullback changed"
echo "PASS"
