"""Who is speaking on the command line, and how a user-facing problem ends the run.

The same command line runs as ``python3 main.py`` (from a checkout) and as ``rangebox``
(the console script that ``pip install -e .`` puts in ``.venv/bin``).  Each prints its
own name before every stderr line and in argparse's usage, so a message never names a
command the user did not type; a :class:`Program` carries the two names through.
"""

from __future__ import annotations

from typing import NamedTuple


class Program(NamedTuple):
    """The names one way of running the command line goes by."""

    command: str    # argparse's prog: the usage line, and "(see: COMMAND --help)" in usage errors
    name: str       # the prefix of every line written to stderr ("main.py: ...")


#: ``python3 main.py``: how the README runs the game from a checkout (Debian 12 has no ``python``).
MAIN_PY = Program(command="python3 main.py", name="main.py")
#: ``rangebox``: the console script of an installed (editable) Rangebox.
CONSOLE = Program(command="rangebox", name="rangebox")


class UsageError(Exception):
    """A user-facing problem (bad flag, file, display): one line, exit code 2."""


def why(exc: OSError) -> str:
    """The operating system's words for ``exc`` ("No space left on device")."""
    return exc.strerror or str(exc)
