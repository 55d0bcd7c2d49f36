"""Command-line tools (``python3 -m game.tools.bake``, ``python3 -m game.tools.soak``)."""

from __future__ import annotations

import sys
from typing import NoReturn

#: Exit status of every tool (and ``main.py``) for bad input: a flag, a file, a missing package.
EXIT_USAGE = 2
#: The one line for a required package that is not installed (``main.py``, the tools, the renderer's boot):
#: the set-up installs the packages into the checkout's ``.venv``, so a Python without them is most
#: likely the system's, run in place of the venv's.
FIX_PACKAGE = ("Python package '{name}' is not installed for "
               + (sys.executable or "this Python").replace("{", "{{").replace("}", "}}")
               + ": run 'bash scripts/setup.sh', then use the Python it sets up, .venv/bin/python "
                 "(or '. .venv/bin/activate' first)")
#: The packages the tools import (``pyproject.toml``); a missing one is a set-up step not run.
REQUIRED_PACKAGES = frozenset({"numpy", "pyrr"})


def exit_for_missing_package(exc: ModuleNotFoundError, prog: str, as_command: bool) -> NoReturn:
    """A tool's import of a required package failed: as a command, print one line naming the
    set-up command and exit :data:`EXIT_USAGE` (as ``main.py`` does); imported as a module,
    or for any other module, re-raise ``exc``."""
    if not as_command or (exc.name or "").split(".")[0] not in REQUIRED_PACKAGES:
        raise exc
    print(f"{prog}: {FIX_PACKAGE.format(name=exc.name)}", file=sys.stderr)
    sys.exit(EXIT_USAGE)
