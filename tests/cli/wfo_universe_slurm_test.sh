#!/usr/bin/env bash
# Issue 47 item 3 on a real Slurm: tools/slurm/wfo-universe.sbatch submits a 3-shard array
# and the dependent merge, and the merge's result.json equals `wfo walk --universe` on this
# host outside "run". Needs a running cluster this user can submit to (sinfo shows a node
# up) and the build folder on a path its nodes share; skipped (77) otherwise: the test does
# not start munged, slurmctld or slurmd (docs/operations.md says how one node runs them).
# usage: wfo_universe_slurm_test.sh WFO SHARED_DATA_DIR REPO_GOOG_CSV
set -euo pipefail
WFO=${1:?usage: wfo_universe_slurm_test.sh WFO SHARED_DATA_DIR REPO_GOOG_CSV}
DATA=${2:?usage: wfo_universe_slurm_test.sh WFO SHARED_DATA_DIR REPO_GOOG_CSV}
REPO_GOOG=${3:?usage: wfo_universe_slurm_test.sh WFO SHARED_DATA_DIR REPO_GOOG_CSV}
source "$(dirname "$0")/lib.sh"
SBATCH_SCRIPT="$(cd "$(dirname "$0")/../../tools/slurm" && pwd)/wfo-universe.sbatch"
command -v sbatch >/dev/null && command -v sinfo >/dev/null || { echo "SKIP: no Slurm client"; exit 77; }
states=$(timeout 10 sinfo -h -o %T 2>/dev/null || true)
grep -qE '^(idle|mixed|allocated)' <<<"$states" || { echo "SKIP: no Slurm node up (sinfo: ${states:-no answer})"; exit 77; }
[[ -r "$DATA/goog_d1_2004-2013.csv" ]] || { echo "SKIP: no shared data in $DATA"; exit 77; }
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
WFO="$WFO" WFO_SHARDS=3 WFO_OUT="$OUT" bash "$SBATCH_SCRIPT" "$TMP/universe.csv" "${G[@]}" >"$TMP/submit.txt" 2>&1 ||
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
echo "PASS"
