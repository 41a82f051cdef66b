#!/usr/bin/env bash
# wfo-sub's clone mode follows exactly one stream (PROTOCOL §2: symbols may contain '.', so a
# topic can be a prefix of another stream's). Streams BRK.B/x (params.BRK.B.x) and BRK/B
# (params.BRK.B, a prefix of it) both publish; clone clients of each, and of a stream that
# does not exist, must print only their own stream's updates. Exit 0 pass, 1 fail, 77 skipped.
#
# usage: daemon_sub_clone_test.sh WFOD WFO_REPLAY WFO_SUB CSV
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
CSV=${4:?usage: daemon_sub_clone_test.sh WFOD WFO_REPLAY WFO_SUB CSV}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_sub_clone "$WFOD" "$REPLAY" "$SUB"

new_endpoints
mkdir -p "$TMP/state"
# window 200, warmup 180, every 50: 450 bars make two publications per stream (381, 431).
write_config "$TMP/wfod.toml" "$TMP/state" json BRK "[[symbol]]
name = \"BRK.B\"
bars_per_year = 252

$(ma_strategy B BRK)

$(ma_strategy x BRK.B)"
"$WFOD" --check-config "$TMP/wfod.toml" >"$TMP/check.out" 2>&1 || fail "config: $(cat "$TMP/check.out")"
start_daemon "$TMP/wfod.toml" "$SNAP_EP" daemon

"$SUB" --endpoint "$PUB_EP" --snapshot "$SNAP_EP" --symbol BRK --strategy x --topic params. \
  --timeout-ms 2000 >/dev/null 2>"$TMP/usage.err"
[[ $? == 2 ]] || fail "--topic with --snapshot is not a usage error"

declare -A PID
clone() {  # $1 name, $2 symbol, $3 strategy, then wfo-sub options; sets PID[name]
  local name=$1 sym=$2 strat=$3
  shift 3
  "$SUB" --endpoint "$PUB_EP" --snapshot "$SNAP_EP" --symbol "$sym" --strategy "$strat" "$@" \
    >"$TMP/$name.out" 2>"$TMP/$name.err" &
  PIDS+=($!)
  PID[$name]=$!
}
clone brk BRK B --count 2 --timeout-ms 60000
clone brkb BRK.B x --count 2 --timeout-ms 60000
clone btc BTC/USD x --timeout-ms 60000
sleep 1  # subscribed and snapshotted before the first publication

# Two runs per stream whatever the machine's load: a run due while one is in flight is
# coalesced with it (one publication), so the bars go in two parts, each waited for: 400 bars
# (the run at 381, published before the rest arrive), then 50 (the run at 431).
replay() {  # $1 symbol, $2 strategy
  "$REPLAY" --csv "$CSV" --symbol "$1" --endpoint "$FEED_EP" --format json --count 400 \
    --rate 2000 --wait-ms 1000 --quiet || fail "wfo-replay $1 failed"
  wait_bars "$SNAP_EP" "$1" 400
  wait_settled "$SNAP_EP" "$1" "$2" >/dev/null || exit 1
  "$REPLAY" --csv "$CSV" --symbol "$1" --endpoint "$FEED_EP" --format json --start 400 \
    --count 50 --seq-start 401 --rate 2000 --wait-ms 1000 --quiet ||
    fail "wfo-replay $1 (the last 50 bars) failed"
  wait_bars "$SNAP_EP" "$1" 450
}
# params.BRK.B.x first: a client of params.BRK.B that matched prefixes would print it first.
replay BRK.B x
replay BRK B
for name in brk brkb; do
  wait "${PID[$name]}" || fail "wfo-sub ($name) exited $?: $(cat "$TMP/$name.err")"
done
wait_settled "$SNAP_EP" BRK B >/dev/null || exit 1
kill "${PID[btc]}" 2>/dev/null
wait "${PID[btc]}" 2>/dev/null

# Each client: its snapshot line, then its own stream's updates and nothing else.
check() {  # $1 name, $2 topic, $3 expected update lines
  local out="$TMP/$1.out" n
  head -n 1 "$out" | grep -qx "snapshot $2: \"no publication yet\"" ||
    fail "$1: unexpected snapshot line: $(head -n 1 "$out")"
  n=$(tail -n +2 "$out" | grep -c .)
  [[ "$n" == "$3" ]] || fail "$1: $n update lines, expected $3:
$(cat "$out")"
  if tail -n +2 "$out" | grep -v "^$2 seq=" | grep -q .; then
    fail "$1 printed another stream's update:
$(cat "$out")"
  fi
}
check brk params.BRK.B 2
check brkb params.BRK.B.x 2
grep -qx 'snapshot params.BTC/USD.x: "unknown stream BTC/USD.x"' "$TMP/btc.out" ||
  fail "btc: unexpected snapshot line: $(head -n 1 "$TMP/btc.out")"
[[ "$(grep -c . "$TMP/btc.out")" == 1 ]] || fail "BTC/USD.x client printed updates:
$(cat "$TMP/btc.out")"
echo "clone clients of params.BRK.B, params.BRK.B.x and params.BTC/USD.x saw only their own stream"
echo "PASS"
