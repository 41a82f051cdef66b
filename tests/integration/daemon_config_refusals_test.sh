#!/usr/bin/env bash
# Issue 43 item 1 (the check-config part): configs that --check-config accepted and the
# daemon could not run are refused by check-config and at start alike (exit 2, file:line:col
# and key named, nothing runs): a 2e12-bar window (std::bad_alloc, then a daemon waiting
# forever), a grid with no valid combo (ran forever, never published), an endpoint used
# twice in the file (publish = snapshot, http = publish, a feed on the daemon's own publish
# endpoint, the same feed twice), an ipc:// path whose folder is missing. A one-bar window,
# every > window and a warm-up shorter than the grid's longest period pass with a warning. A
# config whose streams' memory plan exceeds [daemon] memory_budget_mb is refused too.
# Exit 0 pass, 1 fail, 77 skipped.
#
# usage: daemon_config_refusals_test.sh WFOD WFO_REPLAY WFO_SUB
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_config_refusals "$WFOD" "$SUB"
: "$REPLAY"  # not needed here; the argument list is the other tests'

new_endpoints
GOOD="$TMP/good.toml"
write_config "$GOOD" "$TMP/state" json GOOG "$(ma_strategy s GOOG)"
"$WFOD" --check-config "$GOOD" >"$TMP/good.out" 2>&1 || fail "good config: $(cat "$TMP/good.out")"
grep -q "warning" "$TMP/good.out" && fail "good config warns: $(cat "$TMP/good.out")"
PUB_PORT=${PUB_EP##*:}
FEED2=$(free_port) || fail "no free port"

# bad NAME SED_EXPR KEY DETAIL: the good config edited by SED_EXPR fails both ways, at once.
bad() {
  local file="$TMP/$1.toml" rc out
  sed "$2" "$GOOD" >"$file"
  timeout 20 "$WFOD" --check-config "$file" >"$TMP/$1.check" 2>&1
  rc=$?
  [[ "$rc" == 2 ]] || fail "$1: check-config exit $rc, expected 2: $(cat "$TMP/$1.check")"
  out=$(head -n 1 "$TMP/$1.check")
  [[ "$out" =~ ^wfod:\ $file:[0-9]+:[0-9]+:\ key\ \'$3\':\  ]] ||
    fail "$1: the error does not name file:line:col and key '$3': $out"
  [[ "$out" == *"$4"* ]] || fail "$1: the error lacks '$4': $out"
  timeout 20 "$WFOD" --config "$file" >"$TMP/$1.run" 2>&1
  rc=$?
  [[ "$rc" == 2 ]] || fail "$1: wfod --config exit $rc, expected 2 (it must not run): $(tail -n 3 "$TMP/$1.run")"
  echo "$1: exit 2 both ways: ${out#wfod: }"
}
bad window_2e12 's/^window = 200/window = 2000000000000/' 'strategy\[0\]\.window' \
  "window = 2000000000000 bars is more than 4000000000"
bad no_valid_combo 's/^fast = .*/fast = "70:80:10"/' 'strategy\[0\]\.grid' \
  "no valid combo: of its 8 combos 8 have fast >= slow"
bad snapshot_is_publish "s|^snapshot = .*|snapshot = \"$PUB_EP\"|" publish.snapshot \
  "is also publish.endpoint (\"$PUB_EP\", $TMP/snapshot_is_publish.toml:8): the daemon cannot bind one address twice"
bad http_is_publish "s|^http = \"\"|http = \"127.0.0.1:$PUB_PORT\"|" publish.http \
  "is also publish.endpoint"
bad feed_on_own_publish "s|^endpoint = \"$FEED_EP\"|endpoint = \"$PUB_EP\"|" 'feed\[0\]\.endpoint' \
  "a feed on this daemon's own publish.endpoint (it would subscribe to its own publications)"
bad feed_twice "s|^format = \"json\"|format = \"json\"\n[[feed]]\nendpoint = \"$FEED_EP\"|" \
  'feed\[1\]\.endpoint' "the same feed twice"
bad ipc_folder_missing "s|^endpoint = \"$PUB_EP\"|endpoint = \"ipc://$TMP/no-such-folder/pub\"|" \
  publish.endpoint "the folder $TMP/no-such-folder does not exist"
# The memory plan (issue 43 item 1): the issue's 2.56e9-combo grid grew to 18.5 GB and was
# OOM-killed; a 1.6e8-combo one (the vol axes of that grid) against a 1 GiB budget, and the
# small grid against a budget below the process's own share, are refused before anything opens.
bad huge_grid 's/^slow = .*/slow = "30:60:10"\nvol_short = "1:1000:1"\nvol_long = "1001:2000:1"\nvol_threshold = "0.1:1.0:0.1"/;s/^log_level = .*/&\nmemory_budget_mb = 1024/' \
  'strategy\[0\]\.grid' "the memory plan does not fit: stream GOOG/s (160,000,000 combos, window 200) needs"
grep -q "combos of this strategy fit per stream" "$TMP/huge_grid.check" ||
  fail "huge_grid: the refusal does not say what fits: $(cat "$TMP/huge_grid.check")"
bad budget_1mb 's/^log_level = .*/&\nmemory_budget_mb = 1/' 'strategy\[0\]\.grid' \
  "against a budget of 1.0 MiB ([daemon] memory_budget_mb = 1). No stream of this strategy fits"
grep -q "^memory plan: 1 stream(s) .* budget" "$TMP/good.out" ||
  fail "check-config does not print the memory plan: $(cat "$TMP/good.out")"
echo "memory plan: $(grep '^memory plan' "$TMP/good.out")"

# warn NAME SED_EXPR KEY DETAIL: still valid (exit 0), with a warning at the key.
warn() {
  local file="$TMP/$1.toml" rc
  sed "$2" "$GOOD" >"$file"
  "$WFOD" --check-config "$file" >"$TMP/$1.check" 2>&1
  rc=$?
  [[ "$rc" == 0 ]] || fail "$1: check-config exit $rc, expected 0: $(cat "$TMP/$1.check")"
  grep -q "^wfod: warning: $file:[0-9]*:[0-9]*: key '$3': .*$4" "$TMP/$1.check" ||
    fail "$1: no warning at '$3' saying '$4': $(cat "$TMP/$1.check")"
  echo "$1: valid, warned: $(grep -o "key '$3'.*" "$TMP/$1.check" | head -n 1)"
}
warn window_1 's/^window = 200/window = 1\nwarmup = 60/' 'strategy\[0\]\.window' "window = 1: each run"
warn every_above_window 's/^every = 50/every = 300/' 'strategy\[0\]\.every' \
  "every = 300 > window = 200: 100 bars between runs are in no run's window"
warn short_warmup 's/^window = 200/window = 200\nwarmup = 10/' 'strategy\[0\]\.warmup' \
  "warmup = 10 is shorter than the grid's longest period 60"

# Warnings go to the log at start too, and the daemon runs.
sed -i "s|^endpoint = \"$FEED_EP\"|endpoint = \"tcp://127.0.0.1:$FEED2\"|" "$TMP/short_warmup.toml"
start_daemon "$TMP/short_warmup.toml" "$SNAP_EP" warned
grep -q "warning: $TMP/short_warmup.toml:.*key 'strategy\[0\]\.warmup'" "$TMP/warned.log" ||
  fail "the warning is not in the start-up output"
echo "a warned config runs, the warning in its log"
echo "PASS"
