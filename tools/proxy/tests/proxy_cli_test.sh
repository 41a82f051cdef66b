#!/usr/bin/env bash
# wfo-proxy's command line and exits, without a daemon: --help / --version exit 0; a missing
# or bad flag, a bad endpoint or HTTP address exits 2 naming the flag; an endpoint or HTTP
# port already in use exits 1 naming it; SIGINT and SIGTERM stop it with exit 0 and /healthz
# answers while it runs (503: its upstream is not there).
#
# usage: proxy_cli_test.sh WFO_PROXY
set -uo pipefail
P=${1:?usage: proxy_cli_test.sh WFO_PROXY}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../../tests/integration/lib.sh
source "$HERE/../../../tests/integration/lib.sh"
[[ -x "$P" ]] || { echo "SKIPPED: wfo-proxy not built"; exit 77; }
command -v curl >/dev/null || { echo "SKIPPED: no curl"; exit 77; }
WORK=$TMP  # lib.sh's temp dir; its EXIT trap kills what PIDS names and removes it
die() { fail "$@"; }

# expect CODE 'TEXT' ARGS...: exits CODE and its stderr contains TEXT.
expect() {
  local code=$1 text=$2
  shift 2
  timeout 10 "$P" "$@" >"$WORK/out" 2>"$WORK/err"
  local rc=$?
  [[ $rc -eq $code ]] || die "wfo-proxy $*: exit $rc, expected $code: $(cat "$WORK/err")"
  grep -qF -- "$text" "$WORK/err" "$WORK/out" || die "wfo-proxy $*: no '$text' in: $(cat "$WORK/err")"
  echo "exit $code: wfo-proxy $* -> $(head -1 "$WORK/err" "$WORK/out" | grep -v '^==>' | grep -m1 .)"
}

port=$(free_port)
port2=$(free_port)
expect 0 'usage: wfo-proxy' --help
expect 0 'wfo-proxy ' --version
expect 2 '--upstream is required' --bind "tcp://127.0.0.1:$port"
expect 2 '--bind is required' --upstream "tcp://127.0.0.1:$port"
expect 2 "--upstream: 'localhost:5560' is not an endpoint" --upstream localhost:5560 --bind "tcp://127.0.0.1:$port"
expect 2 "--upstream: an empty endpoint" --upstream "tcp://127.0.0.1:$port2," --bind "tcp://127.0.0.1:$port"
expect 2 "--upstream: tcp://127.0.0.1:$port2 is named twice" --upstream "tcp://127.0.0.1:$port2,tcp://127.0.0.1:$port2" --bind "tcp://127.0.0.1:$port"
expect 2 "--bind: 'udp://x' is not an endpoint" --upstream "tcp://127.0.0.1:$port2" --bind udp://x
expect 2 "--bind tcp://127.0.0.1:notaport: cannot bind" --upstream "tcp://127.0.0.1:$port2" --bind tcp://127.0.0.1:notaport
expect 2 "--upstream tcp://no-such-host.invalid:5560: cannot connect" --upstream tcp://no-such-host.invalid:5560 --bind "tcp://127.0.0.1:$port"
expect 2 "--http: '127.0.0.1' is not HOST:PORT" --upstream "tcp://127.0.0.1:$port2" --bind "tcp://127.0.0.1:$port" --http 127.0.0.1
expect 2 "--sndhwm: expected a whole number" --upstream "tcp://127.0.0.1:$port2" --bind "tcp://127.0.0.1:$port" --sndhwm lots
expect 2 "unknown flag '--frontend'" --frontend "tcp://127.0.0.1:$port2"

# Ports in use: exit 1 naming the flag and the reason.
http=$(free_port)
"$P" --upstream "tcp://127.0.0.1:$port2" --bind "tcp://127.0.0.1:$port" --http "127.0.0.1:$http" 2>"$WORK/running.log" &
pid=$!
PIDS+=("$pid")
for _ in $(seq 100); do
  curl -s -o /dev/null "http://127.0.0.1:$http/healthz" && break
  sleep 0.05
done
expect 1 "--bind tcp://127.0.0.1:$port: cannot bind: Address already in use" --upstream "tcp://127.0.0.1:$port2" --bind "tcp://127.0.0.1:$port"
expect 1 "--http 127.0.0.1:$http: cannot bind: Address already in use" --upstream "tcp://127.0.0.1:$port2" --bind "tcp://127.0.0.1:$(free_port)" --http "127.0.0.1:$http"
code=$(curl -s -o "$WORK/health" -w '%{http_code}' "http://127.0.0.1:$http/healthz")
[[ "$code" == 503 ]] && grep -q "upstream not connected: tcp://127.0.0.1:$port2" "$WORK/health" ||
  die "/healthz with its upstream away: $code $(cat "$WORK/health")"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$http/nothing")
[[ "$code" == 404 ]] || die "/nothing: $code"
curl -s "http://127.0.0.1:$http/metrics" | grep -q '^wfo_proxy_up 1$' || die "/metrics lacks wfo_proxy_up 1"
echo "/healthz 503 naming the absent upstream; /metrics; 404"
kill -INT "$pid"
wait "$pid"
rc=$?
[[ $rc -eq 0 ]] || die "SIGINT: exit $rc"
"$P" --upstream "tcp://127.0.0.1:$port2" --bind "tcp://127.0.0.1:$port" 2>"$WORK/term.log" &
pid=$!
PIDS+=("$pid")
sleep 0.3
kill -TERM "$pid"
wait "$pid"
rc=$?
[[ $rc -eq 0 ]] && grep -q 'stopped exit=0' "$WORK/term.log" || die "SIGTERM: exit $rc: $(cat "$WORK/term.log")"
echo "SIGINT, SIGTERM: exit 0"
echo "wfo-proxy command line OK"
