"""Builds the allfives_bot package with its protocol modules (pyproject.toml has the metadata).

The modules of allfives_bot.protocol are generated from the repository's proto/ folder while the
package is built, straight into the build folder (generate_protocol.py), so the wheel and the
installed package have them and the source tree never does. The proto folder is
ALLFIVES_PROTO_DIR if set, else ../../proto next to this file (a clone of the repository).
setuptools' own scratch folders go to a temporary folder too.
"""

import atexit
import os
import shutil
import sys
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from generate_protocol import generate  # noqa: E402


class BuildWithProtocol(build_py):
    """build_py, then the protocol's modules into the built package."""

    def run(self):
        super().run()
        proto_dir = os.environ.get("ALLFIVES_PROTO_DIR") or os.path.join(HERE, "..", "..", "proto")
        out = os.path.join(self.build_lib, "allfives_bot", "protocol")
        for path in generate(os.path.normpath(proto_dir), out):
            self.announce(f"generated {path}", level=2)


# setuptools' scratch folders (build/, *.egg-info) go to a temporary folder, not the sources.
SCRATCH = tempfile.mkdtemp(prefix="allfives-bot-build-")
atexit.register(shutil.rmtree, SCRATCH, ignore_errors=True)

setup(cmdclass={"build_py": BuildWithProtocol},
      options={"build": {"build_base": SCRATCH}, "egg_info": {"egg_base": SCRATCH}})
