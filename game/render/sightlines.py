"""What the fight camera can see past: the arena's tall obstacles between its look point and
its eye.

With the arena's scene the camera asks its ray casts (C7, nearest hit); without one (the
built-in arena, tests) the obstacles' boxes, grown by ``OBSTACLE_MARGIN``.  A pillar the
fighters stand beside is looked out of (:meth:`Sightlines.exit`), a wall never.  The camera
(``camera.py``) decides where its eye goes; this module only answers how far a line of
sight is clear, where to stop the eye in front of what blocks it, and whether a point is
seen.  Pure numpy.
"""

from __future__ import annotations

import math

import numpy as np

OBSTACLE_MARGIN = 0.35  # metres kept between the eye and an obstacle
EXIT_REACH = 0.5        # m: a pillar this near the fighters' middle (x-z, or half their separation) is looked past ...
EXIT_SIZE = 3.0         # ... if its box is at most this wide (m, x and z): never a wall


def first_blocker(origin, end, boxes: np.ndarray) -> float:
    """Smallest t in (0, 1] where the segment ``origin + t (end - origin)`` enters one of
    ``boxes (N, 2, 3)``; 1.0 if none does (boxes containing the origin are ignored)."""
    if boxes is None or not len(boxes):
        return 1.0
    o = np.asarray(origin, dtype=float)
    d = np.asarray(end, dtype=float) - o
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = np.where(np.abs(d) > 1e-12, 1.0 / np.where(np.abs(d) > 1e-12, d, 1.0), np.inf)
        t1 = (boxes[:, 0] - o) * inv
        t2 = (boxes[:, 1] - o) * inv
    # an axis with d == 0: inside the slab -> (-inf, inf), outside -> empty
    flat = np.abs(d) <= 1e-12
    inside = (boxes[:, 0] <= o) & (o <= boxes[:, 1])
    lo = np.where(flat, np.where(inside, -np.inf, np.inf), np.minimum(t1, t2))
    hi = np.where(flat, np.where(inside, np.inf, -np.inf), np.maximum(t1, t2))
    tmin, tmax = lo.max(axis=1), hi.min(axis=1)
    hit = (tmin > 0.0) & (tmin <= 1.0) & (tmax >= tmin)
    return float(tmin[hit].min()) if hit.any() else 1.0


class Sightlines:
    """Lines of sight among the tall obstacles ``tall`` ``(N, 2, 3)``.

    ``ray``: optional ``(origin (3,), unit direction (3,), max_distance) -> distance | None``,
    the scene's nearest hit (C7); when set, it answers instead of the boxes, which then only
    say which pillar the view looks out of.
    """

    def __init__(self, tall: np.ndarray, ray=None) -> None:
        self.tall = tall                # (N, 2, 3) float: the tall obstacles' boxes
        #: (N, 2, 3) float: the same grown by OBSTACLE_MARGIN (what the eye keeps clear of without rays)
        self.grown = tall + np.array([[-OBSTACLE_MARGIN] * 3, [OBSTACLE_MARGIN] * 3])
        self.ray = ray

    def exit(self, target: np.ndarray, u: np.ndarray, hit: float, sep: float) -> float:
        """Where the ray ``target + s u``, which meets a tall solid ``hit`` m on, leaves the
        box of that obstacle (0 unless the box is pillar-sized, at most ``EXIT_SIZE`` across: a
        wall is never looked through, and ``target`` within ``EXIT_REACH`` of it on x-z, or half
        the fighters' separation: a pillar no farther than the fighters from their middle).  A
        pillar this close to the fighters' middle stands between or beside them: the view looks
        out past it, and the camera's swing asks that the fighters themselves be seen.  The test is on
        the pillar's box and the fighters' distance from it, not on whether the look point is
        inside the solid: a look point in the corner of a pillar's box, or just outside it, has
        a view toward the eye that meets the pillar a few centimetres on, and would throw the
        eye onto the pillar's face."""
        p = target + u * hit
        lo, hi = self.tall[:, 0], self.tall[:, 1]
        gap = np.maximum(np.maximum(lo - target, target - hi), 0.0)[:, [0, 2]]
        boxes = self.tall[((lo - 1e-6 <= p) & (p <= hi + 1e-6)).all(axis=1)
                          & ((hi - lo)[:, [0, 2]] <= EXIT_SIZE).all(axis=1)
                          & (np.hypot(gap[:, 0], gap[:, 1]) <= max(EXIT_REACH, 0.5 * sep))]
        if not len(boxes):
            return 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            ahead = np.where(u > 0, boxes[:, 1] - target, boxes[:, 0] - target) / u
        ahead = float(np.where(np.abs(u) > 1e-12, ahead, np.inf).min(axis=1).max())
        return ahead + 1e-3                                    # just past the box it leaves

    def clear(self, target: np.ndarray, eye: np.ndarray, sep: float) -> tuple[float, float, float]:
        """``(clear, length, start)``: how far from ``target`` toward ``eye`` nothing tall
        blocks the view (``inf``: nothing within the eye distance and the margin), that
        distance, and where the view starts (:meth:`exit`: past a pillar at the fighters,
        ``sep`` the fighters' separation, m x-z)."""
        d = eye - target
        length = float(np.linalg.norm(d))
        if length < 1e-9:
            return math.inf, length, 0.0
        if self.ray is not None:
            u = d / length
            hit = self.ray(target, u, length + OBSTACLE_MARGIN)
            start = 0.0 if hit is None else self.exit(target, u, hit, sep)
            if start:
                hit = self.ray(target + u * start, u, length + OBSTACLE_MARGIN - start) if start < length else None
            return (math.inf if hit is None else start + hit), length, start
        t = first_blocker(target, eye, self.grown)             # boxes grown by the margin
        return (math.inf if t >= 1.0 else t * length + OBSTACLE_MARGIN), length, 0.0

    def collide(self, target: np.ndarray, eye: np.ndarray, sep: float) -> np.ndarray:
        """Pull the eye toward the target, in front of the first tall obstacle between them:
        ``OBSTACLE_MARGIN`` before it, or at least 30 % of the way out when that is still in
        front of it; never into it (the camera's swing turns it away from such a spot)."""
        clear, length, start = self.clear(target, eye, sep)
        if clear == math.inf:
            return eye
        d = eye - target
        room = clear - start                                   # the free stretch in front of the obstacle
        keep = max(clear - OBSTACLE_MARGIN, min(0.3 * length, start + 0.5 * room), start + 0.05 * room)
        return target + d / length * min(length, keep)

    def sees(self, p: np.ndarray, eye: np.ndarray) -> bool:
        """True if no tall obstacle stands between ``p`` and ``eye``."""
        d = eye - p
        length = float(np.linalg.norm(d))
        if length < 1e-9:
            return True
        if self.ray is not None:
            return self.ray(p, d / length, length) is None
        return first_blocker(p, eye, self.tall) >= 1.0
