#!/usr/bin/env bash
# The --report page's script (tools/wfo/report/report.js) parses: headless Chromium compiles it
# inside a function that is never called (so nothing runs without the report data) and an
# earlier inline script records any SyntaxError with its line in report.js. First the same
# check on a copy broken on purpose, which must be caught, so the test cannot pass by
# checking nothing. Fast (two browser starts); the drawn page is tests/browser's job.
# Exit 77 (ctest: skipped) without chromium.
# usage: report_js_syntax_test.sh REPORT_JS
set -euo pipefail

js=$1
[ -s "$js" ] || { echo "FAIL: $js missing or empty"; exit 1; }

browser=""
for candidate in chromium chromium-browser google-chrome; do
  if command -v "$candidate" >/dev/null 2>&1; then
    browser=$candidate
    break
  fi
done
if [ -z "$browser" ]; then
  echo "SKIPPED: chromium not installed"
  exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# parse_result FILE: "ok", or "SyntaxError ... (report.js line N)", as the browser saw FILE.
parse_result() {
  local page=$work/parse.html
  # Three lines before the script: the onerror line numbers minus 3 are report.js's.
  {
    printf '<!DOCTYPE html>\n'
    printf '<html><head><meta charset="utf-8"><script>window.onerror = function (m, s, line) { document.documentElement.setAttribute("data-syntax", String(m) + " (report.js line " + (line - 3) + ")"); };</script>\n'
    printf '<script>function wfoReportParseOnly() {\n'
    cat "$1"
    printf '}</script>\n'
    printf '<script>if (!document.documentElement.hasAttribute("data-syntax")) document.documentElement.setAttribute("data-syntax", "ok");</script>\n'
    printf '</head><body></body></html>\n'
  } >"$page"
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --disable-dev-shm-usage --user-data-dir="$(mktemp -d -p "$work")" \
    --dump-dom "file://$page" 2>"$work/browser.log" |
    grep -o 'data-syntax="[^"]*"' | head -1 | sed 's/^data-syntax="//; s/"$//' || true
}

# A stray closing brace at the end: the checker must report it.
cp "$js" "$work/broken.js"
printf '});\n' >>"$work/broken.js"
got=$(parse_result "$work/broken.js")
case $got in
  *SyntaxError*) echo "ok: a broken copy is caught: $got" ;;
  *)
    echo "FAIL: the check did not catch a broken copy of report.js (got '${got:-nothing}')"
    tail -20 "$work/browser.log"
    exit 1
    ;;
esac

got=$(parse_result "$js")
if [ "$got" != ok ]; then
  echo "FAIL: $js does not parse: ${got:-no answer from the browser}"
  [ -n "$got" ] || tail -20 "$work/browser.log"
  exit 1
fi
echo "ok: $js parses"
