#!/usr/bin/env bash
# `cmake --install` into a staging root (DESTDIR), checked as the .deb will hold it: the FHS
# layout, units naming the installed binary and config folder, every installed binary
# answering --version (exit 0) with the project version and, from a git checkout, its
# `git describe`, and the example config valid where it is installed. The real package
# (dpkg -i, systemd-analyze verify, remove, purge) is tools/check-package.sh's job.
#
# usage: install_test.sh BUILD_DIR SOURCE_DIR VERSION
set -euo pipefail
B=${1:?usage: install_test.sh BUILD_DIR SOURCE_DIR VERSION}
SRC=${2:?}
VERSION=${3:?}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/wfod_install.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}

prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$B/CMakeCache.txt")
if ! DESTDIR="$TMP/root" cmake --install "$B" >"$TMP/install.log" 2>&1; then
  if grep -q 'file INSTALL cannot find' "$TMP/install.log"; then
    echo "SKIPPED: a program is not built: $(grep -m1 'cannot find' "$TMP/install.log")"
    exit 77
  fi
  fail "cmake --install: $(tail -5 "$TMP/install.log")"
fi
R="$TMP/root"
P="$R$prefix"
# GNUInstallDirs: /etc under the /usr prefix (the package's), <prefix>/etc otherwise.
if [[ "$prefix" == /usr ]]; then E="$R/etc/wfod"; else E="$P/etc/wfod"; fi

for f in "$P/bin/wfod" "$P/bin/wfo" "$P/bin/wfo-replay" "$P/bin/wfo-sub" "$P/bin/wfo-proxy" \
  "$P/lib/systemd/system/wfo-proxy.service" \
  "$P/lib/systemd/system/wfod.service" "$P/lib/systemd/system/wfod@.service" \
  "$E/wfod.toml" "$E/wfod.example.toml" "$P/share/doc/wfod/README.md" \
  "$P/share/doc/wfod/operations.md" "$P/include/wfod/client.hpp" \
  "$P/lib/cmake/wfod_client/wfod_clientConfig.cmake"; do
  [[ -e "$f" ]] || fail "not installed: ${f#"$R"} (installed: $(cd "$R" && find . -type f | tr '\n' ' '))"
done
echo "layout: bin, lib/systemd/system, etc/wfod, share/doc/wfod, include/wfod, lib/cmake/wfod_client"

# The units run the installed binary on the installed config; nothing left unconfigured.
for unit in wfod.service wfod@.service; do
  u="$P/lib/systemd/system/$unit"
  grep -q "^ExecStart=$prefix/bin/wfod --config ${E#"$R"}/" "$u" ||
    fail "$unit: $(grep '^ExecStart=' "$u") does not run $prefix/bin/wfod on ${E#"$R"}"
  ! grep -n '@WFOD_[A-Z_]*@' "$u" || fail "$unit: a placeholder was not configured"
  grep -q '^RestartPreventExitStatus=2 3$' "$u" || fail "$unit: RestartPreventExitStatus=2 3 missing"
done
echo "units: ExecStart=$prefix/bin/wfod --config ${E#"$R"}/..."
u="$P/lib/systemd/system/wfo-proxy.service"
grep -q "^ExecStart=$prefix/bin/wfo-proxy \$WFO_PROXY_ARGS$" "$u" &&
  grep -q "^EnvironmentFile=${E#"$R"}/wfo-proxy.env$" "$u" ||
  fail "wfo-proxy.service: $(grep -E '^(ExecStart|EnvironmentFile)=' "$u") does not run $prefix/bin/wfo-proxy with ${E#"$R"}/wfo-proxy.env"
! grep -n '@WFOD_[A-Z_]*@' "$u" || fail "wfo-proxy.service: a placeholder was not configured"

# Every installed program prints the one version; a git checkout adds its describe.
describe=""
if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
  describe=$(git -C "$SRC" describe --tags --always --dirty --match 'v[0-9]*')
fi
count=0
for bin in "$P"/bin/*; do
  name=$(basename "$bin")
  out=$("$bin" --version) || fail "$name --version exited $?"
  first=${out%%$'\n'*}
  expected="$name $VERSION"
  [[ -n "$describe" ]] && expected="$name $VERSION (git $describe)"
  [[ "$first" == "$expected" ]] || fail "$name --version: '$first', expected '$expected'"
  echo "$first"
  count=$((count + 1))
done
((count >= 4)) || fail "only $count programs installed"

# The example as installed (no backfill it would miss); the empty wfod.toml is refused until
# the operator adds a [[symbol]] and a [[strategy]] (exit 2, saying so: issue 43 item 5).
"$P/bin/wfod" --check-config "$E/wfod.example.toml" || fail "the installed example is refused"
out=$("$P/bin/wfod" --check-config "$E/wfod.toml" 2>&1)
rc=$?
[[ "$rc" == 2 ]] || fail "the installed (empty) wfod.toml: check-config exit $rc, expected 2: $out"
[[ "$out" == *"no [[symbol]] table"*"at least one [[symbol]] and one [[strategy]]"* ]] ||
  fail "the installed (empty) wfod.toml: the refusal does not say what to add: $out"
echo "install layout OK"
