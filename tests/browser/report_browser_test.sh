#!/usr/bin/env bash
# The --report HTML page in a real browser: runs `wfo walk --report` and `wfo sweep --report`
# on the bundled GOOG daily bars with a two-parameter grid (and a sweep over four axes, whose
# heatmap shows a chosen pair with the others held at the winner's values, the pair switched
# by a #heatmap=X,Y link), loads each report.html in headless
# Chromium and checks that every chart drew marks and the page logged no script error; keeps
# a screenshot of the walk report under ARTIFACTS. With robust selection (the demo config plus
# a [strategy.selection] table) the drawn page must show report.json's decisions, DSR and PBO
# values exactly; with --no-selection none of those sections. Exit 77 (ctest: skipped)
# without chromium.
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

# --- walk with robust selection: the demo config with a [strategy.selection] table ---
# (its own table when it has one; else one whose hysteresis, plateau and DSR gate make the
# folds switch, hold and gate)
selcfg=$work/selection.toml
cat "$src/config/examples/demo.toml" >"$selcfg"
if ! grep -q '^\[strategy\.selection\]' "$selcfg"; then
  printf '\n[strategy.selection]\nhysteresis_rel = 0.25\nplateau = true\nplateau_stat = "q25"\nmin_dsr = 0.3\npbo_blocks = 10\n' \
    >>"$selcfg"
fi
"$wfo" walk --config "$selcfg" --strategy demo --csv "$csv" --is 500 --oos 125 --backend cpu \
  --report "$work/walk-sel" >/dev/null 2>"$work/walk-sel.err" ||
  { cat "$work/walk-sel.err"; fail "wfo walk --config (selection) --report exited non-zero"; }
check_page walk-sel "$work/walk-sel" equity params isoos selection logit heatmap histogram

# The page's main element as drawn (the script's own text, which names every section, left out).
drawn_app() {
  local dom
  dom=$(cat "$1")
  dom=${dom#*<main class=\"wrap\" id=\"app\">}
  printf '%s' "${dom%%</main>*}"
}
# drawn_table APP ID: the <table id=ID> of the drawn page.
# (empty when missing: the callers' checks then fail by name rather than set -e ending the test).
drawn_table() { grep -oP "<table class=\"data\" id=\"$2\"[^>]*>.*?</table>" <<<"$1" | head -1 || true; }
# same_value JSON_FILE TEXT JQ_PATH: TEXT (a data-v attribute) is the value at JQ_PATH, numbers
# compared as doubles, null as "".
same_value() {
  jq -e --arg v "$2" "($3) as \$j | if \$j == null then \$v == \"\"
    elif (\$j | type) == \"number\" then (\$v | tonumber? // null) == \$j
    else \$v == (\$j | tostring) end" "$1" >/dev/null
}
# check_cells NAME JSON TABLE ROW_ATTR ROW KEY=JQ_PATH...: each cell data-k=KEY of the row
# ROW_ATTR="ROW" exists and holds the value at its JQ_PATH.
check_cells() {
  local name=$1 json=$2 table=$3 attr=$4 row=$5 tr pair key path v
  shift 5
  tr=$(grep -oP "<tr[^>]*$attr=\"$row\"[^>]*>.*?</tr>" <<<"$table" | head -1 || true)
  [ -n "$tr" ] || { fail "$name: no row $attr=$row"; return; }
  for pair in "$@"; do
    key=${pair%%=*}
    path=${pair#*=}
    if ! grep -q "data-k=\"$key\" data-v=" <<<"$tr"; then
      fail "$name: row $row has no $key cell"
      continue
    fi
    v=$(grep -oP "data-k=\"$key\" data-v=\"\K[^\"]*" <<<"$tr" | head -1 || true)
    same_value "$json" "$v" "$path" || fail "$name: row $row $key shows '$v', report.json $path is $(jq -c "$path" "$json")"
  done
}
# shown_text TABLE ROW KEY: the text a data-v cell shows.
shown_text() {
  grep -oP "<tr[^>]*data-sel=\"$2\"[^>]*>.*?</tr>" <<<"$1" | head -1 |
    grep -oP "data-k=\"$3\" data-v=\"[^\"]*\"[^>]*>\K[^<]*" | head -1 || true
}

sjson=$work/walk-sel/report.json
sapp=$(drawn_app "$work/walk-sel.dom.html")
nsel=$(jq '.selection | length' "$sjson")
[ "$nsel" -gt 0 ] && [ "$nsel" -eq "$(jq '.folds | length' "$sjson")" ] ||
  fail "walk-sel: report.json has $nsel selection objects for $(jq '.folds | length' "$sjson") folds"
grep -q 'id="sec-selection"' <<<"$sapp" || fail "walk-sel: no Robust selection section drawn"
for paper in 'Bailey &amp; López de Prado (2014)' 'Bailey, Borwein, López de Prado &amp; Zhu (2015)'; do
  grep -qF "$paper" <<<"$sapp" || fail "walk-sel: the legend does not cite $paper"
done
tsel=$(drawn_table "$sapp" table-selection)
tfit=$(drawn_table "$sapp" table-overfit)
tfolds=$(drawn_table "$sapp" table-folds)
for ((i = 0; i < nsel; i++)); do
  s=".selection[$i]"
  check_cells walk-sel "$sjson" "$tsel" data-sel "$i" "raw_id=$s.raw.id" \
    "raw_objective=$s.raw.objective" "plateau_id=$s.plateau.id" "plateau_score=$s.plateau.score" \
    "current_id=$s.current.id" "published_id=$s.published.id" "reason=$s.reason" \
    "margin=$s.hysteresis.margin"
  fit=("dsr=$s.dsr.dsr" "pbo=$s.pbo.pbo")
  if jq -e "$s.dsr != null" "$sjson" >/dev/null; then
    fit+=("sharpe=$s.dsr.sharpe" "expected_max_sharpe=$s.dsr.expected_max_sharpe"
      "trials=$s.dsr.trials" "min_dsr=$s.dsr.min_dsr" "passes=$s.dsr.passes")
  fi
  if jq -e "$s.pbo != null" "$sjson" >/dev/null; then
    fit+=("median_logit=$s.pbo.logit.median" "slope=$s.pbo.degradation.slope"
      "intercept=$s.pbo.degradation.intercept" "prob_oos_loss=$s.pbo.prob_oos_loss")
  else
    grep -oP "<tr[^>]*data-sel=\"$i\"[^>]*>.*?</tr>" <<<"$tfit" | grep -qF "$(jq -r "$s.pbo_skipped" "$sjson")" ||
      fail "walk-sel: fold $i does not show why PBO was skipped"
  fi
  check_cells walk-sel "$sjson" "$tfit" data-sel "$i" "${fit[@]}"
  check_cells walk-sel "$sjson" "$tfolds" data-fold "$i" "reason=$s.reason" "dsr=$s.dsr.dsr" "pbo=$s.pbo.pbo"
  # The published combo is what the fold traded.
  same_value "$sjson" "$(jq -r ".folds[$i].id // \"\"" "$sjson")" "$s.published.id" ||
    fail "walk-sel: fold $i traded $(jq ".folds[$i].id" "$sjson"), published $(jq "$s.published.id" "$sjson")"
  # Shown to 3 decimals.
  for kv in "dsr=$s.dsr.dsr" "pbo=$s.pbo.pbo"; do
    want=$(jq -r "${kv#*=} | if . == null then \"\" else . end" "$sjson")
    [ -z "$want" ] && continue
    got=$(shown_text "$tfit" "$i" "${kv%%=*}")
    [ "$got" = "$(LC_ALL=C printf '%.3f' "$want")" ] || fail "walk-sel: fold $i ${kv%%=*} shown '$got' for $want"
  done
done
# The parameter chart marks every fold whose winner was not published (held or DSR-gated),
# and every raw arg-max the plateau winner moved away from, once per parameter panel.
panels=$(jq '.params.varying | length' "$sjson")
want_held=$(jq '[.selection[] | select(.winner != null and (.published == null or .winner.id != .published.id))] | length' "$sjson")
want_raw=$(jq '[.selection[] | select(.raw != null and .winner != null and .raw.id != .winner.id)] | length' "$sjson")
got_held=$(grep -o 'data-sel="winner"' <<<"$sapp" | wc -l || true)
got_raw=$(grep -o 'data-sel="raw"' <<<"$sapp" | wc -l || true)
[ "$got_held" -eq $((want_held * panels)) ] || fail "walk-sel: $got_held held marks, want $want_held x $panels"
[ "$got_raw" -eq $((want_raw * panels)) ] || fail "walk-sel: $got_raw raw arg-max marks, want $want_raw x $panels"
[ "$want_held" -gt 0 ] || grep -q '^\[strategy\.selection\]' "$src/config/examples/demo.toml" ||
  fail "walk-sel: the test config held or gated no fold"
# The logit histogram drawn is the last fold with a PBO: its non-empty bins, in order.
pf=$(jq '[.selection | to_entries[] | select(.value.pbo != null) | .key] | last // empty' "$sjson")
if [ -n "$pf" ]; then
  want_bins=$(jq -r ".selection[$pf].pbo.histogram.counts | map(select(. > 0)) | map(tostring) | join(\" \")" "$sjson")
  got_bins=$(grep -oP 'data-bin="[0-9]+" data-count="\K[0-9]+' <<<"$sapp" | tr '\n' ' ' | sed 's/ $//' || true)
  [ "$got_bins" = "$want_bins" ] || fail "walk-sel: logit bins '$got_bins', report.json '$want_bins'"
  tlogit=$(drawn_table "$sapp" table-logit)
  check_cells walk-sel "$sjson" "$tlogit" data-row quantile "logit_min=.selection[$pf].pbo.logit.min" \
    "logit_q05=.selection[$pf].pbo.logit.q05" "logit_q25=.selection[$pf].pbo.logit.q25" \
    "logit_median=.selection[$pf].pbo.logit.median" "logit_q75=.selection[$pf].pbo.logit.q75" \
    "logit_q95=.selection[$pf].pbo.logit.q95" "logit_max=.selection[$pf].pbo.logit.max" \
    "logit_mean=.selection[$pf].pbo.logit.mean"
else
  fail "walk-sel: no fold has a PBO"
fi
echo "ok: walk-sel selection values equal report.json ($nsel folds)"

# --- walk without robust selection: none of its sections ---
"$wfo" walk --config "$selcfg" --strategy demo --csv "$csv" --is 500 --oos 125 --backend cpu --no-selection \
  --report "$work/walk-nosel" >/dev/null 2>"$work/walk-nosel.err" ||
  { cat "$work/walk-nosel.err"; fail "wfo walk --no-selection --report exited non-zero"; }
check_page walk-nosel "$work/walk-nosel" equity params isoos heatmap histogram
jq -e 'has("selection") or (.inputs | has("selection")) | not' "$work/walk-nosel/report.json" >/dev/null ||
  fail "walk-nosel: report.json has a selection"
napp=$(drawn_app "$work/walk-nosel.dom.html")
for needle in 'id="sec-selection"' 'id="table-selection"' 'id="table-overfit"' 'id="chart-logit"' \
  'id="chart-selection"' 'data-sel=' 'data-k=' 'class="badge' 'Robust selection' 'Deflated'; do
  if grep -qF "$needle" <<<"$napp"; then fail "walk-nosel: the page shows $needle"; fi
done
echo "ok: walk-nosel shows no selection section"

# --- sweep: the same grid over one window ---
"$wfo" sweep --csv "$csv" --family ma_cross --fast 5:50:5 --slow 20:200:10 --window 1200 \
  --cost-bps 1 --backend cpu --report "$work/sweep" >"$work/sweep.out" 2>"$work/sweep.err" ||
  { cat "$work/sweep.err"; fail "wfo sweep --report exited non-zero"; }
grep -qxF "report: $work/sweep/report.html" "$work/sweep.err" || fail "sweep: stderr lacks the path"
check_page sweep "$work/sweep" equity heatmap histogram

# --- sweep over four axes: a heatmap of a chosen pair, the other axes held at the winner's ---
"$wfo" sweep --csv "$csv" --family ma_cross --fast 5:50:5 --slow 20:200:10 --ma sma,ema,wma \
  --side long_short,long_only --window 1200 --cost-bps 1 --backend cpu --no-selection \
  --report "$work/sweep4" >/dev/null 2>"$work/sweep4.err" ||
  { cat "$work/sweep4.err"; fail "wfo sweep --report (four axes) exited non-zero"; }
j4=$work/sweep4/report.json
# What the page needs: every varying axis with its values (those of the grid), the grid's
# objective by combo id, and the winner's value on each axis (its params).
jq -e '.landscape.heatmap.axes | map(.name) == ["fast", "slow", "ma", "side"]' "$j4" >/dev/null ||
  fail "sweep4: heatmap axes $(jq -c '.landscape.heatmap.axes | map(.name)' "$j4")"
for axis in fast slow ma side; do
  want=$(jq -c --arg a "$axis" '.inputs.grid.axes[] | select(.name == $a) | .values | map(tostring)' "$j4")
  got=$(jq -c --arg a "$axis" '.landscape.heatmap.axes[] | select(.name == $a) | .values | map(tostring)' "$j4")
  [ "$want" = "$got" ] || fail "sweep4: heatmap values of $axis $got, the grid's $want"
done
jq -e '.landscape.heatmap.folds[-1] as $f | ($f.z | length) == (.landscape.heatmap.axes |
    map(.values | length) | .[0] * .[1] * .[2] * .[3]) and $f.winner == .landscape.winner.id' "$j4" >/dev/null ||
  fail "sweep4: the heatmap is not the whole grid by combo id"
jq -e '.landscape.heatmap as $h | $h.folds[-1].winner_at as $at | .landscape.winner.params as $p |
    all(range(0; 4); ($h.axes[.].values[$at[.]] | tostring) == ($p[$h.axes[.].name] | tostring))' "$j4" >/dev/null ||
  fail "sweep4: winner_at $(jq -c '.landscape.heatmap.folds[-1].winner_at' "$j4") is not the winner's params $(jq -c '.landscape.winner.params' "$j4")"
# slice_marks XA YA: the cells the page draws for that pair (the other axes held at the
# winner's values), plus the winner's mark; slice_held XA YA: the held values it names.
slice_marks() {
  jq --argjson xa "$1" --argjson ya "$2" '.landscape.heatmap as $h | $h.folds[-1] as $f |
    [$h.axes[].values | length] as $n |
    (reduce range(0; $n | length) as $k ([]; . + [if $k == 0 then 1 else .[$k - 1] * $n[$k - 1] end])) as $s |
    ([range(0; $n | length) | select(. != $xa and . != $ya) | $f.winner_at[.] * $s[.]] | add // 0) as $base |
    ([range(0; $n[$ya]) as $iy | range(0; $n[$xa]) as $ix | $f.z[$base + $ix * $s[$xa] + $iy * $s[$ya]] |
      select(. != null)] | length) + (if $f.winner == null then 0 else 1 end)' "$j4"
}
slice_held() {
  jq -r --argjson xa "$1" --argjson ya "$2" '.landscape.heatmap as $h | $h.folds[-1].winner_at as $at |
    [range(0; $h.axes | length) | select(. != $xa and . != $ya) |
      "\($h.axes[.].name) \($h.axes[.].values[$at[.]])"] | join(", ")' "$j4"
}
# check_pair NAME XA YA X Y: the drawn heatmap is the pair X (index XA) by Y (index YA).
check_pair() {
  local name=$1 xa=$2 ya=$3 x=$4 y=$5 dom="$work/$1.dom.html" tag want held
  tag=$(grep -o '<div[^>]*id="chart-heatmap"[^>]*>' "$dom" | head -1 || true)
  grep -qF "data-x=\"$x\" data-y=\"$y\"" <<<"$tag" || fail "$name: heatmap not $x by $y: $tag"
  held=$(slice_held "$xa" "$ya")
  grep -qF "data-held=\"$held\"" <<<"$tag" || fail "$name: held values not '$held': $tag"
  grep -qF "id=\"hm-held\">other axes held at the winner's values: $held<" "$dom" ||
    fail "$name: the page does not name the held values '$held'"
  grep -qF "<h3 id=\"hm-title\">Heatmap: $y × $x</h3>" "$dom" || fail "$name: title not 'Heatmap: $y × $x'"
  want=$(slice_marks "$xa" "$ya")
  grep -qF "data-marks=\"$want\"" <<<"$tag" || fail "$name: heatmap marks not $want: $tag"
  echo "ok: $name heatmap $y × $x, held $held, $want marks"
}
check_page sweep4 "$work/sweep4" equity heatmap histogram
[ "$(grep -o '<option value="[0-9]*"[^>]*>[^<]*</option>' "$work/sweep4.dom.html" | grep -c ' × ' || true)" -eq 6 ] ||
  fail "sweep4: the pair list does not hold the 6 pairs of 4 axes"
check_pair sweep4 0 1 fast slow
# Another pair, named in the link (the page switches its <select> and redraws).
if chrome --enable-logging=stderr --v=0 --dump-dom "file://$work/sweep4/report.html#heatmap=ma,side" \
  >"$work/sweep4-pair.dom.html" 2>"$work/sweep4-pair.log"; then
  if grep -o 'data-js-error="[^"]*"' "$work/sweep4-pair.dom.html"; then fail "sweep4-pair: script error"; fi
  check_pair sweep4-pair 2 3 ma side
else
  fail "sweep4-pair: chromium --dump-dom failed"
fi
# Two axes keep their page: no pair list, nothing held.
app2=$(drawn_app "$work/sweep.dom.html")
if grep -qF 'id="hm-pair"' <<<"$app2"; then fail "sweep: a pair list for two axes"; fi
grep -qF '<h3 id="hm-title">Heatmap: slow × fast</h3>' <<<"$app2" || fail "sweep: heatmap title"
grep -qF 'data-held=""' <<<"$app2" || fail "sweep: two axes hold nothing"

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
