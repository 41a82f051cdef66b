#!/usr/bin/env bash
# Installs every build and test dependency of wfod from Debian 12 packages.
# Idempotent: packages already present are left alone; safe to run on every CI start.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libgtest-dev libgmock-dev
  libtomlplusplus-dev libspdlog-dev libfmt-dev
  libzmq3-dev cppzmq-dev libboost-dev libboost-system-dev
  libsystemd-dev nlohmann-json3-dev
  clang-format
  chromium fonts-liberation  # the --report browser test (headless); fonts for its screenshot
  jq                         # the daemon integration tests read JSON replies with it
  # tools/run-fuzz.sh (preset fuzz): clang 16, since clang 14 rejects lambda captures of
  # structured bindings (C++20) used in the engine; libclang-rt-16-dev ships libFuzzer and
  # the sanitizer runtimes (libclang_rt.fuzzer-x86_64.a); llvm gives llvm-symbolizer.
  clang-16 libclang-rt-16-dev llvm
  # tools/check-package.sh (the .deb): dpkg-shlibdeps (dpkg-dev) and file for cpack's
  # dependency list, systemd-analyze (systemd) to verify the installed units.
  dpkg-dev file systemd
)

# Metrics checks (ctest daemon_metrics, dashboards): promtool for `check metrics`, `check
# rules` and `test rules`. Debian ships it only inside the prometheus package (19 MB
# download, 96 MB installed, 12 packages, ~25 s); the package also enables a
# prometheus.service the tests do not use. Without it those tests skip, saying so.
packages+=(prometheus)

# The Slurm test (tests/cli/wfo_universe_slurm_test.sh, issue 47 item 3) starts a one-node
# cluster on loopback in its temp dir: munged, slurmctld and slurmd (~17 s to install; the
# packages' systemd units are not started by the test).
packages+=(slurmctld slurmd slurm-client munge)

# The Python client (clients/python) and its tests: pyzmq from Debian, for the system
# python3 (/usr/bin/python3). Without it those tests skip, saying so.
packages+=(python3-zmq python3-venv python3-setuptools)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all packages present"
fi
