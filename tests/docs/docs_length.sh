#!/usr/bin/env bash
# The pages a newcomer reads first stay short, so a lab notebook cannot grow back unnoticed:
# fails, naming each page and its length, when a page exceeds its cap in lines.
#   docs_length.sh SOURCE_DIR
# The caps:
#   - README.md 140: the arena's front page (125 lines when the cap was set), a tour and a map.
#   - sdk/README.md 250: the bot author's guide, read in five minutes; references go to sdk/docs/.
#   - bench/README.md 150: what each benchmark measures and one row per measure; history in git.
#   - docs/ARCHITECTURE.md 130: the layers at a glance (117 lines when the cap was set); details
#     go to each folder's README.md.
#   - every other docs/*.md 480: one topic a page; the longest, SANDBOX.md (450 lines), explains
#     every wall of the sandbox and why, and a page longer than that is two topics.
#   - every sdk/docs/*.md 300: one reference a page (the longest, cpp.md, 249 lines: every type
#     of the C++ SDK and two example bots).
#   - every referee/*/README.md 60: a layer's files, one line or two each.
set -euo pipefail
root=${1:?usage: docs_length.sh SOURCE_DIR}
failed=0
check() {  # check FILE CAP
  local file=$1 cap=$2 lines
  if [ ! -f "$root/$file" ]; then
    echo "$file: missing (it has a cap of $cap lines)"
    failed=1
    return
  fi
  lines=$(wc -l <"$root/$file")
  if [ "$lines" -gt "$cap" ]; then
    echo "$file: $lines lines, over its cap of $cap; move the details to a page of their own"
    failed=1
  fi
}
check README.md 140
check sdk/README.md 250
check bench/README.md 150
check docs/ARCHITECTURE.md 130
shopt -s nullglob
for page in "$root"/docs/*.md; do
  [ "$(basename "$page")" = ARCHITECTURE.md ] || check "docs/$(basename "$page")" 480
done
for page in "$root"/sdk/docs/*.md; do check "sdk/docs/$(basename "$page")" 300; done
for page in "$root"/referee/*/README.md; do check "${page#"$root"/}" 60; done
if [ "$failed" -ne 0 ]; then
  echo "docs_length: pages over their caps (the caps and why: tests/docs/docs_length.sh)"
  exit 1
fi
echo "docs_length: every page within its cap"
