#!/usr/bin/env bash
# The referee and the sample C++ bots are linked with their code in the order of their
# link_order.txt (cmake/LinkOrder.cmake): this checks that the file still names the program's
# functions (renamed or removed ones drop out of it silently, and the code a match runs spreads
# out again) and that the linker followed it: the project's own functions, each compiled into a
# section of its own, lie in the file's order (the libraries' archives hold many functions to a
# section, so theirs cannot).
#   run.sh PROGRAM ORDER_FILE
set -euo pipefail
program=$1 order=$2
if ! symbols=$(nm --defined-only "$program" 2> /dev/null); then
  echo "$program: nm cannot list its symbols (stripped?), so its layout cannot be checked" >&2
  exit 1
fi
fix="regenerate it with: bash scripts/link_order.sh (valgrind needed)"
linker="was it linked with lld? cmake/LinkOrder.cmake"
awk -v fix="$fix" -v linker="$linker" '
  # nm prints addresses as hexadecimal of one width, so they compare as strings.
  NR == FNR { if (!($3 in at)) at[$3] = $1 ""; next }
  /^#/ || NF == 0 { next }
  { listed++ }
  $1 in at { found++ }
  $1 in at && $1 ~ /^_ZN?K?8allfives/ {
    own++
    if (own > 1 && at[$1] > last) ascending++
    last = at[$1]
  }
  END {
    if (listed == 0) { print FILENAME " lists no functions; " fix > "/dev/stderr"; exit 1 }
    share = found / listed
    order = own > 1 ? ascending / (own - 1) : 0
    printf "link_order: %d of %d listed functions are in the program (%.1f%%); ", found, listed,
      100 * share
    printf "of its own %d, %.1f%% lie after the one listed before\n", own, 100 * order
    if (share < 0.9) {
      print FILENAME " no longer matches the program: " fix > "/dev/stderr"
      exit 1
    }
    if (order < 0.95) {
      print "the program was not linked in the order of " FILENAME " (" linker ")" > "/dev/stderr"
      exit 1
    }
  }' <(printf '%s\n' "$symbols") "$order"
