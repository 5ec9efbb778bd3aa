#!/usr/bin/env bash
# Sets up if needed, builds, and runs every test (unit and end-to-end) with ctest.
#   bash scripts/test.sh                 once
#   bash scripts/test.sh --stress [N]    N times (default 3), each with two CPU-burning
#                                        processes beside it, to show the tests hold on a busy
#                                        machine (every timing test has margins for that)
set -euo pipefail
cd "$(dirname "$0")/.."

stress=0
rounds=1
if [[ ${1:-} == --stress ]]; then
  stress=1
  rounds=${2:-3}
elif [[ $# -gt 0 ]]; then
  echo "usage: bash scripts/test.sh [--stress [ROUNDS]]" >&2
  exit 2
fi

bash scripts/setup.sh
if ((stress == 0)); then
  exec ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "$(nproc)" --timeout 300
fi

burners=()
stop_burners() {
  for pid in "${burners[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop_burners EXIT
for _ in 1 2; do
  (exec yes > /dev/null) &
  burners+=($!)
done
for ((round = 1; round <= rounds; round++)); do
  echo "=== stress round $round of $rounds: the whole suite beside two CPU burners ==="
  ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "$(nproc)" --timeout 300
done
echo "=== all $rounds rounds passed beside two CPU burners ==="
