#!/usr/bin/env bash
# Grids that cannot be what the user meant fail up front with exit 2 and a message that
# names the problem: no valid combo at all (fast >= slow everywhere; vol_short >= vol_long),
# for sweep and walk alike, and a value listed twice on an axis (flags and TOML). A grid
# whose valid combos all fail the constraints is a result (exit 0) that says which
# constraint removed them.
# usage: wfo_grid_errors_test.sh WFO CSV
set -euo pipefail
WFO=${1:?usage: wfo_grid_errors_test.sh WFO CSV}
CSV=${2:?usage: wfo_grid_errors_test.sh WFO CSV}
source "$(dirname "$0")/lib.sh"

# No valid combo: fast >= slow for every combo.
run_wfo sweep --csv "$CSV" --family ma_cross --fast 50:60:5 --slow 10:30:10
expect_rc 2 "sweep, fast >= slow everywhere"
expect_err "no valid combo in the grid: of its 9 combos, every one has fast >= slow (fast 50..60, slow 10..30)" \
  "sweep, fast >= slow everywhere"
[[ ! -s "$TMP/out" ]] || fail "sweep without a valid combo printed a result"
run_wfo walk --csv "$CSV" --family ma_cross --fast 50:60:5 --slow 10:30:10 --is 500 --oos 250
expect_rc 2 "walk, fast >= slow everywhere"
expect_err "no valid combo in the grid" "walk, fast >= slow everywhere"
! grep -q "PBO nan" "$TMP/out" || fail "walk printed flat folds"
# vol_short >= vol_long for every combo.
run_wfo sweep --csv "$CSV" --family channel_breakout --n 20 --vol-short 30,40 --vol-long 10,20 \
  --vol-threshold 1
expect_rc 2 "sweep, vol_short >= vol_long everywhere"
expect_err "every one has vol_short >= vol_long (vol_short 30..40, vol_long 10..20)" \
  "sweep, vol_short >= vol_long everywhere"

# Valid combos, none passes the constraints: a result, with the constraint that removed them.
run_wfo sweep --csv "$CSV" --family ma_cross --fast 5:20:5 --slow 30:60:10 --min-trades 100000 \
  --no-selection
expect_rc 0 "constraints remove every combo"
grep -qF "no combo passed the constraints: of 16 valid combos, 16 have fewer than 100000 trades (min_trades)" \
  "$TMP/out" || fail "constraints: the table does not say which constraint removed the combos"
run_wfo sweep --csv "$CSV" --family ma_cross --fast 5:20:5 --slow 30:60:10 --min-trades 100000 \
  --no-selection --json
expect_rc 0 "constraints remove every combo (json)"
grep -q '"min_trades": 16' "$TMP/out" || fail "json lacks unranked_by.min_trades"

# A value listed twice: flags.
run_wfo sweep --csv "$CSV" --family ma_cross --fast 5,5,5,5,10 --slow 30 --no-selection
expect_rc 2 "--fast 5,5,5,5,10"
expect_err "--fast: lists 5 more than once" "--fast 5,5,5,5,10"
run_wfo walk --csv "$CSV" --family ma_cross --fast 5 --slow 30 --ma sma,sma --is 500 --oos 250
expect_rc 2 "--ma sma,sma"
expect_err "--ma: lists sma more than once" "--ma sma,sma"
# ... and TOML [strategy.grid] (what the daemon reads too).
cat >"$TMP/dup.toml" <<TOML
[[symbol]]
name = "GOOG"
backfill = "$CSV"

[[strategy]]
name = "dup"
symbols = ["GOOG"]
family = "ma_cross"
window = 500
[strategy.grid]
fast = [5, 10, 5]
slow = 30
TOML
run_wfo sweep --config "$TMP/dup.toml" --no-selection
expect_rc 2 "TOML fast = [5, 10, 5]"
expect_err "key 'strategy[0].grid.fast': lists 5 more than once" "TOML fast = [5, 10, 5]"
# One-value ranges and decimal ranges are fine.
run_wfo sweep --csv "$CSV" --family channel_breakout --n 20:20:1 --vol-short 5 --vol-long 30 \
  --vol-threshold 0.8:1.2:0.2 --no-selection
expect_rc 0 "--n 20:20:1 --vol-threshold 0.8:1.2:0.2"
echo "PASS: wfo_grid_errors"
