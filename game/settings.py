"""The player's saved options: key bindings, CPU level, rounds, round timer, volume, fullscreen.

One JSON file in the user's configuration folder (:func:`default_path`:
``$XDG_CONFIG_HOME/rangebox/settings.json``, else ``~/.config/rangebox/settings.json``),
read at start by the window (``game/cli/window.py``) and written by the options screen
(``game/render/options.py``) through :func:`game.files.write_atomic` (a temp file and a
rename: a crash never leaves half a file).  :func:`load` never raises: a missing file is the
defaults, and a file that cannot be read, is not JSON, or holds a field of the wrong type or
range gives the defaults for what is wrong and one line (``Loaded.problem``) naming the file
and the field.  Command-line flags override what is loaded (``game/cli/app.py``).

Standard library only, like every module the command line imports before it runs a match.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

from game import files

#: the settings file's name inside ``rangebox/`` in the configuration folder
FILE_NAME = "settings.json"
#: a settings file is a few kilobytes; anything over this is refused unread
MAX_SIZE = 64 * 1024
#: what a player binds keys to, in the options screen's order (``game.render.controls.INTENTS``)
INTENTS = ("left", "right", "up", "down", "in", "out", "lp", "hp", "lk", "hk", "guard")
#: CPU levels, easiest first (``game.sim.ai.LEVELS``)
LEVELS = ("easy", "medium", "normal", "hard")
#: the match lengths on offer: best of 1, 3 or 5 rounds
ROUNDS = (1, 3, 5)
#: the round timers on offer, seconds (at most 60: the longest match, and so the replay's
#: size cap, stays five rounds of 60 s)
TIMERS = (30, 45, 60)
#: volume steps, percent
VOLUME_STEP = 10

#: key names (``pyglet.window.key`` attributes) per player and intent.  P2's keypad keys are
#: named twice: with Num Lock off the keypad sends KP_Home, KP_Left, KP_Begin, ... (NUM_HOME,
#: ...) instead of KP_7, KP_4, KP_5 (NUM_7, ...), and the player presses the same key either way.
DEFAULT_BINDINGS: dict[int, dict[str, tuple[str, ...]]] = {
    0: {"left": ("A",), "right": ("D",), "up": ("W",), "down": ("S",), "in": ("Q",), "out": ("E",),
        "lp": ("U",), "hp": ("I",), "lk": ("J",), "hk": ("K",), "guard": ("L", "SPACE")},
    1: {"left": ("LEFT",), "right": ("RIGHT",), "up": ("UP",), "down": ("DOWN",),
        "in": ("NUM_7", "NUM_HOME", "PAGEUP"), "out": ("NUM_9", "NUM_PAGE_UP", "PAGEDOWN"),
        "lp": ("NUM_4", "NUM_LEFT", "BRACKETLEFT"), "hp": ("NUM_5", "NUM_BEGIN", "BRACKETRIGHT"),
        "lk": ("NUM_1", "NUM_END", "SEMICOLON"), "hk": ("NUM_2", "NUM_DOWN", "APOSTROPHE"),
        "guard": ("NUM_0", "NUM_INSERT", "RCTRL", "BACKSLASH")},
}


def _copy_bindings(b: dict[int, dict[str, tuple[str, ...]]]) -> dict[int, dict[str, tuple[str, ...]]]:
    return {p: dict(m) for p, m in b.items()}


@dataclass
class Settings:
    """What the options screen sets.  Every field has the game's default."""

    #: key names per player (0, 1) and intent (:data:`INTENTS`)
    bindings: dict[int, dict[str, tuple[str, ...]]] = field(default_factory=lambda: _copy_bindings(DEFAULT_BINDINGS))
    level: str = "normal"       # the CPU's level (:data:`LEVELS`)
    rounds: int = 3             # the match is best of this many rounds (:data:`ROUNDS`)
    timer: int = 60             # seconds a round lasts (:data:`TIMERS`)
    volume: int = 100           # sound volume, percent (0 to 100)
    fullscreen: bool = False    # the window opens full screen

    def copy(self) -> Settings:
        return replace(self, bindings=_copy_bindings(self.bindings))

    def to_json(self) -> dict[str, Any]:
        """The file's content (``p1`` / ``p2`` key lists per intent)."""
        return {"bindings": {f"p{p + 1}": {i: list(keys) for i, keys in m.items()} for p, m in self.bindings.items()},
                "level": self.level, "rounds": self.rounds, "timer": self.timer, "volume": self.volume,
                "fullscreen": self.fullscreen}


class Loaded(NamedTuple):
    """What :func:`load` found."""

    settings: Settings      # the settings to use (the defaults for whatever was wrong)
    path: Path              # the file read (or that would have been)
    problem: str | None     # one line naming the file and the field, or None: nothing wrong


def default_path() -> Path:
    """``$XDG_CONFIG_HOME/rangebox/settings.json``, else ``~/.config/rangebox/settings.json``
    (an empty or relative XDG_CONFIG_HOME is ignored, as the XDG specification says)."""
    base = os.environ.get("XDG_CONFIG_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".config"
    return root / "rangebox" / FILE_NAME


def key_conflict(bindings: dict[int, dict[str, tuple[str, ...]]], name: str,
                 player: int, intent: str) -> tuple[int, str] | None:
    """The (player, intent) other than ``player``'s ``intent`` that key ``name`` is bound to, or None."""
    for p, m in bindings.items():
        for i, keys in m.items():
            if (p, i) != (player, intent) and name in keys:
                return p, i
    return None


def unknown_key(bindings: dict[int, dict[str, tuple[str, ...]]], known: frozenset[str]) -> str | None:
    """``field 'bindings.pN.intent': unknown key name 'X'`` for the first name not in ``known``, or None."""
    for p, m in bindings.items():
        for intent, keys in m.items():
            for k in keys:
                if k not in known:
                    return f"field 'bindings.p{p + 1}.{intent}': unknown key name {k!r}"
    return None


class _Bad(ValueError):
    """A field of the file that cannot be used: ``field`` and what is wrong with it."""

    def __init__(self, field_name: str, what: str) -> None:
        super().__init__(f"field {field_name!r}: {what}")
        self.field = field_name


def _choice(data: dict, name: str, options: tuple) -> Any:
    value = data[name]
    if isinstance(value, bool) or value not in options:
        raise _Bad(name, f"{value!r} is not one of {', '.join(map(str, options))}")
    return value


def _volume(data: dict) -> int:
    value = data["volume"]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
        raise _Bad("volume", f"{value!r} is not a whole number from 0 to 100")
    return value


def _fullscreen(data: dict) -> bool:
    value = data["fullscreen"]
    if not isinstance(value, bool):
        raise _Bad("fullscreen", f"{value!r} is not true or false")
    return value


def _bindings(data: dict, key_names: frozenset[str] | None) -> dict[int, dict[str, tuple[str, ...]]]:
    raw = data["bindings"]
    if not isinstance(raw, dict) or set(raw) - {"p1", "p2"}:
        raise _Bad("bindings", "must be an object with p1 and p2")
    out = _copy_bindings(DEFAULT_BINDINGS)
    for p in (0, 1):
        side = raw.get(f"p{p + 1}", {})
        where = f"bindings.p{p + 1}"
        if not isinstance(side, dict):
            raise _Bad(where, "must be an object of intent: [key names]")
        for intent, keys in side.items():
            if intent not in INTENTS:
                raise _Bad(f"{where}.{intent}", f"unknown; the intents are {', '.join(INTENTS)}")
            if not isinstance(keys, list) or not keys or not all(isinstance(k, str) for k in keys):
                raise _Bad(f"{where}.{intent}", f"{keys!r} is not a non-empty list of key names")
            unknown = [k for k in keys if key_names is not None and k not in key_names]
            if unknown:
                raise _Bad(f"{where}.{intent}", f"unknown key name {unknown[0]!r}")
            out[p][intent] = tuple(keys)
    for p, m in out.items():
        for intent, keys in m.items():
            for k in keys:
                other = key_conflict(out, k, p, intent)
                if other is not None:
                    raise _Bad(f"bindings.p{p + 1}.{intent}",
                               f"key {k} is also P{other[0] + 1}'s {other[1]}")
    return out


#: each field's reader: (data, key names) -> value
_READERS = {
    "bindings": _bindings,
    "level": lambda d, _k: _choice(d, "level", LEVELS),
    "rounds": lambda d, _k: _choice(d, "rounds", ROUNDS),
    "timer": lambda d, _k: _choice(d, "timer", TIMERS),
    "volume": lambda d, _k: _volume(d),
    "fullscreen": lambda d, _k: _fullscreen(d),
}


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _Bad(k, "given twice")
        out[k] = v
    return out


def load(path: Path | str | None = None, key_names: frozenset[str] | None = None) -> Loaded:
    """The settings in ``path`` (default :func:`default_path`); never raises.

    A missing file gives the defaults silently.  An unusable file (not a regular file, too
    large, unreadable, not JSON, not an object) gives all the defaults; a bad field (wrong
    type, out of range, an unknown key name where ``key_names`` lists the known ones, a key
    bound twice) gives that field's default and keeps the others.  Either way ``problem`` is
    one line naming the file and the field, to be reported; the file itself is left as it is
    until the options screen saves."""
    p = Path(path) if path is not None else default_path()
    defaults = Settings()
    try:
        raw = files.read_bounded(p, "a settings file", MAX_SIZE)
    except files.FileUnusable as exc:
        if exc.reason == files.MISSING:
            return Loaded(defaults, p, None)
        return Loaded(defaults, p, f"{exc}; using the default settings")
    try:
        data = json.loads(raw.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except _Bad as exc:
        return Loaded(defaults, p, f"{p}: {exc}; using the default settings")
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return Loaded(defaults, p, f"{p}: not a JSON settings file ({exc}); using the default settings")
    if not isinstance(data, dict):
        return Loaded(defaults, p, f"{p}: not a JSON object; using the default settings")
    unknown = sorted(set(data) - set(_READERS))
    values: dict[str, Any] = {}
    bad: list[str] = [f"field {k!r}: unknown (the fields are {', '.join(_READERS)})" for k in unknown]
    for name, reader in _READERS.items():
        if name in data:
            try:
                values[name] = reader(data, key_names)
            except _Bad as exc:
                bad.append(str(exc))
    settings = replace(defaults, **values)
    if not bad:
        return Loaded(settings, p, None)
    more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
    return Loaded(settings, p, f"{p}: {bad[0]}{more}; using the default for it")


def save(settings: Settings, path: Path | str | None = None) -> Path:
    """Write ``settings`` to ``path`` (default :func:`default_path`) atomically, making its
    folder; returns the path.  OSError (a read-only folder, a full disk) is the caller's to report."""
    p = Path(path) if path is not None else default_path()
    p.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(settings.to_json(), indent=2) + "\n"
    files.write_atomic(p, text.encode("utf-8"), force=True)
    return p
