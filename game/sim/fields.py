"""Reading the asset files: JSON documents and the typed, range-checked :class:`Fields` reader.

Every asset loader (fighters and moves, :mod:`game.sim.data`; the arena, :mod:`game.sim.arena`)
reads its JSON with :func:`read_json` and every field through a :class:`Fields` reader, so a bad
file fails the same way everywhere: one line ``<file>: <field path>: expected <what>, got
<value>; <fix>`` in the loader's own exception type, never an error from inside numpy.  A key no
loader reads (a misspelt ``"crouchng"``) is an error too; keys starting with ``_`` are comments;
a key written twice in one object is an error (JSON would keep the last silently).  The file
itself is read with :func:`game.files.read_bounded` (at most :data:`MAX_JSON_BYTES`).
"""

from __future__ import annotations

import difflib
import json
import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal, NoReturn, overload

from game import files

#: The repository's own asset folder (restorable with git).
ASSETS = Path(__file__).resolve().parents[2] / "assets"


class AssetError(ValueError):
    """An asset file is missing or malformed; the message names file, field and fix."""


# ---- shared field validation --------------------------------------------------------------------
#: A key of a JSON object or an index of a JSON list.
Key = str | int

#: ``default`` of a :class:`Fields` reader: the key must be present.
REQUIRED = object()
#: What :meth:`Fields.raw` returns for an absent key that may be absent.
MISSING = object()


class Fields:
    """Typed, range-checked reads of one JSON document's fields, shared by every asset loader.

    Each reader takes the containing object or list, the key (str) or index (int) and the
    path of the container (``"moves.lk"``, ``""`` for the top level), and returns a clean
    Python value or raises ``error`` with one line::

        <file>: <path>: expected <what>, got <value>; <fix>, or restore the shipped file with <restore>

    A key absent from an object reads as ``default``, or is an error when ``default`` is
    :data:`REQUIRED`.  Numbers are finite (no NaN, no infinity) and never ``true`` / ``false``;
    whole numbers are JSON integers.

    Unknown keys: every reader records which keys of which object it was asked for
    (present or not), so the keys a loader reads *are* the known keys; no list to keep in
    step with the code.  Once the loader has read the whole document (all passes: a pose is
    read again by each move that names it), it calls :meth:`reject_unknown`, which walks the
    document and fails on the first key of an object that no reader asked for, suggesting
    the closest known key (``did you mean 'hitstun'?``) or listing them.  Keys starting
    with ``_`` are comments, allowed in every object (and never entries of a name -> value
    object such as ``poses``: see :meth:`entries`).  A loader that reads an object's keys
    without a reader (``obj.get``) makes those keys "unknown": the shipped files then fail.
    """

    def __init__(self, path: Path | str, error: type[ValueError] = AssetError, restore: str | None = None) -> None:
        self.path = path
        self.error = error
        self.restore = restore
        #: id(object) -> (the object, kept alive so the id stays its own; the keys read from it)
        self._read: dict[int, tuple[dict, set]] = {}

    @staticmethod
    def is_comment(key: object) -> bool:
        """A ``_``-prefixed key (``"_doc"``): documentation, never read, allowed in every object."""
        return isinstance(key, str) and key.startswith("_")

    @classmethod
    def entries(cls, obj: dict) -> tuple[str, ...]:
        """The keys of a name -> value object (``poses``, ``moves``, ``colors`` ...), comments left out."""
        return tuple(k for k in obj if not cls.is_comment(k))

    def unknown(self, where: str, key: object, known: Iterable[object]) -> NoReturn:
        """Fail on ``key`` of the object at ``where``, which reads only the keys ``known``."""
        names = sorted(k for k in known if isinstance(k, str) and not self.is_comment(k))
        close = difflib.get_close_matches(key, names, n=1) if isinstance(key, str) else []
        shown = f"unknown key {key!r}"
        if close:
            self.fail(self.at(where, key), "a key the game reads", shown=shown,
                      fix=f"did you mean {close[0]!r}? rename it (or remove it)")
        listing = ", ".join(names) if names else "none"
        self.fail(self.at(where, key), f"one of the keys the game reads here ({listing}) or a '_' comment key",
                  shown=shown, fix="rename it to one of those, or remove it")

    def reject_unknown(self, node: Any, where: str = "") -> None:
        """Fail on the first key, anywhere in ``node`` (the document), that no reader asked for.

        Call it after the loader's last read of the document: the known keys of an object are
        the ones read from it so far."""
        if isinstance(node, dict):
            known = self._read.get(id(node), (node, set()))[1]
            for k in node:
                if k not in known and not self.is_comment(k):
                    self.unknown(where, k, known)
            for k, v in node.items():
                if not self.is_comment(k):
                    self.reject_unknown(v, self.at(where, k))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                self.reject_unknown(v, self.at(where, i))

    @staticmethod
    def at(where: str, key: object) -> str:
        """The path of ``key`` inside ``where``: ``moves.lk`` + ``keys`` -> ``moves.lk.keys``, + 2 -> ``[2]``."""
        if isinstance(key, int):
            return f"{where}[{key}]"
        return f"{where}.{key}" if where else str(key)

    def fail(self, field: str, expected: str, got: Any = MISSING, fix: str | None = None, *,
             shown: str | None = None) -> NoReturn:
        """Raise the error for ``field``; ``shown`` replaces ``repr(got)`` in the message."""
        if got is MISSING and shown is None:
            text = f"{field}: missing: expected {expected}; {fix or 'add it'}"
        else:
            if shown is None:
                shown = repr(got)
                shown = shown if len(shown) <= 60 else shown[:57] + "..."
            text = f"{field}: expected {expected}, got {shown}; {fix or 'set it to ' + expected}"
        if self.restore:
            text += f", or restore the shipped file with {self.restore}"
        raise self.error(f"{self.path}: {text}")

    def root(self, doc: Any) -> dict:
        """The document itself, which must be a JSON object."""
        if not isinstance(doc, dict):
            self.fail("top level", "a JSON object {...}", doc)
        return doc

    def raw(self, parent: Any, key: Key, where: str, expected: str, default: Any = REQUIRED) -> Any:
        """``parent[key]`` unchecked (``expected`` describes it if it is missing); ``MISSING``
        when it is absent and may be (``default`` given)."""
        if isinstance(parent, dict):
            self._read.setdefault(id(parent), (parent, set()))[1].add(key)
            if key in parent:
                return parent[key]
        elif isinstance(parent, list) and isinstance(key, int):
            if 0 <= key < len(parent):
                return parent[key]
        else:
            self.fail(where or "top level", "an object or a list", parent)
        if default is REQUIRED:
            self.fail(self.at(where, key), expected)
        return MISSING

    def obj(self, parent: Any, key: Key, where: str, default: Any = REQUIRED) -> dict:
        """An object ``{...}``."""
        what = "an object {...}"
        v = self.raw(parent, key, where, what, default)
        if v is MISSING:
            return default
        if not isinstance(v, dict):
            self.fail(self.at(where, key), what, v)
        return v

    def items(self, parent: Any, key: Key, where: str, what: str, n: int | None = None, lo: int = 0,
              hi: int | None = None, default: Any = REQUIRED) -> list:
        """A list of ``n`` (or ``lo`` to ``hi``) items; ``what`` names them (``"numbers"``)."""
        if n is not None:
            lo = hi = n
            expected = f"a list of {n} {what}"
        elif hi is not None:
            expected = f"a list of {lo} to {hi} {what}"
        else:
            expected = f"a list of {what}" + (f" (at least {lo})" if lo else "")
        v = self.raw(parent, key, where, expected, default)
        if v is MISSING:
            return default
        if not isinstance(v, list) or len(v) < lo or (hi is not None and len(v) > hi):
            self.fail(self.at(where, key), expected, v)
        return v

    def num(self, parent: Any, key: Key, where: str, lo: float | None = None, hi: float | None = None, *,
            above: float | None = None, default: Any = REQUIRED) -> float:
        """A finite number in ``[lo, hi]`` (``above``: strictly greater), as a float."""
        parts = [f"> {above}" if above is not None else f">= {lo}" if lo is not None else "",
                 f"<= {hi}" if hi is not None else ""]
        expected = "a finite number" + (" " + " and ".join(p for p in parts if p) if any(parts) else "")
        v = self.raw(parent, key, where, expected, default)
        if v is MISSING:
            return default
        x = math.nan
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            try:
                x = float(v)
            except OverflowError:          # a JSON integer too large for a float
                pass
        if (not math.isfinite(x) or (above is not None and not x > above) or (lo is not None and x < lo)
                or (hi is not None and x > hi)):
            self.fail(self.at(where, key), expected, v)
        return x

    def whole(self, parent: Any, key: Key, where: str, lo: int, hi: int, what: str | None = None, *,
              default: Any = REQUIRED) -> int:
        """A JSON integer from ``lo`` to ``hi``; ``what`` replaces the description."""
        expected = what or f"a whole number from {lo} to {hi}"
        v = self.raw(parent, key, where, expected, default)
        if v is MISSING:
            return default
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            self.fail(self.at(where, key), expected, v)
        return int(v)

    def vec(self, parent: Any, key: Key, where: str, n: int, lo: float | None = None, hi: float | None = None, *,
            above: float | None = None) -> list[float]:
        """A list of ``n`` finite numbers, each in range (the path names the bad element)."""
        v = self.items(parent, key, where, "numbers", n=n)
        field = self.at(where, key)
        return [self.num(v, i, field, lo, hi, above=above) for i in range(n)]

    @overload
    def text(self, parent: Any, key: Key, where: str, *, nullable: Literal[False] = False) -> str: ...

    @overload
    def text(self, parent: Any, key: Key, where: str, *, nullable: bool = False,
             default: Any = REQUIRED) -> str | None: ...

    def text(self, parent: Any, key: Key, where: str, *, nullable: bool = False,
             default: Any = REQUIRED) -> str | None:
        """A non-empty string (or null when ``nullable``)."""
        expected = "a non-empty string" + (" or null" if nullable else "")
        v = self.raw(parent, key, where, expected, default)
        if v is MISSING:
            return default
        if not ((isinstance(v, str) and v) or (nullable and v is None)):
            self.fail(self.at(where, key), expected, v)
        return v

    def flag(self, parent: Any, key: Key, where: str, default: Any = REQUIRED) -> bool:
        """``true`` or ``false``."""
        v = self.raw(parent, key, where, "true or false", default)
        if v is MISSING:
            return default
        if not isinstance(v, bool):
            self.fail(self.at(where, key), "true or false", v)
        return v

    def choice(self, parent: Any, key: Key, where: str, options: Iterable[str], what: str | None = None,
               default: Any = REQUIRED) -> str:
        """One of the strings ``options``."""
        expected = (what + " " if what else "") + "one of " + ", ".join(repr(o) for o in options)
        v = self.raw(parent, key, where, expected, default)
        if v is MISSING:
            return default
        if not isinstance(v, str) or v not in options:
            self.fail(self.at(where, key), expected, v)
        return v



def in_shipped_assets(path: Path | str) -> bool:
    """True if ``path`` lies in the repository's own ``assets/`` folder, restorable with git: only
    then do messages suggest ``git checkout``.  A copy elsewhere (a test's, a user's) is its owner's.
    (``os.path.realpath``, not ``Path.resolve``: a symbolic-link loop must reach the reader, which
    names it, instead of raising ``RuntimeError`` here.)"""
    return Path(os.path.realpath(ASSETS)) in Path(os.path.realpath(path)).parents


def restore_hint(path: Path | str) -> str | None:
    """``git checkout -- assets/NAME`` for a shipped asset file, else None."""
    return f"git checkout -- assets/{Path(path).name}" if in_shipped_assets(path) else None


#: The most bytes an asset JSON file (``fighters.json``, ``moves.json``, the arena description)
#: may have: the largest shipped one (``moves.json``) is 17 kB, so this leaves room for a move
#: table some sixty times as large, and parsing it stays within a few tens of MB.
MAX_JSON_BYTES = 1 << 20


class AssetFileError(AssetError):
    """An asset file cannot be read as a file: missing, a directory, a FIFO, a device, a
    socket, a symbolic-link loop, unreadable, or over :data:`MAX_JSON_BYTES`.  ``reason`` is
    :attr:`game.files.FileUnusable.reason`."""

    reason = ""


class _Pairs(list):
    """A JSON object as parsed, before its keys are checked: its ``(key, value)`` pairs in order."""


def _objects(node: Any, where: str, duplicate: Any) -> Any:
    """``node`` with every :class:`_Pairs` made a dict; ``duplicate(field, key)`` is called (and
    must raise) on the first key an object holds twice, in document order."""
    if isinstance(node, _Pairs):
        out: dict = {}
        for k, v in node:
            if k in out:
                duplicate(Fields.at(where, k), k)
            out[k] = _objects(v, Fields.at(where, k), duplicate)
        return out
    if isinstance(node, list):
        return [_objects(v, Fields.at(where, i), duplicate) for i, v in enumerate(node)]
    return node


def _file_problem(exc: files.FileUnusable, path: Path, restore: str | None) -> str:
    """The one-line message for an asset file that cannot be read, ending with its fix."""
    if exc.reason == files.MISSING:
        fix = "restore the assets/ folder from the repository (git checkout -- assets)" if restore else "check the path"
        return f"{path}: {exc.detail}; {fix}"
    if exc.reason == files.NOT_REGULAR:
        if exc.kind == files.DIRECTORY:
            return f"{path}: is a folder, not a JSON file; name the file itself"
        fix = f"put the JSON file there ({restore})" if restore else "name a JSON file"
        return f"{path}: {exc.detail}; {fix}"
    if exc.reason == files.PERMISSION:
        return f"{path}: {exc.detail}; make it readable (chmod u+r {path}) or run as its owner"
    if exc.reason == files.TOO_LARGE:
        fix = f"restore it with {restore}" if restore else "name the right file, or make it smaller"
        return f"{path}: {exc.detail}; {fix}"
    return f"{path}: {exc.detail}; check the path and its permissions"


def read_json(path: Path, error: type[ValueError] = AssetError, file_error: type[ValueError] | None = None) -> Any:
    """The JSON document in the UTF-8 file ``path``; any problem reading or parsing it raises
    ``error`` (each asset family's own type) with one line naming the file and the fix.

    The file is read with :func:`game.files.read_bounded` (a regular file of at most
    :data:`MAX_JSON_BYTES`): a path it cannot read raises ``file_error`` (default:
    :class:`AssetFileError` for ``AssetError``, else ``error``) with a ``reason`` attribute.
    A key written twice in one object is refused, naming it: JSON parsers keep the last one
    silently, so ``"max_health": 100, "max_health": 1`` would play with 1."""
    restore = restore_hint(path)
    again = f", or restore it with {restore}" if restore else ""
    try:
        data = files.read_bounded(path, "an asset JSON file", MAX_JSON_BYTES)
    except files.FileUnusable as exc:
        cls = file_error or (AssetFileError if error is AssetError else error)
        err = cls(_file_problem(exc, path, restore))
        err.reason = exc.reason  # type: ignore[attr-defined]  # the reader's class may not declare it
        raise err from None
    try:
        doc = json.loads(data.decode("utf-8"), object_pairs_hook=_Pairs)
    except json.JSONDecodeError as exc:
        raise error(f"{path}: line {exc.lineno} column {exc.colno}: invalid JSON ({exc.msg}); fix the JSON "
                    f"syntax" + again) from None
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not a UTF-8 text file (byte {exc.start}: {exc.reason}); name the JSON file "
                    f"(assets/{path.name})" + again) from None
    except (ValueError, RecursionError) as exc:   # nested too deeply, a number too long to convert
        raise error(f"{path}: cannot read as JSON ({exc}); fix the file" + again) from None

    def duplicate(field: str, key: str) -> NoReturn:
        raise error(f"{path}: {field}: key {key!r} is written twice in one object (JSON would keep only the "
                    f"last); keep one of the two" + again)

    try:
        return _objects(doc, "", duplicate)
    except RecursionError as exc:
        raise error(f"{path}: cannot read as JSON ({exc}); fix the file" + again) from None


def fields_of(path: Path) -> Fields:
    """A reader for the asset file ``path`` raising :class:`AssetError` (with a git restore hint for a shipped file)."""
    return Fields(path, AssetError, restore_hint(path))

