#!/usr/bin/env bash
# CURVE security ([curve], [[feed]] curve_server_key_file): the feed publisher, the PUB and the
# snapshot socket all run CURVE; a client whose public key is in clients_file gets snapshots
# and publications, an unlisted client and a plain (no CURVE) client get nothing; a config
# or key file readable by everyone is refused with the file's name; no secret key reaches
# the log. Keys from `wfod --keygen`. Exit 0/1/77.
#
# usage: daemon_curve_test.sh WFOD WFO_REPLAY WFO_SUB CSV
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB_PLAIN=${3:-}
CSV=${4:?usage: daemon_curve_test.sh WFOD WFO_REPLAY WFO_SUB CSV}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_curve "$WFOD" "$REPLAY" "$SUB_PLAIN"

K="$TMP/keys"
mkdir -p "$K"
if ! "$WFOD" --keygen "$K/daemon.key" >"$K/daemon.pub" 2>"$K/err"; then
  if grep -q "no CURVE" "$K/err"; then
    echo "SKIPPED: daemon_curve: libzmq built without CURVE"
    exit 77
  fi
  fail "wfod --keygen: $(cat "$K/err")"
fi
for who in feed client stranger; do
  "$WFOD" --keygen "$K/$who.key" >"$K/$who.pub" || fail "keygen $who"
done
[[ "$(stat -c %a "$K/daemon.key")" == 600 ]] || fail "keygen did not make a 0600 file"
"$WFOD" --keygen "$K/daemon.key" >/dev/null 2>&1 && fail "keygen overwrote a key file"
cp "$K/client.pub" "$K/clients.txt"
SECRETS=$(grep -h '^secret ' "$K"/*.key | cut -d' ' -f2)

# wfo-sub as the listed client, for lib.sh's snapshot helpers.
SUB="$TMP/sub-client"
printf '#!/usr/bin/env bash\nexec %q "$@" --curve-key %q --curve-server-key %q\n' \
  "$SUB_PLAIN" "$K/client.key" "$K/daemon.pub" >"$SUB"
chmod +x "$SUB"

SYMBOL=GOOG
STRATEGY=sec
new_endpoints
mkdir -p "$TMP/state"
write_config "$TMP/wfod.toml" "$TMP/state" binary "$SYMBOL" "$(ma_strategy "$STRATEGY" "$SYMBOL")"
sed -i "s|^format = \"binary\"|format = \"binary\"\ncurve_server_key_file = \"keys/feed.pub\"|" "$TMP/wfod.toml"
printf '\n[curve]\nkey_file = "keys/daemon.key"\nclients_file = "keys/clients.txt"\n' >>"$TMP/wfod.toml"

# World-readable config or key: refused, naming the file.
chmod 644 "$TMP/wfod.toml"
"$WFOD" --check-config "$TMP/wfod.toml" >"$TMP/check.out" 2>&1 && fail "a world-readable config naming a secret key was accepted"
grep -q "$TMP/wfod.toml: is world-readable" "$TMP/check.out" || fail "no clear error: $(cat "$TMP/check.out")"
chmod 600 "$TMP/wfod.toml"
chmod 644 "$K/daemon.key"
"$WFOD" --check-config "$TMP/wfod.toml" >"$TMP/check.out" 2>&1 && fail "a world-readable secret key was accepted"
grep -q "$K/daemon.key: is world-readable" "$TMP/check.out" || fail "no clear error: $(cat "$TMP/check.out")"
chmod 600 "$K/daemon.key"
"$WFOD" --check-config "$TMP/wfod.toml" >"$TMP/check.out" 2>&1 || fail "valid config refused: $(cat "$TMP/check.out")"
echo "world-readable config / key file refused with the file named"

start_daemon "$TMP/wfod.toml" "$SNAP_EP" daemon
send() {
  "$REPLAY" --csv "$CSV" --symbol "$SYMBOL" --endpoint "$FEED_EP" --format binary \
    --start "$1" --count "$2" --seq-start $(($1 + 1)) --rate 2000 --wait-ms 1000 --quiet \
    --curve-key "$K/feed.key" || fail "wfo-replay (CURVE) failed"
  wait_bars "$SNAP_EP" "$SYMBOL" $(($1 + $2))
}
send 0 381
wait_settled "$SNAP_EP" "$SYMBOL" "$STRATEGY" >/dev/null || exit 1
echo "CURVE feed: 381 bars in; the listed client's snapshot works"

# Three subscribers while publication 2 goes out.
"$SUB" --endpoint "$PUB_EP" --count 1 --timeout-ms 6000 --json >"$TMP/client.out" 2>&1 &
C1=$!
"$SUB_PLAIN" --endpoint "$PUB_EP" --count 1 --timeout-ms 6000 --json \
  --curve-key "$K/stranger.key" --curve-server-key "$K/daemon.pub" >"$TMP/stranger.out" 2>&1 &
C2=$!
"$SUB_PLAIN" --endpoint "$PUB_EP" --count 1 --timeout-ms 6000 --json >"$TMP/plain.out" 2>&1 &
C3=$!
PIDS+=("$C1" "$C2" "$C3")
sleep 1.5
send 381 50
wait "$C1" || fail "the listed client got no publication: $(cat "$TMP/client.out")"
jq -e '.seq >= 2' "$TMP/client.out" >/dev/null || fail "bad publication: $(cat "$TMP/client.out")"
wait "$C2" && fail "the unlisted client got a publication"
wait "$C3" && fail "the plain client got a publication"
grep -q '"seq"' "$TMP/stranger.out" "$TMP/plain.out" && fail "a publication leaked"
"$SUB_PLAIN" --snapshot "$SNAP_EP" --health --timeout-ms 1500 \
  --curve-key "$K/stranger.key" --curve-server-key "$K/daemon.pub" >"$TMP/s.out" 2>&1 &&
  fail "the unlisted client got a snapshot reply"
"$SUB_PLAIN" --snapshot "$SNAP_EP" --health --timeout-ms 1500 >"$TMP/s.out" 2>&1 &&
  fail "the plain client got a snapshot reply"
grep -qF "curve denied client_key=$(cat "$K/stranger.pub")" "$TMP/daemon.log" ||
  fail "no 'curve denied' log line for the unlisted key"
DENIED=$(health_field "$SNAP_EP" .curve_denied)
[[ "${DENIED:-0}" -ge 2 ]] || fail "health curve_denied is ${DENIED:-missing}, expected >= 2"
while read -r secret; do
  grep -qF -- "$secret" "$TMP/daemon.log" "$TMP/check.out" && fail "a secret key is in the log"
done <<<"$SECRETS"
echo "listed client: publication seq $(jq -r .seq "$TMP/client.out"); unlisted and plain clients: nothing; no secret in the log"
echo "PASS"
