"""Movement on the floor: walking, sliding, facing, pushboxes, and fitting a lying body.

Positions are Python floats (x, z on the floor plane).  A fighter's pushbox is a circle of
``GameData.pushbox_radius``: the two never overlap, and both stay inside the arena bounds
and out of its obstacles (pillars, walls, standing crates: ``Stage.push_out``).  A pose that
leans its trunk out past that circle (a crouch, the sweep, a lunging straight: the head and
torso up to 0.56 m ahead of the centre) pushes the pair further apart, so that neither
trunk enters the other (:func:`keep_trunks_apart`).  A body on the ground (knocked down,
knocked out, thrown) reaches much further than its pushbox, so its limbs' x-z rect is kept
out of the obstacles too (:func:`fit_lying`).
"""

from __future__ import annotations

import functools
import math
import struct
from typing import TYPE_CHECKING

import numpy as np

from .data import GameData
from .fighter import LYING_STATES, Fighter
from .posing import is_table_row, source_bodies
from .skeleton import Skeleton
from .stage import GROUND_RECAST

if TYPE_CHECKING:
    from .match import Match
    from .stage import Stage

WALK_FWD = 0.045           # m / frame
WALK_BACK = 0.034
SIDESTEP = 0.040
JUMP_DRIFT = 0.035
AIR_FALL = 0.1             # m / frame: a fighter hit out of a jump falls to the ground (about the jump's own descent)
SLIDE_DECAY = 0.8          # knockback velocity kept each frame (total travel = v0 / (1 - decay))
LYING_PASSES = 4           # passes of bounds and obstacles that fit a knocked-down body (place_lying)
#: The limbs that make a fighter's trunk: kept out of the other's trunk (keep_trunks_apart).
#: Arms and legs are not: they strike, and a fist or foot meets a body to hit it.
TRUNK = ("hips", "torso", "head")

#: An x-z rect ``(x0, z0, x1, z1)`` of plain floats.
Rect = tuple[float, float, float, float]


def walk(f: Fighter, fwd: int) -> None:
    """One walking step along the facing: forward (``fwd`` 1) or back (-1)."""
    speed = WALK_FWD if fwd > 0 else -WALK_BACK
    f.x += f.fx * speed
    f.z += f.fz * speed


def sidestep(f: Fighter, side: int) -> None:
    """One sidestep across the facing: to the fighter's right (``side`` 1) or left (-1)."""
    f.x += -f.fz * SIDESTEP * side
    f.z += f.fx * SIDESTEP * side


def drift(f: Fighter, fwd: int) -> None:
    """A jump's x-z velocity from the direction held (``fwd`` -1, 0, 1) before take-off."""
    f.vx = f.fx * JUMP_DRIFT * fwd
    f.vz = f.fz * JUMP_DRIFT * fwd


def slide(f: Fighter) -> None:
    """One frame of knockback slide (not in a jump, whose velocity is its drift), decaying."""
    if f.move == "jump" or (f.vx == 0.0 and f.vz == 0.0):
        return
    f.x += f.vx
    f.z += f.vz
    f.vx *= SLIDE_DECAY
    f.vz *= SLIDE_DECAY
    if f.vx * f.vx + f.vz * f.vz < 1e-8:
        f.vx = f.vz = 0.0


def face(f: Fighter, o: Fighter) -> None:
    """Turn ``f`` toward ``o`` (unless they stand on one point)."""
    dx, dz = o.x - f.x, o.z - f.z
    d = math.hypot(dx, dz)
    if d > 1e-9:
        f.fx, f.fz = dx / d, dz / d


def constrain(m: Match, x: float, z: float) -> tuple[float, float]:
    """A pushbox centre moved out of the arena's obstacles, then into its bounds."""
    r = m.data.pushbox_radius
    if m.stage is not None:
        x, z = m.stage.push_out(x, z, r)
    x0, z0, x1, z1 = m.bounds_xz   # plain floats: positions stay Python floats
    return min(max(x, x0 + r), x1 - r), min(max(z, z0 + r), z1 - r)


def is_free(m: Match, x: float, z: float) -> bool:
    """A pushbox centred here touches no obstacle and stays in bounds (to rounding)."""
    cx, cz = constrain(m, x, z)
    return abs(cx - x) + abs(cz - z) < 1e-9


def resolve_pushboxes(m: Match, gap: float | None = None) -> None:
    """Keep the two pushbox circles apart, and both inside the arena and out of obstacles;
    ``gap``: the least distance between the two centres (m; twice the pushbox radius when
    None).

    A function of both centres, the first fighter's facing, the gap and the obstacles: the
    match keeps its results by the exact bits of those (``Match.pushbox_memo``), so a pair
    standing where it stood (about half the steps of a CPU fight) is not resolved again.
    Only for plain floats (a tool may set an int, which the resolution may leave an int)."""
    a, b = m.fighters
    r = m.data.pushbox_radius
    g = 2 * r if gap is None else gap
    given = (a.x, a.z, b.x, b.z, a.fx, a.fz, g)
    key = None
    if _ALL_FLOATS.issuperset(map(type, given)):
        key = _PACK(*given, -1 if m.stage is None else m.stage.obstacles_version)
        hit = m.pushbox_memo.get(key)
        if hit is not None:
            a.x, a.z, b.x, b.z = hit
            return
    _resolve_pushboxes(m, g)
    if key is not None:
        if len(m.pushbox_memo) >= PUSHBOX_MEMO_KEPT:
            m.pushbox_memo.clear()
        m.pushbox_memo[key] = (a.x, a.z, b.x, b.z)


#: ``resolve_pushboxes``' key: seven floats and the obstacles' version, little-endian bytes
_PACK = struct.Struct("<7dq").pack
_ALL_FLOATS = frozenset((float,))
#: results ``Match.pushbox_memo`` keeps at most
PUSHBOX_MEMO_KEPT = 64


def _resolve_pushboxes(m: Match, g: float) -> None:
    """:func:`resolve_pushboxes` computed, for the gap ``g``."""
    a, b = m.fighters
    for _ in range(2):
        before = (a.x, a.z, b.x, b.z)
        dx, dz = b.x - a.x, b.z - a.z
        d = math.hypot(dx, dz)
        if d < g:
            if d < 1e-9:
                dx, dz, d = a.fx, a.fz, 1.0
            push = 0.5 * (g - d) / d
            a.x -= dx * push
            a.z -= dz * push
            b.x += dx * push
            b.z += dz * push
        for f in m.fighters:
            f.x, f.z = constrain(m, f.x, f.z)
        if _same_floats(before, (a.x, a.z, b.x, b.z)):
            break       # a pass that moved nothing: the next one, on the same values, would not either
    # An obstacle pushing one of them back into the pair's overlap leaves some of it: the one
    # that can give way does, by the whole of it (both: half each, as above).
    dx, dz = b.x - a.x, b.z - a.z
    d = math.hypot(dx, dz)
    if 1e-9 < d < g:
        over = (g - d) / d
        a_free = is_free(m, a.x - dx * over, a.z - dz * over)
        b_free = is_free(m, b.x + dx * over, b.z + dz * over)
        share = 0.5 if a_free and b_free else 1.0
        if a_free:
            a.x, a.z = a.x - dx * over * share, a.z - dz * over * share
        if b_free:
            b.x, b.z = b.x + dx * over * share, b.z + dz * over * share


def _same_floats(p: tuple[float, ...], q: tuple[float, ...]) -> bool:
    """The same bits in ``p`` and ``q``: equal values, and zeros of the same sign."""
    if p != q:
        return False
    ones = (1.0,) * len(p)
    return all(p) or list(map(math.copysign, ones, p)) == list(map(math.copysign, ones, q))


@functools.lru_cache(maxsize=4)
def trunk_limbs(skeleton: Skeleton) -> tuple[int, ...]:
    """The limb indices of :data:`TRUNK` in ``skeleton``."""
    return tuple(skeleton.names.index(n) for n in TRUNK)


#: id of a body-frame FK array -> (the array, its trunk's rect): see :func:`trunk_rect`
_TRUNK_RECTS: dict[int, tuple[np.ndarray, tuple[float, float, float, float]]] = {}
#: entries :data:`_TRUNK_RECTS` holds at most: every row of every animation table fits
TRUNK_RECTS_KEPT = 4096


def trunk_rect(m: Match, body: np.ndarray) -> tuple[float, float, float, float]:
    """``(x0, x1, z0, z1)``: the body-frame extents of the trunk's solids (hips, torso, head)
    in the pose ``body`` (``Fighter.body``, ``(12, L, 4)``).  Bodies are read-only values,
    and a table row is the same array object every frame it is posed (``posing.rows``): a
    row's extents are kept by array (the entry holds it, so no other array takes its id).  A
    blend's body is a fresh array met once, and is not kept."""
    hit = _TRUNK_RECTS.get(id(body))
    if hit is not None and hit[0] is body:
        return hit[1]
    c = np.take(body[4:], trunk_limbs(m.data.skeleton), axis=1)       # (8, 3, 4): the trunk solids' corners
    rect = (float(c[..., 0].min()), float(c[..., 0].max()), float(c[..., 2].min()), float(c[..., 2].max()))
    if not is_table_row(body):            # a blend's own array, met once
        return rect
    if len(_TRUNK_RECTS) >= TRUNK_RECTS_KEPT:
        _TRUNK_RECTS.clear()
    _TRUNK_RECTS[id(body)] = (body, rect)
    return rect


def trunk_reach(m: Match, f: Fighter, ux: float, uz: float) -> float:
    """How far ``f``'s trunk reaches from its centre along the floor direction ``(ux, uz)``
    (a unit vector) in this frame's pose (m), from its body-frame rect (:func:`trunk_rect`):
    exact along the facing, and never short of the solids' corners in any other direction."""
    x0, x1, z0, z1 = trunk_rect(m, f.body)
    fx, fz = float(f.fx), float(f.fz)
    # a body-frame point (x, z) lies at (x fx - z fz, x fz + z fx) from the centre
    cx, cz = fx * ux + fz * uz, fx * uz - fz * ux
    return max(x0 * cx, x1 * cx) + max(z0 * cz, z1 * cz)


@functools.lru_cache(maxsize=256)
def trunk_radius(d: GameData, key: str) -> float:
    """The farthest the trunk reaches from the centre on the floor plane, in any direction and
    any pose of the animation source ``key`` (``Fighter.pose_key``; m): the test that lets
    :func:`keep_trunks_apart` skip two bodies whose trunks cannot meet at their distance
    (infinite for a key that names no source)."""
    bodies = source_bodies(d, key)
    if bodies is None:
        return math.inf
    c = np.take(bodies[..., 4:, :, :], trunk_limbs(d.skeleton), axis=-2)    # (..., 8, 3, 4) trunk corners
    x, z = c[..., 0], c[..., 2]
    return float(np.sqrt(x * x + z * z).max())      # not np.hypot: libm's, which may differ by CPU


def keep_trunks_apart(m: Match) -> None:
    """After posing: if either trunk reaches into the other (a crouching or sweeping body
    leans its head and torso ahead of its pushbox circle), push the pair apart along the
    line between them until the two trunks just meet, within the pushboxes' own constraints
    (:func:`resolve_pushboxes`).  Not for a body on the ground or in the air: a lying body
    has its own fit (:func:`fit_lying`), and a jump passes over.  Two bodies whose animation
    sources cannot reach each other at this distance (:func:`trunk_radius`: most frames of a
    fight) cost two table look-ups; a pose blending between two sources is judged by the
    source it blends into."""
    a, b = m.fighters
    dx, dz = b.x - a.x, b.z - a.z
    d = math.hypot(dx, dz)
    if d < 1e-9 or trunk_radius(m.data, a.pose_key) + trunk_radius(m.data, b.pose_key) <= d:
        return
    if a.state in LYING_STATES or b.state in LYING_STATES or a.airborne or b.airborne:
        return
    ux, uz = dx / d, dz / d
    need = trunk_reach(m, a, ux, uz) + trunk_reach(m, b, -ux, -uz)
    if need > d:
        resolve_pushboxes(m, need)


def follow_ground(stage: Stage, f: Fighter) -> None:
    """Re-cast the ground ray (C7) under ``f`` once it has moved ``GROUND_RECAST`` from the last cast."""
    if abs(f.x - f.gx) + abs(f.z - f.gz) > GROUND_RECAST:
        f.ground_y = stage.ground_height(f.x, f.z, f.ground_y)
        f.gx, f.gz = f.x, f.z


def lying_rect(m: Match, f: Fighter) -> Rect:
    """``(x0, z0, x1, z1)``: the x–z rect, as offsets from ``(f.x, f.z)``, of every limb range box
    ``f``'s pose of this frame will have (stage 3 places the same corners, ``Skeleton.place_rows``),
    grown to hold its pushbox circle too.

    A function of the body (a read-only array) and the facing: when they are the very objects
    of ``f``'s last rect (a knocked-out body lying still, most lying frames), that rect is
    ``m.lying_rects[f.index]``'s, kept with them."""
    body, fx, fz = f.body, f.fx, f.fz
    last = m.lying_rects[f.index]
    if last is not None and last[0] is body and last[1] is fx and last[2] is fz:
        return last[3]
    c = body[4:]                              # (8, L, 4): each limb solid's corners, body frame
    x, z = c[..., 0], c[..., 2]
    r = m.data.pushbox_radius
    ffx, ffz = float(fx), float(fz)
    wx, wz = x * ffx - z * ffz, x * ffz + z * ffx  # turned to the facing, as placed
    rect = (min(float(wx.min()), -r), min(float(wz.min()), -r),
            max(float(wx.max()), r), max(float(wz.max()), r))
    m.lying_rects[f.index] = (body, fx, fz, rect)
    return rect


def place_lying(m: Match, x: float, z: float, rect: Rect) -> tuple[float, float] | None:
    """``(x, z)`` moved so that the body rect ``rect`` (offsets, :func:`lying_rect`) lies inside
    the arena bounds and out of every obstacle, each obstacle by the least move; None when a
    few passes find no such place (a gap narrower than the body)."""
    ex0, ez0, ex1, ez1 = rect
    x0, z0, x1, z1 = m.bounds_xz
    for _ in range(LYING_PASSES):
        nx, nz = min(max(x, x0 - ex0), x1 - ex1), min(max(z, z0 - ez0), z1 - ez1)
        moved = nx != x or nz != z
        x, z = nx, nz
        if m.stage is not None:
            x, z, pushed = m.stage.push_rect_out(x, z, rect)
            moved = moved or pushed
        if not moved:
            return x, z
    return None


def fit_lying(m: Match, f: Fighter) -> None:
    """A knocked-down fighter's body (falling, lying, getting up: up to about 0.9 m behind and
    beside its centre, where the pushbox is 0.3) is kept inside the arena and out of walls,
    pillars and standing crates: the fighter slides away from them to where every limb range
    box of this frame's pose fits, as a fighting game's knockdown pushbox does.  The opponent's
    pushbox gives way within its own constraint (a lying opponent's within its body's); with
    no room for both, ``f`` stays where it is this frame.  Only while knocked down or knocked
    out (the K.O.'s body lies the same way), so an ordinary frame costs one state test per
    fighter."""
    rect = lying_rect(m, f)
    place = place_lying(m, f.x, f.z, rect)
    if place is None or place == (f.x, f.z):
        return
    x, z = place
    o = m.fighters[1 - f.index]
    r2 = 2 * m.data.pushbox_radius
    dx, dz = o.x - x, o.z - z
    d = math.hypot(dx, dz)
    if d < r2 - 1e-9:
        if d < 1e-9:
            dx, dz, d = f.fx, f.fz, 1.0
        ox, oz = x + dx / d * r2, z + dz / d * r2
        if o.state in LYING_STATES:
            to = place_lying(m, ox, oz, lying_rect(m, o))
        else:
            to = constrain(m, ox, oz)
        if to is None or math.hypot(to[0] - x, to[1] - z) < r2 - 1e-9:
            return
        o.x, o.z = to
    f.x, f.z = x, z
