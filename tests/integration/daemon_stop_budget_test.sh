#!/usr/bin/env bash
# The stop budget (issue 43 item 6; docs/operations.md "Stop budget"): a SIGTERM writes each
# stream's checkpoint, and a checkpoint holds the state a stream cannot recompute (per combo
# its state, two Summaries and its kept chunk starts), not the ring of chunk Summaries, so
# the stop ends within 5 s however many chunks a window spans. Two streams of 6,400 combos at
# W = 1,500 (C = 128: 15 kept chunks): each checkpoint must stay under 600 bytes a combo plus
# 2 MB (bars and indicator rows); before, ~5.2 kB a combo (34 MB each). Then the restart
# resumes both, and a checkpoint of an earlier stream format (version 2, re-sealed) is
# refused with its reason and replayed from the bar log. Exit 0/1/77.
#
# usage: daemon_stop_budget_test.sh WFOD WFO_REPLAY WFO_SUB CSV
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
CSV=${4:?usage: daemon_stop_budget_test.sh WFOD WFO_REPLAY WFO_SUB CSV}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_stop_budget "$WFOD" "$REPLAY" "$SUB"
command -v python3 >/dev/null || {
  echo "SKIPPED: daemon_stop_budget: python3 not installed"
  exit 77
}

SYMBOL=GOOG
BARS=2148
COMBOS=6400
big() {  # $1 name, $2 vol thresholds: 5 x 5 x 4 x 2 x 2 x 8 = 6,400 combos
  cat <<EOF
[[strategy]]
name = "$1"
symbols = ["$SYMBOL"]
family = "ma_cross"
window = 1500
every = 500
cost_bps = 1.0

[strategy.grid]
fast = "5:25:5"
slow = "30:70:10"
ma = ["sma", "ema", "wma", "hma"]
side = ["long_short", "long_only"]
entry = ["state", "cross"]
vol_short = "5"
vol_long = "50"
vol_threshold = "$2"
EOF
}
new_endpoints
mkdir -p "$TMP/state"
write_config "$TMP/s.toml" "$TMP/state" binary "$SYMBOL" "$(big big1 0.5:1.2:0.1)

$(big big2 0.55:1.25:0.1)"
sed -i 's/^log_level = "info"$/log_level = "info"\ncheckpoint_every_s = 0/' "$TMP/s.toml"

start_daemon "$TMP/s.toml" "$SNAP_EP" daemon1
"$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format binary --start 0 \
  --count $BARS --seq-start 1 --rate 5000 --wait-ms 800 --quiet || fail "wfo-replay failed"
wait_bars "$SNAP_EP" "$SYMBOL" $BARS
wait_settled "$SNAP_EP" "$SYMBOL" big1 >/dev/null
wait_settled "$SNAP_EP" "$SYMBOL" big2 >/dev/null

t0=$(date +%s%N)
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID"
rc=$?
stop_ms=$((($(date +%s%N) - t0) / 1000000))
[[ $rc == 0 ]] || fail "wfod exited $rc on SIGTERM"
written=$(grep -o '[0-9]* stream checkpoints written in [0-9.]* s' "$TMP/daemon1.log")
echo "SIGTERM to exit: $stop_ms ms ($written)"
[[ $written == "2 stream checkpoints"* ]] || fail "the stop did not write both checkpoints"
((stop_ms < 5000)) || fail "SIGTERM took $stop_ms ms, the budget is 5,000"
limit=$((COMBOS * 600 + 2000000))
for s in big1 big2; do
  f="$TMP/state/checkpoints/$SYMBOL.$s.ckpt"
  size=$(stat -c %s "$f") || fail "no checkpoint $f"
  echo "$s: checkpoint $size bytes ($((size / COMBOS)) a combo with the bars and rows)"
  ((size <= limit)) || fail "$s's checkpoint is $size bytes, more than $limit: it holds more" \
    "than the state the stream cannot recompute"
done

# The restart resumes both streams from their checkpoints.
start_daemon "$TMP/s.toml" "$SNAP_EP" daemon2
for s in big1 big2; do
  grep -q "stream $SYMBOL.$s: resumed from checkpoint at bar " "$TMP/daemon2.log" ||
    fail "$s did not resume from its checkpoint"
done
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" || fail "wfod exited $? on the second SIGTERM"

# A checkpoint of an earlier stream format (version 2): refused with its reason, replayed.
# The stream blob's version is at byte 44 (the WFCK header is 36 bytes, the magic 8); the
# WFCK CRC32 is re-sealed so the stream's own check is the one that refuses it.
f="$TMP/state/checkpoints/$SYMBOL.big1.ckpt"
python3 - "$f" <<'EOF'
import struct, sys, zlib
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[44:48] = struct.pack("<I", 2)
b[-4:] = struct.pack("<I", zlib.crc32(bytes(b[:-4])) & 0xFFFFFFFF)
open(p, "wb").write(b)
EOF
start_daemon "$TMP/s.toml" "$SNAP_EP" daemon3
grep -q "GOOG.big1.ckpt not used (stream checkpoint: format version 2, this build reads version 4): replaying $BARS bars" \
  "$TMP/daemon3.log" || fail "the version 2 checkpoint was not refused with its reason"
grep -q "stream $SYMBOL.big2: resumed from checkpoint at bar " "$TMP/daemon3.log" ||
  fail "big2 did not resume from its checkpoint"
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" || fail "wfod exited $? on the third SIGTERM"
echo "PASS"
