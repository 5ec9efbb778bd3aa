#!/usr/bin/env bash
# function_length.py fails on a function over 80 lines and names only it: run on a tree holding
# one function of 81 lines (a method in a class) beside what it must pass (a function of 80
# lines, a long lambda-free initialiser, a long function in tests/, npm's node_modules).
#   function_length_refuses.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/allfives-function-length.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/referee/log" "$tmp/sdk/js/node_modules/x" "$tmp/sample_bots" "$tmp/tests"
body() { for ((i = 0; i < $1; ++i)); do echo "  $2x += $i;"; done; }
{ echo "int at_the_cap(int x) {"; body 78 ""; echo "}"; } >"$tmp/referee/log/a.cpp"
{ echo "const int table[] = {"; for ((i = 0; i < 100; ++i)); do echo "  $i,"; done; echo "};"; } \
  >"$tmp/referee/log/b.cpp"
{ echo "int long_test(int x) {"; body 200 ""; echo "}"; } >"$tmp/tests/t.cpp"
{ echo "int f(int x) {"; body 200 ""; echo "}"; } >"$tmp/sdk/js/node_modules/x/n.cpp"
python3 "$here/function_length.py" "$tmp" >"$tmp/out.txt" ||
  { cat "$tmp/out.txt"; echo "failed on functions within the cap"; exit 1; }
{ echo "class C {"; echo " public:"; echo "  int over(int x) {"; body 79 "  "; echo "  }"; echo "};"; } \
  >"$tmp/sample_bots/c.h"
python3 "$here/function_length.py" "$tmp" >"$tmp/out.txt" && { echo "passed a function of 81 lines"; exit 1; }
grep -q "^sample_bots/c.h:3: 81 lines, over the cap of 80" "$tmp/out.txt" || { cat "$tmp/out.txt"; exit 1; }
[ "$(grep -c 'lines, over the cap' "$tmp/out.txt")" -eq 1 ] ||
  { cat "$tmp/out.txt"; echo "named more than the one function over"; exit 1; }
echo "function_length_refuses: a function over the cap fails, and only it is named"
