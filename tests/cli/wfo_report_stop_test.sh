#!/usr/bin/env bash
# Issue 42 §3, an empty report folder: a run stopped by SIGINT (or failing on its input)
# before writing its report leaves no --report folder it created behind; a folder that
# existed is left as it was.
# usage: wfo_report_stop_test.sh WFO SHARED_DATA_DIR
set -euo pipefail
WFO=${1:?usage: wfo_report_stop_test.sh WFO SHARED_DATA_DIR}
DATA=${2:?usage: wfo_report_stop_test.sh WFO SHARED_DATA_DIR}
source "$(dirname "$0")/lib.sh"
BTC="$DATA/unittestbtc_m1_2017-11.csv"
[[ -r "$BTC" ]] || { echo "SKIP: no shared data in $DATA"; exit 77; }
# A run of many seconds on one thread (cpu_ref), stopped once its plan is out.
LONG=(sweep --csv "$BTC" --family ma_cross --fast 2:60:1 --slow 10:400:2 --ma sma,ema,wma
  --backend cpu_ref --threads 1 --bars-per-year 525600)

stop_run() {  # stop_run DIR: starts the long run with --report DIR, SIGINTs it after the plan
  set -m  # job control: the background run gets SIGINT's default action, not "ignored"
  "$WFO" "${LONG[@]}" --report "$1" >"$TMP/out" 2>"$TMP/err" &
  local pid=$!
  set +m
  for _ in $(seq 1 100); do
    grep -q "wfo: plan:" "$TMP/err" && break
    sleep 0.1
  done
  grep -q "wfo: plan:" "$TMP/err" || fail "no plan line within 10 s"
  sleep 0.5
  kill -INT "$pid"
  set +e
  wait "$pid"
  RC=$?
  set -e
}

stop_run "$TMP/new/nested/rep"
((RC == 130)) || fail "SIGINT: exit status $RC, expected 130 (killed by SIGINT)"
[[ ! -e "$TMP/new" ]] || fail "SIGINT left $(find "$TMP/new" | tr '\n' ' ')"
echo "ok SIGINT: the folders the run created are gone"

mkdir "$TMP/mine"
stop_run "$TMP/mine"
((RC == 130)) || fail "SIGINT (existing folder): exit status $RC"
[[ -d "$TMP/mine" && -z "$(ls -A "$TMP/mine")" ]] || fail "an existing folder was removed or written to"
echo "ok SIGINT: an existing folder is left as it was"

# An input error after the folder was made (the window does not fit): no folder either.
run_wfo sweep --csv "$BTC" --family ma_cross --fast 5 --slow 20 --window 99999 --report "$TMP/err_rep"
expect_rc 2 "a window longer than the data"
[[ ! -e "$TMP/err_rep" ]] || fail "an input error left the report folder"
echo "ok input error: no folder"
# A run that finishes keeps its report.
run_wfo sweep --csv "$BTC" --family ma_cross --fast 5 --slow 20 --no-selection --report "$TMP/done"
expect_rc 0 "a finished run"
[[ -s "$TMP/done/report.html" ]] || fail "a finished run has no report.html"
echo "PASS"
