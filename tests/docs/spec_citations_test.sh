#!/usr/bin/env bash
# Every "SPEC §N" the tree cites resolves in the repository: docs/semantics.md, which restates
# SPEC under its own section numbers, has a heading for each section number cited ("## §6 …",
# "### §10.4 …"). Reads "SPEC §6", "SPEC v1.2 §7", "SPEC §§2-3", "SPEC §4–5" (both ends) and
# "SPEC §10.4"; a cited letter section (§5a) needs its own heading. No build needed.
# usage: spec_citations_test.sh SOURCE_DIR
set -euo pipefail
SRC=${1:?usage: spec_citations_test.sh SOURCE_DIR}
cd "$SRC"
DOC=docs/semantics.md
[[ -f $DOC ]] || { echo "FAIL: $DOC is missing"; exit 1; }

# Multi-byte characters (§, –) are grouped in the patterns, so any locale reads them alike.
# The section numbers cited, one a line: "6", "5a", "10.4"; a range "4-5" gives 4 and 5.
cited=$({ grep -rhoE --exclude-dir=.git --exclude-dir='build*' --exclude-dir=third_party \
          --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.cuh' \
          --include='*.py' --include='*.sh' --include='*.md' --include='*.toml' \
          --include='*.txt' --include='*.cmake' --include='*.js' --include='*.html' \
          --include='*.yml' --include='.clang-format' \
          'SPEC( v1(\.[0-9]+)?)? ?(§){1,2} ?[0-9]+[a-z]?(\.[0-9]+)?((-|–)[0-9]+[a-z]?)?' . || true; } |
        sed -E 's/^SPEC( v1(\.[0-9]+)?)? ?(§){1,2} ?//; s/(-|–)/\n/' | sort -u)
[[ -n $cited ]] || { echo "FAIL: found no SPEC citation at all (wrong SOURCE_DIR?)"; exit 1; }

status=0
while read -r n; do
  # A heading that starts with the number, then a space or the end: "§5" is not "§5a".
  if ! grep -qE "^#{2,3} §${n//./\\.}( |$)" "$DOC"; then
    echo "FAIL: SPEC §$n is cited but $DOC has no \"§$n\" heading:"
    grep -rnE --exclude-dir=.git --exclude-dir='build*' "SPEC( v1(\.[0-9]+)?)? ?(§){1,2} ?${n//./\\.}([^0-9a-z.]|$)" . |
      head -3 | sed 's/^/  /' || true  # head closing the pipe early is not a failure
    status=1
  fi
done <<<"$cited"
((status == 0)) && echo "OK: $(wc -l <<<"$cited") section numbers cited, each a heading of $DOC"
exit "$status"
