"""Builds the allfives_bot package with its protocol modules and its rules core (pyproject.toml
has the metadata).

The modules of allfives_bot.protocol are generated from the repository's proto/ folder while the
package is built, straight into the build folder (generate_protocol.py), so the wheel and the
installed package have them and the source tree never does. The proto folder is
ALLFIVES_PROTO_DIR if set, else ../../proto next to this file (a clone of the repository).

allfives_bot._core is the rules core compiled from the very C++ sources the referee is built
from (../core/src, or ALLFIVES_CORE_DIR/src) with the bindings of src/, by pybind11 (Debian:
python3-pybind11, pybind11-dev and python3-dev; pip install --no-build-isolation uses them).
setuptools' own scratch folders go to a temporary folder too.
"""

import atexit
import glob
import os
import shutil
import sys
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py

try:
    from pybind11.setup_helpers import Pybind11Extension, build_ext
except ImportError:
    raise SystemExit("allfives_bot: building the rules core needs pybind11 (Debian: apt-get "
                     "install python3-pybind11 pybind11-dev python3-dev; with pip, install it "
                     "first and keep --no-build-isolation)") from None

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


def core_extension() -> Pybind11Extension:
    """allfives_bot._core from the rules core's sources and the bindings (src/)."""
    core = os.path.normpath(os.environ.get("ALLFIVES_CORE_DIR") or os.path.join(HERE, "..", "core"))
    sources = sorted(glob.glob(os.path.join(core, "src", "*.cpp")))
    if not sources:
        raise SystemExit(f"allfives_bot: no rules core sources in {core}/src (give "
                         "ALLFIVES_CORE_DIR, the repository's sdk/core)")
    # The engine (the strong bot's evaluation) sits beside the core.
    engine = os.path.normpath(os.path.join(core, "..", "engine"))
    sources += sorted(glob.glob(os.path.join(engine, "src", "*.cpp")))
    bindings = sorted(glob.glob(os.path.join(HERE, "src", "*.cpp")))
    # setuptools takes only paths relative to this folder (objects go to its scratch folder).
    sources = [os.path.relpath(path, HERE) for path in bindings + sources]
    return Pybind11Extension(
        "allfives_bot._core", sources=sources, cxx_std=20,
        include_dirs=[os.path.join(core, "include"), os.path.join(engine, "include"),
                      os.path.join(HERE, "src")],
        extra_compile_args=["-O2"])


# setuptools' scratch folders (build/, *.egg-info) go to a temporary folder, not the sources.
SCRATCH = tempfile.mkdtemp(prefix="allfives-bot-build-")
atexit.register(shutil.rmtree, SCRATCH, ignore_errors=True)

setup(ext_modules=[core_extension()],
      cmdclass={"build_py": BuildWithProtocol, "build_ext": build_ext},
      options={"build": {"build_base": SCRATCH}, "egg_info": {"egg_base": SCRATCH}})
