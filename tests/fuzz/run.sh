#!/usr/bin/env bash
# Builds the libFuzzer targets of the two readers of untrusted files with clang-14 in a build
# folder of its own and runs each for a bounded time: the match log reader (two thirds of the
# time, corpus tests/fuzz/corpus) and the tournament-file reader (one third, corpus
# tests/fuzz/tournament_corpus: the files of tournaments/ and a few edge cases).
#   tests/fuzz/run.sh [SECONDS]          fuzz for SECONDS in all (default 60: 40 + 20)
#   FUZZ_BUILD_DIR=dir tests/fuzz/run.sh  build there (default: build-fuzz)
# The clang build compiles only what the target needs (core, wire, proto, the log reader),
# instrumented with ASan and libFuzzer's coverage; the Debian protobuf/gRPC libraries are
# GCC-built and link fine (clang uses the same libstdc++). New inputs found during the run go
# to a temporary folder, not into the repository's corpus; a crash is saved in the build
# folder (crash-*) and fails the run. The corpus holds small real logs and edited, cut and
# one-line variants, and in found/ inputs earlier runs found that add coverage; to add more:
#   build-fuzz/tests/fuzz/log_reader_fuzz -merge=1 tests/fuzz/corpus/found NEW_INPUTS_DIR
# Needs clang-14 and libclang-rt-14-dev (scripts/setup.sh installs them); without them this
# fails, it never skips.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${1:-60}
build=${FUZZ_BUILD_DIR:-build-fuzz}
for tool in clang-14 clang++-14; do
  if ! command -v "$tool" >/dev/null; then
    echo "tests/fuzz/run.sh: $tool is not installed; install clang-14 and libclang-rt-14-dev" \
         "(scripts/setup.sh does) to build the fuzzer" >&2
    exit 1
  fi
done

CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DALLFIVES_FUZZ=ON -DALLFIVES_BUILD_BENCHMARKS=OFF -DALLFIVES_WERROR=ON \
  -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link,address" \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address" >/dev/null
cmake --build "$build" --target log_reader_fuzz tournament_file_fuzz

new_inputs=$(mktemp -d)
trap 'rm -rf "$new_inputs"' EXIT
log_seconds=$((seconds * 2 / 3))
tournament_seconds=$((seconds - log_seconds))
echo "fuzzing the log reader for ${log_seconds}s on tests/fuzz/corpus ($(find tests/fuzz/corpus -type f | wc -l) inputs)"
mkdir -p "$new_inputs/log" "$new_inputs/tournament"
"$build/tests/fuzz/log_reader_fuzz" "$new_inputs/log" tests/fuzz/corpus \
  -dict=tests/fuzz/log.dict -max_total_time="$log_seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=65536 -print_final_stats=1 -artifact_prefix="$build/"
echo "fuzzing the tournament-file reader for ${tournament_seconds}s on tests/fuzz/tournament_corpus ($(find tests/fuzz/tournament_corpus -type f | wc -l) inputs)"
"$build/tests/fuzz/tournament_file_fuzz" "$new_inputs/tournament" tests/fuzz/tournament_corpus \
  -dict=tests/fuzz/tournament.dict -max_total_time="$tournament_seconds" -timeout=10 \
  -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 -artifact_prefix="$build/tournament-"
