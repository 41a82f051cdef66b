#!/usr/bin/env bash
# Disk full on the state directory, without root: wfod runs under a soft RLIMIT_FSIZE
# (`ulimit -S -f`), so its bar log's write() fails with EFBIG past ~40 KiB exactly as it
# would with ENOSPC (wfod ignores SIGXFSZ). The daemon must not crash, keep accepting bars
# in memory, withhold publications, report it (health storage/status, /healthz 503,
# wfod_storage_ok 0); once `prlimit` lifts the limit ("space returns") the backlog is
# written in order, health is ok, publishing resumes, and a kill -9 + restart finds every
# bar in the log. Exit 0/1/77.
#
# usage: daemon_disk_full_test.sh WFOD WFO_REPLAY WFO_SUB CSV
set -u
WFOD_REAL=${1:-}
REPLAY=${2:-}
SUB=${3:-}
CSV=${4:?usage: daemon_disk_full_test.sh WFOD WFO_REPLAY WFO_SUB CSV}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_disk_full "$WFOD_REAL" "$REPLAY" "$SUB"
if ! command -v prlimit >/dev/null 2>&1; then
  echo "SKIPPED: daemon_disk_full: prlimit (util-linux) not installed"
  exit 77
fi

SYMBOL=GOOG
STRATEGY=df
# 40 KiB: the log's 32-byte header and 639 whole 64-byte records.
FIT=639
WFOD="$TMP/wfod-limited"
printf '#!/usr/bin/env bash\nulimit -S -f 40\nexec %q "$@"\n' "$WFOD_REAL" >"$WFOD"
chmod +x "$WFOD"

send() {  # $1 start row, $2 count
  "$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format binary \
    --start "$1" --count "$2" --seq-start $(($1 + 1)) --rate 2000 --wait-ms 800 --quiet ||
    fail "wfo-replay rows $1+$2 failed"
  wait_bars "$SNAP_EP" "$SYMBOL" $(($1 + $2))
}
get_seq() { jq -r '.seq // 0' <<<"$(snap "$SNAP_EP" --get --symbol "$SYMBOL" --strategy "$STRATEGY")"; }
http_get() {  # $1 path: the whole response
  exec 3<>"/dev/tcp/127.0.0.1/$HTTP_PORT" || return 1
  printf 'GET %s HTTP/1.0\r\n\r\n' "$1" >&3
  timeout 5 cat <&3
  exec 3<&-
}

new_endpoints
HTTP_PORT=$(free_port) || fail "no free port"
mkdir -p "$TMP/state"
write_config "$TMP/wfod.toml" "$TMP/state" binary "$SYMBOL" "$(ma_strategy "$STRATEGY" "$SYMBOL")"
sed -i "s/^http = \"\"/http = \"127.0.0.1:$HTTP_PORT\"/" "$TMP/wfod.toml"
start_daemon "$TMP/wfod.toml" "$SNAP_EP" daemon

send 0 500
sleep 1
[[ "$(get_seq)" -ge 1 ]] || fail "no publication before the disk filled"
[[ "$(health_field "$SNAP_EP" .status)" == ok ]] || fail "degraded before the disk filled"

# The disk fills at bar $FIT; 300 more bars arrive.
send 500 300
for _ in $(seq 1 50); do
  [[ "$(health_field "$SNAP_EP" .status)" == degraded ]] && break
  sleep 0.1
done
H=$(snap "$SNAP_EP" --health)
SEQ_FULL=$(get_seq)
[[ "$(jq -r .status <<<"$H")" == degraded ]] || fail "health not degraded on a full disk: $H"
[[ "$(jq -r .storage.ok <<<"$H")" == false ]] || fail "storage.ok not false: $H"
[[ "$(jq -r .storage.pending_bars <<<"$H")" == $((800 - FIT)) ]] ||
  fail "expected $((800 - FIT)) bars pending in memory: $(jq -c .storage <<<"$H")"
jq -r .storage.error <<<"$H" | grep -q "File too large" || fail "storage.error does not say why: $H"
http_get /healthz | grep -q "503" || fail "/healthz is not 503 on a full disk"
http_get /metrics | grep -q "^wfod_storage_ok 0" || fail "wfod_storage_ok is not 0"
grep -q "bar log write failed" "$TMP/daemon.log" || fail "no error log line"
LOG="$TMP/state/bars/$SYMBOL.wfb"
[[ "$(stat -c %s "$LOG")" == $((32 + 64 * FIT)) ]] || fail "log size $(stat -c %s "$LOG") while full"
sleep 2
[[ "$(get_seq)" == "$SEQ_FULL" ]] || fail "published while the bars were not persisted"
kill -0 "$DAEMON_PID" 2>/dev/null || fail "wfod died on a full disk"
echo "disk full: degraded, $((800 - FIT)) bars in memory, publications withheld at seq $SEQ_FULL"

# Space returns: the backlog goes out within the 1 s retry.
prlimit --pid "$DAEMON_PID" --fsize=unlimited || fail "prlimit failed"
for _ in $(seq 1 50); do
  [[ "$(health_field "$SNAP_EP" .status)" == ok ]] && break
  sleep 0.1
done
H=$(snap "$SNAP_EP" --health)
[[ "$(jq -r .status <<<"$H")" == ok && "$(jq -r .storage.pending_bars <<<"$H")" == 0 ]] ||
  fail "not recovered after space returned: $H"
[[ "$(stat -c %s "$LOG")" == $((32 + 64 * 800)) ]] || fail "log size $(stat -c %s "$LOG") after recovery"
grep -q "backlog persisted" "$TMP/daemon.log" || fail "no recovery log line"
send 800 50
for _ in $(seq 1 50); do
  [[ "$(get_seq)" -gt "$SEQ_FULL" ]] && break
  sleep 0.2
done
[[ "$(get_seq)" -gt "$SEQ_FULL" ]] || fail "publishing did not resume"
echo "space returned: backlog written in order, health ok, publishing resumed at seq $(get_seq)"

kill -KILL "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null
start_daemon "$TMP/wfod.toml" "$SNAP_EP" daemon2
prlimit --pid "$DAEMON_PID" --fsize=unlimited
[[ "$(health_field "$SNAP_EP" ".symbols[\"$SYMBOL\"].bars")" == 850 ]] ||
  fail "after kill -9 the log holds $(health_field "$SNAP_EP" ".symbols[\"$SYMBOL\"].bars") bars, expected 850"
grep -q "quarantine" "$TMP/daemon2.log" && fail "the log had a bad tail after recovery"
echo "kill -9 + restart: all 850 bars in the log"
echo "PASS"
