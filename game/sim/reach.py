"""Where a blow meets a crate's wall (B1, B3): the part of a limb's path that strikes it
(:func:`reach_box`), and the rim a blow through a hole tears (:func:`tear_box`).

Plain Python floats: a strike runs on a frame where numpy is cold.  ``game.sim.stage``
judges these boxes against the crate's small boxes (A2-A4) and strikes with them (B3-B7).
"""

from __future__ import annotations

import math
from typing import Any

#: A blow through a hole whose rim lies at most this far (m) from its footprint on the wall
#: tears that rim (:func:`tear_box`): several blows at one spot widen one hole.
TEAR_REACH = 0.3
#: How far (m) past the rim a tearing blow's box is grown: it touches the rim for sure (A4)
#: whatever the last bit of the subtraction that found the rim's distance.
TEAR_EPS = 1e-9


def entry_wall(bounds: list, limb: list, origin: tuple[float, float]) -> tuple[int, int] | None:
    """``(axis, side)`` of the wall (x-z, ``axis`` 0 or 2, ``side`` 0 for the min face) through
    which a limb of range box ``limb`` ``(2, 3)`` struck at from ``origin`` ``(x, z)`` reaches a
    crate of ``bounds`` ``(2, 3)``: the side through which the ray from ``origin`` to the limb
    box's centre enters the bounds' x-z rectangle, if the limb reaches that side's outer plane.
    None when the ray enters no side (the origin inside the rectangle, or the ray passing it by)
    or the limb falls short of the plane."""
    lo, hi = limb
    enter, axis, out = 0.0, -1, math.inf      # slab test in x-z: entry and exit ray parameters
    for a, o in ((0, origin[0]), (2, origin[1])):
        b0, b1 = bounds[0][a], bounds[1][a]
        d = 0.5 * (lo[a] + hi[a]) - o
        if d == 0.0:
            if not b0 <= o <= b1:
                return None                    # parallel to this slab and outside it: no entry
            continue
        t0, t1 = (b0 - o) / d, (b1 - o) / d
        if t0 > t1:
            t0, t1 = t1, t0
        if t0 > enter:
            enter, axis = t0, a
        out = min(out, t1)
    if axis < 0 or enter > out:
        return None
    if origin[axis // 2] < bounds[0][axis]:    # through the min wall, if the limb reaches it
        return (axis, 0) if hi[axis] >= bounds[0][axis] else None
    return (axis, 1) if lo[axis] <= bounds[1][axis] else None


def reach_box(bounds: list, thickness: float, limb: list, origin: tuple[float, float]) -> list:
    """B1, B3: the part of a limb's path that strikes a crate, as a ``[lo, hi]`` box of floats.

    A fighter stands outside the crate (its pushbox keeps it there) and strikes it
    horizontally, through the wall facing it.  On its first active frame a limb's range box
    can already be past that wall, inside the hollow shell (a jab or a sweep from point-blank
    range): the box alone then misses the wall the limb went through and grazes the lid or
    the floor from inside instead.  So the wall the limb came through is found from the
    attacker's body centre ``origin`` ``(x, z)`` (:func:`entry_wall`).  Along that wall's axis
    the limb's box is stretched back to the wall's outer plane (the path from the attacker)
    and cut at its inner plane (what lies beyond it, the limb reached through the wall:
    through the hole the strike makes, or through one already there).  Its extent on the
    other two axes, and so its footprint on that wall (B3), is the limb's own.

    Parameters
    ----------
    bounds : (2, 3) nested list of float, the crate's bounding box.
    thickness : float, its wall thickness.
    limb : (2, 3) nested list of float, the limb's range box.
    origin : (x, z) floats.

    Returns
    -------
    (2, 3) nested list of float: the limb's box itself when :func:`entry_wall` finds no wall.
    """
    lo, hi = list(limb[0]), list(limb[1])
    wall = entry_wall(bounds, [lo, hi], origin)
    if wall is None:
        return [lo, hi]
    axis, side = wall
    if side == 0:
        b0 = bounds[0][axis]
        lo[axis], hi[axis] = min(lo[axis], b0), min(hi[axis], b0 + thickness)
    else:
        b1 = bounds[1][axis]
        lo[axis], hi[axis] = max(lo[axis], b1 - thickness), max(hi[axis], b1)
    return [lo, hi]


def tear_box(bounds: list, thickness: float, boxes: Any, limb: list, origin: tuple[float, float]) -> list | None:
    """B3: a blow through a hole tears its rim.  The reach box (:func:`reach_box`) of a limb
    that went through the wall facing the attacker inside the wall's outline (its footprint's
    centre within the face) but touches none of the crate's small boxes ``boxes`` (``(K, 2, 3)``,
    an array or nested lists, read only once the blow is found to go through the face) passed
    through a hole.  If the nearest small box crossing that wall's slab
    lies at most ``TEAR_REACH`` from the footprint on the face's plane (the larger of the two
    gaps, along the face's two axes), the reach box grown on those axes to touch it (A4:
    touching counts) is the blow's box: its region (B3) reaches the rim, and the strike's
    margin tears the rim past it.  None otherwise: the blow flies through."""
    wall = entry_wall(bounds, limb, origin)
    if wall is None:
        return None
    axis, side = wall
    lo, hi = reach_box(bounds, thickness, limb, origin)
    u, v = (1, 2) if axis == 0 else (0, 1)     # the face's two axes
    for a in (u, v):
        if not bounds[0][a] < 0.5 * (lo[a] + hi[a]) < bounds[1][a]:
            return None                        # beside or above the face: it met no wall
    s0, s1 = (bounds[0][axis], bounds[0][axis] + thickness) if side == 0 else (bounds[1][axis] - thickness,
                                                                                  bounds[1][axis])
    gap = math.inf
    for b0, b1 in boxes.tolist() if hasattr(boxes, "tolist") else boxes:
        if b0[axis] < s1 and b1[axis] > s0:    # crosses the wall's slab: on the face's plane
            gap = min(gap, max(b0[u] - hi[u], lo[u] - b1[u], b0[v] - hi[v], lo[v] - b1[v]))
    if not 0.0 <= gap <= TEAR_REACH:
        return None
    g = gap + TEAR_EPS
    lo[u], hi[u], lo[v], hi[v] = lo[u] - g, hi[u] + g, lo[v] - g, hi[v] + g
    return [lo, hi]
