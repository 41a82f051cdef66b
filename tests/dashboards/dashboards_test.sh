#!/usr/bin/env bash
# dashboards/: the Grafana dashboard is valid JSON whose every panel queries Prometheus
# through the dashboard's data source variable in valid PromQL; the alert rules pass
# `promtool check rules` and their unit tests (`promtool test rules`). Which metrics exist is
# checked against a real scrape in tests/integration/daemon_metrics_test.sh.
# Exit 0 pass, 1 fail, 77 skipped (jq or promtool missing; the message says what ran).
#
# usage: dashboards_test.sh DASHBOARDS_DIR
set -u
DIR=${1:?usage: dashboards_test.sh DASHBOARDS_DIR}
DASH="$DIR/wfod-dashboard.json"
fail() {
  echo "FAIL: $*"
  exit 1
}
if ! command -v jq >/dev/null 2>&1; then
  echo "SKIPPED: dashboards: jq not installed"
  exit 77
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/wfod_dash.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

jq -e . "$DASH" >/dev/null || fail "$DASH is not valid JSON"
jq -e '.uid and .title and (.panels | length > 0)' "$DASH" >/dev/null || fail "no uid, title or panels"
jq -e '[.panels[].id] | length == (unique | length)' "$DASH" >/dev/null || fail "panel ids repeat"
jq -e 'all(.panels[]; .gridPos.x >= 0 and .gridPos.x + .gridPos.w <= 24)' "$DASH" >/dev/null ||
  fail "a panel lies outside the 24-column grid"
jq -e 'all(.panels[] | select(.type != "row"); (.targets | length) > 0
          and .datasource.uid == "${datasource}"
          and all(.targets[]; .datasource.uid == "${datasource}" and (.expr | length) > 0))' \
  "$DASH" >/dev/null || fail "a panel without queries or not on the \${datasource} variable"
jq -e '[.templating.list[].name] | index("datasource") and index("instance")' "$DASH" >/dev/null ||
  fail "the datasource and instance variables are missing"
# The panels the operator needs, by title.
for title in "Publications per minute" "Time since last publication" \
  "Optimisation duration p50 / p99" "Last bar age" "Accepted bars per minute" "Storage" \
  "Quarantined and lost bars" "Backend"; do
  jq -e --arg t "$title" 'any(.panels[]; .title == $t)' "$DASH" >/dev/null || fail "no panel '$title'"
done
PANELS=$(jq '[.panels[] | select(.type != "row")] | length' "$DASH")
echo "dashboard: $PANELS panels, valid JSON"

if ! command -v promtool >/dev/null 2>&1; then
  echo "SKIPPED: dashboards: promtool not installed (Debian: apt-get install prometheus); the JSON checks above passed, PromQL and the rules were not checked"
  exit 77
fi
# Every panel query as a recording rule, so promtool parses its PromQL ($instance as any).
{
  echo "groups:"
  echo "  - name: dashboard_queries"
  echo "    rules:"
  jq -r '[.panels[].targets[]?.expr] | to_entries[] |
         "      - record: dashboard:query_\(.key)\n        expr: \(.value | gsub("\\$instance"; ".*") | @json)"' "$DASH"
} >"$TMP/queries.yml"
promtool check rules "$TMP/queries.yml" >"$TMP/queries.log" 2>&1 ||
  fail "a dashboard query is not valid PromQL: $(cat "$TMP/queries.log")"
promtool check rules "$DIR/wfod-alerts.yml" >"$TMP/rules.log" 2>&1 ||
  fail "promtool check rules: $(cat "$TMP/rules.log")"
(cd "$DIR" && promtool test rules wfod-alerts.test.yml) >"$TMP/test.log" 2>&1 ||
  fail "promtool test rules: $(cat "$TMP/test.log")"
echo "dashboard queries: $(grep -c 'record:' "$TMP/queries.yml") valid; $(grep -o 'SUCCESS: [0-9]* rules found' "$TMP/rules.log"); rule unit tests pass"
echo "PASS"
