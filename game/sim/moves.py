"""The move table: each move's frame data and compiled animation, projectiles and the throw.

``moves.json`` ``moves`` entries become :class:`Move` records (with a :class:`ProjectileSpec`
for a projectile move), ``throw`` a :class:`ThrowSpec`, ``knockdown`` the knockdown animation
and ``combo_scaling`` the damage scaling; every field is checked by a :class:`~game.sim.fields.Fields`
reader against :mod:`game.sim.limits`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .body import compile_keys, ease
from .fields import Fields
from .limits import (
    FRAMES,
    HEIGHTS,
    MAX_FRAMES,
    MAX_HEALTH,
    MAX_PROJECTILE_HALF,
    MAX_PROJECTILE_SPEED,
    MAX_SCALING,
    MAX_TRAVEL,
)
from .skeleton import Skeleton, euler_matrices


@dataclass(frozen=True)
class ProjectileSpec:
    """What a projectile move launches, and what it does when it lands."""

    name: str            # the move that launches it (``Hit.move`` and ``Hit.attack_limb`` of its hits)
    limb: int            # spawned at this limb's range-box centre
    speed: float         # m / frame along the facing
    lifetime: int        # frames
    half: float          # half size of its range box
    level: int           # C9: its rays hit only models of a higher level
    damage: int          # health points a hit takes (a block takes none)
    hitstun: int         # frames the struck fighter reels
    blockstun: int       # frames a guarding fighter reels
    pushback: float      # m the struck fighter slides back
    hitstop: int         # frames the struck fighter freezes (the thrower never does)
    height: str          # "high", "mid" or "low": which guard stops it
    heavy: bool = False  # a heavy hit (presentation: sound, shake)
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

    move: str              # the grab's move name
    hold: str              # the thrower's move from the grab on
    frames: int            # the thrown fighter's frames from the grab to getting up
    tech: int              # frames after the grab in which lp + lk breaks it; it lands on this one
    damage: int            # health points the landing takes
    break_stun: int        # frames both reel when it is broken
    break_pushback: float  # m both slide apart when it is broken
    distance: float        # m in front of the thrower that the thrown fighter is held
    #: the thrown fighter's limb whose range box, with the grab's first hit limb, gives the A7 point
    struck_limb: int
    travel: float = 0.0    # m the thrown body slides away once the throw lands
    lands: int = 0         # frame of the thrown animation on which the body hits the floor


@dataclass(frozen=True)
class Move:
    """One move's frame data and compiled animation.

    ``angles`` is ``(total, L, 3)`` radians and ``rot`` the matching joint
    rotations ``(total, L, 3, 3)``; ``advance`` ``(total,)`` is the
    forward root travel on each frame (the lunge); ``air`` ``(total,)`` the
    jump height above the ground on each frame.
    """

    name: str                   # its key in ``moves``
    label: str                  # its name for people (training HUD)
    startup: int                # frames before the first active one
    active: int                 # frames on which ``hit_limbs`` strike
    recovery: int               # frames after the last active one
    hit_limbs: tuple[int, ...]  # limb indices that strike on active frames
    height: str                 # "high", "mid" or "low": which guard stops it
    damage: int                 # health points a hit takes (before combo scaling)
    hitstun: int                # frames the struck fighter reels (or lies, for a knockdown)
    blockstun: int              # frames a guarding fighter reels
    pushback: float             # m the struck fighter slides back
    hitstop: int                # frames both freeze on contact
    heavy: bool                 # a heavy hit: sound and shake, and a larger hole in a crate (stage.HEAVY_STRIKE_MARGIN)
    angles: np.ndarray          # (total, L, 3) joint angles, radians
    rot: np.ndarray             # (total, L, 3, 3) the joint rotations of ``angles``
    body: np.ndarray     # (total, 12, L, 4) the rows of ``rot`` posed in the body frame (Skeleton.body)
    advance: np.ndarray         # (total,) m of forward root travel on each frame (the lunge)
    air: np.ndarray             # (total,) m above the ground on each frame (a jump)
    projectile: ProjectileSpec | None = None   # what its first active frame launches, if anything
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


def read_move(f: Fields, m: dict, n: str, poses_src: dict, skeleton: Skeleton) -> Move:
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
        ramp = ease(np.linspace(0.0, 1.0, startup + 1)) * lunge
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
    angles = compile_keys(f, m, w, total, poses_src, names)
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

    The names are checked against the move table by :func:`check_cancels`, once every move is read."""
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


def check_cancels(f: Fields, moves: dict[str, Move]) -> None:
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


def read_knockdown(f: Fields, doc: dict, moves: dict[str, Move], poses_src: dict,
                   names: tuple[str, ...]) -> np.ndarray:
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
    table = compile_keys(f, kd, "knockdown", frames, poses_src, names)
    for n in knocking:
        if moves[n].hitstun != frames:
            f.fail(f"moves.{n}.hitstun", f"{frames} (knockdown.frames: a knockdown lasts its animation)",
                   moves[n].hitstun, f"set it to {frames}, or change knockdown.frames and its keys")
    return table


def read_throw(f: Fields, doc: dict, moves: dict[str, Move], poses_src: dict,
               names: tuple[str, ...]) -> tuple[ThrowSpec | None, np.ndarray]:
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
    table = compile_keys(f, th, w, frames, poses_src, names)
    spec = ThrowSpec(move, hold, frames, tech, damage, break_stun, break_pushback, distance, struck, travel, lands)
    return spec, table


def read_scaling(f: Fields, doc: dict) -> tuple[int, ...]:
    """``doc["combo_scaling"]``: percent of damage for the 1st, 2nd ... hit of a combo (the last repeats)."""
    src = f.items(doc, "combo_scaling", "", "percentages (1st, 2nd ... hit of a combo)", lo=1, hi=MAX_SCALING,
                  default=None)
    if src is None:
        return (100,)
    return tuple(f.whole(src, i, "combo_scaling", 1, 100, "a whole percentage from 1 to 100")
                 for i in range(len(src)))

