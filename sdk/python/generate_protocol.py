#!/usr/bin/env python3
"""Generates the Python modules of the protocol from proto/ into allfives_bot/protocol/.

One procedure for every way the SDK is built: ``pip install sdk/python`` runs it from
setup.py (into the wheel being built), the CMake build runs it into ``build/python``. Nothing
generated is kept in the source tree.

    generate_protocol.py --proto-dir proto --out DIR/allfives_bot/protocol
        [--protoc PROTOC --grpc-plugin grpc_python_plugin]

It runs ``protoc`` with ``grpc_python_plugin`` (Debian: protobuf-compiler and
protobuf-compiler-grpc), or ``python3 -m grpc_tools.protoc`` when those are not found. The
modules land side by side in one folder, and their imports of each other
(``from allfives.v1 import common_pb2``) become relative (``from . import common_pb2``), so
the package needs no top-level ``allfives`` or ``grpc.health`` module that could clash with
another package's.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Every message of allfives.v1, the service of bot.proto, and the health messages.
PROTOS = ["allfives/v1/common.proto", "allfives/v1/bot.proto", "allfives/v1/log.proto",
          "allfives/v1/tournament.proto", "grpc/health/v1/health.proto"]
SERVICES = ["allfives/v1/bot.proto"]

INIT = '''"""The protocol's messages and the Bot service stub, generated from proto/ when the SDK was
built (by sdk/python/generate_protocol.py). Do not edit.

common_pb2, bot_pb2, bot_pb2_grpc: package allfives.v1 (proto/allfives/v1/*.proto).
log_pb2, tournament_pb2: the match log and tournament files.
health_pb2: grpc.health.v1 (proto/grpc/health/v1/health.proto).
"""
'''


def find_compiler(protoc: str | None, plugin: str | None) -> list[str]:
    """The command that runs protoc with the gRPC Python plugin, without the file arguments."""
    protoc = protoc or os.environ.get("PROTOC") or shutil.which("protoc")
    plugin = plugin or shutil.which("grpc_python_plugin")
    if protoc and plugin:
        return [protoc, f"--plugin=protoc-gen-grpc_python={plugin}"]
    try:
        import grpc_tools.protoc  # noqa: F401  (pip's grpcio-tools)
    except ImportError:
        raise SystemExit(
            "generate_protocol: need protoc and grpc_python_plugin (Debian: apt-get install "
            "protobuf-compiler protobuf-compiler-grpc) or the grpcio-tools module") from None
    return [sys.executable, "-m", "grpc_tools.protoc"]


def generate(proto_dir: str, out_dir: str, protoc: str | None = None,
             plugin: str | None = None) -> list[str]:
    """Writes the modules into out_dir (created if needed) and returns their paths."""
    for name in PROTOS:
        if not os.path.isfile(os.path.join(proto_dir, name)):
            raise SystemExit(f"generate_protocol: {os.path.join(proto_dir, name)} not found "
                             "(give --proto-dir, or ALLFIVES_PROTO_DIR to pip)")
    command = find_compiler(protoc, plugin)
    with tempfile.TemporaryDirectory(prefix="allfives-protocol-") as tmp:
        subprocess.run(command + ["-I", proto_dir, f"--python_out={tmp}"] + PROTOS, check=True)
        subprocess.run(command + ["-I", proto_dir, f"--python_out={tmp}",
                                  f"--grpc_python_out={tmp}"] + SERVICES, check=True)
        os.makedirs(out_dir, exist_ok=True)
        written = []
        for folder, _, files in os.walk(tmp):
            for name in sorted(files):
                if not name.endswith(".py"):
                    continue
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    text = f.read()
                text = re.sub(r"^from (allfives\.v1|grpc\.health\.v1) import ", "from . import ",
                              text, flags=re.MULTILINE)
                if re.search(r"^(from|import) allfives\.", text, flags=re.MULTILINE):
                    raise SystemExit(f"generate_protocol: {name} has an import left to rewrite")
                path = os.path.join(out_dir, name)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
                written.append(path)
    init = os.path.join(out_dir, "__init__.py")
    with open(init, "w", encoding="utf-8") as f:
        f.write(INIT)
    return written + [init]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--proto-dir", required=True, help="the repository's proto/ folder")
    parser.add_argument("--out", required=True, help="the allfives_bot/protocol folder to write")
    parser.add_argument("--protoc", help="protoc to run (default: PROTOC, then PATH)")
    parser.add_argument("--grpc-plugin", help="grpc_python_plugin (default: PATH)")
    args = parser.parse_args()
    generate(args.proto_dir, args.out, args.protoc, args.grpc_plugin)
    return 0


if __name__ == "__main__":
    sys.exit(main())
