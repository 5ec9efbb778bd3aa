#!/usr/bin/env bash
# With ALLFIVES_STATIC_GRPC (cmake/StaticGrpc.cmake), the programs load no shared gRPC,
# Protocol Buffers, absl or C++ runtime: if a package's targets change so that the module no
# longer rewrites them, the build would go back to the shared libraries without a word.
#   run.sh PROGRAM...
set -euo pipefail
status=0
for program in "$@"; do
  shared=$(ldd "$program" | grep -E "libgrpc|libprotobuf|libabsl|libupb|libre2|libcares|libstdc\+\+" || true)
  if [ -n "$shared" ]; then
    echo "$program loads shared libraries that ALLFIVES_STATIC_GRPC links statically:" >&2
    echo "$shared" >&2
    status=1
  fi
done
[ "$status" -eq 0 ] && echo "static_link: $# programs load no shared gRPC, protobuf, absl or C++ runtime"
exit "$status"
