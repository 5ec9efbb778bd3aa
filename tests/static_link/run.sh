#!/usr/bin/env bash
# With ALLFIVES_STATIC_GRPC (cmake/StaticGrpc.cmake), the programs load no shared gRPC,
# Protocol Buffers, absl or C++ runtime: if a package's targets change so that the module no
# longer rewrites them, the build would go back to the shared libraries without a word. And
# every program links gRPC without TLS (proto/CMakeLists.txt): a target that links
# gRPC::grpc++ again would bring back OpenSSL and the secure transports, code that never runs.
#   run.sh PROGRAM...
set -euo pipefail
status=0
for program in "$@"; do
  shared=$(ldd "$program" | grep -E "libgrpc|libprotobuf|libabsl|libupb|libre2|libcares|libstdc\+\+|libssl|libcrypto" || true)
  if [ -n "$shared" ]; then
    echo "$program loads shared libraries that ALLFIVES_STATIC_GRPC links statically:" >&2
    echo "$shared" >&2
    status=1
  fi
  if ! symbols=$(nm "$program" 2> /dev/null); then
    echo "$program: nm cannot list its symbols (stripped?), so its TLS code cannot be checked" >&2
    status=1
    continue
  fi
  tls=$(grep -E ' T (SSL_CTX_new|grpc_ssl_credentials_create)$' <<< "$symbols" || true)
  if [ -n "$tls" ]; then
    echo "$program contains TLS code (link gRPC::grpc++_unsecure, not gRPC::grpc++):" >&2
    echo "$tls" >&2
    status=1
  fi
done
[ "$status" -eq 0 ] &&
  echo "static_link: $# programs load no shared gRPC, protobuf, absl or C++ runtime and carry no TLS"
exit "$status"
