#!/usr/bin/env bash
# SPEC §5a's "file named on the command line": `wfo sweep|walk|positions --rules FILE`
# (docs/rules-files.md, spec-notes item 88). The example rules file gives exactly what the same
# strategy gives from a config (--config --strategy): sweep JSON, walk and positions; its name
# is the file's up to the first dot; flags override it; and the errors, each located in the
# file (FILE:LINE:COL): a rule's syntax (with the rule's key and column), a grid key not in
# params (named 'grid.KEY'), symbols, --rules beside --config, no --csv; the default backend runs it.
# usage: wfo_rules_file_test.sh WFO SOURCE_DIR CSV
set -euo pipefail
WFO=${1:?usage: wfo_rules_file_test.sh WFO SOURCE_DIR CSV}
SRC=${2:?usage: wfo_rules_file_test.sh WFO SOURCE_DIR CSV}
CSV=${3:?usage: wfo_rules_file_test.sh WFO SOURCE_DIR CSV}
source "$(dirname "$0")/lib.sh"
[[ -r "$CSV" ]] || { echo "SKIP: no $CSV"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
RULES="$SRC/config/examples/pullback.rules.toml"

# The same strategy as a config's [[strategy]]: the rules file's keys under [[strategy]],
# [rules] -> [strategy.rules], [grid] -> [strategy.grid].
CONFIG="$TMP/wfod.toml"
{
  printf '[[symbol]]\nname = "X"\n\n[[strategy]]\nname = "pullback"\nsymbols = ["X"]\nfamily = "rules"\n'
  sed -e 's/^\[rules\]/[strategy.rules]/' -e 's/^\[grid\]/[strategy.grid]/' "$RULES"
} >"$CONFIG"

run_wfo sweep --rules "$RULES" --csv "$CSV" --backend cpu_ref --json --no-selection --top 20
expect_rc 0 "sweep --rules"
cp "$TMP/out" "$TMP/rules.json"
run_wfo sweep --config "$CONFIG" --strategy pullback --csv "$CSV" --backend cpu_ref --json \
  --no-selection --top 20
expect_rc 0 "sweep --config"
python3 - "$TMP/rules.json" "$TMP/out" <<'PY' || fail "sweep --rules differs from --config"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["top"] and a["top"] == b["top"], "top-K differs"
assert a["evaluated"] == b["evaluated"] and a["skipped"] == b["skipped"]
assert list(a["top"][0]["params"]) == ["fast", "slow", "lvl", "stop_loss", "take_profit",
                                       "trailing_stop"], a["top"][0]["params"]
PY
best=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["top"][0]["id"])' "$TMP/rules.json")

run_wfo positions --rules "$RULES" --csv "$CSV" --backend cpu_ref --id "$best"
expect_rc 0 "positions --rules"
cp "$TMP/out" "$TMP/rules.pos"
run_wfo positions --config "$CONFIG" --strategy pullback --csv "$CSV" --backend cpu_ref --id "$best"
expect_rc 0 "positions --config"
cmp -s "$TMP/rules.pos" "$TMP/out" || fail "positions --rules differ from --config"
grep -q ',1$' "$TMP/rules.pos" || fail "combo $best never long: the check exercises nothing"

run_wfo walk --rules "$RULES" --csv "$CSV" --backend cpu_ref --is 1000 --oos 250 --json \
  --no-selection --stop-loss 0.03
expect_rc 0 "walk --rules"
cp "$TMP/out" "$TMP/rules_walk.json"
run_wfo walk --config "$CONFIG" --strategy pullback --csv "$CSV" --backend cpu_ref --is 1000 \
  --oos 250 --json --no-selection --stop-loss 0.03
expect_rc 0 "walk --config"
python3 - "$TMP/rules_walk.json" "$TMP/out" <<'PY' || fail "walk --rules differs from --config"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["folds"] and a["folds"] == b["folds"], "folds differ"
for f in a["folds"]:
    assert f["params"]["stop_loss"] == 0.03, f["params"]  # the flag replaced the axis
PY

# The name: the file's up to its first dot, in the table header.
run_wfo sweep --rules "$RULES" --csv "$CSV" --backend cpu_ref --no-selection --top 1
expect_rc 0 "sweep --rules (table)"
grep -q "(strategy pullback)" "$TMP/out" || fail "the strategy's name is not 'pullback'"

# Errors, located in the rules file.
BAD="$TMP/bad.rules.toml"
# shellcheck disable=SC2016 # $fast is the rule's parameter, not the shell's
printf 'window = 100\n[rules]\nparams = ["fast"]\nindicators = { f = "ema($fast)" }\nlong_entry = "f > close and (close > 1"\n[grid]\nfast = [5, 10]\n' >"$BAD"
run_wfo sweep --rules "$BAD" --csv "$CSV" --backend cpu_ref
expect_rc 2 "a bad rule"
expect_err "$BAD:5:39: strategy \"bad\": rules.long_entry:25: expected ')' after '1'" "a bad rule"
# shellcheck disable=SC2016
printf 'window = 100\n[rules]\nparams = ["fast"]\nindicators = { f = "ema($fast)" }\nlong_entry = "f > close"\n[grid]\nfast = [5, 10]\nslow = 3\n' >"$BAD"
run_wfo sweep --rules "$BAD" --csv "$CSV" --backend cpu_ref
expect_rc 2 "a grid key not in params"
expect_err "$BAD:8:1: key 'grid.slow': not in rules.params (fast)" "a grid key not in params"
printf 'symbols = ["GOOG"]\nwindow = 100\n' >"$BAD"
run_wfo sweep --rules "$BAD" --csv "$CSV" --backend cpu_ref
expect_rc 2 "symbols"
expect_err "$BAD:1:11: key 'symbols': a rules file takes no symbols" "symbols"
run_wfo sweep --rules "$RULES" --config "$CONFIG" --csv "$CSV"
expect_rc 2 "--rules with --config"
expect_err "--rules FILE and --config" "--rules with --config"
run_wfo sweep --rules "$RULES"
expect_rc 2 "--rules without --csv"
expect_err "--csv" "--rules without --csv"
# The default backend (auto: cpu without a GPU) runs it too, with cpu_ref's winner.
run_wfo sweep --rules "$RULES" --csv "$CSV" --json --no-selection --top 1
expect_rc 0 "the default backend"
got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["top"][0]["id"])' "$TMP/out")
[[ "$got" == "$best" ]] || fail "the default backend's winner $got differs from cpu_ref's $best"
run_wfo sweep --help
grep -q -- "--rules FILE" "$TMP/out" || fail "wfo sweep --help lacks --rules"
echo "PASS"
