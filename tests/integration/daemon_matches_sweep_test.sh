#!/usr/bin/env bash
# The daemon's winner equals the offline sweep's: wfod (no backfill, cpu) is fed the first 600
# bars of the GOOG CSV; each publication must name the same top combo, with the same metrics,
# as `wfo sweep --json` on the same bars (same grid, window, warmup, costs); its `published`
# log line carries the same params, compactly (params={fast=5,slow=40,...}). Exit 0/1/77.
#
# usage: daemon_matches_sweep_test.sh WFOD WFO_REPLAY WFO_SUB WFO CSV
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB=${3:-}
WFO=${4:-}
CSV=${5:?usage: daemon_matches_sweep_test.sh WFOD WFO_REPLAY WFO_SUB WFO CSV}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_matches_sweep "$WFOD" "$REPLAY" "$SUB" "$WFO"

SYMBOL=GOOG
STRATEGY=sweepcheck
BARS=600
WARMUP=180  # the daemon's default_warmup: 3 x the grid's largest period (slow 60)

new_endpoints
mkdir -p "$TMP/state"
CONFIG="$TMP/wfod.toml"
write_config "$CONFIG" "$TMP/state" json "$SYMBOL" "$(ma_strategy "$STRATEGY" "$SYMBOL")"
start_daemon "$CONFIG" "$SNAP_EP" daemon

"$SUB" --endpoint "$PUB_EP" --topic "params.$SYMBOL.$STRATEGY" --json --timeout-ms 60000 \
  >"$TMP/pubs.jsonl" 2>"$TMP/sub.err" &
PIDS+=("$!")
"$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format json \
  --count "$BARS" --rate 500 --wait-ms 1500 --quiet || fail "wfo-replay failed"
wait_bars "$SNAP_EP" "$SYMBOL" "$BARS"
FINAL=$(wait_settled "$SNAP_EP" "$SYMBOL" "$STRATEGY") || exit 1
sleep 0.5
# The final snapshot is the last publication; add it in case the subscriber missed it.
echo "$FINAL" >>"$TMP/pubs.jsonl"

COUNT=$(jq -s 'unique_by(.seq) | length' "$TMP/pubs.jsonl")
[[ "$COUNT" -ge 2 ]] || fail "expected at least 2 publications, got $COUNT"
echo "$COUNT publications"

CHECKED=0
while IFS= read -r pub; do
  last_ts=$(jq -r '.window.last_ts' <<<"$pub")
  row=$(csv_row_of_ts "$CSV" "$last_ts") || fail "no CSV row for last_ts $last_ts"
  head -n $((row + 2)) "$CSV" >"$TMP/prefix.csv"
  "$WFO" sweep --config "$CONFIG" --strategy "$STRATEGY" --csv "$TMP/prefix.csv" \
    --window 200 --warmup "$WARMUP" --cost-bps 1 --backend cpu --json \
    >"$TMP/sweep.json" 2>"$TMP/sweep.err" || fail "wfo sweep failed: $(cat "$TMP/sweep.err")"
  # id equal; trades/wins exact; every other metric within 1e-9 relative.
  verdict=$(jq -rn --argjson p "$pub" --slurpfile s "$TMP/sweep.json" '
    $s[0].top[0] as $t
    | if $p.id != $t.id then "id \($p.id) != sweep \($t.id)"
      else [ $p.metrics | to_entries[] | .key as $k | .value as $a | $t.metrics[$k] as $b
             | select(if ($k == "trades" or $k == "wins") then $a != $b
                      elif ($a|type) == "number" and ($b|type) == "number" then
                        (($a - $b) | fabs) > 1e-9 * ([($a|fabs), ($b|fabs), 1e-300] | max)
                      else $a != $b end)
             | "\($k): \($a) != \($b)" ] | join("; ")
      end')
  seq=$(jq -r '.seq' <<<"$pub")
  [[ -z "$verdict" ]] || fail "publication seq $seq (bars to row $row): $verdict"
  params=$(jq -r '"{" + (.params | to_entries | map("\(.key)=\(.value)") | join(",")) + "}"' <<<"$pub")
  grep -qF "published topic=params.$SYMBOL.$STRATEGY seq=$seq combo_id=$(jq -r .id <<<"$pub") params=$params " \
    "$TMP/daemon.log" || fail "no published line for seq $seq with params=$params"
  echo "seq $seq: window ends at row $row, id $(jq -r .id <<<"$pub") == sweep top[0], logged $params"
  CHECKED=$((CHECKED + 1))
done < <(jq -c -s 'unique_by(.seq) | .[]' "$TMP/pubs.jsonl")
[[ "$CHECKED" -ge 2 ]] || fail "checked only $CHECKED publications"
echo "PASS"
