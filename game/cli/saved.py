"""The saved settings under the command line's flags: a window's options, flags first.

A window (the game, ``--screenshot``, a replay) reads the settings file
(``game/settings.py``; ``--settings FILE`` names another) and fills in every match setting
the flags left out (``SAVED_MATCH_SETTINGS``: CPU level, rounds, timer); ``--fullscreen`` and
``--mute`` override the saved fullscreen and volume.  A replay takes its match settings from
its file, never from the saved ones.  ``--headless`` reads no settings: its result depends on
the flags alone.  A bad file is one line on stderr (``report``) and the defaults; never an exit.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from types import ModuleType

from game import settings as saved
from game.cli.parser import SAVED_MATCH_SETTINGS


def apply_settings(args: argparse.Namespace, report: Callable[[str], None]) -> None:
    """Load the settings a window uses into ``args.settings_data`` (with ``args.settings_path``,
    where the options screen saves them), and take the match settings the flags did not give
    from them.  Nothing is read with ``--headless`` (``args.settings_data`` is None)."""
    args.settings_data = None
    args.settings_path = None
    if args.headless:
        return
    loaded = saved.load(args.settings)      # key names are checked once pyglet is loaded (check_key_names)
    if loaded.problem is not None:
        report(loaded.problem)
    args.settings_data, args.settings_path = loaded.settings, loaded.path
    if args.replay is None:
        for name in SAVED_MATCH_SETTINGS:
            if getattr(args, name) is None:
                setattr(args, name, getattr(loaded.settings, name))


def check_key_names(args: argparse.Namespace, key_module: ModuleType, report: Callable[[str], None]) -> None:
    """Once pyglet is loaded (``key_module``: ``pyglet.window.key``): a saved binding to a key
    name pyglet does not know is one line and the default bindings."""
    data = args.settings_data
    if data is None:
        return
    known = frozenset(n for n in dir(key_module) if n.isupper() and isinstance(getattr(key_module, n), int))
    problem = saved.unknown_key(data.bindings, known)
    if problem is not None:
        report(f"{args.settings_path}: {problem}; using the default key bindings")
        data.bindings = saved.Settings().bindings
