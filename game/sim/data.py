"""Fighter and move data: read from ``assets/`` once, validated, and compiled to arrays.

A move's keyframes are compiled into a dense ``(frames, L, 3)`` angle table,
so posing a fighter during play is an index, not an interpolation.

Every field of ``fighters.json`` and ``moves.json`` is checked on load by the
shared :class:`Fields` reader (which :mod:`game.sim.arena` uses for
``arena.scene.json`` too): a bad value raises :class:`AssetError` with one line
``<file>: <field path>: expected <what>, got <value>; <fix>``, never an error from
inside numpy.  The bounds are what the sim can play (constants below).  A key the loader
does not read (a misspelt ``"crouchng"``) is an error too, suggesting the closest key it
does read; keys starting with ``_`` are comments (``"_doc"``).
"""

from __future__ import annotations

import difflib
import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import numpy as np

from .skeleton import Skeleton, SkeletonError, euler_matrices

ASSETS = Path(__file__).resolve().parents[2] / "assets"

HEIGHTS = ("high", "mid", "low")

# ---- bounds of the data fields (60 frames = 1 s) ----------------------------------------------
#: A move phase, a loop, a stun, a hitstop or a projectile's life: whole frames up to 10 s.
MAX_FRAMES = 600
#: ``max_health`` and a hit's ``damage``.
MAX_HEALTH = 100_000
MAX_LIMBS = 64
#: Pose angles, degrees either way.
MAX_ANGLE = 360.0
#: Limb joints, centres and half sizes (m): a body, not a building.
BODY_SIZE = 5.0
#: ``pushbox_radius`` (m): the two circles must fit between the arena walls.
MAX_PUSHBOX = 2.0
#: ``lunge`` and ``pushback`` (m of travel), a jump's height (m).
MAX_TRAVEL = 10.0
#: ``combo_scaling``: at most this many entries (the last one repeats).
MAX_SCALING = 16
#: A projectile's speed (m / frame) and half size (m).
MAX_PROJECTILE_SPEED = 2.0
MAX_PROJECTILE_HALF = 2.0

#: Names the sim looks up (game/sim/match.py): the poses and loops of its states, the moves
#: its inputs start, so a file without one would fail mid-match.
REQUIRED_POSES = ("stance", "crouch", "block_stand", "block_crouch", "ko", "win") + tuple(f"hit_{h}" for h in HEIGHTS)
REQUIRED_LOOPS = ("walk_fwd", "walk_back", "sidestep")
REQUIRED_MOVES = ("lp", "hp", "lk", "hk", "hk_low", "fireball", "jump")

FRAMES = f"a whole number of frames from 0 to {MAX_FRAMES}"


class AssetError(ValueError):
    """An asset file is missing or malformed; the message names file, field and fix."""


# ---- shared field validation --------------------------------------------------------------------
#: ``default`` of a :class:`Fields` reader: the key must be present.
REQUIRED = object()
_MISSING = object()


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

    def __init__(self, path, error: type[ValueError] = AssetError, restore: str | None = None):
        self.path = path
        self.error = error
        self.restore = restore
        #: id(object) -> (the object, kept alive so the id stays its own; the keys read from it)
        self._read: dict[int, tuple[dict, set]] = {}

    @staticmethod
    def is_comment(key) -> bool:
        """A ``_``-prefixed key (``"_doc"``): documentation, never read, allowed in every object."""
        return isinstance(key, str) and key.startswith("_")

    @classmethod
    def entries(cls, obj: dict) -> tuple[str, ...]:
        """The keys of a name -> value object (``poses``, ``moves``, ``colors`` ...), comments left out."""
        return tuple(k for k in obj if not cls.is_comment(k))

    def unknown(self, where: str, key, known) -> NoReturn:
        """Fail on ``key`` of the object at ``where``, which reads only the keys ``known``."""
        known = sorted(k for k in known if isinstance(k, str) and not self.is_comment(k))
        close = difflib.get_close_matches(key, known, n=1) if isinstance(key, str) else []
        shown = f"unknown key {key!r}"
        if close:
            self.fail(self.at(where, key), "a key the game reads", shown=shown,
                      fix=f"did you mean {close[0]!r}? rename it (or remove it)")
        listing = ", ".join(known) if known else "none"
        self.fail(self.at(where, key), f"one of the keys the game reads here ({listing}) or a '_' comment key",
                  shown=shown, fix="rename it to one of those, or remove it")

    def reject_unknown(self, node, where: str = "") -> None:
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
    def at(where: str, key) -> str:
        """The path of ``key`` inside ``where``: ``moves.lk`` + ``keys`` -> ``moves.lk.keys``, + 2 -> ``[2]``."""
        if isinstance(key, int):
            return f"{where}[{key}]"
        return f"{where}.{key}" if where else str(key)

    def fail(self, field: str, expected: str, got=_MISSING, fix: str | None = None, *,
             shown: str | None = None) -> NoReturn:
        """Raise the error for ``field``; ``shown`` replaces ``repr(got)`` in the message."""
        if got is _MISSING and shown is None:
            text = f"{field}: missing: expected {expected}; {fix or 'add it'}"
        else:
            if shown is None:
                shown = repr(got)
                shown = shown if len(shown) <= 60 else shown[:57] + "..."
            text = f"{field}: expected {expected}, got {shown}; {fix or 'set it to ' + expected}"
        if self.restore:
            text += f", or restore the shipped file with {self.restore}"
        raise self.error(f"{self.path}: {text}")

    def root(self, doc) -> dict:
        """The document itself, which must be a JSON object."""
        if not isinstance(doc, dict):
            self.fail("top level", "a JSON object {...}", doc)
        return doc

    def raw(self, parent, key, where: str, expected: str, default=REQUIRED):
        """``parent[key]`` unchecked (``expected`` describes it if it is missing); ``_MISSING``
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
        return _MISSING

    def obj(self, parent, key, where: str, default=REQUIRED) -> dict:
        """An object ``{...}``."""
        what = "an object {...}"
        v = self.raw(parent, key, where, what, default)
        if v is _MISSING:
            return default
        if not isinstance(v, dict):
            self.fail(self.at(where, key), what, v)
        return v

    def items(self, parent, key, where: str, what: str, n: int | None = None, lo: int = 0,
              hi: int | None = None, default=REQUIRED) -> list:
        """A list of ``n`` (or ``lo`` to ``hi``) items; ``what`` names them (``"numbers"``)."""
        if n is not None:
            lo = hi = n
            expected = f"a list of {n} {what}"
        elif hi is not None:
            expected = f"a list of {lo} to {hi} {what}"
        else:
            expected = f"a list of {what}" + (f" (at least {lo})" if lo else "")
        v = self.raw(parent, key, where, expected, default)
        if v is _MISSING:
            return default
        if not isinstance(v, list) or len(v) < lo or (hi is not None and len(v) > hi):
            self.fail(self.at(where, key), expected, v)
        return v

    def num(self, parent, key, where: str, lo: float | None = None, hi: float | None = None, *,
            above: float | None = None, default=REQUIRED) -> float:
        """A finite number in ``[lo, hi]`` (``above``: strictly greater), as a float."""
        parts = [f"> {above}" if above is not None else f">= {lo}" if lo is not None else "",
                 f"<= {hi}" if hi is not None else ""]
        expected = "a finite number" + (" " + " and ".join(p for p in parts if p) if any(parts) else "")
        v = self.raw(parent, key, where, expected, default)
        if v is _MISSING:
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

    def whole(self, parent, key, where: str, lo: int, hi: int, what: str | None = None, *,
              default=REQUIRED) -> int:
        """A JSON integer from ``lo`` to ``hi``; ``what`` replaces the description."""
        expected = what or f"a whole number from {lo} to {hi}"
        v = self.raw(parent, key, where, expected, default)
        if v is _MISSING:
            return default
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            self.fail(self.at(where, key), expected, v)
        return int(v)

    def vec(self, parent, key, where: str, n: int, lo: float | None = None, hi: float | None = None, *,
            above: float | None = None) -> list[float]:
        """A list of ``n`` finite numbers, each in range (the path names the bad element)."""
        v = self.items(parent, key, where, "numbers", n=n)
        field = self.at(where, key)
        return [self.num(v, i, field, lo, hi, above=above) for i in range(n)]

    def text(self, parent, key, where: str, *, nullable: bool = False, default=REQUIRED) -> str | None:
        """A non-empty string (or null when ``nullable``)."""
        expected = "a non-empty string" + (" or null" if nullable else "")
        v = self.raw(parent, key, where, expected, default)
        if v is _MISSING:
            return default
        if not ((isinstance(v, str) and v) or (nullable and v is None)):
            self.fail(self.at(where, key), expected, v)
        return v

    def flag(self, parent, key, where: str, default=REQUIRED) -> bool:
        """``true`` or ``false``."""
        v = self.raw(parent, key, where, "true or false", default)
        if v is _MISSING:
            return default
        if not isinstance(v, bool):
            self.fail(self.at(where, key), "true or false", v)
        return v

    def choice(self, parent, key, where: str, options, what: str | None = None, default=REQUIRED) -> str:
        """One of the strings ``options``."""
        expected = (what + " " if what else "") + "one of " + ", ".join(repr(o) for o in options)
        v = self.raw(parent, key, where, expected, default)
        if v is _MISSING:
            return default
        if not isinstance(v, str) or v not in options:
            self.fail(self.at(where, key), expected, v)
        return v


@dataclass(frozen=True)
class ProjectileSpec:
    """What a projectile move launches, and what it does when it lands."""

    name: str
    limb: int            # spawned at this limb's range-box centre
    speed: float         # m / frame along the facing
    lifetime: int        # frames
    half: float          # half size of its range box
    level: int           # C9: its rays hit only models of a higher level
    damage: int
    hitstun: int
    blockstun: int
    pushback: float
    hitstop: int
    height: str
    heavy: bool = False
    knockdown: bool = False   # a projectile never knocks down (its data has no such field)


@dataclass(frozen=True)
class ThrowSpec:
    """The throw (``moves.json`` ``throw``), pressed as lp + lk together.

    ``move`` is the grab: on an active frame its ``hit_limbs`` touching (A2-A4) a defender who
    stands on the ground and is free or in a move of its own (not in hitstun, blockstun, a
    knockdown or a throw) grab it; nothing else about the grab differs from a strike's contact.
    From the grab the thrower plays ``hold`` and the thrown fighter the ``keys`` for ``frames``
    frames, ``distance`` metres in front of the thrower; lp + lk pressed by the thrown fighter in
    the first ``tech`` of them breaks the throw (both reel ``break_stun`` frames, pushed
    ``break_pushback`` m apart); otherwise it lands on the ``tech``-th: ``damage``, the thrown
    fighter slides ``travel`` m away (as a hit's pushback), its body hits the floor on frame
    ``lands`` of its animation, and it is floored for the rest, struck by nothing, as in a
    knockdown."""

    move: str
    hold: str
    frames: int
    tech: int
    damage: int
    break_stun: int
    break_pushback: float
    distance: float
    #: the thrown fighter's limb whose range box, with the grab's first hit limb, gives the A7 point
    struck_limb: int
    travel: float = 0.0
    lands: int = 0


@dataclass(frozen=True)
class Move:
    """One move's frame data and compiled animation.

    ``angles`` is ``(total, L, 3)`` radians and ``rot`` the matching joint
    rotations ``(total, L, 3, 3)``; ``advance`` ``(total,)`` is the
    forward root travel on each frame (the lunge); ``air`` ``(total,)`` the
    jump height above the ground on each frame.
    """

    name: str
    label: str
    startup: int
    active: int
    recovery: int
    hit_limbs: tuple[int, ...]
    height: str
    damage: int
    hitstun: int
    blockstun: int
    pushback: float
    hitstop: int
    heavy: bool
    angles: np.ndarray
    rot: np.ndarray
    body: np.ndarray     # (total, 12, L, 4) the rows of ``rot`` posed in the body frame (Skeleton.body)
    advance: np.ndarray
    air: np.ndarray
    projectile: ProjectileSpec | None = None
    #: Moves this one cancels into (``"cancel": {"into": [...]}``), and the move frames
    #: ``(first, last)`` after which a cancel may start, once it has made contact (hit or block).
    cancel: tuple[str, ...] = ()
    cancel_window: tuple[int, int] = (0, -1)
    #: A hit (never a block) knocks the defender down (``"knockdown": true``): it falls, lies
    #: and gets up, struck by nothing, for the move's ``hitstun`` frames (the ``knockdown``
    #: animation's length), instead of reeling in hitstun.
    knockdown: bool = False

    def can_cancel(self, frame: int, into: str) -> bool:
        """True when ``into`` may replace this move on the step after its move frame ``frame``
        (the caller checks that the move has made contact)."""
        return into in self.cancel and self.cancel_window[0] <= frame <= self.cancel_window[1]

    @property
    def total(self) -> int:
        return self.startup + self.active + self.recovery

    def is_active(self, frame: int) -> bool:
        return self.startup <= frame < self.startup + self.active

    def phase(self, frame: int) -> str:
        """'startup', 'active' or 'recovery' for a 0-indexed frame of the move."""
        if frame < self.startup:
            return "startup"
        if frame < self.startup + self.active:
            return "active"
        return "recovery"


@dataclass(frozen=True, eq=False)
class GameData:
    skeleton: Skeleton
    max_health: int
    pushbox_radius: float
    fighters: tuple[dict, ...]
    poses: dict[str, np.ndarray]        # name -> (L, 3) angles
    loops: dict[str, np.ndarray]        # name -> (frames, L, 3) angles
    moves: dict[str, Move]
    #: Percent of a hit's damage by its place in a combo (1st, 2nd, ...; the last repeats).
    combo_scaling: tuple[int, ...]
    pose_rot: dict[str, np.ndarray]     # name -> (L, 3, 3) joint rotations
    loop_rot: dict[str, np.ndarray]     # name -> (frames, L, 3, 3)
    pose_body: dict[str, np.ndarray]    # name -> (12, L, 4) body-frame FK (Skeleton.body)
    loop_body: dict[str, np.ndarray]    # name -> (frames, 12, L, 4)
    #: The knockdown animation (fall, lie, get up), one row per frame of a knockdown: angles
    #: ``(K, L, 3)``, rotations ``(K, L, 3, 3)``, body-frame FK ``(K, 12, L, 4)``; ``K`` is
    #: also how long a knockdown lasts (a knockdown move's ``hitstun``).  ``K = 0``: no
    #: ``knockdown`` in moves.json (then no move may knock down).
    knockdown: np.ndarray = None
    knockdown_rot: np.ndarray = None
    knockdown_body: np.ndarray = None
    #: The throw (:class:`ThrowSpec`), or None (no ``throw`` in moves.json: lp + lk is no command),
    #: and the thrown fighter's animation, one row per frame from the grab: ``(T, L, 3)``,
    #: ``(T, L, 3, 3)``, ``(T, 12, L, 4)``.
    throw: ThrowSpec | None = None
    thrown: np.ndarray = None
    thrown_rot: np.ndarray = None
    thrown_body: np.ndarray = None

    @property
    def knockdown_frames(self) -> int:
        """How many frames a knockdown lasts, hit to first free frame (hitstop aside)."""
        return 0 if self.knockdown is None else int(self.knockdown.shape[0])


def in_shipped_assets(path) -> bool:
    """True if ``path`` lies in the repository's own ``assets/`` folder, restorable with git: only
    then do messages suggest ``git checkout``.  A copy elsewhere (a test's, a user's) is its owner's."""
    return ASSETS.resolve() in Path(path).resolve().parents


def restore_hint(path) -> str | None:
    """``git checkout -- assets/NAME`` for a shipped asset file, else None."""
    return f"git checkout -- assets/{Path(path).name}" if in_shipped_assets(path) else None


def read_json(path: Path, error: type[ValueError] = AssetError):
    """The JSON document in the UTF-8 file ``path``; any problem reading or parsing it raises
    ``error`` (each asset family's own type) with one line naming the file and the fix."""
    restore = restore_hint(path)
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        fix = "restore the assets/ folder from the repository (git checkout -- assets)" if restore else "check the path"
        raise error(f"{path}: file not found; {fix}") from None
    except IsADirectoryError:
        raise error(f"{path}: is a folder, not a JSON file; name the file itself") from None
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror or exc}); check the path and its permissions") from None
    except json.JSONDecodeError as exc:
        raise error(f"{path}: line {exc.lineno} column {exc.colno}: invalid JSON ({exc.msg}); fix the JSON "
                    f"syntax" + (f", or restore it with {restore}" if restore else "")) from None
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not a UTF-8 text file (byte {exc.start}: {exc.reason}); name the JSON file "
                    f"(assets/{path.name})" + (f", or restore it with {restore}" if restore else "")) from None
    except (ValueError, RecursionError) as exc:   # JSON nested too deeply
        raise error(f"{path}: cannot read as JSON ({exc}); fix the file"
                    + (f", or restore it with {restore}" if restore else "")) from None


def _fields(path: Path) -> Fields:
    return Fields(path, AssetError, restore_hint(path))


def _ease(t: np.ndarray) -> np.ndarray:
    return t * t * (3.0 - 2.0 * t)


def _read_fighters(path: Path) -> tuple[Skeleton, int, float, tuple[dict, ...]]:
    """``fighters.json`` -> (skeleton, max_health, pushbox_radius, fighters), every field checked."""
    f = _fields(path)
    doc = f.root(read_json(path))
    max_health = f.whole(doc, "max_health", "", 1, MAX_HEALTH, f"a whole number of health points from 1 to {MAX_HEALTH}")
    radius = f.num(doc, "pushbox_radius", "", hi=MAX_PUSHBOX, above=0.0)
    src = f.items(doc, "limbs", "", "limb objects", lo=1, hi=MAX_LIMBS)
    limbs = []
    for i in range(len(src)):
        w = f"limbs[{i}]"
        limb = f.obj(src, i, "limbs")
        limbs.append({
            "name": f.text(limb, "name", w),
            "parent": f.text(limb, "parent", w, nullable=True),
            "joint": f.vec(limb, "joint", w, 3, -BODY_SIZE, BODY_SIZE),
            "center": f.vec(limb, "center", w, 3, -BODY_SIZE, BODY_SIZE),
            "half": f.vec(limb, "half", w, 3, hi=BODY_SIZE, above=0.0),
        })
    try:
        skeleton = Skeleton(limbs)
    except SkeletonError as exc:
        f.fail(exc.field, exc.expected, exc.got, exc.fix)
    fighters = f.items(doc, "fighters", "", "fighter objects (the two players)", n=2)
    for i in range(len(fighters)):
        w = f"fighters[{i}]"
        fd = f.obj(fighters, i, "fighters")
        f.text(fd, "name", w, default=None)
        colors = f.obj(fd, "colors", w)
        for c in f.entries(colors):
            f.vec(colors, c, f"{w}.colors", 3, 0.0, 1.0)
        limb_colors = f.obj(fd, "limb_colors", w)
        for name in skeleton.names:
            f.choice(limb_colors, name, f"{w}.limb_colors", f.entries(colors), "a colour name:")
        for name in f.entries(limb_colors):
            if name not in skeleton.names:
                f.unknown(f"{w}.limb_colors", name, skeleton.names)
    f.reject_unknown(doc)
    return skeleton, max_health, radius, tuple(fighters)


def _compile_pose(f: Fields, parent, key, where: str, poses_src: dict, names: tuple[str, ...],
                  seen: tuple[str, ...] = ()) -> np.ndarray:
    """The pose at ``parent[key]`` (a pose name or ``{base, limb: [ax, ay, az]}``) -> ``(L, 3)`` radians.

    ``seen``: the poses being compiled that led here, so a pose cannot be its own base."""
    field = f.at(where, key)
    spec = f.raw(parent, key, where, "a pose name or an object {base, limb: [ax, ay, az]}")
    if isinstance(spec, str):
        if spec not in poses_src or f.is_comment(spec):
            f.fail(field, f"a pose name (one of {', '.join(f.entries(poses_src))})", spec)
        if spec in seen:
            f.fail(field, "a pose that is not based on itself", spec,
                   f"break the chain of 'base' poses {' -> '.join(seen + (spec,))}")
        return _compile_pose(f, poses_src, spec, "poses", poses_src, names, seen + (spec,))
    if not isinstance(spec, dict):
        f.fail(field, "a pose name or an object {base, limb: [ax, ay, az]}", spec)
    base = f.raw(spec, "base", field, "a pose name or null", default=None)
    out = (
        _compile_pose(f, spec, "base", field, poses_src, names, seen) if base not in (None, _MISSING)
        else np.zeros((len(names), 3))
    ).copy()
    for limb in f.entries(spec):
        if limb == "base":
            continue
        if limb not in names:
            f.unknown(field, limb, ("base", *names))
        angles = f.vec(spec, limb, field, 3, -MAX_ANGLE, MAX_ANGLE)   # [ax, ay, az] degrees
        out[names.index(limb)] = np.radians(np.asarray(angles, dtype=float))
    return out


def _compile_keys(f: Fields, parent: dict, where: str, frames: int, poses_src: dict, names) -> np.ndarray:
    """``parent["keys"]``, keyframes ``[[frame, pose], ...]`` -> dense eased table ``(frames, L, 3)``."""
    field = f.at(where, "keys")
    keys = f.items(parent, "keys", where, "[frame, pose] pairs", lo=1, hi=frames + 1)
    kf, kp = [], []
    for i in range(len(keys)):
        kw = f.at(field, i)
        f.items(keys, i, field, "items: [frame, pose]", n=2)
        if i == 0:
            kf.append(f.whole(keys[0], 0, kw, 0, 0, "frame 0 (the first key starts the animation)"))
        elif kf[-1] >= frames:
            f.fail(kw, f"no key after frame {frames}, the last one", keys[i], "remove this key")
        else:
            kf.append(f.whole(keys[i], 0, kw, kf[-1] + 1, frames,
                              f"a key frame from {kf[-1] + 1} to {frames} (after the previous key)"))
        kp.append(_compile_pose(f, keys[i], 1, kw, poses_src, names))
    table = np.empty((frames, len(names), 3))
    for fr in range(frames):
        j = max(i for i, k in enumerate(kf) if k <= fr)
        if j == len(kf) - 1:
            table[fr] = kp[j]
        else:
            t = _ease(np.array((fr - kf[j]) / (kf[j + 1] - kf[j])))
            table[fr] = kp[j] + (kp[j + 1] - kp[j]) * t
    return table


def _require(f: Fields, parent: dict, where: str, names: tuple[str, ...], what: str) -> None:
    """Each of ``names`` (entries the sim looks up by name) is in ``parent``."""
    for n in names:
        if n not in parent:
            f.fail(f.at(where, n), f"a {what} object {{...}}", fix=f"add it: the game plays the {what} {n!r}")


def _read_projectile(f: Fields, m: dict, w: str, name: str, names: tuple[str, ...]) -> ProjectileSpec | None:
    """``m["projectile"]``, or None for a move without one."""
    pw = f.at(w, "projectile")
    p = f.obj(m, "projectile", w, default=None)
    if p is None:
        return None
    return ProjectileSpec(
        name=name,
        limb=names.index(f.choice(p, "limb", pw, names, "a limb name:")),
        speed=f.num(p, "speed", pw, hi=MAX_PROJECTILE_SPEED, above=0.0),
        lifetime=f.whole(p, "lifetime", pw, 1, MAX_FRAMES, f"a whole number of frames from 1 to {MAX_FRAMES}"),
        half=f.num(p, "half", pw, hi=MAX_PROJECTILE_HALF, above=0.0),
        level=f.whole(p, "level", pw, 0, 2, "a level: 0 (low), 1 (medium) or 2 (high)"),
        damage=f.whole(p, "damage", pw, 0, MAX_HEALTH, f"a whole number of health points from 0 to {MAX_HEALTH}"),
        hitstun=f.whole(p, "hitstun", pw, 0, MAX_FRAMES, FRAMES),
        blockstun=f.whole(p, "blockstun", pw, 0, MAX_FRAMES, FRAMES),
        pushback=f.num(p, "pushback", pw, 0.0, MAX_TRAVEL),
        hitstop=f.whole(p, "hitstop", pw, 0, MAX_FRAMES, FRAMES),
        height=f.choice(p, "height", pw, HEIGHTS),
    )


def _read_move(f: Fields, m: dict, n: str, poses_src: dict, skeleton: Skeleton) -> Move:
    """One entry of ``moves``, every field checked, compiled to its tables."""
    names = skeleton.names
    w = f"moves.{n}"
    label = f.text(m, "label", w)
    startup = f.whole(m, "startup", w, 0, MAX_FRAMES, FRAMES)
    active = f.whole(m, "active", w, 0, MAX_FRAMES, FRAMES)
    recovery = f.whole(m, "recovery", w, 0, MAX_FRAMES, FRAMES)
    total = startup + active + recovery
    if total < 1:
        f.fail(f"{w}.recovery", "a move of at least 1 frame (startup + active + recovery >= 1)", recovery)
    src = f.items(m, "hit_limbs", w, "limb names")
    hit_limbs = tuple(names.index(f.choice(src, i, f"{w}.hit_limbs", names, "a limb name:")) for i in range(len(src)))
    height = f.choice(m, "height", w, HEIGHTS)
    damage = f.whole(m, "damage", w, 0, MAX_HEALTH, f"a whole number of health points from 0 to {MAX_HEALTH}")
    hitstun = f.whole(m, "hitstun", w, 0, MAX_FRAMES, FRAMES)
    blockstun = f.whole(m, "blockstun", w, 0, MAX_FRAMES, FRAMES)
    pushback = f.num(m, "pushback", w, 0.0, MAX_TRAVEL)
    hitstop = f.whole(m, "hitstop", w, 0, MAX_FRAMES, FRAMES)
    lunge = f.num(m, "lunge", w, 0.0, MAX_TRAVEL)
    heavy = f.flag(m, "heavy", w)
    knockdown = f.flag(m, "knockdown", w, default=False)
    advance = np.zeros(total)
    if startup > 0 and lunge:
        ramp = _ease(np.linspace(0.0, 1.0, startup + 1)) * lunge
        advance[:startup] = np.diff(ramp)
    air = np.zeros(total)
    a = f.items(m, "air", w, "items: [first frame, last frame, height in m]", n=3, default=None)
    if a is not None:
        aw = f.at(w, "air")
        a0 = f.whole(a, 0, aw, 0, total - 1, f"a take-off frame from 0 to {total - 1}")
        a1 = f.whole(a, 1, aw, a0 + 1, total, f"a landing frame from {a0 + 1} to {total} (after take-off)")
        height_m = f.num(a, 2, aw, hi=MAX_TRAVEL, above=0.0)
        t = (np.arange(total) - a0) / float(a1 - a0)
        inside = (t > 0) & (t < 1)
        air[inside] = 4.0 * height_m * t[inside] * (1.0 - t[inside])
    proj = _read_projectile(f, m, w, n, names)
    cancel, window = _read_cancel(f, m, w, startup, active, total)
    angles = _compile_keys(f, m, w, total, poses_src, names)
    rot = euler_matrices(angles)
    return Move(
        name=n, label=label, startup=startup, active=active, recovery=recovery, hit_limbs=hit_limbs,
        height=height, damage=damage, hitstun=hitstun, blockstun=blockstun, pushback=pushback,
        hitstop=hitstop, heavy=heavy, angles=angles, rot=rot, body=skeleton.body(rot),
        advance=advance, air=air, projectile=proj, cancel=cancel, cancel_window=window, knockdown=knockdown,
    )


def _read_cancel(f: Fields, m: dict, w: str, startup: int, active: int,
                 total: int) -> tuple[tuple[str, ...], tuple[int, int]]:
    """``m["cancel"]``: ``{"into": [move names], "window": [first, last]}``, or ``((), (0, -1))``.

    The names are checked against the move table by :func:`_check_cancels`, once every move is read."""
    cw = f.at(w, "cancel")
    c = f.obj(m, "cancel", w, default=None)
    if c is None:
        return (), (0, -1)
    if not active:
        f.fail(cw, "no cancel on a move without active frames", c, "remove 'cancel': it can never make contact")
    src = f.items(c, "into", cw, "move names", lo=1)
    into = tuple(f.text(src, i, f.at(cw, "into")) for i in range(len(src)))
    ww = f.at(cw, "window")
    f.items(c, "window", cw, "frames: [first, last] move frames after which a cancel may start", n=2)
    win = c["window"]
    first = f.whole(win, 0, ww, startup, total - 1,
                    f"a move frame from {startup} (its first active frame: contact comes no sooner) to {total - 1}")
    last = f.whole(win, 1, ww, first, total - 1, f"a move frame from {first} (the first) to {total - 1}")
    return into, (first, last)


def _check_cancels(f: Fields, moves: dict[str, Move]) -> None:
    """Every cancel names another move of the table (not ``jump``), and no chain of cancels
    leads back to a move in it: each string of cancels ends, with a move that cancels into nothing."""
    for n, mv in moves.items():
        field = f"moves.{n}.cancel.into"
        for i, t in enumerate(mv.cancel):
            if t not in moves or t == "jump":
                f.fail(f.at(field, i), "the name of an attack in moves (" +
                       ", ".join(k for k in moves if k != "jump") + ")", t)
            if t == n:
                f.fail(f.at(field, i), "another move (a move cannot cancel into itself)", t,
                       "remove it: a self-cancel repeats without end")
    def walk(n: str, path: tuple[str, ...]) -> None:
        for t in moves[n].cancel:
            if t in path:
                f.fail(f"moves.{path[0]}.cancel.into", "cancels that end (no chain leading back to a move in it)",
                       shown=" -> ".join(path + (t,)), fix=f"remove {t!r} from moves.{n}.cancel.into")
            walk(t, path + (t,))
    for n in moves:
        walk(n, (n,))


def _read_knockdown(f: Fields, doc: dict, moves: dict[str, Move], poses_src: dict, names) -> np.ndarray:
    """``doc["knockdown"]``: ``{"frames": K, "keys": [[frame, pose], ...]}``, the animation of a
    fighter knocked down (fall, lie, get up), compiled to ``(K, L, 3)``; ``(0, L, 3)`` when absent.

    A knockdown lasts the animation: each move with ``"knockdown": true`` has ``hitstun == K``
    (one number for the designer to change with the keys, and the attacker's advantage after a
    knockdown is fixed by it)."""
    kd = f.obj(doc, "knockdown", "", default=None)
    knocking = [n for n, mv in moves.items() if mv.knockdown]
    if kd is None:
        if knocking:
            f.fail("knockdown", "an object {frames, keys} (the animation of a knockdown)",
                   fix=f"add it: moves.{knocking[0]} knocks down")
        return np.zeros((0, len(names), 3))
    frames = f.whole(kd, "frames", "knockdown", 1, MAX_FRAMES, f"a whole number of frames from 1 to {MAX_FRAMES}")
    table = _compile_keys(f, kd, "knockdown", frames, poses_src, names)
    for n in knocking:
        if moves[n].hitstun != frames:
            f.fail(f"moves.{n}.hitstun", f"{frames} (knockdown.frames: a knockdown lasts its animation)",
                   moves[n].hitstun, f"set it to {frames}, or change knockdown.frames and its keys")
    return table


def _read_throw(f: Fields, doc: dict, moves: dict[str, Move], poses_src: dict,
                names) -> tuple[ThrowSpec | None, np.ndarray]:
    """``doc["throw"]`` (see :class:`ThrowSpec`) and the thrown fighter's animation compiled to
    ``(frames, L, 3)``; ``(None, (0, L, 3))`` when absent."""
    th = f.obj(doc, "throw", "", default=None)
    if th is None:
        return None, np.zeros((0, len(names), 3))
    w = "throw"
    move = f.choice(th, "move", w, tuple(moves), "the grab's move name:")
    hold = f.choice(th, "hold", w, tuple(moves), "the thrower's move from the grab on:")
    frames = f.whole(th, "frames", w, 1, MAX_FRAMES, f"a whole number of frames from 1 to {MAX_FRAMES}")
    tech = f.whole(th, "tech", w, 0, frames - 1, f"a whole number of frames from 0 to {frames - 1} (frames - 1)")
    damage = f.whole(th, "damage", w, 0, MAX_HEALTH, f"a whole number of health points from 0 to {MAX_HEALTH}")
    break_stun = f.whole(th, "break_stun", w, 0, MAX_FRAMES, FRAMES)
    break_pushback = f.num(th, "break_pushback", w, 0.0, MAX_TRAVEL)
    distance = f.num(th, "distance", w, 0.0, MAX_TRAVEL)
    struck = names.index(f.choice(th, "struck_limb", w, names, "a limb name:"))
    travel = f.num(th, "travel", w, 0.0, MAX_TRAVEL)
    lands = f.whole(th, "lands", w, tech, frames - 1, f"a frame of the animation from tech ({tech}) to {frames - 1}")
    grab, held = moves[move], moves[hold]
    if not grab.hit_limbs or grab.projectile is not None or grab.active < 1:
        f.fail("throw.move", "a move that reaches with hit_limbs on active frames (no projectile)", move,
               f"give moves.{move} hit_limbs and active frames, or name another move")
    if hold == move or held.hit_limbs or held.projectile is not None or held.total <= tech:
        f.fail("throw.hold", f"another move with no hit_limbs and no projectile, longer than tech ({tech} frames)",
               hold, f"name such a move, or make moves.{hold} one")
    table = _compile_keys(f, th, w, frames, poses_src, names)
    return ThrowSpec(move, hold, frames, tech, damage, break_stun, break_pushback, distance, struck, travel, lands), table


def _read_scaling(f: Fields, doc: dict) -> tuple[int, ...]:
    """``doc["combo_scaling"]``: percent of damage for the 1st, 2nd ... hit of a combo (the last repeats)."""
    src = f.items(doc, "combo_scaling", "", "percentages (1st, 2nd ... hit of a combo)", lo=1, hi=MAX_SCALING,
                  default=None)
    if src is None:
        return (100,)
    return tuple(f.whole(src, i, "combo_scaling", 1, 100, "a whole percentage from 1 to 100")
                 for i in range(len(src)))


@functools.lru_cache(maxsize=4)
def load_game_data(assets_dir: str | None = None) -> GameData:
    """Read, validate and compile ``fighters.json`` and ``moves.json`` (cached; read-only result).

    Raises :class:`AssetError` naming the file, the field path and the fix for any missing
    or bad field (see :class:`Fields`)."""
    root = Path(assets_dir) if assets_dir else ASSETS
    skeleton, max_health, pushbox_radius, fighters = _read_fighters(root / "fighters.json")
    names = skeleton.names
    mpath = root / "moves.json"
    f = _fields(mpath)
    mdoc = f.root(read_json(mpath))
    poses_src = f.obj(mdoc, "poses", "")
    _require(f, poses_src, "poses", REQUIRED_POSES, "pose")
    poses = {n: _compile_pose(f, poses_src, n, "poses", poses_src, names, (n,)) for n in f.entries(poses_src)}
    loops_src = f.obj(mdoc, "loops", "")
    _require(f, loops_src, "loops", REQUIRED_LOOPS, "loop")
    loops = {}
    for n in f.entries(loops_src):
        loop = f.obj(loops_src, n, "loops")
        frames = f.whole(loop, "frames", f"loops.{n}", 1, MAX_FRAMES, f"a whole number of frames from 1 to {MAX_FRAMES}")
        loops[n] = _compile_keys(f, loop, f"loops.{n}", frames, poses_src, names)
    moves_src = f.obj(mdoc, "moves", "")
    _require(f, moves_src, "moves", REQUIRED_MOVES, "move")
    moves = {n: _read_move(f, f.obj(moves_src, n, "moves"), n, poses_src, skeleton) for n in f.entries(moves_src)}
    _check_cancels(f, moves)
    combo_scaling = _read_scaling(f, mdoc)
    knockdown = _read_knockdown(f, mdoc, moves, poses_src, names)
    throw, thrown = _read_throw(f, mdoc, moves, poses_src, names)
    f.reject_unknown(mdoc)          # after every pass: the poses are read again by the moves naming them
    pose_rot = {n: euler_matrices(a) for n, a in poses.items()}
    loop_rot = {n: euler_matrices(a) for n, a in loops.items()}
    pose_body = {n: skeleton.body(r) for n, r in pose_rot.items()}
    loop_body = {n: skeleton.body(r) for n, r in loop_rot.items()}
    knockdown_rot = euler_matrices(knockdown)
    knockdown_body = skeleton.body(knockdown_rot)
    thrown_rot = euler_matrices(thrown)
    thrown_body = skeleton.body(thrown_rot)
    tables = [*poses.values(), *loops.values(), *pose_rot.values(), *loop_rot.values(),
              *pose_body.values(), *loop_body.values(), knockdown, knockdown_rot, knockdown_body,
              thrown, thrown_rot, thrown_body]
    # Shared by every match of the process (cached): nothing reachable from it may be written,
    # or one tool's ``match.data.moves['hp'].advance *= 2`` would change every other match.
    skel = [v for v in vars(skeleton).values() if isinstance(v, np.ndarray)]
    skel += [a for lv in (skeleton.levels, skeleton._fk_levels) for _, a in lv]
    for arr in tables + skel + [t for m in moves.values() for t in (m.angles, m.rot, m.body, m.advance, m.air)]:
        arr.flags.writeable = False
    return GameData(
        skeleton=skeleton, max_health=max_health, pushbox_radius=pushbox_radius, fighters=fighters,
        poses=poses, loops=loops, moves=moves, combo_scaling=combo_scaling, pose_rot=pose_rot, loop_rot=loop_rot,
        pose_body=pose_body, loop_body=loop_body,
        knockdown=knockdown, knockdown_rot=knockdown_rot, knockdown_body=knockdown_body,
        throw=throw, thrown=thrown, thrown_rot=thrown_rot, thrown_body=thrown_body,
    )
