"""The debug overlay: a :class:`game.sim.debug.DebugDraw` that turns the sim's
description into coloured line segments (pure numpy; ``passes.LineRenderer``
draws them).  It shows method A at work -- every limb's range box (A6) by role,
and for each colliding pair the judgement points j1 / j2 (A2, A3), their
overlap box (A4), the centre-to-centre segment and the collision point (A7) --
plus method B's crate slabs (B6, B7) and method C's quadtree cells (C1) and
rays (C6-C8) as the stage describes them.

Every method of the protocol is implemented and any kind is accepted: known
kinds get their role colour (matched by the longest known prefix, so
``'crate_slab_top'`` is coloured like ``'crate'``), unknown ones a default.
Toggles: the whole overlay (F1), and sub-toggles by kind prefix: crate slabs
(F2, ``'crate'``), quadtree cells (F3, ``'quadtree'``), rays (F4, ``'ray'``).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

COLORS = {
    "hurt": (0.30, 1.00, 0.45, 0.95),
    "hit": (1.00, 0.18, 0.15, 1.00),
    "guard": (0.35, 0.65, 1.00, 1.00),
    "overlap": (1.00, 0.92, 0.10, 1.00),
    "j1": (1.00, 0.30, 1.00, 1.00),
    "j2": (1.00, 0.60, 0.10, 1.00),
    "collision": (1.00, 1.00, 1.00, 1.00),
    "centres": (1.00, 0.95, 0.55, 1.00),
    "crate": (1.00, 0.62, 0.20, 0.95),
    "crate_target_face": (1.00, 0.35, 0.80, 1.00),   # the last strike (B2-B5), apart from the slabs
    "crate_region": (1.00, 1.00, 0.45, 1.00),
    "crate_fill_face": (0.75, 0.90, 1.00, 1.00),
    "quadtree": (0.75, 0.75, 0.80, 0.70),
    "ray_nearest": (0.20, 1.00, 1.00, 1.00),
    "ray_any": (0.80, 0.45, 1.00, 1.00),
    "ray_hit_nearest": (0.10, 1.00, 0.90, 1.00),
    "ray_hit_any": (1.00, 0.35, 1.00, 1.00),
    "ray": (0.50, 0.90, 1.00, 1.00),
}
DEFAULT_COLOR = (1.00, 0.55, 0.90, 0.90)
POINT_SIZE = {"collision": 0.07, "j1": 0.035, "j2": 0.035}

#: sub-toggle name -> kind prefix
FILTERS = {"crates": "crate", "quadtree": "quadtree", "rays": "ray"}

_BOX_EDGES = np.array([[0, 1], [2, 3], [4, 5], [6, 7], [0, 2], [1, 3], [4, 6], [5, 7],
                       [0, 4], [1, 5], [2, 6], [3, 7]])
_CORNERS = np.array([[i >> 2 & 1, i >> 1 & 1, i & 1] for i in range(8)])
_RING_EDGES = np.array([[0, 1], [1, 2], [2, 3], [3, 0]])     # a quad's outline, corner to next corner


@lru_cache(maxsize=None)       # a frame asks for the same few kinds ~100 times
def color_of(kind: str) -> tuple:
    """The role colour of ``kind``: exact, else the longest known prefix, else the default."""
    c = COLORS.get(kind)
    if c is not None:
        return c
    best = ""
    for k in COLORS:
        if kind.startswith(k) and len(k) > len(best):
            best = k
    return COLORS[best] if best else DEFAULT_COLOR


def box_edges(box) -> np.ndarray:
    """The 12 edges ``(12, 2, 3)`` of an axis-aligned box ``(2, 3)``."""
    box = np.asarray(box, dtype=float)
    corners = np.where(_CORNERS == 1, box[1], box[0])
    return corners[_BOX_EDGES]


class DebugOverlay:
    """Collects one frame of debug drawing; ``segments()``/``colors()`` for the line pass."""

    def __init__(self):
        self.enabled = False
        self.show = {name: True for name in FILTERS}
        self.clear()

    def clear(self) -> None:
        self._segs: list[np.ndarray] = []
        self._cols: list[tuple] = []
        self._counts: list[int] = []
        self._boxes: list = []           # boxes are the bulk: their edges are built in one batch
        self._box_cols: list[tuple] = []
        self.texts: list[tuple[np.ndarray, str, tuple]] = []

    def wants(self, kind: str) -> bool:
        for name, prefix in FILTERS.items():
            if kind.startswith(prefix):
                return self.show[name]
        return True

    def _add(self, segs: np.ndarray, kind: str) -> None:
        if not self.wants(kind):
            return
        segs = np.asarray(segs, dtype=float).reshape(-1, 2, 3)
        self._segs.append(segs)
        self._cols.append(color_of(kind))
        self._counts.append(len(segs))

    # ---- DebugDraw protocol -------------------------------------------------
    def box(self, box, kind: str) -> None:
        if self.wants(kind):
            self._boxes.append(box)
            self._box_cols.append(color_of(kind))

    def point(self, p, kind: str) -> None:
        p = np.asarray(p, dtype=float)
        s = POINT_SIZE.get(kind, 0.04)
        axes = np.eye(3) * s
        segs = np.stack([p - axes, p + axes], axis=1)
        if kind == "collision":   # a diamond around the cross so it reads at a glance
            ring = p + np.array([[s, 0, 0], [0, s, 0], [-s, 0, 0], [0, -s, 0]]) * 1.4
            segs = np.concatenate([segs, ring[_RING_EDGES]])
        self._add(segs, kind)

    def segment(self, a, b, kind: str) -> None:
        self._add(np.stack([np.asarray(a, float), np.asarray(b, float)])[None], kind)

    def quad(self, corners, kind: str) -> None:
        self._add(np.asarray(corners, dtype=float).reshape(4, 3)[_RING_EDGES], kind)

    def rect_xz(self, rect, y, kind: str) -> None:
        (x0, z0), (x1, z1) = np.asarray(rect, dtype=float)
        y = float(y)
        c = np.array([[x0, y, z0], [x1, y, z0], [x1, y, z1], [x0, y, z1]])
        self._add(c[_RING_EDGES], kind)

    def text(self, p, s, kind: str) -> None:
        if self.wants(kind):
            self.texts.append((np.asarray(p, dtype=float), str(s), color_of(kind)))

    # ---- output ---------------------------------------------------------------
    def segments(self) -> np.ndarray:
        """All segments ``(n, 2, 3)``: every box's 12 edges first, then the rest."""
        parts = []
        if self._boxes:
            b = np.asarray(self._boxes, dtype=float).reshape(-1, 2, 3)
            corners = np.where(_CORNERS[None] == 1, b[:, 1:2], b[:, 0:1])       # (B, 8, 3)
            parts.append(corners[:, _BOX_EDGES].reshape(-1, 2, 3))
        parts += self._segs
        return np.concatenate(parts) if parts else np.zeros((0, 2, 3))

    def colors(self) -> np.ndarray:
        """Colours ``(n, 4)`` matching :meth:`segments`."""
        parts = []
        if self._box_cols:
            parts.append(np.repeat(np.array(self._box_cols, dtype=float), 12, axis=0))
        if self._cols:
            parts.append(np.repeat(np.array(self._cols, dtype=float), self._counts, axis=0))
        return np.concatenate(parts) if parts else np.zeros((0, 4))
