#!/usr/bin/env bash
# Issue 47 item 3 on a real Slurm: tools/slurm/wfo-universe.sbatch submits a 3-shard array
# and the dependent merge (with WFO_REPORT: the universe report too, checked for every
# symbol's page), and the merge's result.json equals `wfo walk --universe` on this
# host outside "run". On the cluster this machine is a client of (sinfo shows a node up; the
# build folder must be on a path its nodes share), else on a one-node cluster the test starts
# on loopback (slurm_one_node.sh: munged, slurmctld, slurmd from Debian's packages, all files
# in the test's temp dir). Skipped (77), saying why, where neither can run.
# usage: wfo_universe_slurm_test.sh WFO SHARED_DATA_DIR REPO_GOOG_CSV
set -euo pipefail
WFO=${1:?usage: wfo_universe_slurm_test.sh WFO SHARED_DATA_DIR REPO_GOOG_CSV}
DATA=${2:?usage: wfo_universe_slurm_test.sh WFO SHARED_DATA_DIR REPO_GOOG_CSV}
REPO_GOOG=${3:?usage: wfo_universe_slurm_test.sh WFO SHARED_DATA_DIR REPO_GOOG_CSV}
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_one_node.sh"
SBATCH_SCRIPT="$(cd "$(dirname "$0")/../../tools/slurm" && pwd)/wfo-universe.sbatch"
[[ -r "$DATA/goog_d1_2004-2013.csv" ]] || { echo "SKIP: no shared data in $DATA"; exit 77; }
states=$(command -v sinfo >/dev/null && timeout 10 sinfo -h -o %T 2>/dev/null || true)
if grep -qE '^(idle|mixed|allocated)' <<<"$states"; then
  echo "on the configured Slurm cluster"
else
  rc=0
  slurm_one_node_start || rc=$?
  ((rc == 0)) || exit "$rc"
  echo "on a one-node Slurm started on loopback ($SLURM_CONF)"
fi
REPO_GOOG="$(cd "$(dirname "$REPO_GOOG")" && pwd)/$(basename "$REPO_GOOG")"
WFO="$(cd "$(dirname "$WFO")" && pwd)/$(basename "$WFO")"

{
  echo "symbol,path"
  for f in "$DATA"/*_d1_*.csv; do echo "$(basename "$f" .csv),$f"; done
  echo "goog_repo,$REPO_GOOG"
} >"$TMP/universe.csv"
G=(--family ma_cross --fast 5:20:5 --slow 30:60:10 --warmup 60 --is 100 --oos 40 --backend cpu)
run_wfo walk --universe "$TMP/universe.csv" "${G[@]}" --json
expect_rc 0 "one-host run"
cp "$TMP/out" "$TMP/one.json"

OUT="$TMP/slurm"
# With the HTML report (WFO_REPORT): the shards keep the pages, the merge writes them.
WFO="$WFO" WFO_SHARDS=3 WFO_OUT="$OUT" WFO_REPORT="$OUT/report" bash "$SBATCH_SCRIPT" "$TMP/universe.csv" "${G[@]}" >"$TMP/submit.txt" 2>&1 ||
  { cat "$TMP/submit.txt"; fail "sbatch refused the jobs"; }
merge_job=$(sed -n 's/^merge: job \([0-9]*\) .*/\1/p' "$TMP/submit.txt")
[[ -n $merge_job ]] || { cat "$TMP/submit.txt"; fail "no merge job id"; }
# Bounded wait: the jobs take seconds on an idle node.
for _ in $(seq 1 120); do
  [[ -s "$OUT/result.json" && -s "$OUT/result.txt" ]] && break
  squeue -h -j "$merge_job" 2>/dev/null | grep -q . || { sleep 1; [[ -s "$OUT/result.txt" ]] && break; }
  sleep 1
done
[[ -s "$OUT/result.json" ]] || { tail -n 5 "$OUT"/*.log 2>/dev/null; scancel "$merge_job" 2>/dev/null || true; fail "no result.json from the merge job"; }
python3 - "$TMP/one.json" "$OUT/result.json" <<'PY' || fail "Slurm result vs one host"
import json, sys
one, slurm = (json.load(open(p)) for p in sys.argv[1:])
assert [s["shard"] for s in slurm["run"]["shards"]] == ["0/3", "1/3", "2/3"]
one.pop("run"); slurm.pop("run")
assert json.dumps(one) == json.dumps(slurm), [k for k in one if one[k] != slurm[k]]
print(f"ok Slurm: 3 array tasks + the dependent merge = the one-host run ({len(one['symbols'])} symbols)")
PY
python3 - "$TMP/one.json" "$OUT/report" <<'PY' || fail "Slurm report"
import json, os, sys
one = json.load(open(sys.argv[1]))
page = json.load(open(os.path.join(sys.argv[2], "universe.json")))
assert os.path.isfile(os.path.join(sys.argv[2], "index.html"))
assert [s["symbol"] for s in page["symbols"]] == [s["symbol"] for s in one["symbols"]]
for s in page["symbols"]:
    assert os.path.isfile(os.path.join(sys.argv[2], s["page"])), s["page"]
print(f"ok Slurm report: index.html and {len(page['symbols'])} symbol pages")
PY
echo "PASS"
