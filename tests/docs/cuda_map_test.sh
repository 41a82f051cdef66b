#!/usr/bin/env bash
# docs/architecture.md's map of kernels/cuda ("The cuda backend's files") names every file
# there and says how many there are, so that a new file cannot be added without a line
# saying what it owns. No build needed.
# usage: cuda_map_test.sh SOURCE_DIR
set -euo pipefail
SRC=${1:?usage: cuda_map_test.sh SOURCE_DIR}
cd "$SRC"
DOC=docs/architecture.md
section=$(sed -n "/^### The cuda backend's files/,/^### /p" "$DOC")
[[ -n $section ]] || { echo "FAIL: $DOC has no \"The cuda backend's files\" section"; exit 1; }
missing=0
count=0
for f in kernels/cuda/*; do
  name=$(basename "$f")
  count=$((count + 1))
  stem=${name%.*}
  # A row names a file in full, or as `stem.cuh`, `.cu` (both of a pair on one line).
  if ! grep -qF "\`$name\`" <<<"$section" &&
     ! grep -qE "\`$stem\.(cuh|hpp)\`, \`\.${name##*.}\`" <<<"$section"; then
    echo "FAIL: $DOC does not list kernels/cuda/$name"
    missing=1
  fi
done
if ! grep -q "(${count} files;" <<<"$section"; then
  echo "FAIL: $DOC should say kernels/cuda has ${count} files"
  missing=1
fi
[[ $missing == 0 ]] && echo "ok: $count files of kernels/cuda in $DOC"
exit "$missing"
