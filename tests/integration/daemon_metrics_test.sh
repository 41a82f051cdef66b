#!/usr/bin/env bash
# /metrics from a real daemon (docs/operations.md "Metrics"): wfod on loopback with HTTP on a
# free port, two symbols whose names need care in a label ("BRK.B", "BTC/USD"), bars from
# wfo-replay (with a publisher seq gap) and one malformed message, so every family has
# samples. The scrape must carry the values the daemon's other replies give (health, the
# snapshot's publications), name every metric the dashboard and the alert rules query, and
# pass `promtool check metrics`. Exit 0 pass, 1 fail, 77 skipped (a target, jq or promtool
# missing: the value checks have then run and passed; the message says which part skipped).
#
# usage: daemon_metrics_test.sh WFOD WFO_REPLAY WFO_SUB SEND_FRAMES CSV DASHBOARDS_DIR
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
SEND=${4:-}
CSV=${5:?usage: daemon_metrics_test.sh WFOD WFO_REPLAY WFO_SUB SEND_FRAMES CSV DASHBOARDS_DIR}
DASHBOARDS=${6:?usage: daemon_metrics_test.sh WFOD WFO_REPLAY WFO_SUB SEND_FRAMES CSV DASHBOARDS_DIR}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_metrics "$WFOD" "$REPLAY" "$SUB" "$SEND"

A="BRK.B"
B="BTC/USD"
STRATEGY=m
new_endpoints
HTTP_PORT=$(free_port) || fail "no free port"
mkdir -p "$TMP/state"
write_config "$TMP/wfod.toml" "$TMP/state" json "$A" "[[symbol]]
name = \"$B\"
bars_per_year = 252
stale_after_s = 0

[[strategy]]
name = \"$STRATEGY\"
symbols = [\"$A\", \"$B\"]
family = \"ma_cross\"
window = 200
every = 50
cost_bps = 1.0

[strategy.grid]
fast = \"5:20:5\"
slow = \"30:60:10\""
sed -i "s/^http = \"\"/http = \"127.0.0.1:$HTTP_PORT\"/" "$TMP/wfod.toml"
start_daemon "$TMP/wfod.toml" "$SNAP_EP" daemon

replay() {  # $1 symbol, $2 first row, $3 count, $4 seq of the first bar
  "$REPLAY" --csv "$CSV" --symbol "$1" --endpoint "$FEED_EP" --format json --start "$2" \
    --count "$3" --seq-start "$4" --rate 2000 --wait-ms 800 --quiet ||
    fail "wfo-replay $1 rows $2+$3 failed"
}
wait_seq() {  # $1 symbol, $2 seq: until the stream's snapshot has that publication
  local got=""
  for _ in $(seq 1 100); do
    got=$(jq -r '.seq // 0' <<<"$(snap "$SNAP_EP" --get --symbol "$1" --strategy "$STRATEGY")")
    [[ "$got" == "$2" ]] && return 0
    sleep 0.2
  done
  fail "stream $1.$STRATEGY seq is $got, expected $2"
}
# A: a run at 381 bars (window 200 + warmup 180 + 1), then one 50 bars later (every 50).
replay "$A" 0 381 1
wait_seq "$A" 1
replay "$A" 381 50 382
wait_seq "$A" 2
# B: 381 bars, one run; then 10 more whose seq jumps from 382 to 500 (118 missing).
replay "$B" 0 381 1
wait_seq "$B" 1
replay "$B" 381 10 500
wait_bars "$SNAP_EP" "$B" 391
"$SEND" "$FEED_EP" 1000 "bars.$A" '{"ts": 1, "open":' >"$TMP/send.log" 2>&1 || fail "send failed"
for _ in $(seq 1 50); do
  [[ "$(health_field "$SNAP_EP" .rejects.parse)" == 1 ]] && break
  sleep 0.2
done
PA=$(wait_settled "$SNAP_EP" "$A" "$STRATEGY") || exit 1
PB=$(wait_settled "$SNAP_EP" "$B" "$STRATEGY") || exit 1
[[ "$(jq -r .seq <<<"$PA")" == 2 && "$(jq -r .seq <<<"$PB")" == 1 ]] ||
  fail "expected seq 2 and 1, got $(jq -r .seq <<<"$PA") and $(jq -r .seq <<<"$PB")"

exec 3<>"/dev/tcp/127.0.0.1/$HTTP_PORT" || fail "http port $HTTP_PORT not up"
printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3
timeout 5 cat <&3 >"$TMP/response.txt"
exec 3<&-
head -n 1 "$TMP/response.txt" | grep -q "^HTTP/1.1 200 OK" || fail "no 200: $(head -n 1 "$TMP/response.txt")"
# The body: everything after the blank line that ends the head.
sed '1,/^\r$/d' "$TMP/response.txt" >"$TMP/metrics.txt"
cp "$TMP/metrics.txt" "$TMP/metrics.log"  # shown by fail()
M="$TMP/metrics.txt"

has() {  # exact sample line
  grep -qxF "$1" "$M" || fail "no line '$1'"
}
value() {  # value of the sample whose name and labels are $1 exactly
  awk -v k="$1" 'index($0, k " ") == 1 { print substr($0, length(k) + 2) }' "$M"
}

VERSION=$("$WFOD" --version | awk '{print $2}')
grep -qE "^wfod_build_info\{version=\"$VERSION\",backend=\"(cpu|cuda)\"\} 1$" "$M" ||
  fail "no wfod_build_info for version $VERSION"
has 'wfod_backend_info{backend="cpu",requested="cpu"} 1'
grep -q '^wfod_backend{' "$M" && fail "the old wfod_backend family is still served"
has "wfod_bars_accepted_total{symbol=\"$A\"} 431"
has "wfod_bars_accepted_total{symbol=\"$B\"} 391"
has "wfod_bar_interval_seconds{symbol=\"$A\"} 86400"
has "wfod_stream_every_bars{symbol=\"$A\",strategy=\"$STRATEGY\"} 50"
has "wfod_stream_publication_interval_seconds{symbol=\"$A\",strategy=\"$STRATEGY\"} 4320000"
has "wfod_stream_publications_total{symbol=\"$A\",strategy=\"$STRATEGY\"} 2"
has "wfod_stream_publications_total{symbol=\"$B\",strategy=\"$STRATEGY\"} 1"
has "wfod_stream_bars_since_publication{symbol=\"$A\",strategy=\"$STRATEGY\"} 0"
has "wfod_stream_bars_since_publication{symbol=\"$B\",strategy=\"$STRATEGY\"} 10"
has "wfod_symbol_stale_after_seconds{symbol=\"$B\"} 0"
has "wfod_storage_refused_bars_total{symbol=\"$B\"} 0"
has 'wfod_feed_missing_bars_total 118'
has 'wfod_feed_rejects_total{reason="parse"} 1'
# The newest publication's time is its payload's published_ns.
for pair in "$A:$PA" "$B:$PB"; do
  sym=${pair%%:*}
  got=$(value "wfod_stream_last_publication_timestamp_seconds{symbol=\"$sym\",strategy=\"$STRATEGY\"}")
  [[ -n "$got" ]] || fail "no last publication timestamp for $sym"
  jq -en --argjson p "${pair#*:}" --argjson g "$got" '(($p.published_ns / 1e9) - $g) | fabs < 1e-3' \
    >/dev/null || fail "last publication timestamp of $sym is $got, payload says $(jq .published_ns <<<"${pair#*:}")"
done
# The histogram: 3 runs published (others may have run without a publication), cumulative
# buckets ending in +Inf = _count.
COUNT=$(value "wfod_optimisation_duration_seconds_count{strategy=\"$STRATEGY\"}")
[[ -n "$COUNT" ]] && ((COUNT >= 3)) || fail "optimisation duration count is '${COUNT}'"
has "wfod_optimisation_duration_seconds_bucket{strategy=\"$STRATEGY\",le=\"+Inf\"} $COUNT"
grep "^wfod_optimisation_duration_seconds_bucket{" "$M" | awk '{print $2}' |
  awk 'NR > 1 && $1 < prev { bad = 1 } { prev = $1 } END { exit bad }' ||
  fail "histogram buckets are not cumulative"
# Health and /metrics agree on bars and last_ts.
for sym in "$A" "$B"; do
  has "wfod_bars{symbol=\"$sym\"} $(health_field "$SNAP_EP" ".symbols[\"$sym\"].bars")"
done

# Every metric the dashboard and the alert rules query is served.
FAMILIES=$(sed -n 's/^# TYPE \([a-z_]*\) .*/\1/p' "$M")
USED=$(grep -ohE 'wfod_[a-z_]+' "$DASHBOARDS/wfod-dashboard.json" "$DASHBOARDS/wfod-alerts.yml" |
  sed -E 's/_(bucket|sum|count)$//' | sort -u)
for name in $USED; do
  grep -qx "$name" <<<"$FAMILIES" || fail "$name is queried by dashboards/ but not served"
done
echo "$(wc -l <<<"$FAMILIES") families served; the $(wc -w <<<"$USED") names the dashboard and rules query are among them"

# A restart: the counter starts again, the last publication's time is the one before.
LAST_A=$(value "wfod_stream_last_publication_timestamp_seconds{symbol=\"$A\",strategy=\"$STRATEGY\"}")
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" || fail "wfod did not stop cleanly"
start_daemon "$TMP/wfod.toml" "$SNAP_EP" daemon2
exec 3<>"/dev/tcp/127.0.0.1/$HTTP_PORT" || fail "http port $HTTP_PORT not up after the restart"
printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3
timeout 5 cat <&3 | sed '1,/^\r$/d' >"$TMP/metrics2.txt"
exec 3<&-
grep -qxF "wfod_stream_publications_total{symbol=\"$A\",strategy=\"$STRATEGY\"} 0" "$TMP/metrics2.txt" ||
  fail "publications_total after the restart is not 0"
grep -qxF "wfod_stream_last_publication_timestamp_seconds{symbol=\"$A\",strategy=\"$STRATEGY\"} $LAST_A" \
  "$TMP/metrics2.txt" || fail "the last publication time did not survive the restart"
grep -qxF "wfod_stream_bars_since_publication{symbol=\"$B\",strategy=\"$STRATEGY\"} 10" \
  "$TMP/metrics2.txt" || fail "bars since the last publication not restored"
echo "after a restart: publications_total 0, last publication at $LAST_A as before"

if ! command -v promtool >/dev/null 2>&1; then
  echo "SKIPPED: daemon_metrics: promtool not installed (Debian: apt-get install prometheus); the value checks above passed, the format check did not run"
  exit 77
fi
promtool check metrics <"$M" >"$TMP/promtool.log" 2>&1 || fail "promtool check metrics: $(cat "$TMP/promtool.log")"
[[ ! -s "$TMP/promtool.log" ]] || fail "promtool check metrics: $(cat "$TMP/promtool.log")"
echo "promtool check metrics: clean ($(grep -vc '^#' "$M") samples)"
echo "PASS"
