#!/usr/bin/env bash
# The daemon's backfill reads a Yahoo-style export (Date, Adj Close, any case): every row is
# a bar, and the log says once that Adj Close is not used. Exit 0/1/77.
#
# usage: daemon_backfill_dialect_test.sh WFOD WFO_REPLAY WFO_SUB CSV
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
CSV=${4:?usage: daemon_backfill_dialect_test.sh WFOD WFO_REPLAY WFO_SUB CSV}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_backfill_dialect "$WFOD" "$SUB"

SYMBOL=GOOG
BARS=300
awk -F, -v bars="$BARS" 'NR == 1 { print "Date,Open,High,Low,Close,Adj Close,Volume"; next }
  NR <= bars + 1 { printf "%s,%s,%s,%s,%s,%.4f,%s\n", $1, $2, $3, $4, $5, $5 * 0.9, $6 }' \
  "$CSV" >"$TMP/yahoo.csv"

new_endpoints
mkdir -p "$TMP/state"
CONFIG="$TMP/wfod.toml"
write_config "$CONFIG" "$TMP/state" json "$SYMBOL" "$(ma_strategy s "$SYMBOL")"
sed -i "s|^bars_per_year = 252|bars_per_year = 252\nbackfill = \"$TMP/yahoo.csv\"|" "$CONFIG"
start_daemon "$CONFIG" "$SNAP_EP" daemon
wait_bars "$SNAP_EP" "$SYMBOL" "$BARS"
NOTE="symbol $SYMBOL: backfill $TMP/yahoo.csv: column 'Adj Close' is not used"
[[ $(grep -cF "$NOTE" "$TMP/daemon.log") -eq 1 ]] ||
  fail "the log does not say once: $NOTE"
echo "PASS"
