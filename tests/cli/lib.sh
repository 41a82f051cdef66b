# Shared shell helpers of the wfo end-to-end tests (sourced, not run): a temp dir removed on
# exit, fail(), and run_wfo, which records a run's exit code, stdout and stderr.
# shellcheck shell=bash

TMP=$(mktemp -d "${TMPDIR:-/tmp}/wfo_cli.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

fail() {
  echo "FAIL: $*"
  for f in "$TMP"/out "$TMP"/err; do
    [[ -s "$f" ]] || continue
    echo "--- $(basename "$f") (last lines) ---"
    tail -n 20 "$f"
  done
  exit 1
}

# run_wfo ARGS...: runs "$WFO" ARGS with stdout in $TMP/out and stderr in $TMP/err; the exit
# code in RC. A command prefix (ulimits) goes in WFO_PREFIX, e.g. WFO_PREFIX="ulimit -v 1000000;".
run_wfo() {
  set +e
  bash -c "${WFO_PREFIX:-} exec \"\$0\" \"\$@\"" "$WFO" "$@" >"$TMP/out" 2>"$TMP/err"
  RC=$?
  set -e
}

# expect_rc CODE WHAT: the last run exited with CODE.
expect_rc() {
  [[ $RC -eq $1 ]] || fail "$2: exit code $RC, expected $1"
}

# expect_err TEXT WHAT: the last run's stderr contains TEXT (fixed string).
expect_err() {
  grep -qF -- "$1" "$TMP/err" || fail "$2: stderr lacks '$1'"
}

# no_abort WHAT: the last run did not die of std::terminate / a signal.
no_abort() {
  ((RC < 128)) || fail "$1: killed by signal $((RC - 128))"
  ! grep -q "terminate called" "$TMP/err" || fail "$1: std::terminate"
}

# minute_csv PATH BARS: a synthetic minute-bar CSV (a seeded random walk from 2022-01-01),
# so the memory tests need no data file beside the checkout. BARS <= 44,640 (31 days).
minute_csv() {
  awk -v bars="$2" 'BEGIN {
    srand(20240601);
    print "timestamp,open,high,low,close,volume";
    close_ = 100;
    for (i = 0; i < bars; i++) {
      open_ = close_ * (1 + (rand() - 0.5) * 0.002);
      close_ = open_ * (1 + (rand() - 0.5) * 0.01);
      hi = (open_ > close_ ? open_ : close_) * 1.001;
      lo = (open_ < close_ ? open_ : close_) * 0.999;
      printf "2022-01-%02dT%02d:%02d:00Z,%.6f,%.6f,%.6f,%.6f,1\n",
             1 + int(i / 1440), int(i / 60) % 24, i % 60, open_, hi, lo, close_;
    }
  }' >"$1"
}
