#!/usr/bin/env bash
# find_package(wfod_client) after `cmake --install`: installs the wfod_client component of
# BUILD_DIR into a temporary prefix, configures and builds CONSUMER_DIR against it
# (CMAKE_PREFIX_PATH only, no path into the source tree) and runs it. Checks the installed
# layout: include/wfod/client.hpp, lib/cmake/wfod_client/{Config,ConfigVersion,Targets}.
#
# usage: find_package_test.sh BUILD_DIR CONSUMER_DIR
set -euo pipefail
B=${1:?usage: find_package_test.sh BUILD_DIR CONSUMER_DIR}
CONSUMER=${2:?usage: find_package_test.sh BUILD_DIR CONSUMER_DIR}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/wfod_client_pkg.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}
command -v cmake >/dev/null || { echo "SKIPPED: no cmake"; exit 77; }
cmake --install "$B" --component wfod_client --prefix "$TMP/prefix" >"$TMP/install.log" 2>&1 ||
  fail "cmake --install --component wfod_client: $(tail -5 "$TMP/install.log")"
for f in include/wfod/client.hpp include/wfod/client/client.hpp include/wfod/client/messages.hpp \
  include/wfod/client/requester.hpp lib/cmake/wfod_client/wfod_clientConfig.cmake \
  lib/cmake/wfod_client/wfod_clientConfigVersion.cmake lib/cmake/wfod_client/wfod_clientTargets.cmake; do
  [[ -f "$TMP/prefix/$f" ]] || fail "not installed: $f (installed: $(cd "$TMP/prefix" && find . -type f | tr '\n' ' '))"
done
echo "installed: include/wfod/client*.hpp, lib/cmake/wfod_client"
# Only the headers: nothing else of wfod in the component.
others=$(cd "$TMP/prefix" && find . -type f ! -path './include/wfod/client*' ! -path './lib/cmake/wfod_client/*')
[[ -z "$others" ]] || fail "the wfod_client component installs more: $others"

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$CONSUMER" -B "$TMP/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$TMP/prefix" -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror" \
  >"$TMP/configure.log" 2>&1 || fail "consumer configure: $(tail -20 "$TMP/configure.log")"
grep -q "wfod_client" "$TMP/build/CMakeCache.txt" || fail "wfod_client_DIR not in the consumer's cache"
dir=$(sed -n 's/^wfod_client_DIR:PATH=//p' "$TMP/build/CMakeCache.txt")
[[ "$dir" == "$TMP/prefix/lib/cmake/wfod_client" ]] || fail "found wfod_client in '$dir', not the prefix"
cmake --build "$TMP/build" >"$TMP/build.log" 2>&1 || fail "consumer build: $(tail -30 "$TMP/build.log")"
"$TMP/build/consumer" || fail "the consumer exited $?"
echo "find_package(wfod_client) OK: configured, built and ran a consumer against $TMP/prefix"
