#!/usr/bin/env bash
# CURVE keys as systemd credentials (LoadCredential=, docs/operations.md "CURVE keys under
# systemd"), the way the unit runs wfod under DynamicUser=: root's keys stay 0600 in the
# config's folder, a copy of each sits in $CREDENTIALS_DIRECTORY (owned by the service's
# user, 0400), and the config, readable by everyone, names them relatively. Without the
# credentials that config is refused, naming LoadCredential=; with them check-config passes
# and the daemon, run as an unprivileged user (nobody, when the test runs as root) that
# cannot read root's keys, serves the listed client over CURVE and nobody else.
# Exit 0/1/77.
#
# usage: daemon_curve_credentials_test.sh WFOD WFO_REPLAY WFO_SUB CSV
set -u
WFOD=${1:-}
REPLAY=${2:-}
SUB_PLAIN=${3:-}
CSV=${4:?usage: daemon_curve_credentials_test.sh WFOD WFO_REPLAY WFO_SUB CSV}
# shellcheck source=tests/integration/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_unless_exec daemon_curve_credentials "$WFOD" "$REPLAY" "$SUB_PLAIN"

# The service's user: nobody when we are root (the daemon then really cannot read root's
# 0600 keys); ourselves otherwise (the lookup is tested, the permission side is not).
AS=()
if [[ $(id -u) -eq 0 ]] && command -v setpriv >/dev/null; then
  AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  "${AS[@]}" "$WFOD" --version >/dev/null 2>&1 || AS=()  # the binary out of nobody's reach
fi
chmod 755 "$TMP"
ETC="$TMP/etc"
CREDS="$TMP/credentials"
mkdir -p "$ETC" "$CREDS" "$TMP/state"
if ! "$WFOD" --keygen "$ETC/wfod.key" >"$TMP/daemon.pub" 2>"$TMP/err"; then
  grep -q "no CURVE" "$TMP/err" && { echo "SKIPPED: daemon_curve_credentials: libzmq without CURVE"; exit 77; }
  fail "wfod --keygen: $(cat "$TMP/err")"
fi
"$WFOD" --keygen "$TMP/client.key" >"$TMP/client.pub" || fail "keygen client"
"$WFOD" --keygen "$TMP/stranger.key" >"$TMP/stranger.pub" || fail "keygen stranger"
cp "$TMP/client.pub" "$ETC/clients.txt"
# What systemd does for LoadCredential=wfod.key:$ETC/wfod.key: a private copy for the user.
cp "$ETC/wfod.key" "$ETC/clients.txt" "$CREDS/"
chmod 0400 "$CREDS"/*
chmod 0500 "$CREDS"
if ((${#AS[@]})); then chown -R 65534:65534 "$CREDS" "$TMP/state"; fi

new_endpoints
write_config "$ETC/wfod.toml" "$TMP/state" json GOOG "$(ma_strategy cred GOOG)"
printf '\n[curve]\nkey_file = "wfod.key"\nclients_file = "clients.txt"\n' >>"$ETC/wfod.toml"
chmod 0644 "$ETC/wfod.toml"

# No credentials: the world-readable config naming a secret key is refused, with the way out.
env -u CREDENTIALS_DIRECTORY "$WFOD" --check-config "$ETC/wfod.toml" >"$TMP/check.out" 2>&1 &&
  fail "a world-readable config naming a key beside it was accepted"
grep -q "$ETC/wfod.toml: is world-readable.*LoadCredential=" "$TMP/check.out" ||
  fail "no clear error: $(cat "$TMP/check.out")"
# The service's user reads root's key files directly: it cannot (the reason for credentials).
if ((${#AS[@]})); then
  chmod 0640 "$ETC/wfod.toml"
  "${AS[@]}" env -u CREDENTIALS_DIRECTORY "$WFOD" --check-config "$ETC/wfod.toml" \
    >"$TMP/check.out" 2>&1 && fail "nobody read root's 0640 config"
  chmod 0644 "$ETC/wfod.toml"
fi
echo "without credentials: refused, naming LoadCredential="

# With them: valid, and the daemon runs on the credentials' keys.
CREDENTIALS_DIRECTORY=$CREDS "${AS[@]}" "$WFOD" --check-config "$ETC/wfod.toml" \
  >"$TMP/check.out" 2>&1 || fail "refused with credentials: $(cat "$TMP/check.out")"
CREDENTIALS_DIRECTORY=$CREDS "${AS[@]}" "$WFOD" --config "$ETC/wfod.toml" >"$TMP/daemon.log" 2>&1 &
DAEMON_PID=$!
PIDS+=("$DAEMON_PID")
SUB="$TMP/sub-client"
printf '#!/usr/bin/env bash\nexec %q "$@" --curve-key %q --curve-server-key %q\n' \
  "$SUB_PLAIN" "$TMP/client.key" "$TMP/daemon.pub" >"$SUB"
chmod +x "$SUB"
for _ in $(seq 1 100); do
  kill -0 "$DAEMON_PID" 2>/dev/null || fail "wfod exited at start"
  snap "$SNAP_EP" --health >/dev/null && break
  sleep 0.2
done
[[ "$(health_field "$SNAP_EP" .status)" == ok ]] || fail "the listed client got no health reply over CURVE"
"$SUB_PLAIN" --snapshot "$SNAP_EP" --health --timeout-ms 1500 \
  --curve-key "$TMP/stranger.key" --curve-server-key "$TMP/daemon.pub" >"$TMP/s.out" 2>&1 &&
  fail "an unlisted client got a reply"
"$SUB_PLAIN" --snapshot "$SNAP_EP" --health --timeout-ms 1500 >"$TMP/s.out" 2>&1 &&
  fail "a plain client got a reply"
grep -qF -- "$(cat "$TMP/daemon.pub")" "$TMP/daemon.log" || fail "the daemon does not log the credential's public key"
user=$(ps -o user= -p "$DAEMON_PID")
echo "with credentials: daemon as $user on $CREDS/wfod.key; listed client answered, others not"
echo "PASS"
