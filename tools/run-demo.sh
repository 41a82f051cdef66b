#!/usr/bin/env bash
# The README's demo command: installs dependencies, builds a release, and runs a
# walk-forward analysis of the bundled GOOG daily bars with the default strategy
# (config/examples/demo.toml), printing the report summary and writing the HTML report to
# out/demo-report/report.html (its path printed on stderr).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target wfo
./build/release/tools/wfo walk --config config/examples/demo.toml --is 1000 --oos 250 \
  --report out/demo-report "$@"
