#!/usr/bin/env bash
# User-facing docs stand alone: README.md and docs/*.md point at nothing outside the
# repository (no ../ paths, no SPEC.md / PROTOCOL.md / ARCHITECTURE.md of the checkout's
# neighbours), and every repository path they name in backticks or a Markdown link exists.
# usage: docs_links_test.sh SOURCE_DIR
set -euo pipefail
SRC=${1:?usage: docs_links_test.sh SOURCE_DIR}
cd "$SRC"
status=0
DOCS=(README.md docs/*.md)
if grep -nE '\.\./|(SPEC|PROTOCOL|ARCHITECTURE|STYLE)\.md' "${DOCS[@]}"; then
  echo "FAIL: the lines above point outside the repository"
  status=1
fi
# Paths like `docs/semantics.md`, `config/wfod.example.toml`, (docs/report-example.png).
while IFS=: read -r file path; do
  [[ -e "$path" ]] || { echo "FAIL: $file names $path, which does not exist"; status=1; }
done < <(grep -oE '[`(](docs|config|data|tools|dashboards|systemd|packaging)/[A-Za-z0-9_./-]+\.(md|toml|png|json|yml|sh|csv)[`)]' "${DOCS[@]}" |
  sed -E 's/^([^:]+):[`(](.*)[`)]$/\1:\2/' | sort -u)
((status == 0)) && echo "OK"
exit "$status"
