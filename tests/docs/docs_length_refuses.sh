#!/usr/bin/env bash
# docs_length.sh fails on a page over its cap, and on a capped page that is missing: run on a
# copy of the source's pages with one reference page grown past its cap and the guide removed.
#   docs_length_refuses.sh SOURCE_DIR
set -euo pipefail
root=$1 here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/allfives-docs-length.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/sdk/docs" "$tmp/docs" "$tmp/bench"
cp "$root/README.md" "$tmp/"
cp "$root/bench/README.md" "$tmp/bench/"
cp "$root"/docs/*.md "$tmp/docs/"
cp "$root"/sdk/docs/*.md "$tmp/sdk/docs/"
bash "$here/docs_length.sh" "$tmp" >"$tmp/out.txt" && { echo "passed without sdk/README.md"; exit 1; }
grep -q "^sdk/README.md: missing" "$tmp/out.txt" || { cat "$tmp/out.txt"; exit 1; }
cp "$root/sdk/README.md" "$tmp/sdk/"
bash "$here/docs_length.sh" "$tmp" >/dev/null || { echo "the copy fails as it is"; exit 1; }
seq 1 301 >>"$tmp/sdk/docs/python.md"
bash "$here/docs_length.sh" "$tmp" >"$tmp/out.txt" && { echo "passed a page of $(wc -l <"$tmp/sdk/docs/python.md") lines"; exit 1; }
grep "^sdk/docs/python.md: [0-9]* lines, over its cap of 300" "$tmp/out.txt"
