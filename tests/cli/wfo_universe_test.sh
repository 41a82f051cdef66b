#!/usr/bin/env bash
# Issue 47 items 1-3, `wfo walk --universe`, on the real daily files (the shared *_d1_*.csv
# and the repo's goog copy): (a) each symbol's entry equals its single-symbol `wfo walk
# --json` (less "seconds" and "timing") on cpu_ref and cpu, bit for bit, one symbol taking
# its bars per year from the universe file's column; the portfolio recomputed here from the
# partial's series; (b) --shard I/N --out + `wfo merge` equals the one-host run outside
# "run", in any order of the partials, and merge refuses a missing or repeated shard;
# (c) a symbol listed twice, a missing file, a bad file and a file too short for one fold,
# with and without --skip-bad-files; glob and folder universes.
# usage: wfo_universe_test.sh WFO SHARED_DATA_DIR REPO_GOOG_CSV
set -euo pipefail
WFO=${1:?usage: wfo_universe_test.sh WFO SHARED_DATA_DIR REPO_GOOG_CSV}
DATA=${2:?usage: wfo_universe_test.sh WFO SHARED_DATA_DIR REPO_GOOG_CSV}
REPO_GOOG=${3:?usage: wfo_universe_test.sh WFO SHARED_DATA_DIR REPO_GOOG_CSV}
source "$(dirname "$0")/lib.sh"
# The universe files below name it from other folders.
REPO_GOOG="$(cd "$(dirname "$REPO_GOOG")" && pwd)/$(basename "$REPO_GOOG")"
shopt -s nullglob
DAILY=("$DATA"/*_d1_*.csv)
((${#DAILY[@]} >= 2)) || { echo "SKIP: no shared daily data in $DATA"; exit 77; }

# The universe: the shared files by paths relative to the universe file (through a link
# beside it), the repo's goog by its absolute path; nvda (if there) with bars_per_year 250.
U="$TMP/u"
mkdir -p "$U"
ln -s "$DATA" "$U/data"
{
  echo "symbol,path,bars_per_year"
  for f in "${DAILY[@]}"; do
    s=$(basename "$f" .csv)
    s=${s%%_*}
    [[ $s == nvda ]] && echo "$s,data/$(basename "$f"),250" || echo "$s,data/$(basename "$f"),"
  done
  echo "goog_repo,$REPO_GOOG"
} >"$U/universe.csv"
NSYM=$(($(wc -l <"$U/universe.csv") - 1))
# A grid small enough for 2 cores, with robust selection (PBO on every fold); IS and OOS
# short enough for the shortest file (estx50, 255 bars).
G=(--family ma_cross --fast 5:20:5 --slow 30:60:10 --warmup 60 --is 100 --oos 40)

# (a) parity with single-symbol walks, per backend.
for backend in cpu_ref cpu; do
  run_wfo walk --universe "$U/universe.csv" "${G[@]}" --backend "$backend" --json
  expect_rc 0 "universe on $backend"
  no_abort "universe on $backend"
  cp "$TMP/out" "$TMP/universe_$backend.json"
  mkdir -p "$TMP/single_$backend"
  while IFS=, read -r sym path bpy; do
    [[ $sym == symbol ]] && continue
    [[ $path == /* ]] || path="$U/$path"
    extra=()
    [[ -n $bpy ]] && extra=(--bars-per-year "$bpy")
    run_wfo walk --csv "$path" "${G[@]}" --backend "$backend" --json "${extra[@]}"
    expect_rc 0 "single walk of $sym on $backend"
    cp "$TMP/out" "$TMP/single_$backend/$sym.json"
  done <"$U/universe.csv"
  python3 - "$TMP/universe_$backend.json" "$TMP/single_$backend" "$U/universe.csv" "$backend" <<'PY' || fail "parity on $backend"
import csv, json, sys
u = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[3])))
assert [e["symbol"] for e in u["symbols"]] == [r["symbol"] for r in rows], "symbol order"
assert u["universe"]["walked"] == len(rows) and not u["universe"]["skipped"]
for e, r in zip(u["symbols"], rows):
    single = json.load(open(f"{sys.argv[2]}/{r['symbol']}.json"))
    single.pop("timing"); single.pop("seconds")
    walk = dict(e["walk"])
    if r["bars_per_year"]:
        # The column is the symbol's --bars-per-year, said as its own source.
        assert walk["bars_per_year_source"] == "universe", walk["bars_per_year_source"]
        assert single["bars_per_year_source"] == "flag"
        walk.pop("bars_per_year_source"); single.pop("bars_per_year_source")
    if walk != single or json.dumps(walk, sort_keys=True) != json.dumps(single, sort_keys=True):
        diff = [k for k in set(walk) | set(single) if walk.get(k) != single.get(k)]
        sys.exit(f"{r['symbol']}: universe entry differs from its single walk in {diff}")
    s = e["summary"]
    assert s["oos_cagr"] == single["oos"]["cagr"] and s["oos_trades"] == single["oos"]["trades"]
    assert s["folds"] == len(single["folds"]) and s["wfe"] == single["wfe"]
    last = single["folds"][-1]
    assert s["pbo"] == last["selection"]["pbo"]["pbo"], "pbo: the last fold's"
    assert (s["last_winner"] or {}).get("id") == last["id"]
print(f"ok parity on {sys.argv[4]}: {len(rows)} symbols equal their single walks")
PY
done

# (b) shards and merge, on cpu: 3 shards of the universe, then the merge, against the one-host
# run of the same flags; the partials' series give the portfolio, recomputed here.
for i in 0 1 2; do
  run_wfo walk --universe "$U/universe.csv" "${G[@]}" --backend cpu --shard "$i/3" --out "$TMP/part$i.json" --json
  expect_rc 0 "shard $i/3"
  [[ ! -s "$TMP/out" ]] || fail "shard $i/3 printed a result on stdout"
  expect_err "wrote $TMP/part$i.json: shard $i/3" "line 89"
done
run_wfo merge "$TMP/part2.json" "$TMP/part0.json" "$TMP/part1.json" --json
expect_rc 0 "merge"
cp "$TMP/out" "$TMP/merged.json"
python3 - "$TMP/universe_cpu.json" "$TMP/merged.json" "$TMP"/part{0,1,2}.json <<'PY' || fail "merge vs one host"
import json, math, sys
one, merged = (json.load(open(p)) for p in sys.argv[1:3])
assert one["run_specific"] == ["run"] == merged["run_specific"]
assert [s["shard"] for s in merged["run"]["shards"]] == ["0/3", "1/3", "2/3"]
assert "merged" in merged["run"]
for d in (one, merged):
    d.pop("run")
assert one == merged, [k for k in one if one[k] != merged[k]]
assert json.dumps(one) == json.dumps(merged)
# Shard i holds symbols k with k mod 3 == i.
parts = [json.load(open(p)) for p in sys.argv[3:]]
for i, p in enumerate(parts):
    assert all(r["index"] % 3 == i for r in p["results"]), "shard membership"
results = sorted((r for p in parts for r in p["results"]), key=lambda r: r["index"])
# Each symbol's series compounds to its OOS total return.
for r in results:
    tr = math.prod(1 + x for x in r["series"]["s"]) - 1
    want = r["walk"]["oos"]["total_return"]
    assert abs(tr - want) <= 1e-9 * max(1, abs(want)), (r["symbol"], tr, want)
# The portfolio: per timestamp, the mean over the symbols with an OOS bar then.
def portfolio(key):
    acc = {}
    for r in results:
        for t, x in zip(r["series"]["ts_ns"], r["series"][key]):
            a = acc.setdefault(t, [0.0, 0])
            a[0] += x; a[1] += 1
    return [acc[t][0] / acc[t][1] for t in sorted(acc)]
p = merged["portfolio"]
for key, name in (("s", "strategy"), ("buy_hold", "buy_and_hold")):
    series = portfolio(key)
    assert p["bars"] == len(series)
    eq, peak, dd = 1.0, 1.0, 0.0
    for x in series:
        eq *= 1 + x; peak = max(peak, eq); dd = max(dd, 1 - eq / peak)
    got = p[name]
    assert abs(got["total_return"] - (eq - 1)) <= 1e-9 * max(1, abs(eq - 1)), (name, got, eq - 1)
    assert abs(got["max_drawdown"] - dd) <= 1e-12, (name, got["max_drawdown"], dd)
a = sorted(r["walk"]["bars_per_year"] for r in results)
med = a[len(a) // 2] if len(a) % 2 else (a[len(a) // 2 - 1] + a[len(a) // 2]) / 2
assert p["bars_per_year"] == med and p["bars_per_year_source"] == "median"
print(f"ok shard+merge: {len(results)} symbols in 3 shards, the one-host JSON outside \"run\"; portfolio recomputed")
PY
# The table of the merge is the one-host run's table.
run_wfo walk --universe "$U/universe.csv" "${G[@]}" --backend cpu
expect_rc 0 "universe table"
cp "$TMP/out" "$TMP/one_table.txt"
run_wfo merge "$TMP"/part{0,1,2}.json
expect_rc 0 "merge table"
cmp -s "$TMP/out" "$TMP/one_table.txt" || fail "merge table differs from the one-host table"
grep -q "Equal-weight portfolio" "$TMP/out" || fail "table lacks the portfolio"
echo "ok merge table = one-host table"
run_wfo merge "$TMP/part0.json" "$TMP/part2.json"
expect_rc 2 "merge with a shard missing"
expect_err "shards missing: 1/3" "line 148"
run_wfo merge "$TMP/part0.json" "$TMP/part1.json" "$TMP/part1.json" "$TMP/part2.json"
expect_rc 2 "merge with a shard twice"
expect_err "given twice" "line 151"
run_wfo walk --universe "$U/universe.csv" "${G[@]}" --backend cpu --no-selection --shard 0/3 --out "$TMP/other.json"
expect_rc 0 "a shard of other settings"
run_wfo merge "$TMP/other.json" "$TMP/part1.json" "$TMP/part2.json"
expect_rc 2 "merge of other settings"
expect_err "another run's settings" "line 156"
echo 'not json' >"$TMP/junk.json"
run_wfo merge "$TMP/junk.json"
expect_rc 2 "merge of junk"
no_abort "merge of junk"
run_wfo walk --universe "$U/universe.csv" "${G[@]}" --shard 0/3
expect_rc 2 "--shard without --out"
run_wfo walk --universe "$U/universe.csv" "${G[@]}" --shard 3/3 --out "$TMP/x.json"
expect_rc 2 "--shard 3/3"
echo "ok merge refuses a missing, repeated or foreign shard and junk"

# (c) errors in the universe and its files.
Q=("${G[@]}" --backend cpu --no-selection)
printf 'symbol,path\ngoog,%s\nnvda,%s\ngoog,%s\n' "$REPO_GOOG" "$REPO_GOOG" "$REPO_GOOG" >"$TMP/dup.csv"
run_wfo walk --universe "$TMP/dup.csv" "${Q[@]}"
expect_rc 2 "duplicate symbol"
expect_err "dup.csv:4: symbol 'goog' listed twice (first at line 2)" "line 172"
printf 'name,file\ngoog,%s\n' "$REPO_GOOG" >"$TMP/header.csv"
run_wfo walk --universe "$TMP/header.csv" "${Q[@]}"
expect_rc 2 "bad header"
expect_err "header.csv:1: the header must be symbol,path" "line 176"
# Neither the universe file nor a symbol's file may be a device read without end.
if [[ -r /dev/zero ]]; then
  run_wfo walk --universe /dev/zero "${Q[@]}"
  expect_rc 2 "a universe of /dev/zero"
  expect_err "/dev/zero:1: a line longer than 16 KiB: not a universe file" "/dev/zero universe"
  printf 'symbol,path\nzero,/dev/zero\n' >"$TMP/zero.csv"
  run_wfo walk --universe "$TMP/zero.csv" "${Q[@]}"
  expect_rc 2 "a symbol of /dev/zero"
  expect_err "/dev/zero:1: a line longer than 1 MiB" "/dev/zero symbol"
  echo "ok /dev/zero as the universe or a symbol's file is refused"
fi
printf 'timestamp,open,high,low,close,volume\n2020-01-01,1,1,1,oops,1\n' >"$TMP/bad.csv"
head -c 0 /dev/null >"$TMP/empty.csv"
SHORT="$DATA/estx50_d1_2006.csv"
printf 'symbol,path\ngoog,%s\nmissing,%s\nbad,%s\nempty,%s\ngoog2,%s\n' "$REPO_GOOG" \
  "$TMP/no_such.csv" "$TMP/bad.csv" "$TMP/empty.csv" "$REPO_GOOG" >"$TMP/bad_universe.csv"
run_wfo walk --universe "$TMP/bad_universe.csv" "${Q[@]}"
expect_rc 2 "missing file"
no_abort "missing file"
expect_err "symbol missing: " "line 185"
expect_err "no_such.csv" "line 186"
printf 'symbol,path\ngoog,%s\nbad,%s\n' "$REPO_GOOG" "$TMP/bad.csv" >"$TMP/bad_only.csv"
run_wfo walk --universe "$TMP/bad_only.csv" "${Q[@]}"
expect_rc 2 "bad file"
no_abort "bad file"
expect_err "symbol bad: $TMP/bad.csv" "line 191"
run_wfo walk --universe "$TMP/bad_universe.csv" "${Q[@]}" --skip-bad-files --json
expect_rc 0 "--skip-bad-files"
python3 - "$TMP/out" <<'PY' || fail "--skip-bad-files result"
import json, sys
d = json.load(open(sys.argv[1]))
assert [e["symbol"] for e in d["symbols"]] == ["goog", "goog2"], d["symbols"]
sk = d["universe"]["skipped"]
assert [s["symbol"] for s in sk] == ["missing", "bad", "empty"], sk
assert all(s["path"] in s["error"] for s in sk), sk
assert d["symbols"][0]["walk"] == d["symbols"][1]["walk"]
assert d["portfolio"]["symbols"] == 2
PY
expect_err "warning: skipping symbol missing" "line 204"
run_wfo walk --universe "$TMP/bad_universe.csv" "${Q[@]}" --skip-bad-files
expect_rc 0 "--skip-bad-files table"
grep -q "^skipped bad: $TMP/bad.csv" "$TMP/out" || fail "the table does not list the skipped file"
if [[ -r $SHORT ]]; then
  printf 'symbol,path\nestx50,%s\ngoog,%s\n' "$SHORT" "$REPO_GOOG" >"$TMP/short.csv"
  LONG=(--family ma_cross --fast 5:20:5 --slow 30:60:10 --is 1000 --oos 250 --backend cpu --no-selection)
  run_wfo walk --universe "$TMP/short.csv" "${LONG[@]}"
  expect_rc 2 "a file too short for one fold"
  expect_err "no whole fold fits" "line 213"
  run_wfo walk --universe "$TMP/short.csv" "${LONG[@]}" --skip-bad-files --json
  expect_rc 0 "a file too short, skipped"
fi
printf 'symbol,path\nbad,%s\nmissing,%s\n' "$TMP/bad.csv" "$TMP/no_such.csv" >"$TMP/all_bad.csv"
run_wfo walk --universe "$TMP/all_bad.csv" "${Q[@]}" --skip-bad-files
expect_rc 2 "every file skipped"
expect_err "no symbol of the universe could be walked" "line 220"
echo "ok errors: duplicate symbol, header, missing, bad, too short, all skipped"

# Glob and folder universes: symbol = file stem, name order; the same walks as the list's.
run_wfo walk --universe "$DATA/*_d1_*.csv" "${Q[@]}" --json
expect_rc 0 "glob universe"
cp "$TMP/out" "$TMP/glob.json"
mkdir -p "$TMP/folder"
for f in "${DAILY[@]}"; do ln -s "$f" "$TMP/folder/"; done
run_wfo walk --universe "$TMP/folder" "${Q[@]}" --json
expect_rc 0 "folder universe"
python3 - "$TMP/glob.json" "$TMP/out" "${DAILY[@]}" <<'PY' || fail "glob and folder universes"
import json, os, sys
g, f = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
stems = sorted(os.path.basename(p)[:-4] for p in sys.argv[3:])
assert [e["symbol"] for e in g["symbols"]] == stems == [e["symbol"] for e in f["symbols"]]
assert [e["walk"] for e in g["symbols"]] == [e["walk"] for e in f["symbols"]]
PY
echo "ok glob and folder universes"
echo "PASS"
