#!/usr/bin/env bash
# Issue 47, the universe report: `wfo walk --universe FILE --report DIR` on the shared daily
# files plus hostile symbol names. (a) DIR/index.html and DIR/universe.json hold every
# symbol, each symbol's DIR/NAME/ holds the files `wfo walk --csv FILE --report` writes for
# that file (CSVs byte for byte, report.json outside its run-specific fields); (b) no symbol
# escapes DIR or is written as HTML: '..', '<script>...', DIR's own file names, a clash of
# folder names; (c) shards with --report + `wfo merge --report` write the one-host pages, and
# merge --report refuses partials without them; (d) the page in headless Chromium when there
# is one: every symbol's row and link drawn, sorting by a click.
# usage: wfo_universe_report_test.sh WFO SHARED_DATA_DIR
set -euo pipefail
WFO=${1:?usage: wfo_universe_report_test.sh WFO SHARED_DATA_DIR}
DATA=${2:?usage: wfo_universe_report_test.sh WFO SHARED_DATA_DIR}
source "$(dirname "$0")/lib.sh"
shopt -s nullglob
DAILY=("$DATA"/*_d1_*.csv)
((${#DAILY[@]} >= 2)) || { echo "SKIP: no shared daily data in $DATA"; exit 77; }
SHORT=${DAILY[0]}
# The universe: the shared daily files, then hostile names on the first file. universe.cpp
# refuses '/', quotes, spaces and commas in a symbol; everything else must be made safe here.
U="$TMP/universe.csv"
{
  echo "symbol,path"
  for f in "${DAILY[@]}"; do
    s=$(basename "$f" .csv)
    echo "${s%%_*},$f"
  done
  echo "..,$SHORT"
  echo "<script>alert(1)<!--x,$SHORT"
  echo "index.html,$SHORT"
  echo "a&b,$SHORT"
  echo "a_b,$SHORT"
  echo "A_B,$SHORT"
} >"$U"
G=(--family ma_cross --fast 5:20:5 --slow 30:60:10 --warmup 60 --is 100 --oos 40 --backend cpu)
mkdir -p "$TMP/runs"
R="$TMP/runs/rep"
run_wfo walk --universe "$U" "${G[@]}" --report "$R"
expect_rc 0 "universe --report"
no_abort "universe --report"
expect_err "report: $R/index.html" "the report's path"
# Nothing but DIR was created beside it: no symbol reached ../ of DIR.
[[ $(ls "$TMP/runs") == rep ]] || fail "files outside DIR: $(ls "$TMP/runs")"

python3 - "$U" "$R" <<'PY' || fail "the universe report"
import csv, html, json, os, re, sys
u, root = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(u)))
doc = json.load(open(os.path.join(root, "universe.json")))
page = open(os.path.join(root, "index.html"), encoding="utf-8").read()
m = re.search(r'<script id="report-data" type="application/json">(.*?)</script>', page, re.S)
assert m, "index.html has no data block"
assert json.loads(m.group(1))["symbols"] == doc["symbols"], "index.html's data is not universe.json's"
assert [s["symbol"] for s in doc["symbols"]] == [r["symbol"] for r in rows], "symbols, in order"
# Every folder a direct child of DIR, distinct even letter case aside, none DIR's own file.
dirs = [s["dir"] for s in doc["symbols"]]
assert len({d.lower() for d in dirs}) == len(dirs), dirs
for d in dirs:
    assert re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.~-]*", d), d
    assert d.lower() not in ("index.html", "universe.json"), d
    p = os.path.realpath(os.path.join(root, d))
    assert os.path.dirname(p) == os.path.realpath(root), (d, p)
    for f in ("report.html", "report.json", "folds.csv", "equity.csv", "trades.csv"):
        assert os.path.isfile(os.path.join(p, f)), (d, f)
by = {s["symbol"]: s["dir"] for s in doc["symbols"]}
assert by[".."] == "_.." and by["index.html"] == "_index.html", by
assert by["a&b"] == "a_b" and by["a_b"] == "a_b~2" and by["A_B"] == "A_B~3", by
assert all(s["page"] == s["dir"] + "/report.html" for s in doc["symbols"])
assert sorted(os.listdir(root)) == sorted(dirs + ["index.html", "universe.json"]), os.listdir(root)
# The hostile name only as data: in the JSON block '<' is \u003c, never a tag; the title and
# the rest of the page do not hold it.
assert "<script>alert" not in page, "a symbol written as HTML"
assert "alert(1)" not in page.replace(m.group(1), ""), "a symbol outside the data block"
assert "\\u003cscript>alert(1)\\u003c!--x" in m.group(1)
# Every walked symbol's row holds its walk's numbers.
for s in doc["symbols"]:
    r = json.load(open(os.path.join(root, s["dir"], "report.json")))
    assert r["kind"] == "walk", r["kind"]
p = doc["portfolio"]
e = doc["equity"]
assert len(e["dates"]) == len(e["strategy"]) == len(e["buy_and_hold"]) == p["bars"]
tr = e["strategy"][-1] - 1
assert abs(tr - p["strategy"]["total_return"]) <= 1e-9 * max(1, abs(tr)), (tr, p["strategy"])
print(f"ok universe report: {len(dirs)} symbols, safe folders, index.html holds them as data")
PY

# (a) each symbol's folder = wfo walk --csv FILE --report of that file.
strip='def strip(r):
    r.pop("generated")
    r["summary"].pop("seconds", None)
    # The folder and the command lines naming it (the universe page'"'"'s run is another).
    for k in ("report_dir", "command_as_run", "command"):
        r["inputs"].pop(k)
    return r'
n=0
while IFS=, read -r sym path; do
  [[ $sym == symbol ]] && continue
  dir=$(python3 -c 'import json,sys; print({s["symbol"]: s["dir"] for s in json.load(open(sys.argv[1]))["symbols"]}[sys.argv[2]])' "$R/universe.json" "$sym")
  run_wfo walk --csv "$path" "${G[@]}" --report "$TMP/single"
  expect_rc 0 "single walk report of $sym"
  for f in folds.csv equity.csv trades.csv objective.csv; do
    cmp -s "$TMP/single/$f" "$R/$dir/$f" || fail "$sym: $f differs from its single walk's"
  done
  python3 -c "$strip"'
import json, shlex, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
# The equivalent command of a symbol'"'"'s page is --csv FILE ... --report DIR/NAME: it writes
# that page again.
want = a["inputs"]["command"].replace("--report " + shlex.quote(sys.argv[3]),
                                     "--report " + shlex.quote(sys.argv[4]))
assert b["inputs"]["command"] == want, (b["inputs"]["command"], want)
a, b = strip(a), strip(b)
assert a == b, [k for k in a if a[k] != b.get(k)]
' "$TMP/single/report.json" "$R/$dir/report.json" "$TMP/single" "$R/$dir" || fail "$sym: report.json differs from its single walk's"
  n=$((n + 1))
done <"$U"
echo "ok $n per-symbol pages = their single walks' reports"

# (c) shards with --report, merged with --report: the one-host pages.
for i in 0 1 2; do
  run_wfo walk --universe "$U" "${G[@]}" --shard "$i/3" --out "$TMP/part$i.json" --report "$R"
  expect_rc 0 "shard $i/3 with --report"
done
M="$TMP/merged"
run_wfo merge "$TMP"/part{2,0,1}.json --report "$M"
expect_rc 0 "merge --report"
expect_err "report: $M/index.html" "merge's report path"
python3 -c "$strip"'
import filecmp, json, os, sys
one, merged = sys.argv[1:3]
assert sorted(os.listdir(one)) == sorted(os.listdir(merged)), "other files"
a, b = (json.load(open(os.path.join(d, "universe.json"))) for d in (one, merged))
a.pop("generated"); b.pop("generated")
assert a == b, [k for k in a if a[k] != b[k]]
for d in a["symbols"]:
    for f in os.listdir(os.path.join(one, d["dir"])):
        x, y = os.path.join(one, d["dir"], f), os.path.join(merged, d["dir"], f)
        if f == "report.json":
            assert strip(json.load(open(x))) == strip(json.load(open(y))), x
        elif f != "report.html":
            assert filecmp.cmp(x, y, shallow=False), x
print("ok merge --report = the one-host report")
' "$R" "$M" || fail "merge --report vs one host"
run_wfo walk --universe "$U" "${G[@]}" --shard 1/3 --out "$TMP/plain1.json"
expect_rc 0 "a shard without --report"
run_wfo merge "$TMP/part0.json" "$TMP/plain1.json" "$TMP/part2.json" --report "$TMP/m2"
expect_rc 2 "merge --report of a partial without pages"
expect_err "$TMP/plain1.json: symbol" "the partial without pages named"
[[ ! -e $TMP/m2 ]] || fail "merge --report left a folder after refusing"
run_wfo merge "$TMP/part0.json" "$TMP/plain1.json" "$TMP/part2.json"
expect_rc 0 "merge without --report takes partials with and without pages"
run_wfo merge "$TMP/part0.json" --report
expect_rc 2 "merge --report without DIR"

# (d) the page in a browser: rows, links, sort by a click.
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [[ -n $CHROME ]]; then
  cat >"$TMP/probe.js" <<'JS'
window.addEventListener('load', function () {
  var out = {};
  try {
    var t = document.getElementById('symbols');
    out.links = Array.prototype.map.call(t.querySelectorAll('tbody a'), function (a) {
      return [a.textContent, a.getAttribute('href')];
    });
    t.querySelector('th[data-key="oos_sharpe"]').click();
    out.sorted = Array.prototype.map.call(t.querySelectorAll('tbody tr'), function (tr) {
      return tr.children[5].textContent;
    });
    out.svgs = document.querySelectorAll('svg').length;
  } catch (e) { out.error = String(e); }
  document.body.setAttribute('data-probe', JSON.stringify(out));
});
JS
  # The probe runs after the page's own script, in a copy of the page.
  python3 - "$R/index.html" "$TMP/probe.js" "$R/probe.html" <<'PY'
import sys
page = open(sys.argv[1], encoding="utf-8").read()
probe = open(sys.argv[2]).read()
open(sys.argv[3], "w", encoding="utf-8").write(page.replace("</body>", "<script>" + probe + "</script></body>"))
PY
  timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --dump-dom "file://$R/probe.html" \
    >"$TMP/dom.html" 2>/dev/null || fail "chromium could not render the page"
  python3 - "$TMP/dom.html" "$R/universe.json" <<'PY' || fail "the page in the browser"
import html, json, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
doc = json.load(open(sys.argv[2]))
m = re.search(r'data-probe="([^"]*)"', dom)
assert m, "the probe did not run"
out = json.loads(html.unescape(m.group(1)))
assert "error" not in out, out
assert out["links"] == [[s["symbol"], s["page"]] for s in doc["symbols"]], out["links"]
vals = [float(v) for v in out["sorted"] if v != "-"]
assert vals == sorted(vals, reverse=True), out["sorted"]
assert out["svgs"] >= 3, out["svgs"]
print("ok the page in chromium: rows and links as text, sorted by a click, charts drawn")
PY
  rm -f "$R/probe.html"
else
  echo "note: no chromium; the page was not rendered"
fi
echo "PASS"
