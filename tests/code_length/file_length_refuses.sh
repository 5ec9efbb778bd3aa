#!/usr/bin/env bash
# file_length.sh fails on a source file over 800 lines and names only it: run on a tree of one
# file of 801 lines beside files it must pass (800 lines; a page of text; npm's node_modules).
#   file_length_refuses.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/allfives-file-length.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/referee/log" "$tmp/sdk/js/node_modules/x" "$tmp/sample_bots" "$tmp/tests" "$tmp/bench"
seq 1 800 >"$tmp/referee/log/at_the_cap.cpp"
seq 1 900 >"$tmp/sdk/js/node_modules/x/index.js"
seq 1 900 >"$tmp/bench/notes.txt"
bash "$here/file_length.sh" "$tmp" >"$tmp/out.txt" || { cat "$tmp/out.txt"; echo "failed on files within the cap"; exit 1; }
seq 1 801 >"$tmp/sample_bots/over.py"
bash "$here/file_length.sh" "$tmp" >"$tmp/out.txt" && { echo "passed a file of 801 lines"; exit 1; }
grep -q "^sample_bots/over.py: 801 lines, over the cap of 800" "$tmp/out.txt" || { cat "$tmp/out.txt"; exit 1; }
[ "$(grep -c 'lines, over the cap' "$tmp/out.txt")" -eq 1 ] || { cat "$tmp/out.txt"; echo "named more than the one file over"; exit 1; }
echo "file_length_refuses: a file over the cap fails, and only it is named"
