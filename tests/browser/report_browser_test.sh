#!/usr/bin/env bash
# The --report HTML page in a real browser: runs `wfo walk --report` and `wfo sweep --report`
# on the bundled GOOG daily bars with a two-parameter grid, loads each report.html in headless
# Chromium and checks that every chart drew marks and the page logged no script error; keeps
# a screenshot of the walk report under ARTIFACTS. Exit 77 (ctest: skipped) without chromium.
# usage: report_browser_test.sh WFO_BINARY SOURCE_DIR ARTIFACTS_DIR
set -euo pipefail

wfo=$1
src=$2
artifacts=$3

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
mkdir -p "$artifacts"
csv=$src/data/goog_d1_2004-2013.csv
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

chrome() {
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --disable-dev-shm-usage --user-data-dir="$(mktemp -d -p "$work")" "$@"
}

# check_page NAME DIR CHART...: the report in DIR drawn in the browser, every CHART rendered.
check_page() {
  local name=$1 dir=$2
  shift 2
  local page="$dir/report.html" dom="$work/$name.dom.html" log="$work/$name.browser.log"
  if ! chrome --enable-logging=stderr --v=0 --dump-dom "file://$page" >"$dom" 2>"$log"; then
    fail "$name: chromium --dump-dom failed"
    tail -20 "$log"
    return
  fi
  grep -q 'data-report-ready="1"' "$dom" || fail "$name: the page script did not finish"
  if grep -o 'data-js-error="[^"]*"' "$dom"; then fail "$name: script error on the page"; fi
  # Console lines from the page itself (the report logs nothing when all is well).
  if grep -E 'CONSOLE' "$log" | grep -F "report.html"; then fail "$name: console output"; fi
  if grep -F 'Uncaught' "$log"; then fail "$name: uncaught exception"; fi
  local chart tag marks
  for chart in "$@"; do
    tag=$(grep -o "<div[^>]*id=\"chart-$chart\"[^>]*>" "$dom" | head -1 || true)
    if [ -z "$tag" ]; then
      fail "$name: no chart-$chart container"
      continue
    fi
    if ! grep -q 'data-rendered="1"' <<<"$tag"; then
      fail "$name: chart-$chart not rendered: $tag"
      continue
    fi
    marks=$(sed -n 's/.*data-marks="\([0-9]*\)".*/\1/p' <<<"$tag")
    if [ -z "$marks" ] || [ "$marks" -le 0 ]; then fail "$name: chart-$chart drew no marks: $tag"; fi
    # The chart's <svg> must have drawn children.
    if ! grep -qE "id=\"chart-$chart\"[^>]*><svg[^>]*><[a-z]" "$dom"; then
      fail "$name: chart-$chart has no drawn <svg>"
    fi
    echo "ok: $name chart-$chart ($marks marks)"
  done
}

# --- walk: 2 axes (fast x slow), 11 folds ---
"$wfo" walk --csv "$csv" --family ma_cross --fast 5:50:5 --slow 20:200:10 --warmup 200 \
  --is 500 --oos 125 --cost-bps 1 --backend cpu --report "$work/walk" >"$work/walk.out" \
  2>"$work/walk.err" || { cat "$work/walk.err"; fail "wfo walk --report exited non-zero"; }
grep -qxF "report: $work/walk/report.html" "$work/walk.err" ||
  fail "walk: stderr lacks 'report: $work/walk/report.html': $(cat "$work/walk.err")"
grep -q '^Out of sample' "$work/walk.out" || fail "walk: stdout lacks the normal table"
for f in report.html report.json folds.csv equity.csv objective.csv; do
  [ -s "$work/walk/$f" ] || fail "walk: $f missing or empty"
done
head -1 "$work/walk/equity.csv" | grep -qx 'timestamp,oos_equity,buy_hold,drawdown' ||
  fail "walk: equity.csv header"
if grep -qE '<(script|link)[^>]+(src|href)=' "$work/walk/report.html"; then
  fail "walk: report.html loads an external resource"
fi
check_page walk "$work/walk" equity params isoos heatmap histogram

shot="$artifacts/report_walk.png"
rm -f "$shot"
chrome --hide-scrollbars --screenshot="$shot" --window-size=1400,2400 \
  "file://$work/walk/report.html" >/dev/null 2>&1 || true
if [ -s "$shot" ]; then
  echo "screenshot: $shot"
else
  fail "no screenshot written to $shot"
fi

# --- sweep: the same grid over one window ---
"$wfo" sweep --csv "$csv" --family ma_cross --fast 5:50:5 --slow 20:200:10 --window 1200 \
  --cost-bps 1 --backend cpu --report "$work/sweep" >"$work/sweep.out" 2>"$work/sweep.err" ||
  { cat "$work/sweep.err"; fail "wfo sweep --report exited non-zero"; }
grep -qxF "report: $work/sweep/report.html" "$work/sweep.err" || fail "sweep: stderr lacks the path"
check_page sweep "$work/sweep" equity heatmap histogram

# --- an unwritable DIR is an input error naming it ---
touch "$work/file"
if "$wfo" walk --csv "$csv" --family ma_cross --fast 5:50:5 --slow 20:200:10 --is 500 --oos 125 \
  --report "$work/file/sub" >/dev/null 2>"$work/bad.err"; then
  fail "--report under a file succeeded"
elif ! grep -qF -- "--report $work/file/sub" "$work/bad.err"; then
  fail "the error does not name DIR: $(cat "$work/bad.err")"
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "report browser test: all checks passed"
