#!/usr/bin/env bash
# The log target chosen in main() (daemon/include/wfod/daemon/core/log_target.hpp): with
# JOURNAL_STREAM naming the file that is wfod's stderr, as systemd sets it for a unit whose
# output goes to the journal, log lines go to the journal natively (sd_journal_send with a
# priority), not as timestamped text on stderr; with JOURNAL_STREAM naming another file (a
# child whose stderr was redirected) or unset, stderr keeps today's text. The journal itself
# is not read (no journald needed): its lines simply must not appear on stderr.
# Exit 0 pass, 1 fail, 77 skipped.
#
# usage: daemon_journal_test.sh WFOD WFO_REPLAY WFO_SUB
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_journal "$WFOD" "$SUB"
: "$REPLAY"  # not needed here; the argument list is the other tests'

new_endpoints
mkdir -p "$TMP/state"
write_config "$TMP/wfod.toml" "$TMP/state" json GOOG "$(idle_strategy s GOOG)"

run_with() {  # $1 log name, $2 JOURNAL_STREAM value ("unset": none); the daemon's stderr in $TMP/$1.log
  local log="$TMP/$1.log" stream=$2
  : >"$log"
  [[ "$stream" == self ]] && stream=$(stat -c '%d:%i' "$log")
  if [[ "$stream" == unset ]]; then
    env -u JOURNAL_STREAM "$WFOD" --config "$TMP/wfod.toml" 2>>"$log" >/dev/null &
  else
    JOURNAL_STREAM="$stream" "$WFOD" --config "$TMP/wfod.toml" 2>>"$log" >/dev/null &
  fi
  local pid=$!
  PIDS+=("$pid")
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || fail "wfod exited at start ($1)"
    snap "$SNAP_EP" --health >/dev/null && break
    sleep 0.2
  done
  kill -TERM "$pid"
  wait "$pid" || fail "wfod ($1) did not stop cleanly"
}

TEXT='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+ info wfod serving symbols=1 streams=1$'
run_with unset unset
grep -qE "$TEXT" "$TMP/unset.log" || fail "no timestamped 'wfod serving' line on stderr without JOURNAL_STREAM"
run_with other "1:1"
grep -qE "$TEXT" "$TMP/other.log" || fail "JOURNAL_STREAM naming another file changed stderr's format"

run_with journal self
if ldd "$WFOD" 2>/dev/null | grep -q libsystemd; then
  # Sent to the journal: nothing of it on stderr (where no journald runs, spdlog may report
  # the failed sends there, but never the lines themselves).
  grep -q "wfod serving" "$TMP/journal.log" && fail "under the journal, lines still go to stderr as text"
  grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T' "$TMP/journal.log" && fail "a timestamped line on stderr under the journal"
  echo "JOURNAL_STREAM=<stderr's dev:ino>: lines went to the journal, none to stderr"
else
  # Built without libsystemd: text on stderr, without a second timestamp.
  grep -qx "info wfod serving symbols=1 streams=1" "$TMP/journal.log" ||
    fail "without libsystemd, the journal's stderr should get untimestamped text"
  echo "built without libsystemd: untimestamped text on stderr under JOURNAL_STREAM"
fi
echo "PASS"
