#!/usr/bin/env bash
# wfo-replay -> wfo-sub on loopback, no daemon: every bar arrives in order with its seq, in
# both feed formats; usage errors exit 2 and a silent endpoint times out with exit 3.
# usage: replay_sub_test.sh WFO_REPLAY WFO_SUB CSV
set -u
REPLAY=${1:?usage: replay_sub_test.sh WFO_REPLAY WFO_SUB CSV}
SUB=${2:?usage: replay_sub_test.sh WFO_REPLAY WFO_SUB CSV}
CSV=${3:?usage: replay_sub_test.sh WFO_REPLAY WFO_SUB CSV}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/wfo_replay_sub.XXXXXX")
SUB_PID=""
cleanup() {
  if [[ -n "$SUB_PID" ]] && kill -0 "$SUB_PID" 2>/dev/null; then
    kill -KILL "$SUB_PID" 2>/dev/null
    wait "$SUB_PID" 2>/dev/null
  fi
  declare -F release_ports >/dev/null && release_ports
  rm -rf "$TMP"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}

# Loopback ports nothing listens on, reserved across the tests ctest runs side by side.
# shellcheck source=tests/integration/ports.sh
source "$(dirname "${BASH_SOURCE[0]}")/ports.sh"

N=25
for format in json binary; do
  PORT=$(free_port) || fail "no free port"
  EP="tcp://127.0.0.1:$PORT"
  "$SUB" --endpoint "$EP" --topic bars.GOOG --count "$N" --timeout-ms 10000 >"$TMP/$format.txt" \
    2>"$TMP/$format.err" &
  SUB_PID=$!
  "$REPLAY" --csv "$CSV" --symbol GOOG --endpoint "$EP" --format "$format" --start 10 \
    --count "$N" --seq-start 7 --rate 500 --wait-ms 500 || fail "$format: wfo-replay failed"
  wait "$SUB_PID"
  RC=$?
  SUB_PID=""
  [[ "$RC" == 0 ]] || fail "$format: wfo-sub exit $RC: $(cat "$TMP/$format.err")"
  [[ "$(wc -l <"$TMP/$format.txt")" == "$N" ]] || fail "$format: expected $N lines"
  # Row 10 of the file is the 11th bar, published with seq 7.
  [[ "$(head -n 1 "$TMP/$format.txt")" == "bars.GOOG seq=7 ts=2004-09-02T00:00:00Z "* ]] ||
    fail "$format: first line: $(head -n 1 "$TMP/$format.txt")"
  EXPECT=7
  while IFS= read -r line; do
    [[ "$line" == "bars.GOOG seq=$EXPECT "* ]] || fail "$format: expected seq $EXPECT: $line"
    EXPECT=$((EXPECT + 1))
  done <"$TMP/$format.txt"
  echo "$format: $N bars, seq 7..$((EXPECT - 1)), in order"
done

"$REPLAY" --csv "$CSV" --symbol GOOG >/dev/null 2>&1
[[ $? == 2 ]] || fail "wfo-replay without --endpoint should exit 2"
"$SUB" --snapshot "tcp://127.0.0.1:$(free_port)" --get >/dev/null 2>&1
[[ $? == 2 ]] || fail "wfo-sub --get without --symbol should exit 2"
"$SUB" --endpoint "tcp://127.0.0.1:$(free_port)" --timeout-ms 200 >/dev/null 2>&1
[[ $? == 3 ]] || fail "wfo-sub on a silent endpoint should exit 3"
"$SUB" --snapshot "tcp://127.0.0.1:$(free_port)" --health --timeout-ms 200 >/dev/null 2>&1
[[ $? == 3 ]] || fail "wfo-sub --health with no daemon should exit 3"
echo "PASS"
