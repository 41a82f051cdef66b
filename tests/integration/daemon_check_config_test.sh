#!/usr/bin/env bash
# `wfod --check-config` checks what can be checked without starting (PROTOCOL §4): endpoint
# syntax and port ranges, the http address, backfill files that exist and parse, a state_dir
# that can be created, stops on a backend that runs them; each error names file, line, column
# and key (exit 2), and
# `wfod --config` refuses the same files with exit 2 instead of running (a port of 99999 used
# to bind 34463). The shipped example passes. Exit 0 pass, 1 fail, 77 skipped.
#
# usage: daemon_check_config_test.sh WFOD WFO_REPLAY WFO_SUB
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_check_config "$WFOD" "$SUB"
: "$REPLAY"  # not needed here; the argument list is the other tests'
EXAMPLE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../config" && pwd)/wfod.example.toml"

"$WFOD" --check-config "$EXAMPLE" >"$TMP/example.out" 2>&1 ||
  fail "the shipped example fails check-config: $(cat "$TMP/example.out")"
echo "shipped example: $(head -n 1 "$TMP/example.out")"

# --help-config lists the key tables (tests/unit/config/key_help_test.cpp checks them in full).
"$WFOD" --help-config >"$TMP/help.out" 2>&1 || fail "--help-config exits non-zero"
grep -qx '  state_dir  (SIGHUP: restart)' "$TMP/help.out" &&
  grep -qx '  endpoint  (SIGHUP: restart; required)' "$TMP/help.out" ||
  fail "--help-config: $(head -n 20 "$TMP/help.out")"

new_endpoints
mkdir -p "$TMP/conf/history"
printf 'timestamp,open,high,low,close,volume\n2024-01-02,10,11,9,10,1\n' >"$TMP/conf/history/a.csv"
printf 'timestamp,open,high,low,close,volume\n2024-01-02,10,11,9,10,1\n2024-01-03,10,11,9,x,1\n' \
  >"$TMP/conf/history/bad.csv"
touch "$TMP/a_file"

# A valid config whose relative backfill resolves against the config's folder, checked from
# another working directory; its state_dir is checked, not created.
GOOD="$TMP/conf/good.toml"
write_config "$GOOD" "$TMP/state" json GOOG "$(ma_strategy s GOOG)"
sed -i 's|^bars_per_year = 252|bars_per_year = 252\nbackfill = "history/a.csv"|' "$GOOD"
(cd / && "$WFOD" --check-config "$GOOD") >"$TMP/good.out" 2>&1 || fail "good config: $(cat "$TMP/good.out")"
[[ -e "$TMP/state" ]] && fail "check-config created state_dir"

# bad NAME SED_EXPR KEY DETAIL: the good config edited by SED_EXPR must fail both ways.
bad() {
  local file="$TMP/conf/$1.toml" rc out
  sed "$2" "$GOOD" >"$file"
  "$WFOD" --check-config "$file" >"$TMP/$1.check" 2>&1
  rc=$?
  [[ "$rc" == 2 ]] || fail "$1: check-config exit $rc, expected 2: $(cat "$TMP/$1.check")"
  out=$(cat "$TMP/$1.check")
  [[ "$out" =~ ^wfod:\ $file:[0-9]+:[0-9]+:\ key\ \'$3\':\  ]] ||
    fail "$1: the error does not name file:line:col and key '$3': $out"
  [[ "$out" == *"$4"* ]] || fail "$1: the error lacks '$4': $out"
  timeout 10 "$WFOD" --config "$file" >"$TMP/$1.run" 2>&1
  rc=$?
  [[ "$rc" == 2 ]] || fail "$1: wfod --config exit $rc, expected 2 (it must not run): $(tail -n 3 "$TMP/$1.run")"
  echo "$1: exit 2 both ways: ${out#wfod: }"
}
bad port_99999 "s|^endpoint = \"$PUB_EP\"|endpoint = \"tcp://127.0.0.1:99999\"|" \
  publish.endpoint "port '99999' is not 1..65535"
bad endpoint_foo "s|^snapshot = \"$SNAP_EP\"|snapshot = \"foo\"|" publish.snapshot \
  "expected tcp://HOST:PORT, ipc://PATH or inproc://NAME"
bad feed_port "s|^endpoint = \"$FEED_EP\"|endpoint = \"tcp://127.0.0.1:0\"|" feed\\[0\\].endpoint \
  "port '0' is not 1..65535"
bad http_nonsense 's|^http = ""|http = "nonsense"|' publish.http "expected HOST:PORT"
bad backfill_missing 's|history/a.csv|history/btcusd.csv|' symbol\\[0\\].backfill \
  "No such file or directory"
bad backfill_bad 's|history/a.csv|history/bad.csv|' symbol\\[0\\].backfill "bad.csv:3"
bad state_dir_under_file "s|^state_dir = .*|state_dir = \"$TMP/a_file/state\"|" daemon.state_dir \
  "$TMP/a_file exists and is not a directory"
# Stops (SPEC §5b) run on the cpu backend (and auto): a cuda daemon refuses them at the key.
sed 's|^slow = "30:60:10"|slow = "30:60:10"\ntrailing_stop = 0.02|' "$GOOD" >"$TMP/conf/stops.toml"
"$WFOD" --check-config "$TMP/conf/stops.toml" >"$TMP/stops.out" 2>&1 ||
  fail "stops on the cpu backend: $(cat "$TMP/stops.out")"
bad stops_on_cuda 's|^backend = "cpu"|backend = "cuda"|; s|^slow = "30:60:10"|slow = "30:60:10"\ntrailing_stop = 0.02|' \
  strategy\\[0\\].grid.trailing_stop "strategy 's' has stops (SPEC §5b), which the cuda backend does not run in streams yet"
# A rules strategy (SPEC §5a): the daemon asks its backend, and cpu and cpu_ref run one (cuda
# refuses it in its own words: RulesConfig's unit test, since this machine may have no GPU); a
# bad rule is refused where the text is wrong.
RULES='s|^family = "ma_cross"|family = "rules"|;s|^\[strategy.grid\]|[strategy.rules]\nparams = ["fast", "slow"]\nvalid = "$fast < $slow"\nindicators = { f = "sma($fast)", s = "sma($slow)" }\nlong_entry = "f > s"\n[strategy.grid]|'
sed "$RULES" "$GOOD" >"$TMP/conf/rules_cpu.toml"
"$WFOD" --check-config "$TMP/conf/rules_cpu.toml" >"$TMP/rules_cpu.check" 2>&1 ||
  fail "a rules strategy on cpu: $(cat "$TMP/rules_cpu.check")"
sed "$RULES" "$GOOD" | sed 's|^backend = "cpu"|backend = "cpu_ref"|' >"$TMP/conf/rules_cpu_ref.toml"
"$WFOD" --check-config "$TMP/conf/rules_cpu_ref.toml" >"$TMP/rules_cpu_ref.check" 2>&1 ||
  fail "a rules strategy on cpu_ref: $(cat "$TMP/rules_cpu_ref.check")"
sed "$RULES" "$GOOD" | sed 's|^long_entry = "f > s"|long_entry = "f > > s"|' >"$TMP/conf/bad_rule.toml"
line=$(grep -n '^long_entry' "$TMP/conf/bad_rule.toml" | cut -d: -f1)
"$WFOD" --check-config "$TMP/conf/bad_rule.toml" >"$TMP/bad_rule.check" 2>&1
rc=$?
[[ "$rc" == 2 ]] || fail "bad_rule: check-config exit $rc, expected 2: $(cat "$TMP/bad_rule.check")"
want="wfod: $TMP/conf/bad_rule.toml:$line:19: strategy \"s\": rules.long_entry:5: expected a number, a name, a \$parameter or '(' after '>', found '>'"
[[ "$(cat "$TMP/bad_rule.check")" == "$want" ]] ||
  fail "bad_rule: '$(cat "$TMP/bad_rule.check")', expected '$want'"
timeout 10 "$WFOD" --config "$TMP/conf/bad_rule.toml" >"$TMP/bad_rule.run" 2>&1
rc=$?
[[ "$rc" == 2 ]] || fail "bad_rule: wfod --config exit $rc, expected 2"
echo "bad_rule: exit 2 both ways: $(cat "$TMP/bad_rule.check")"

# A wrong command line names what is wrong before the usage text (exit 2).
usage_error() {
  local want=$1 out rc
  shift
  out=$("$WFOD" "$@" 2>&1 >/dev/null)
  rc=$?
  [[ "$rc" == 2 ]] || fail "wfod $*: exit $rc, expected 2"
  [[ "$(head -n 1 <<<"$out")" == "$want" ]] || fail "wfod $*: first line '$(head -n 1 <<<"$out")', expected '$want'"
  grep -q '^usage: wfod' <<<"$out" || fail "wfod $*: no usage text"
  echo "wfod $*: $want"
}
usage_error "wfod: unknown argument '--bogus'" --bogus
usage_error "wfod: --check-config takes exactly one FILE (0 argument(s) given)" --check-config
usage_error "wfod: --config takes exactly one FILE (2 argument(s) given)" --config a.toml --check-config
echo "PASS"
