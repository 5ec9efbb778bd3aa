#!/usr/bin/env bash
# Writes referee/link_order.txt and sample_bots/link_order.txt: the functions of the `referee`
# program that a sandboxed tournament runs (the match worker's first, then the referee's own
# process's, then those of its short-lived children), and those `random_bot` runs over a match.
# The build links the referee and the sample C++ bots with lld, which places the sections
# holding them first, in this order (cmake/LinkOrder.cmake). Why: the kernel maps a program's
# code 64 KiB at a time around each page it runs, so a process that runs 2 MB of functions
# spread over 8 MB of code has most of the 8 MB resident; gathered, they fill about 4.5 MB
# (docs/BUILD.md, "How the programs' code is laid out"). Run it after changes that
# rename or add much of what a match runs; the `link_order` tests say when a file no longer
# matches its program.
#   bash scripts/link_order.sh [BUILD_DIR]     (needs valgrind, bubblewrap and a built referee)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
build=${1:-build}
referee="$root/$build/referee/referee"
bot="$root/$build/sample_bots/random_bot"
fail() { echo "link_order.sh: $*" >&2; exit 2; }
[[ -x $referee && -x $bot ]] || fail "no $referee or $bot; build first (scripts/setup.sh)"
referee=$(realpath "$referee") bot=$(realpath "$bot")
command -v valgrind > /dev/null || fail "needs valgrind (apt-get install valgrind)"
work=$(mktemp -d)
bot_pid=""
trap '[[ -n $bot_pid ]] && kill "$bot_pid" 2> /dev/null; rm -rf "$work"' EXIT

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

# A program's functions (\$2) with instructions counted in one profile (\$1), in the order it
# names them.
functions_of() {
  awk -v exe="$2" '
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
header() {
  echo "# Written by scripts/link_order.sh on $(date -u +%F), commit $(git rev-parse --short HEAD)."
  echo "# $1; lld places"
  echo "# the sections holding them first, in this order (cmake/LinkOrder.cmake). Do not edit."
}
# The profile naming the most functions is the worker's: it plays the matches.
{
  header "The referee's functions a sandboxed tournament runs, the match worker's first"
  for f in "$work"/profiles/*.out; do echo "$(functions_of "$f" "$referee" | wc -l) $f"; done |
    sort -rn | while read -r _ f; do functions_of "$f" "$referee"; done | awk '!seen[$0]++'
} > "$work/link_order.txt"

# random_bot over one match, served on a Unix socket (outside the sandbox: valgrind runs it),
# against another; it writes its profile when the referee's SIGTERM ends it.
valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/bot.out" \
  "$bot" --listen "unix:$work/bot.sock" > "$work/bot.err" 2>&1 &
bot_pid=$!
for ((i = 0; i < 300; i++)); do [[ -S $work/bot.sock ]] && break; sleep 0.1; done
[[ -S $work/bot.sock ]] || { cat "$work/bot.err" >&2; fail "random_bot did not serve under valgrind"; }
"$referee" match --seed 1 --log "$work/bot-match.jsonl" "unix:$work/bot.sock" "$bot" \
  > /dev/null 2> "$work/err" || { cat "$work/err" >&2; exit 1; }
kill -TERM "$bot_pid"
wait "$bot_pid" || true
bot_pid=""
[[ -s $work/bot.out ]] || { cat "$work/bot.err" >&2; fail "random_bot wrote no profile"; }
{
  header "The sample C++ bots' functions a match runs, profiled from random_bot"
  functions_of "$work/bot.out" "$bot"
} > "$work/bot_order.txt"

mv "$work/link_order.txt" referee/link_order.txt
mv "$work/bot_order.txt" sample_bots/link_order.txt
for f in referee/link_order.txt sample_bots/link_order.txt; do
  echo "link_order.sh: $f lists $(grep -vc '^#' "$f") functions"
done
