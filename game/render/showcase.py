"""Showing a struck crate's hole in play: which struck face is near the fighters
(:class:`StruckFaces`), and the turn of the fight camera's side-on view that shows it
(:func:`show_turn`).

A fighter strikes a crate toward the opponent, so the face it opens looks along the fighters'
line: edge-on to the side-on camera, hole and all.  While a struck crate stands near the
fighters, the camera's goal view turns until that face is seen ``SHOW_ANGLE`` from edge-on: far
enough to see into the hole, little enough that the striker standing in front of it does not
hide it.  Pure numpy and Python floats; reads the stage only.
"""

from __future__ import annotations

import math

import numpy as np

SHOW_ANGLE = math.radians(30)   # a struck crate face near the fighters is seen at least this far from edge-on ...
SHOW_MAX = math.radians(60)     # ... by a turn of the goal view of at most this much


def show_turn(n: np.ndarray, target: np.ndarray, dist: float, centre: np.ndarray, normal: np.ndarray) -> np.ndarray:
    """The side-on view direction ``n`` (x-z unit) turned toward ``normal`` (the x-z outward unit
    normal of a struck face whose centre is ``centre`` (3,)) until an eye ``dist`` from
    ``target`` (3,) sees that face ``SHOW_ANGLE`` from edge-on (from the face's centre), by a
    turn of at most ``SHOW_MAX`` (bisection).  A face seen well enough already, or one no such
    turn shows (it looks away from this side of the fighters), leaves ``n`` as it is.  On
    Python floats: once a frame while a struck crate is near."""
    f0, f1 = float(normal[0]), float(normal[1])
    n0, n1 = float(n[0]), float(n[1])
    wx, wz = float(target[0] - centre[0]), float(target[2] - centre[2])
    sign = 1.0 if n0 * f1 - n1 * f0 >= 0.0 else -1.0
    want = math.sin(SHOW_ANGLE)

    def seen(turn: float) -> float:          # the sine of the face's angle from edge-on
        c, s = math.cos(sign * turn), math.sin(sign * turn)
        ex, ez = wx + dist * (c * n0 - s * n1), wz + dist * (s * n0 + c * n1)
        return (ex * f0 + ez * f1) / max(math.hypot(ex, ez), 1e-9)

    if seen(0.0) >= want or seen(SHOW_MAX) < want:
        return n
    lo, hi = 0.0, SHOW_MAX
    for _ in range(16):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if seen(mid) < want else (lo, mid)
    c, s = math.cos(sign * hi), math.sin(sign * hi)
    return np.array([c * n0 - s * n1, s * n0 + c * n1])


#: a struck crate this near a fighter (m, x-z, from its ground point to the crate's box) has its
#: most-struck side shown by the fight camera (:data:`SHOW_ANGLE`)
SHOW_REACH = 2.5
#: the outward x-z normal of each side wall's layer (``2 * axis + side``; 2 and 3 are floor and lid)
_SIDE_NORMALS = {0: (-1.0, 0.0), 1: (1.0, 0.0), 4: (0.0, -1.0), 5: (0.0, 1.0)}


class StruckFaces:
    """Which struck crate face the fight camera turns to show (``FightCamera.show``).

    Of the standing crates within :data:`SHOW_REACH` of a fighter with a hole in a side face,
    the nearest one; of its holed side faces, the one that faces the fighter nearest to it
    most (the striker stands in front of the face it opened).  Reads the stage only; each
    crate's holed faces are kept until a strike replaces its box array."""

    def __init__(self) -> None:
        #: per crate index: (the box array they were found for, its bounds' x-z rect, the holed side faces)
        self._cache: dict[int, tuple[object, tuple[float, float, float, float], tuple[int, ...]]] = {}

    def face(self, stage, points) -> tuple[np.ndarray, np.ndarray] | None:
        """``(centre (3,), x-z outward unit normal (2,))`` of the face to show, or None.
        ``points``: the fighters' ground points, ``(3,)`` each."""
        if stage is None:
            return None
        pts = [(float(p[0]), float(p[2])) for p in points]
        best: tuple[float, int, tuple[float, float]] | None = None
        for i, crate in enumerate(stage.crates):
            if crate.broken:
                continue
            _boxes, (x0, z0, x1, z1), layers = self._struck(i, crate)
            if not layers:
                continue
            for x, z in pts:
                near = math.hypot(max(x0 - x, x - x1, 0.0), max(z0 - z, z - z1, 0.0))
                if near <= SHOW_REACH and (best is None or near < best[0]):
                    best = (near, i, (x - 0.5 * (x0 + x1), z - 0.5 * (z0 + z1)))
        if best is None:
            return None
        _near, i, (dx, dz) = best
        layers = self._cache[i][2]
        layer = max(layers, key=lambda k: _SIDE_NORMALS[k][0] * dx + _SIDE_NORMALS[k][1] * dz)
        b = np.asarray(stage.crates[i].compound.bounds, dtype=float)
        centre = b.mean(axis=0)
        axis = layer // 2
        centre[axis] = b[layer % 2, axis]                  # on the face's outer plane
        return centre, np.array(_SIDE_NORMALS[layer])

    def _struck(self, i: int, crate) -> tuple[object, tuple[float, float, float, float], tuple[int, ...]]:
        """The cached ``(boxes, x-z rect, side faces with a hole)`` of crate ``i``: the sides
        (``2 * axis + side``) whose outer plane the small boxes no longer cover whole (a hole
        there may be in that wall's slab or in a neighbour's rim, which owns the face's edge)."""
        comp = crate.compound
        hit = self._cache.get(i)
        if hit is not None and hit[0] is comp.boxes:
            return hit
        b = comp.bounds.tolist()
        boxes = np.asarray(comp.boxes)
        holed = []
        for k in _SIDE_NORMALS:
            a, side = k // 2, k % 2
            u = 2 - a                                    # the other horizontal axis
            on = boxes[:, side, a] == b[side][a]         # boxes reaching the face's outer plane
            covered = float(((boxes[on, 1, u] - boxes[on, 0, u]) * (boxes[on, 1, 1] - boxes[on, 0, 1])).sum())
            if (b[1][u] - b[0][u]) * (b[1][1] - b[0][1]) - covered > 1e-9:
                holed.append(k)
        out = (comp.boxes, (b[0][0], b[0][2], b[1][0], b[1][2]), tuple(holed))
        self._cache[i] = out
        return out
