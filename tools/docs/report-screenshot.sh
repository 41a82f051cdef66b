#!/usr/bin/env bash
# Regenerates docs/report-example.png, the README's full-page picture of the demo's own
# report: the `wfo walk` of tools/run-demo.sh (same arguments, same out/demo-report), shot by
# headless Chromium in a tall window and cropped to the page (tools/docs/crop_png.py).
# usage: tools/docs/report-screenshot.sh [BUILD_DIR=build/release]
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build/release}
"$B/tools/wfo" walk --config config/examples/demo.toml --strategy demo --is 1000 --oos 250 \
  --report out/demo-report >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=5000 \
  --window-size=1400,9000 --screenshot="$tmp/full.png" "file://$PWD/out/demo-report/report.html" \
  2>/dev/null
/usr/bin/python3 tools/docs/crop_png.py "$tmp/full.png" docs/report-example.png
