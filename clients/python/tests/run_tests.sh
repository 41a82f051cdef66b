#!/usr/bin/env bash
# Runs one unittest of the Python client (clients/python/tests) against a live wfod, with a
# python3 that has pyzmq (python3 on PATH, else Debian's /usr/bin/python3 with python3-zmq).
# Exit 77 (ctest: skipped) saying why when there is none or wfod is not built.
#
# usage: run_tests.sh WFOD CSV TEST   (TEST: e.g. test_client.CloneTest)
set -u
WFOD=${1:?usage: run_tests.sh WFOD CSV TEST}
CSV=${2:?usage: run_tests.sh WFOD CSV TEST}
TEST=${3:?usage: run_tests.sh WFOD CSV TEST}
if [[ "$WFOD" == none || ! -x "$WFOD" ]]; then
  echo "SKIPPED: $TEST: wfod not built"
  exit 77
fi
PY=""
for candidate in python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c "import zmq" 2>/dev/null; then
    PY=$candidate
    break
  fi
done
if [[ -z "$PY" ]]; then
  echo "SKIPPED: $TEST: no python3 with pyzmq (install python3-zmq: tools/setup/install-deps.sh)"
  exit 77
fi
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WFOD=$(realpath "$WFOD")
export WFOD WFOD_CSV=$(realpath "$CSV")
export PYTHONPATH="$HERE/..:$HERE${PYTHONPATH:+:$PYTHONPATH}"
cd "$HERE" && exec "$PY" -m unittest -v "$TEST"
