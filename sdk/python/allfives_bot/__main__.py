"""Runs a bot file with this package: ``python3 -m allfives_bot BOT.py --listen ADDRESS``.

The same runner is installed as the ``allfives-bot`` command. BOT.py is run as a script (its
``if __name__ == "__main__":`` block calls ``run()``), with ``sys.argv`` set to BOT.py and the
flags after it, and its own folder first on the module path, as ``python3 BOT.py`` would. A
bot file can also simply be run as ``python3 BOT.py --listen ADDRESS`` by a python3 that has
this package installed; the runner is for when that python3 is not the first one on PATH.
"""

from __future__ import annotations

import os
import runpy
import sys
from typing import List, Optional

USAGE = """usage: allfives-bot BOT.py --listen ADDRESS [--seed N] [the bot's own flags]

Runs a Python bot written with the allfives_bot package. ADDRESS is unix:PATH or host:port;
the referee gives --listen itself when it starts the bot. BOT.py --help lists its flags."""


def main(argv: Optional[List[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(USAGE, file=sys.stdout if args else sys.stderr)
        return 0 if args else 2
    path = args[0]
    if not os.path.isfile(path):
        print(f"allfives-bot: {path}: no such file", file=sys.stderr)
        return 2
    sys.argv = [path] + args[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as stop:  # the bot's sys.exit(run(...))
        code = stop.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
