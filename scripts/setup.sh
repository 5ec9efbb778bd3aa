#!/usr/bin/env bash
# Sets up a Debian 12 machine for the arena and builds it.
#   scripts/setup.sh              install missing packages, configure, build (Release)
#   BUILD_DIR=dir scripts/setup.sh   build elsewhere (default: build)
#   CI=true scripts/setup.sh      the same, with warnings treated as errors
# Safe to re-run: packages already installed are skipped, the build is incremental.
set -euo pipefail
cd "$(dirname "$0")/.."

# Everything the project builds, tests and runs with; nothing is downloaded at build time.
PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libboost-dev libboost-filesystem-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-14 libclang-rt-14-dev
  procps psmisc bubblewrap bsdutils
  slurm-wlm munge
  python3 python3-grpcio python3-protobuf python3-venv python3-setuptools
  chromium
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install packages" >&2; exit 1; }
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

BUILD_DIR=${BUILD_DIR:-build}
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DALLFIVES_WERROR=$werror >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
