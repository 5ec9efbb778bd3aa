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
  lld  # links the referee's code in a given order, which GNU ld cannot (referee/CMakeLists.txt)
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libboost-dev libboost-filesystem-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # the ladder: its database, uploaded archives (read by referee-unpack), access-token hashes
  libsqlite3-dev libarchive-dev nettle-dev
  clang-14 libclang-rt-14-dev
  procps psmisc bubblewrap bsdutils
  slurm-wlm munge
  python3 python3-grpcio python3-protobuf python3-venv python3-setuptools
  pybind11-dev python3-pybind11 python3-dev
  chromium
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node and npm for the JavaScript kit (sdk/js): Debian's, unless a node is installed already
# (a node from elsewhere brings its own npm).
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
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

# The JavaScript kit's npm packages, pinned by sdk/js/package-lock.json, into sdk/js/node_modules
# (install scripts off: none is needed). Without the registry, everything else still builds.
if [ ! -f sdk/js/node_modules/.package-lock.json ] ||
   [ sdk/js/package-lock.json -nt sdk/js/node_modules/.package-lock.json ]; then
  (cd sdk/js && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) ||
    echo "setup: npm ci in sdk/js failed: the JavaScript bots are not built (everything else is)" >&2
fi

BUILD_DIR=${BUILD_DIR:-build}
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DALLFIVES_WERROR=$werror >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
