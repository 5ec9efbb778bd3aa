#!/usr/bin/env bash
# No source file grows past 800 lines, so a file doing two jobs is split by what each part owns
# before it is hard to read: fails, naming each file over the cap and its length. The files: C,
# C++, Python and JavaScript under referee/, sdk/, sample_bots/, tests/ and bench/
# (node_modules, which npm fills, left out).
#   file_length.sh SOURCE_DIR
set -euo pipefail
root=${1:?usage: file_length.sh SOURCE_DIR}
cap=800
failed=0
while IFS= read -r -d '' file; do
  lines=$(wc -l <"$file")
  if [ "$lines" -gt "$cap" ]; then
    echo "${file#"$root"/}: $lines lines, over the cap of $cap; split it by what each part owns"
    failed=1
  fi
done < <(find "$root/referee" "$root/sdk" "$root/sample_bots" "$root/tests" "$root/bench" \
  -name node_modules -prune -o -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' \
  -o -name '*.cpp' -o -name '*.hpp' -o -name '*.py' -o -name '*.js' -o -name '*.mjs' \) \
  -print0 | sort -z)
if [ "$failed" -ne 0 ]; then
  echo "file_length: source files over $cap lines (the cap and why: tests/code_length/file_length.sh)"
  exit 1
fi
echo "file_length: every source file within $cap lines"
