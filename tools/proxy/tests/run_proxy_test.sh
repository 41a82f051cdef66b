#!/usr/bin/env bash
# Runs tools/proxy/tests/test_proxy_shards.py with the Python client and its test harness
# (clients/python, clients/python/tests) on the path, with a python3 that has pyzmq.
# Exit 77 (ctest: skipped) saying why when there is none, or wfod / wfo-proxy is not built.
#
# usage: run_proxy_test.sh WFOD WFO_PROXY CSV
set -u
WFOD=${1:?usage: run_proxy_test.sh WFOD WFO_PROXY CSV}
WFO_PROXY=${2:?usage: run_proxy_test.sh WFOD WFO_PROXY CSV}
CSV=${3:?usage: run_proxy_test.sh WFOD WFO_PROXY CSV}
for exe in "$WFOD" "$WFO_PROXY"; do
  if [[ "$exe" == none || ! -x "$exe" ]]; then
    echo "SKIPPED: proxy_shards: $exe not built"
    exit 77
  fi
done
PY=""
for candidate in python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c "import zmq" 2>/dev/null; then
    PY=$candidate
    break
  fi
done
if [[ -z "$PY" ]]; then
  echo "SKIPPED: proxy_shards: no python3 with pyzmq (install python3-zmq: tools/setup/install-deps.sh)"
  exit 77
fi
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CLIENT=$(cd "$HERE/../../../clients/python" && pwd)
export WFOD=$(realpath "$WFOD") WFO_PROXY=$(realpath "$WFO_PROXY") WFOD_CSV=$(realpath "$CSV")
export PYTHONPATH="$CLIENT:$CLIENT/tests:$HERE${PYTHONPATH:+:$PYTHONPATH}"
cd "$HERE" && exec "$PY" -m unittest -v test_proxy_shards
