#!/usr/bin/env bash
# Backend failure fallback: with the test-only fault injection (WFOD_TEST_BACKEND_FAULT=
# sweep:3, daemon/core/fault_backend.cpp) the third optimisation throws as a CUDA error would;
# the daemon must log it, switch to the cpu backend, run that optimisation again and go on
# publishing, and report the change in health (backend, backend_fallbacks, backend_error) and
# /metrics (wfod_backend_info{backend="cpu",...}, wfod_backend_fallbacks_total). Exit 0/1/77.
#
# usage: daemon_backend_fallback_test.sh WFOD WFO_REPLAY WFO_SUB CSV
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
CSV=${4:?usage: daemon_backend_fallback_test.sh WFOD WFO_REPLAY WFO_SUB CSV}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_backend_fallback "$WFOD" "$REPLAY" "$SUB"

SYMBOL=GOOG
STRATEGY=fb
send() {  # $1 start row, $2 count
  "$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format binary \
    --start "$1" --count "$2" --seq-start $(($1 + 1)) --rate 2000 --wait-ms 800 --quiet ||
    fail "wfo-replay rows $1+$2 failed"
  wait_bars "$SNAP_EP" "$SYMBOL" $(($1 + $2))
}
get_seq() { jq -r '.seq // 0' <<<"$(snap "$SNAP_EP" --get --symbol "$SYMBOL" --strategy "$STRATEGY")"; }
wait_seq() {
  for _ in $(seq 1 100); do
    [[ "$(get_seq)" == "$1" ]] && return 0
    sleep 0.2
  done
  fail "stream seq is $(get_seq), expected $1"
}

new_endpoints
HTTP_PORT=$(free_port) || fail "no free port"
mkdir -p "$TMP/state"
write_config "$TMP/wfod.toml" "$TMP/state" binary "$SYMBOL" "$(ma_strategy "$STRATEGY" "$SYMBOL")"
sed -i "s/^http = \"\"/http = \"127.0.0.1:$HTTP_PORT\"/" "$TMP/wfod.toml"
export WFOD_TEST_BACKEND_FAULT=sweep:3
start_daemon "$TMP/wfod.toml" "$SNAP_EP" daemon
unset WFOD_TEST_BACKEND_FAULT
[[ "$(health_field "$SNAP_EP" .backend)" == "cpu+fault" ]] || fail "the fault backend is not in use"

send 0 381 && wait_seq 1
send 381 50 && wait_seq 2
send 431 50 && wait_seq 3   # optimisation 3 fails on the device and runs again on the cpu
send 481 50 && wait_seq 4
H=$(snap "$SNAP_EP" --health)
[[ "$(jq -r .backend <<<"$H")" == cpu ]] || fail "health backend is not cpu after the fault: $H"
[[ "$(jq -r .backend_fallbacks <<<"$H")" == 1 ]] || fail "backend_fallbacks is not 1: $H"
jq -r .backend_error <<<"$H" | grep -q "injected backend fault" || fail "no backend_error: $H"
grep -q 'backend fallback from=cpu+fault to=cpu' "$TMP/daemon.log" || fail "no fallback log line"
[[ "$(grep -c 'sweep failed' "$TMP/daemon.log")" == 0 ]] || fail "a run was lost to the fault"
P=$(snap "$SNAP_EP" --get --symbol "$SYMBOL" --strategy "$STRATEGY")
[[ "$(jq -r .backend <<<"$P")" == cpu ]] || fail "publication backend is not cpu"
[[ "$(jq -r .window.bars <<<"$P")" == 200 ]] || fail "bad publication: $P"
exec 3<>"/dev/tcp/127.0.0.1/$HTTP_PORT" || fail "no http"
printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3
METRICS=$(timeout 5 cat <&3)
exec 3<&-
grep -q '^wfod_backend_info{backend="cpu",requested="cpu"} 1' <<<"$METRICS" ||
  fail "no wfod_backend_info{backend=\"cpu\",requested=\"cpu\"} 1"
grep -q '^wfod_backend_fallbacks_total 1' <<<"$METRICS" || fail "no wfod_backend_fallbacks_total 1"
echo "optimisation 3 failed on 'cpu+fault', ran again on cpu; publishing went on to seq 4 with backend=cpu"
echo "PASS"
