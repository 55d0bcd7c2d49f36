"""See-through occluders: a pillar or crate standing between the eye and a fighter is
drawn with screen-door transparency (an ordered-dither discard in shaders/lit.frag),
so a fighter behind it stays visible.

The camera already swings away from tall obstacles, but it pans (a cut would lose the
player) and crates are below its rays: for a second or so a fighter can be behind
one.  Each obstacle's fade eases in and out over a few frames, so nothing pops.

Pure numpy: which boxes occlude (:func:`occluding`) and the eased fade amounts
(:class:`Occluders`); ``WorldRenderer.draw`` uploads :meth:`Occluders.uniforms`.
"""

from __future__ import annotations

import numpy as np

#: the shader's fade slots (uniform arrays of this length)
MAX_FADE = 4
#: fade change per frame: 0 -> 1 in 8 frames
FADE_STEP = 0.125
#: how far beyond an obstacle's box its fade reaches (m): the mesh's faces lie on the box
FADE_MARGIN = 0.02
#: obstacle kinds that fade (the floor, walls and small props never do)
FADE_KINDS = ("pillar", "crate", "barrel")


def occluding(eye, points, boxes) -> np.ndarray:
    """Which boxes cut a sight line from the eye to a point.

    eye : (3,) float; points : (P, 3) float; boxes : (N, 2, 3) float ``[min, max]``.
    Returns (N,) bool: box ``n`` meets some segment ``eye -> points[p]`` at a parameter
    ``t`` in [0, 1) and does not hold ``points[p]`` itself (a box holding the eye counts;
    one behind every point does not; a crate a fist is punching into does not hide the
    fist, it is what is struck).  A slab test over all ``(N, P)`` pairs at once.
    """
    boxes = np.asarray(boxes, dtype=float).reshape(-1, 2, 3)
    pts = np.asarray(points, dtype=float).reshape(-1, 3)
    if not len(boxes) or not len(pts):
        return np.zeros(len(boxes), dtype=bool)
    o = np.asarray(eye, dtype=float)
    # broad phase: only boxes that meet the bounds of all the sight lines can cut one
    lo = np.minimum(pts.min(axis=0), o)
    hi = np.maximum(pts.max(axis=0), o)
    near = np.flatnonzero(((boxes[:, 0] <= hi) & (boxes[:, 1] >= lo)).all(axis=1))
    out = np.zeros(len(boxes), dtype=bool)
    if not len(near):
        return out
    boxes = boxes[near]
    d = (pts - o)[None]                                               # (1, P, 3)
    rel = (boxes - o)[:, :, None]                                     # (N, 2, 1, 3)
    # A direction parallel to a slab puts no bound on t when the eye lies between its planes,
    # and no t at all when it does not.
    flat = d == 0.0
    between = (rel[:, 0] <= 0.0) & (rel[:, 1] >= 0.0)                 # (N, 1, 3)
    with np.errstate(divide="ignore", invalid="ignore"):
        t0 = rel[:, 0] / np.where(flat, 1.0, d)                       # (N, P, 3)
        t1 = rel[:, 1] / np.where(flat, 1.0, d)
    enter = np.where(flat, np.where(between, -np.inf, np.inf), np.minimum(t0, t1)).max(axis=2)    # (N, P)
    leave = np.where(flat, np.where(between, np.inf, -np.inf), np.maximum(t0, t1)).min(axis=2)
    # the segment's [0, 1) meets the slab interval, and the box does not hold the point
    # itself (a crate a fist is punching into does not hide the fist)
    holds = ((pts[None] >= boxes[:, None, 0]) & (pts[None] <= boxes[:, None, 1])).all(axis=2)
    out[near] = (~holds & (enter <= leave) & (leave >= 0.0) & (enter < 1.0)).any(axis=1)
    return out


class Occluders:
    """The fade state of the arena's pillars, crates and barrel (render-side only).

    ``boxes`` : (N, 2, 3) float, the obstacles grown by :data:`FADE_MARGIN`;
    ``amount`` : (N,) float in [0, 1], eased toward 1 while an obstacle occludes.
    """

    def __init__(self, boxes=None, materials=None):
        """``materials``: per box, the shader materials its faces are drawn with (only
        those draws switch to a FADE program while the box fades)."""
        b = np.zeros((0, 2, 3)) if boxes is None else np.asarray(boxes, dtype=float).reshape(-1, 2, 3)
        self.boxes = b + np.array([[-FADE_MARGIN] * 3, [FADE_MARGIN] * 3])
        self.amount = np.zeros(len(self.boxes))
        self.materials = [frozenset(m) for m in materials] if materials is not None else [frozenset()] * len(b)

    def clear(self) -> None:
        self.amount[:] = 0.0

    def update(self, eye, points, present=None) -> None:
        """One frame: ease each obstacle's fade toward 1 if it stands between ``eye`` and
        any of ``points`` (P, 3) (the fighters' limb centres), else toward 0.
        ``present`` : (N,) bool or None, False for obstacles gone (a broken crate)."""
        want = occluding(eye, points, self.boxes).astype(float)
        if present is not None:
            want *= np.asarray(present, dtype=bool)
        self.amount = np.clip(self.amount + np.clip(want - self.amount, -FADE_STEP, FADE_STEP), 0.0, 1.0)

    def uniforms(self):
        """None while nothing fades; else ``(lo (k, 3), hi (k, 3), amount (k,), materials)``:
        float32 arrays of the ``k <= MAX_FADE`` most faded obstacles, most faded first, and
        the set of materials they are drawn with."""
        live = np.flatnonzero(self.amount > 0.0)
        if not len(live):
            return None
        live = live[np.argsort(-self.amount[live], kind="stable")][:MAX_FADE]
        mats = frozenset().union(*(self.materials[i] for i in live))
        return (self.boxes[live, 0].astype(np.float32), self.boxes[live, 1].astype(np.float32),
                self.amount[live].astype(np.float32), mats)
