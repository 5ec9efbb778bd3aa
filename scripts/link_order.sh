#!/usr/bin/env bash
# Writes referee/link_order.txt: the functions of the `referee` program that a sandboxed
# tournament runs, the match worker's first, then the referee's own process's, then those of its
# short-lived children. The build links the referee with lld, which places the sections holding
# them first, in this order (referee/CMakeLists.txt). Why: the kernel maps a program's code 64 KiB
# at a time around each page it runs, so a process that runs 2 MB of functions spread over 8 MB
# of code has most of the 8 MB resident; gathered, they fill about 4.5 MB (docs/ARCHITECTURE.md,
# "How the referee's code is laid out"). Run it after changes that rename or add much of what a
# match runs; the `link_order` test says when the file no longer matches the program.
#   bash scripts/link_order.sh [BUILD_DIR]     (needs valgrind, bubblewrap and a built referee)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${1:-build}
referee="$root/$build/referee/referee"
[[ -x $referee ]] && referee=$(realpath "$referee")
fail() { echo "link_order.sh: $*" >&2; exit 2; }
[[ -x $referee ]] || fail "no $referee; build first (scripts/setup.sh)"
command -v valgrind > /dev/null || fail "needs valgrind (apt-get install valgrind)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# valgrind refuses an RLIMIT_NOFILE whose hard limit differs from its own, so the bots could not
# be started under it: this library, preloaded into the profiled referee only, skips that one
# limit. Everything else runs as in any tournament, sandbox and cgroups included.
cat > "$work/nofile.c" << 'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/resource.h>
int setrlimit(__rlimit_resource_t resource, const struct rlimit* limit) {
  static int (*next)(__rlimit_resource_t, const struct rlimit*);
  if (resource == RLIMIT_NOFILE) return 0;
  if (!next)
    next = (int (*)(__rlimit_resource_t, const struct rlimit*))dlsym(RTLD_NEXT, "setrlimit");
  return next(resource, limit);
}
EOF
cc -shared -fPIC -O2 -o "$work/nofile.so" "$work/nofile.c" -ldl

# The demo's bots, two matches of each pairing, one at a time: every kind of process is seen.
sed "s|\.\./build/|$root/$build/|; s/^matches_per_pairing: *[0-9]*/matches_per_pairing: 2/" \
  tournaments/demo.txtpb > "$work/demo.txtpb"
mkdir "$work/profiles"
LD_PRELOAD="$work/nofile.so" valgrind --tool=callgrind --demangle=no \
  --callgrind-out-file="$work/profiles/%p.out" \
  "$referee" tournament "$work/demo.txtpb" --out "$work/out" -j 1 -q > /dev/null 2> "$work/err" ||
  { cat "$work/err" >&2; exit 1; }
grep -q '^referee peak memory' "$work/err" || { cat "$work/err" >&2; exit 1; }

# The referee's functions with instructions counted in one profile, in the order it names them.
functions_of() {
  awk -v exe="$referee" '
    /^c?ob=/ {
      id = $1; sub(/^c?ob=/, "", id)
      if (NF > 1) obj[id] = $2
      if ($1 ~ /^ob=/) here = (obj[id] == exe)
    }
    /^c?fn=/ {
      id = $1; sub(/^c?fn=/, "", id)
      if (NF > 1) { name = $2; sub(/\047.*/, "", name); fn[id] = name }
      if (here && $1 ~ /^fn=/ && !(fn[id] in seen)) { seen[fn[id]] = 1; print fn[id] }
    }' "$1"
}
# The profile naming the most functions is the worker's: it plays the matches.
{
  echo "# Written by scripts/link_order.sh on $(date -u +%F), commit $(git rev-parse --short HEAD)."
  echo "# The referee's functions a sandboxed tournament runs, the match worker's first; lld places"
  echo "# the sections holding them first, in this order (referee/CMakeLists.txt). Do not edit."
  for f in "$work"/profiles/*.out; do echo "$(functions_of "$f" | wc -l) $f"; done |
    sort -rn | while read -r _ f; do functions_of "$f"; done | awk '!seen[$0]++'
} > "$work/link_order.txt"
mv "$work/link_order.txt" referee/link_order.txt
echo "link_order.sh: referee/link_order.txt lists $(grep -vc '^#' referee/link_order.txt) functions"
