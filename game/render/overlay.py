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

The lines are drawn with no depth test (boxes inside limbs stay visible), so
what is drawn last is on top: the segments come out in :data:`LAYERS` order
(stable within a layer), the arena's structure first (quadtree cells, crate
slabs), then the fighters' boxes, the rays, and last the marks of method A
(overlap boxes, centre segments, j1, j2, collision points), which no floor
line or slab edge may cover.  Only the quadtree cells, which lie on the floor,
are depth-tested (:meth:`DebugOverlay.in_scene`): a fighter or crate in front
hides them instead of being crossed by the whole arena's grid.  :data:`LEGEND`
names every colour for the HUD's key (:meth:`DebugOverlay.legend`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

#: Every kind's colour.  The sixteen the HUD's key names (:data:`LEGEND`) are all told apart:
#: each pair is at least :data:`LEGEND_MIN_DELTA_E` apart in CIEDE2000, so no two of them read
#: as one colour on a thin line or a small swatch (``tests/render/test_overlay_readability.py``).
COLORS = {
    "hurt": (0.30, 1.00, 0.45, 0.95),                # green
    "hit": (1.00, 0.18, 0.15, 1.00),                 # red
    "guard": (0.20, 0.50, 1.00, 1.00),               # blue
    "overlap": (1.00, 0.92, 0.10, 1.00),             # yellow
    "j1": (1.00, 0.30, 1.00, 1.00),                  # magenta
    "j2": (0.60, 0.55, 0.00, 1.00),                  # olive
    "collision": (1.00, 1.00, 1.00, 1.00),           # white
    "centres": (0.50, 0.50, 0.50, 0.90),             # A7's construction line, grey under its white point
    "crate": (1.00, 0.62, 0.20, 0.95),               # orange
    "crate_target_face": (0.00, 0.60, 0.20, 1.00),   # deep green: the last strike (B2-B5), apart from the slabs
    "crate_region": (1.00, 0.62, 0.62, 1.00),        # coral
    "crate_fill_face": (0.70, 0.75, 0.60, 1.00),     # sage
    "crate_struck": (0.00, 0.60, 0.65, 1.00),        # teal: the small box a strike judged (re-split since)
    "quadtree": (0.30, 0.20, 0.85, 0.80),            # indigo: a light grey would read as floor lines
    "ray_nearest": (0.20, 1.00, 1.00, 1.00),         # cyan
    "ray_beyond": (0.20, 1.00, 1.00, 0.30),          # a nearest ray's reach past its hit (C6 max distance)
    "ray_any": (0.75, 0.70, 1.00, 1.00),             # lavender
    "ray_hit_nearest": (0.20, 1.00, 1.00, 1.00),     # a hit mark in its ray's colour (not j1's
    "ray_hit_any": (0.75, 0.70, 1.00, 1.00),         # magenta: it would read as a judgement point)
    "ray": (0.50, 0.90, 1.00, 1.00),
}
#: the least CIEDE2000 colour difference between any two colours of :data:`LEGEND`
LEGEND_MIN_DELTA_E = 20.0
DEFAULT_COLOR = (1.00, 0.55, 0.90, 0.90)
POINT_SIZE = {"collision": 0.07, "j1": 0.05, "j2": 0.05}

#: Draw order by kind (longest known prefix, as colours): higher layers are drawn later,
#: over lower ones.  Unknown kinds go with the rays.
LAYERS = {
    "quadtree": 0,
    "crate": 1,
    "crate_target_face": 2, "crate_region": 2, "crate_fill_face": 2, "crate_struck": 2,
    "hurt": 3, "guard": 3,
    "hit": 4,
    "ray": 5,
    "overlap": 6, "centres": 6,
    "ray_hit": 7, "j1": 7, "j2": 7,
    "collision": 8,
}
DEFAULT_LAYER = 5
#: Layers below this lie in the scene (the quadtree cells, on the floor): the line pass
#: depth-tests them, so fighters and crates in front hide them; the rest is drawn on top.
IN_SCENE_LAYERS = 1

#: The HUD's key to the colours: ``(label, kind)``, method A's column first, then B's and C's;
#: the first row of each sub-toggle's kinds names its key.
LEGEND = (
    ("hurt box (A6)", "hurt"),
    ("hit box, active frame", "hit"),
    ("guard box", "guard"),
    ("overlap [j1, j2] (A4)", "overlap"),
    ("j1: max of mins (A2)", "j1"),
    ("j2: min of maxes (A3)", "j2"),
    ("centre to centre", "centres"),
    ("collision point (A7)", "collision"),
    ("crate slab (B6)  F2", "crate_slab"),
    ("struck slab (B1)", "crate_struck"),
    ("target face (B2)", "crate_target_face"),
    ("interaction region (B3)", "crate_region"),
    ("fill face (B5)", "crate_fill_face"),
    ("quadtree cell (C1)  F3", "quadtree"),
    ("ray to nearest hit (C7)  F4", "ray_nearest"),
    ("ray, any hit (C8)", "ray_any"),
)

#: sub-toggle name -> kind prefix
FILTERS = {"crates": "crate", "quadtree": "quadtree", "rays": "ray"}

_BOX_EDGES = np.array([[0, 1], [2, 3], [4, 5], [6, 7], [0, 2], [1, 3], [4, 6], [5, 7],
                       [0, 4], [1, 5], [2, 6], [3, 7]])
_CORNERS = np.array([[i >> 2 & 1, i >> 1 & 1, i & 1] for i in range(8)])
_RING_EDGES = np.array([[0, 1], [1, 2], [2, 3], [3, 0]])     # a quad's outline, corner to next corner


def _by_prefix(table: dict, kind: str, default):
    """``table[kind]``, else the value of the longest key that prefixes ``kind``, else ``default``."""
    v = table.get(kind)
    if v is not None:
        return v
    best = ""
    for k in table:
        if kind.startswith(k) and len(k) > len(best):
            best = k
    return table[best] if best else default


@lru_cache(maxsize=None)       # a frame asks for the same few kinds ~100 times
def color_of(kind: str) -> tuple:
    """The role colour of ``kind``: exact, else the longest known prefix, else the default."""
    return _by_prefix(COLORS, kind, DEFAULT_COLOR)


@lru_cache(maxsize=None)
def layer_of(kind: str) -> int:
    """The draw layer of ``kind`` (:data:`LAYERS`): exact, else the longest known prefix."""
    return _by_prefix(LAYERS, kind, DEFAULT_LAYER)


def box_edges(box) -> np.ndarray:
    """The 12 edges ``(12, 2, 3)`` of an axis-aligned box ``(2, 3)``."""
    box = np.asarray(box, dtype=float)
    corners = np.where(_CORNERS == 1, box[1], box[0])
    return corners[_BOX_EDGES]


class OverlayLines(NamedTuple):
    """One frame of the overlay, ready for the line pass."""

    segments: np.ndarray    # (n, 2, 3) float: every segment, in draw order (by layer)
    colors: np.ndarray      # (n, 4) float: the colour of each segment
    in_scene: int           # how many leading segments lie in the scene (drawn depth-tested)


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
        self._layers: list[int] = []
        self._boxes: list = []           # boxes are the bulk: their edges are built in one batch
        self._box_cols: list[tuple] = []
        self._box_layers: list[int] = []
        self._built: OverlayLines | None = None      # the frame's lines, once asked for
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
        self._layers.append(layer_of(kind))
        self._built = None

    # ---- DebugDraw protocol -------------------------------------------------
    def box(self, box, kind: str) -> None:
        if self.wants(kind):
            self._boxes.append(box)
            self._box_cols.append(color_of(kind))
            self._box_layers.append(layer_of(kind))
            self._built = None

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
    def _build(self) -> OverlayLines:
        """Segments ``(n, 2, 3)`` and colours ``(n, 4)`` in draw order: by layer
        (:data:`LAYERS`), and within a layer boxes first, then the rest as added; and the
        number of leading segments that lie in the scene."""
        if self._built is not None:
            return self._built
        segs: list[np.ndarray] = []
        cols: list[np.ndarray] = []
        layer_parts: list[np.ndarray] = []
        if self._boxes:
            b = np.asarray(self._boxes, dtype=float).reshape(-1, 2, 3)
            corners = np.where(_CORNERS[None] == 1, b[:, 1:2], b[:, 0:1])       # (B, 8, 3)
            segs.append(corners[:, _BOX_EDGES].reshape(-1, 2, 3))
            cols.append(np.repeat(np.array(self._box_cols, dtype=float), 12, axis=0))
            layer_parts.append(np.repeat(np.array(self._box_layers), 12))
        if self._segs:
            segs += self._segs
            cols.append(np.repeat(np.array(self._cols, dtype=float), self._counts, axis=0))
            layer_parts.append(np.repeat(np.array(self._layers), self._counts))
        if not segs:
            self._built = OverlayLines(np.zeros((0, 2, 3)), np.zeros((0, 4)), 0)
            return self._built
        layers = np.concatenate(layer_parts)
        order = np.argsort(layers, kind="stable")
        self._built = OverlayLines(np.concatenate(segs)[order], np.concatenate(cols)[order],
                                   int(np.count_nonzero(layers < IN_SCENE_LAYERS)))
        return self._built

    def segments(self) -> np.ndarray:
        """All segments ``(n, 2, 3)``, in draw order (see :meth:`_build`)."""
        return self._build().segments

    def colors(self) -> np.ndarray:
        """Colours ``(n, 4)`` matching :meth:`segments`."""
        return self._build().colors

    def in_scene(self) -> int:
        """How many of the first :meth:`segments` lie in the scene (:data:`IN_SCENE_LAYERS`):
        the line pass draws those depth-tested, the rest over everything."""
        return self._build().in_scene

    def legend(self) -> list[tuple[str, tuple, bool]]:
        """The key to the colours for the HUD: ``(label, rgba, shown)`` per :data:`LEGEND`
        row; ``shown`` is False while the row's sub-toggle (F2-F4) hides its kind."""
        return [(label, color_of(kind), self.wants(kind)) for label, kind in LEGEND]
