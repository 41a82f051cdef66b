#!/usr/bin/env bash
# The .deb as an operator meets it: builds it from an existing build directory
# (`cpack -G DEB`: no second compile), installs it with dpkg, runs every installed binary
# with --version, checks the example config as installed, `systemd-analyze verify` on the
# installed units, removes it (only the conffiles and the units' enable state may stay),
# then purges it (nothing may stay). Called by tools/run-tests.sh after the ci preset's
# tests; it changes this machine's /usr and /etc, so it wants root and a Debian dpkg, and
# says SKIPPED with the reason otherwise. The package is purged on every exit.
#
# usage: tools/check-package.sh BUILD_DIR
set -euo pipefail
B=$(cd "${1:?usage: check-package.sh BUILD_DIR}" && pwd)

skip() {
  echo "check-package: SKIPPED: $*"
  exit 0
}
fail() {
  echo "check-package: FAIL: $*" >&2
  exit 1
}
[ "$(id -u)" -eq 0 ] || skip "not root (dpkg -i changes /usr and /etc)"
command -v dpkg >/dev/null && command -v dpkg-deb >/dev/null || skip "no dpkg on this machine"
command -v cpack >/dev/null || skip "no cpack"
[ -f "$B/CPackConfig.cmake" ] || fail "$B is not a configured wfod build directory"
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$B/CMakeCache.txt")
[ "$prefix" = /usr ] || fail "$B installs to '$prefix': the package needs /usr (configure with a preset)"
# Installing over an operator's wfod would purge their configuration at the end.
if dpkg-query -W -f='${Status}' wfod 2>/dev/null | grep -qv 'not-installed'; then
  fail "a wfod package is already on this machine ($(dpkg-query -W -f='${Version} ${Status}' wfod)); this check installs and purges it: dpkg -P wfod first"
fi

# dpkg waits for no one: another apt/dpkg run (install-deps.sh on a shared machine) holds
# its lock for a while, so retry for up to two minutes when the lock is the reason.
dpkg_retry() {
  local out
  for _ in $(seq 60); do
    if out=$(dpkg "$@" 2>&1); then
      printf '%s\n' "$out"
      return 0
    fi
    grep -qi 'lock' <<<"$out" || {
      printf '%s\n' "$out" >&2
      return 1
    }
    sleep 2
  done
  printf '%s\n' "$out" >&2
  return 1
}
installed=0
cleanup() {
  if ((installed)); then dpkg_retry -P wfod >/dev/null 2>&1 || echo "check-package: could not purge wfod" >&2; fi
}
trap cleanup EXIT

version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$B/CMakeCache.txt")
arch=$(dpkg --print-architecture)
deb="$B/wfod_${version}_${arch}.deb"
rm -f "$B"/wfod_*.deb
echo "== cpack -G DEB ($B)"
(cd "$B" && cpack -G DEB >"$B/cpack.log" 2>&1) || fail "cpack: $(tail -20 "$B/cpack.log")"
[ -f "$deb" ] || fail "expected $deb; cpack made: $(ls "$B"/*.deb 2>/dev/null)"
echo "$(basename "$deb"): $(du -h "$deb" | cut -f1)"

# The control file: dependencies from dpkg-shlibdeps, the build kind, the conffiles.
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libzmq5 libstdc++6 libc6; do
  grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib (dpkg-shlibdeps): $depends"
done
summary=$(dpkg-deb -f "$deb" Description)
summary=${summary%%$'\n'*}
[[ "$summary" =~ \((CPU|CUDA)\ build\) ]] || fail "the description does not say CPU or CUDA build: $summary"
conffiles=$(dpkg-deb -I "$deb" conffiles)
[ "$(sort <<<"$conffiles")" = "$(printf '/etc/wfod/wfod.example.toml\n/etc/wfod/wfod.toml')" ] ||
  fail "conffiles: $conffiles"
echo "Depends: $depends"
echo "Description: $summary"

echo "== dpkg -i"
installed=1
dpkg_retry -i "$deb" >/dev/null || fail "dpkg -i $deb"
files=$(dpkg -L wfod)
units=$(grep -E '/systemd/system/wfod@?\.service$' <<<"$files")
[ "$(wc -l <<<"$units")" -eq 2 ] || fail "expected two units, the package has: $units"
# The C++ client (header only) and its CMake package config: find_package(wfod_client).
for f in /usr/include/wfod/client.hpp /usr/lib/cmake/wfod_client/wfod_clientConfig.cmake \
  /usr/lib/cmake/wfod_client/wfod_clientConfigVersion.cmake; do
  grep -qx "$f" <<<"$files" || fail "the package lacks $f"
done

echo "== --version of every installed binary"
for bin in $(grep -E '^/usr/bin/' <<<"$files"); do
  [ -x "$bin" ] || continue
  out=$("$bin" --version) || fail "$bin --version exited $?"
  first=$(head -1 <<<"$out")
  [[ "$first" == "$(basename "$bin") $version"* ]] || fail "$bin --version: '$first' (expected $(basename "$bin") $version...)"
  echo "$first"
done

echo "== wfod --check-config on the installed files"
wfod --check-config /etc/wfod/wfod.example.toml || fail "the installed example config is refused"
# Empty as installed: refused (exit 2) with what to add, until the operator writes it.
out=$(wfod --check-config /etc/wfod/wfod.toml 2>&1) && fail "the installed (empty) wfod.toml is accepted"
case "$out" in
  *"no [[symbol]] table"*"at least one [[symbol]] and one [[strategy]]"*) ;;
  *) fail "the installed (empty) wfod.toml: the refusal does not say what to add: $out" ;;
esac

echo "== systemd-analyze verify on the installed units"
# The template is verified through an instance; each must name the installed binary.
command -v systemd-analyze >/dev/null || fail "systemd-analyze missing (Debian: systemd)"
for unit in wfod.service wfod@check.service; do
  out=$(systemd-analyze verify "$unit" 2>&1) || fail "systemd-analyze verify $unit: $out"
  [ -z "$out" ] || fail "systemd-analyze verify $unit is not clean: $out"
  echo "$unit: clean"
done
grep -q '^ExecStart=/usr/bin/wfod ' $units || fail "a unit does not run /usr/bin/wfod: $(grep -h ExecStart= $units)"
# Enabled, not started: the [Install] link exists; nothing runs (no wfod process).
[ -L /etc/systemd/system/multi-user.target.wants/wfod.service ] || fail "wfod.service not enabled"
! pgrep -f '^/usr/bin/wfod' >/dev/null || fail "/usr/bin/wfod runs after install: the package must not start it"
echo "wfod.service enabled, not started"

echo "== dpkg -r: only the conffiles and the units' enable state stay"
printf '# an operator edit\n' >>/etc/wfod/wfod.toml
dpkg_retry -r wfod >/dev/null || fail "dpkg -r wfod"
status=$(dpkg-query -W -f='${Status}' wfod)
[ "$status" = "deinstall ok config-files" ] || fail "status after remove: $status"
while read -r path; do
  [ -e "$path" ] || continue
  [ -d "$path" ] && continue  # shared folders (/usr/bin, /etc) are not the package's
  grep -qx "$path" <<<"$conffiles" || fail "$path is still there after dpkg -r"
done <<<"$files"
for c in $conffiles; do [ -f "$c" ] || fail "conffile $c removed by dpkg -r"; done
grep -q 'an operator edit' /etc/wfod/wfod.toml || fail "the operator's edit of wfod.toml was lost"
# What the system still knows of wfod: the conffiles, and debhelper's enable state (the
# [Install] link and a mask so a boot does not start a unit without its binary).
left=$(find /etc /usr /var/lib/systemd -name '*wfod*' 2>/dev/null | sort)
allowed=$(printf '%s\n' /etc/systemd/system/multi-user.target.wants/wfod.service \
  /etc/systemd/system/wfod.service /etc/wfod /etc/wfod/wfod.example.toml /etc/wfod/wfod.toml \
  /var/lib/systemd/deb-systemd-helper-enabled/multi-user.target.wants/wfod.service \
  /var/lib/systemd/deb-systemd-helper-enabled/wfod.service.dsh-also \
  /var/lib/systemd/deb-systemd-helper-masked/wfod.service | sort)
extra=$(comm -23 <(echo "$left") <(echo "$allowed"))
[ -z "$extra" ] || fail "left after dpkg -r beyond the conffiles and enable state: $extra"
[ "$(readlink /etc/systemd/system/wfod.service)" = /dev/null ] || fail "wfod.service not masked after remove"
echo "left: $(tr '\n' ' ' <<<"$left")"

echo "== dpkg -P: nothing stays"
dpkg_retry -P wfod >/dev/null || fail "dpkg -P wfod"
installed=0
dpkg-query -W wfod >/dev/null 2>&1 && fail "dpkg still knows wfod after purge"
left=$(find /etc /usr /var/lib/systemd -name '*wfod*' 2>/dev/null)
[ -z "$left" ] || fail "left after purge: $left"
echo "check-package: OK ($(basename "$deb"))"
