#!/usr/bin/env bash
# `pip install ./clients/python` works as documented: into a fresh venv that sees Debian's
# python3-zmq (--system-site-packages), offline (--no-build-isolation: setuptools from
# python3-setuptools); the installed package imports from outside the source tree and has
# its type marker. Works on a copy, so the source folder stays clean. Exit 0/1/77.
#
# usage: install_test.sh CLIENT_DIR
set -u
SRC=$(realpath "${1:?usage: install_test.sh CLIENT_DIR}")
PY=/usr/bin/python3
if ! "$PY" -c "import zmq, venv, ensurepip, setuptools" 2>/dev/null; then
  echo "SKIPPED: python_client_install: $PY lacks pyzmq, venv or setuptools (python3-zmq, python3-venv)"
  exit 77
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/wfod_pyinst.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cp -r "$SRC" "$TMP/src"
"$PY" -m venv --system-site-packages "$TMP/venv" || { echo "FAIL: venv"; exit 1; }
"$TMP/venv/bin/pip" install -q --no-build-isolation "$TMP/src" >"$TMP/pip.log" 2>&1 ||
  { echo "FAIL: pip install: $(tail -5 "$TMP/pip.log")"; exit 1; }
cd "$TMP" && "$TMP/venv/bin/python" - <<'PYEOF' || exit 1
import importlib.resources, sys
import wfod_client
from wfod_client import WfodClient, StreamKey
assert "site-packages" in wfod_client.__file__, wfod_client.__file__
assert importlib.resources.files("wfod_client").joinpath("py.typed").is_file(), "no py.typed"
assert StreamKey("BRK.B", "x").params_topic() == "params.BRK.B.x"
print("installed", wfod_client.__version__, "at", wfod_client.__file__)
PYEOF
echo "PASS"
