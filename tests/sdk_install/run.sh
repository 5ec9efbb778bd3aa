#!/usr/bin/env bash
# Installs the SDK from a build directory into a temporary prefix, builds the out-of-tree bot
# of sdk/README.md ("A first bot in C++": its main.cpp and CMakeLists.txt, as the build
# extracted them from the guide) against it, and checks the bot's command line.
#   run.sh CMAKE BUILD_DIR MAIN_CPP CMAKELISTS GENERATOR CXX
set -euo pipefail
cmake=$1 build=$2 main=$3 lists=$4 generator=$5 cxx=$6

tmp=$(mktemp -d "${TMPDIR:-/tmp}/allfives-sdk-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
project=$tmp/first_cpp
mkdir "$project"
cp "$main" "$project/main.cpp"
cp "$lists" "$project/CMakeLists.txt"

"$cmake" --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" ||
  { cat "$tmp/install.log"; exit 1; }
for f in include/allfives/bot/bot.h include/allfives/core/state.h include/allfives/wire/convert.h \
         include/allfives/v1/bot.pb.h include/allfives/v1/bot.grpc.pb.h; do
  [ -f "$tmp/prefix/$f" ] || { echo "not installed: $f" >&2; exit 1; }
done

"$cmake" -S "$project" -B "$tmp/bot" -G "$generator" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$tmp/prefix" >"$tmp/configure.log" ||
  { cat "$tmp/configure.log"; exit 1; }
# Nothing misleading while the dependencies are found (gRPC's search for c-ares would print
# "Could NOT find c-ares" before finding it).
if grep -n "Could NOT find\|NOT FOUND\|CMake Warning" "$tmp/configure.log"; then
  echo "configuring the bot printed the lines above; it must find its dependencies quietly" >&2
  exit 1
fi
"$cmake" --build "$tmp/bot" >"$tmp/build.log" || { cat "$tmp/build.log"; exit 1; }

# Where c-ares is really missing (here: its header given as a folder without it), the
# configure stops with a message that names the package to install.
status=0
"$cmake" -S "$project" -B "$tmp/bot-no-cares" -G "$generator" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" -Dc-ares_INCLUDE_DIR="$tmp/no-such-folder" \
  >"$tmp/no-cares.log" 2>&1 || status=$?
[ "$status" -ne 0 ] || { echo "configuring without c-ares succeeded" >&2; exit 1; }
grep -q "install libc-ares-dev" "$tmp/no-cares.log" ||
  { cat "$tmp/no-cares.log"; echo "no clear message without c-ares" >&2; exit 1; }

# The same bot linked as the sample bots are: no shared gRPC, protobuf or C++ runtime (which
# the default build does link, so the check below can fail).
# (Outputs are taken whole before grep: `grep -q` stops reading at its first match, and under
# pipefail the writer's SIGPIPE would then fail the check.)
libraries=$(ldd "$tmp/bot/first_bot")
grep -q "libgrpc" <<< "$libraries" ||
  { printf 'the default build of the bot does not link the shared gRPC:\n%s\n' "$libraries" >&2
    exit 1; }
"$cmake" -S "$project" -B "$tmp/bot-static" -G "$generator" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DALLFIVES_STATIC_GRPC=ON \
  >"$tmp/configure-static.log" || { cat "$tmp/configure-static.log"; exit 1; }
"$cmake" --build "$tmp/bot-static" >"$tmp/build-static.log" || { cat "$tmp/build-static.log"; exit 1; }
if ldd "$tmp/bot-static/first_bot" | grep -E "libgrpc|libprotobuf|libabsl|libstdc\+\+"; then
  echo "with -DALLFIVES_STATIC_GRPC=ON the bot still links the shared libraries above" >&2
  exit 1
fi
help=$("$tmp/bot-static/first_bot" --help)
grep -q -- "--listen" <<< "$help" ||
  { echo "the statically linked bot's --help does not mention --listen" >&2; exit 1; }

"$tmp/bot/first_bot" --help >"$tmp/help.txt"
grep -q -- "--listen" "$tmp/help.txt" || { echo "--help does not mention --listen" >&2; exit 1; }
status=0
"$tmp/bot/first_bot" >/dev/null 2>&1 || status=$?
[ "$status" -eq 2 ] || { echo "without --listen the bot exited $status, expected 2" >&2; exit 1; }
echo "sdk_install: the out-of-tree bot builds against the installed SDK and runs"
