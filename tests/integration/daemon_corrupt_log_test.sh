#!/usr/bin/env bash
# A bar log corrupted while the daemon was down (PROTOCOL §3-4 on_corrupt_log; docs/operations.md
# "Torn or corrupt logs"): 3,000 bars persisted and published, one byte flipped in the middle
# of the log. refuse (the default): exit 3 naming the file, the byte offset and the record,
# nothing published, the file untouched; a flipped header byte likewise. quarantine: the
# daemon runs on the first 1,500 bars with health degraded (quarantined_bars, /healthz 503,
# wfod_quarantined_bars) and publishes nothing whose window ends before the last published
# one until new bars pass it. Then a restart on the repaired log with stale_after_s set:
# degraded by staleness only. Exit 0 pass, 1 fail, 77 skipped.
#
# usage: daemon_corrupt_log_test.sh WFOD WFO_REPLAY WFO_SUB
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_corrupt_log "$WFOD" "$REPLAY" "$SUB"

SYMBOL=SYN
STRATEGY=trend
DAY=86400
T0=1262304000  # 2010-01-01, one bar a day: 3,000 bars end in 2018, long stale
# bars.csv: rows 0..2999 (the history); more.csv: rows 3000..3119 (after the corruption).
make_csv() {  # $1 file, $2 first row, $3 rows
  jq -rn --argjson from "$2" --argjson n "$3" --argjson t0 "$T0" --argjson day "$DAY" '
    "timestamp,open,high,low,close,volume",
    (range($from; $from + $n) as $i
     | (100 + 20 * ($i / 37 | sin) + $i / 50) as $c
     | (100 + 20 * (($i - 1) / 37 | sin) + ($i - 1) / 50) as $o
     | [($t0 + $i * $day | todate), $o, ([$o, $c] | max) + 1, ([$o, $c] | min) - 1, $c, 1000]
     | map(tostring) | join(","))' >"$1"
}
make_csv "$TMP/bars.csv" 0 3000
make_csv "$TMP/more.csv" 3000 120

new_endpoints
HTTP_PORT=$(free_port) || fail "no free port"
STATE="$TMP/state"
LOG_FILE="$STATE/bars/$SYMBOL.wfb"
TABLES=$(ma_strategy "$STRATEGY" "$SYMBOL")
config() {  # $1 file, $2 extra [daemon] lines, $3 extra [[symbol]] lines
  write_config "$1" "$STATE" json "$SYMBOL" "$TABLES"
  sed -i -e "s|^http = \"\"|http = \"127.0.0.1:$HTTP_PORT\"|" \
    -e "s|^log_level = \"info\"|log_level = \"info\"\n$2|" \
    -e "s|^bars_per_year = 252|bars_per_year = 252\n$3|" "$1"
}
http_get() {  # $1 path: the status line and body
  exec 3<>"/dev/tcp/127.0.0.1/$HTTP_PORT" || fail "http port $HTTP_PORT not up"
  printf 'GET %s HTTP/1.0\r\n\r\n' "$1" >&3
  timeout 5 cat <&3
  exec 3<&-
}
stop_daemon() {
  kill -TERM "$DAEMON_PID"
  wait "$DAEMON_PID" || fail "wfod exited $? on SIGTERM"
}
flip_byte() {  # $1 file, $2 offset: xor 0x40
  local v
  v=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
  printf '%b' "\\x$(printf %02x $((v ^ 0x40)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
get() { snap "$SNAP_EP" --get --symbol "$SYMBOL" --strategy "$STRATEGY"; }

# --- 3,000 bars from a backfill, published, stopped cleanly.
config "$TMP/first.toml" "" "backfill = \"$TMP/bars.csv\""
"$WFOD" --check-config "$TMP/first.toml" >"$TMP/check.out" 2>&1 || fail "config: $(cat "$TMP/check.out")"
start_daemon "$TMP/first.toml" "$SNAP_EP" first
FIRST=$(wait_settled "$SNAP_EP" "$SYMBOL" "$STRATEGY") || exit 1
SEQ1=$(jq -r .seq <<<"$FIRST")
LAST1=$(jq -r .window.last_ts <<<"$FIRST")
H=$(snap "$SNAP_EP" --health)
[[ "$(jq -r .status <<<"$H")" == ok ]] || fail "health not ok before the corruption: $H"
jq -e ".symbols.$SYMBOL | .bars == 3000 and .quarantined_bars == 0 and .last_bar_age_s > 1e8" \
  <<<"$H" >/dev/null || fail "symbol health before the corruption: $H"
stop_daemon
[[ "$(stat -c %s "$LOG_FILE")" == $((32 + 3000 * 64)) ]] || fail "log is not 3,000 records"
echo "3,000 bars persisted, seq $SEQ1 published with window.last_ts $LAST1"

# --- a byte flipped in record 1500 (byte 96032 + 17): refused, exit 3, nothing touched.
flip_byte "$LOG_FILE" $((32 + 1500 * 64 + 17))
cp "$LOG_FILE" "$TMP/flipped.wfb"
config "$TMP/run.toml" "" ""
timeout 30 "$WFOD" --config "$TMP/run.toml" >"$TMP/refuse.log" 2>&1
RC=$?
[[ "$RC" == 3 ]] || fail "corrupt log: wfod exited $RC, expected 3"
grep -q "bar log $LOG_FILE is corrupt (not a torn tail): record 1500 at byte 96032: CRC mismatch" \
  "$TMP/refuse.log" || fail "the refusal does not name file, record and offset: $(cat "$TMP/refuse.log")"
cmp -s "$LOG_FILE" "$TMP/flipped.wfb" || fail "the refused log was modified"
ls "$STATE/bars/"*.quarantine.* >/dev/null 2>&1 && fail "the refused log was quarantined"
grep -q "publishing on\|published topic" "$TMP/refuse.log" && fail "a refused start published"
echo "middle flip refused: exit 3, $(grep -o 'record 1500 at byte 96032' "$TMP/refuse.log")"

# --- the header's symbol byte flipped instead: the whole history at stake, refused too.
flip_byte "$LOG_FILE" 10
timeout 30 "$WFOD" --config "$TMP/run.toml" >"$TMP/refuse_header.log" 2>&1
RC=$?
[[ "$RC" == 3 ]] || fail "corrupt header: wfod exited $RC, expected 3"
grep -q "header at byte 0: CRC mismatch, and 2999 intact record(s)" "$TMP/refuse_header.log" ||
  fail "header refusal: $(cat "$TMP/refuse_header.log")"
flip_byte "$LOG_FILE" 10
cmp -s "$LOG_FILE" "$TMP/flipped.wfb" || fail "the refused log was modified (header case)"
echo "header flip refused: exit 3"

# --- quarantine: runs on 1,500 bars, degraded, never publishes behind seq $SEQ1's window.
config "$TMP/quarantine.toml" 'on_corrupt_log = "quarantine"' ""
"$SUB" --endpoint "$PUB_EP" --json --timeout-ms 20000 >"$TMP/pubs.jsonl" 2>"$TMP/sub.err" &
SUB_PID=$!
PIDS+=("$SUB_PID")
start_daemon "$TMP/quarantine.toml" "$SNAP_EP" quarantine
H=$(snap "$SNAP_EP" --health)
[[ "$(jq -r .status <<<"$H")" == degraded ]] || fail "health not degraded after a quarantine: $H"
jq -e ".symbols.$SYMBOL | .bars == 1500 and .quarantined_bars == 1500" <<<"$H" >/dev/null ||
  fail "symbol health after the quarantine: $H"
[[ "$(http_get /healthz)" == *"503 Service Unavailable"* ]] || fail "/healthz is not 503"
http_get /metrics | grep -qx "wfod_quarantined_bars{symbol=\"$SYMBOL\"} 1500" ||
  fail "no wfod_quarantined_bars 1500 in /metrics"
for _ in $(seq 1 100); do
  grep -q "stream $SYMBOL.$STRATEGY: publications withheld" "$TMP/quarantine.log" && break
  sleep 0.1
done
grep -q "stream $SYMBOL.$STRATEGY: publications withheld" "$TMP/quarantine.log" ||
  fail "the run on the shortened history was not withheld"
G=$(get)
[[ "$(jq -r .seq <<<"$G")" == "$SEQ1" && "$(jq -r .window.last_ts <<<"$G")" == "$LAST1" ]] ||
  fail "get after the quarantine is not the last publication (seq $SEQ1): $G"
echo "quarantined 1,500 bars: health degraded, /healthz 503, the first run withheld"

# New bars after the last published one: the stream publishes again, ahead of it.
"$REPLAY" --csv "$TMP/more.csv" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format json \
  --count 120 --rate 2000 --wait-ms 1000 --quiet || fail "wfo-replay failed"
wait_bars "$SNAP_EP" "$SYMBOL" 1620
G=$(wait_settled "$SNAP_EP" "$SYMBOL" "$STRATEGY") || exit 1
(($(jq -r .seq <<<"$G") > SEQ1)) || fail "no publication after new bars: $G"
(($(jq -r .window.last_ts <<<"$G") > LAST1)) || fail "published window not after $LAST1: $G"
stop_daemon
kill "$SUB_PID" 2>/dev/null
wait "$SUB_PID" 2>/dev/null
# Every publication the subscriber saw (it joined before the bind) ends at or after LAST1.
[[ -s "$TMP/pubs.jsonl" ]] || fail "the subscriber saw no publication"
jq -e --argjson last "$LAST1" -s 'all(.[]; .window.last_ts >= $last)' "$TMP/pubs.jsonl" \
  >/dev/null || fail "a publication went behind window.last_ts $LAST1: $(jq -c '[.seq, .window]' "$TMP/pubs.jsonl")"
echo "published again at seq $(jq -r .seq <<<"$G") once the window passed the last one's"

# --- the log is repaired (cut to its intact part): no quarantine, degraded only when stale.
config "$TMP/stale.toml" "" "stale_after_s = 3600"
start_daemon "$TMP/stale.toml" "$SNAP_EP" stale
H=$(snap "$SNAP_EP" --health)
jq -e ".status == \"degraded\" and (.symbols.$SYMBOL | .quarantined_bars == 0 and .stale and
  .last_bar_age_s > 3600 and .bars == 1620)" <<<"$H" >/dev/null || fail "stale health: $H"
http_get /metrics | grep -qx "wfod_symbol_stale{symbol=\"$SYMBOL\"} 1" || fail "no wfod_symbol_stale 1"
stop_daemon
echo "restart on the repaired log: quarantined_bars 0, degraded by stale_after_s only"
echo "PASS"
