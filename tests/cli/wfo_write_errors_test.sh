#!/usr/bin/env bash
# A write that fails is an error: every wfo command writing to a full device (/dev/full),
# stdout or a --report file, exits 1 with "wfo: error writing <what>: <reason>", instead of
# exiting 0 after a truncated document.
# usage: wfo_write_errors_test.sh WFO CSV
set -euo pipefail
WFO=${1:?usage: wfo_write_errors_test.sh WFO CSV}
CSV=${2:?usage: wfo_write_errors_test.sh WFO CSV}
source "$(dirname "$0")/lib.sh"
[[ -w /dev/full ]] || { echo "SKIPPED: no /dev/full"; exit 77; }

GRID=(--family ma_cross --fast 5:20:5 --slow 30:60:10 --csv "$CSV")
full() {  # full WHAT ARGS...: ARGS with stdout on /dev/full must fail as a write error
  local what=$1
  shift
  set +e
  "$WFO" "$@" >/dev/full 2>"$TMP/err"
  RC=$?
  set -e
  expect_rc 1 "$what"
  expect_err "wfo: error writing standard output: No space left on device" "$what"
}
full "sweep --json" sweep "${GRID[@]}" --json
full "sweep table" sweep "${GRID[@]}" --no-selection
full "walk --json" walk "${GRID[@]}" --is 500 --oos 250 --json
full "walk table" walk "${GRID[@]}" --is 500 --oos 250 --no-selection
full "indicators" indicators --csv "$CSV" --name sma --period 20
full "help" --help
full "sweep --help" sweep --help

# The same commands on a writable stdout succeed (the failures above are the device's).
run_wfo sweep "${GRID[@]}" --json --no-selection
expect_rc 0 "sweep --json to a file"

# A report file on a full device: the report writer says which file.
mkdir -p "$TMP/report"
ln -s /dev/full "$TMP/report/top.csv"
run_wfo sweep "${GRID[@]}" --no-selection --report "$TMP/report"
expect_rc 1 "sweep --report onto /dev/full"
expect_err "wfo: error writing $TMP/report/top.csv: No space left on device" "sweep --report"
echo "PASS: wfo_write_errors"
