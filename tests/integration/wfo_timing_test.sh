#!/usr/bin/env bash
# `wfo sweep` and `wfo walk` report the whole run's wall time and its parts (load, plan, sweep or
# walk, robust selection with its blocks / scores / CSCV / plateau / other), in the text
# output's last line and in the JSON's "timing" object; the parts add up within the total and
# "seconds" keeps meaning the sweep alone (a walk: its folds); a tiled sweep's tiles are all in
# its sweep time. Exit 0/1/77.
#
# usage: wfo_timing_test.sh WFO CSV
set -u
WFO=${1:-}
CSV=${2:?usage: wfo_timing_test.sh WFO CSV}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec wfo_timing "$WFO"

GRID=(--family ma_cross --fast 5:30:5 --slow 20:120:20 --ma sma --warmup 400 --threads 1)

"$WFO" sweep --csv "$CSV" "${GRID[@]}" --window 1200 --json >"$TMP/sweep.json" \
  2>"$TMP/sweep.log" || fail "wfo sweep --json failed"
jq -e '.timing as $t
  | ($t.total_seconds >= $t.load_seconds + $t.plan_seconds + $t.sweep_seconds
                         + $t.selection_seconds - 1e-6)
    and ($t.plan_seconds >= 0) and ($t.selection_seconds > 0) and ($t.selection.calls == 1)
    and ($t.selection.cscv_seconds > 0) and ($t.selection.blocks_seconds > 0)
    and ($t.selection.robust_seconds >= $t.selection.blocks_seconds
         + $t.selection.scores_seconds + $t.selection.cscv_seconds
         + $t.selection.plateau_seconds - 1e-6)
    and ($t.selection_seconds >= $t.selection.robust_seconds)
    and (.seconds <= $t.sweep_seconds)' "$TMP/sweep.json" >/dev/null ||
  fail "sweep timing: $(jq -c '.timing, .seconds' "$TMP/sweep.json")"

"$WFO" sweep --csv "$CSV" "${GRID[@]}" --window 1200 >"$TMP/sweep.txt" 2>"$TMP/sweep.log" ||
  fail "wfo sweep failed"
grep -Eq '; sweep [0-9.]+ s on cpu$' "$TMP/sweep.txt" || fail "no sweep time in: $(head -5 "$TMP/sweep.txt")"
LAST=$(tail -n 1 "$TMP/sweep.txt")
[[ "$LAST" =~ ^time:\ [0-9.]+\ s\ total\ =\ load\ [0-9.]+\ \+\ plan\ [0-9.]+\ \+\ sweep\ [0-9.]+\ \+\ selection\ [0-9.]+\ \(blocks\ [0-9.]+,\ scores\ [0-9.]+,\ CSCV\ [0-9.]+,\ plateau\ [0-9.]+,\ other\ [0-9.]+\)$ ]] ||
  fail "sweep time line: $LAST"

"$WFO" sweep --csv "$CSV" "${GRID[@]}" --window 1200 --no-selection --json >"$TMP/plain.json" \
  2>"$TMP/sweep.log" || fail "wfo sweep --no-selection failed"
jq -e '(.timing.selection == null) and (.timing.selection_seconds == null)
  and (.timing.total_seconds >= .timing.load_seconds + .timing.plan_seconds
                               + .timing.sweep_seconds - 1e-6)' "$TMP/plain.json" >/dev/null ||
  fail "no-selection timing: $(jq -c .timing "$TMP/plain.json")"

# A tiled sweep (399 indicator series held 4 MiB at a time under --memory-budget 16): every
# tile is inside sweep_seconds, the parts stay within the total, the top is the one-pass top.
TILED=(--family ma_cross --fast 2:200:1 --slow 201:400:1 --ma sma --warmup 400 --threads 1
  --window 1200 --no-selection --json)
"$WFO" sweep --csv "$CSV" "${TILED[@]}" --memory-budget 16 >"$TMP/tiled.json" \
  2>"$TMP/tiled.log" || fail "tiled wfo sweep failed: $(cat "$TMP/tiled.log")"
grep -q ', 4 MiB at a time;' "$TMP/tiled.log" || fail "not tiled: $(cat "$TMP/tiled.log")"
jq -e '(.timing.total_seconds >= .timing.load_seconds + .timing.plan_seconds
                                + .timing.sweep_seconds - 1e-6)
  and (.timing.sweep_seconds >= .seconds)' "$TMP/tiled.json" >/dev/null ||
  fail "tiled timing: $(jq -c '.timing, .seconds' "$TMP/tiled.json")"
"$WFO" sweep --csv "$CSV" "${TILED[@]}" >"$TMP/whole.json" 2>"$TMP/whole.log" ||
  fail "one-pass wfo sweep failed"
[[ "$(jq -c '[.top[].id]' "$TMP/tiled.json")" == "$(jq -c '[.top[].id]' "$TMP/whole.json")" ]] ||
  fail "tiled top differs from the one-pass top"

"$WFO" walk --csv "$CSV" "${GRID[@]}" --is 800 --oos 400 --json >"$TMP/walk.json" \
  2>"$TMP/walk.log" || fail "wfo walk --json failed"
jq -e '.timing as $t
  | ($t.selection.calls == (.folds | length)) and ($t.selection.calls >= 2)
    and ($t.walk_seconds == .seconds) and ($t.walk_seconds >= $t.selection_seconds)
    and ($t.total_seconds >= $t.load_seconds + $t.plan_seconds + $t.walk_seconds - 1e-6)
    and ($t.selection.cscv_seconds > 0)' "$TMP/walk.json" >/dev/null ||
  fail "walk timing: $(jq -c '.timing, .seconds' "$TMP/walk.json")"
"$WFO" walk --csv "$CSV" "${GRID[@]}" --is 800 --oos 400 >"$TMP/walk.txt" 2>"$TMP/walk.log" ||
  fail "wfo walk failed"
tail -n 1 "$TMP/walk.txt" | grep -Eq '^time: [0-9.]+ s total = load [0-9.]+ \+ plan [0-9.]+ \+ walk [0-9.]+ \(of which selection [0-9.]+ over [0-9]+ folds: blocks ' ||
  fail "walk time line: $(tail -n 1 "$TMP/walk.txt")"
echo "PASS: wfo_timing"
