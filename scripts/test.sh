#!/usr/bin/env bash
# Sets up if needed, builds, and runs every test (unit and end-to-end) with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "$(nproc)" --timeout 300
