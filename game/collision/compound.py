"""Method B: re-splitting a crate's bounding box when a character strikes it.

A :class:`Compound` is a crate (or barrel) made of thin *small boxes*, each a
method-A range box.  A strike punches a rectangular hole through the wall it
hits; afterwards method A (limbs vs ``compound.boxes``) and method C (rays vs
``compound.triangles()``) see the hole.

Model
-----
The crate's bounding box ``bounds`` (B1; a sphere's circumscribed cube, B8) is
described by its six faces (B2).  Each face is extruded *inward* by the wall
``thickness`` into a slab (B6).  The slab of one original face is a **layer**;
layer ids are ``2 * axis + side`` (``side`` 0 = the min face with outward
normal ``-axis``, 1 = the max face with normal ``+axis``)::

    layer 0/1  (-x/+x)  x: wall,  y: full,      z: full
    layer 2/3  (-y/+y)  x: inset, y: wall,      z: full
    layer 4/5  (-z/+z)  x: inset, y: inset,     z: wall

("inset" = ``[lo + thickness, hi - thickness]``).  So the edges and corners of
the shell are owned by the x slabs first, then the y slabs, and no two layers
ever overlap.  Every small box belongs to exactly one layer and spans that
layer's whole wall thickness along the layer's axis; strikes only ever cut a
box across its two *tangent* axes, so thickness never shrinks.

A small box is the extrusion of its **face**: its side on the layer's outer
plane.  The compound is the union of its small boxes (B7).

Striking (B1-B7, B9)
--------------------
``strike(striker_box, margin)``:

1. Method A (A4, touching counts) finds the small boxes the striker touches.
   None touched -> ``None``, nothing changes.
2. B2: the **target faces** are the faces of the touched small boxes; their
   layers are the target layers (a strike at an edge or corner has several).
   Every other face is an *other face*.
3. B3: per target layer, the **interaction region** is the striker's
   footprint on the layer's face plane (its extent on the two tangent axes),
   grown by ``margin`` on every side and clipped to the layer's face.  A
   region edge closer than ``tolerances.SNAP_EPS`` to an existing edge of that
   face snaps onto it.  The region runs on across the coplanar neighbour
   boxes of the same face, so the hole does not depend on how the face
   happens to be split into boxes at the time.
4. B4: every small box of the layer whose face the region overlaps with
   positive area is cut along the lines through the region's two pairs of
   parallel edges (a 3x3 grid of quads), the middle quad (the region) is
   dropped and so are empty pieces; a piece thinner than
   ``MIN_BOX_EXTENT`` is dropped too (it becomes part of the hole).  The
   rest are the **split faces** (at most 8 per cut box).
5. B6: each split face is extruded by the layer's thickness into a small box.
6. B5: the **fill faces** are the walls of the hole: the sides of the
   remaining small boxes that face into the removed *tunnel* (region x
   wall thickness), clipped to the tunnel.  Their outer edges run between the
   **target vertices** (the hole's corners on the face plane, vertices of the
   split faces that belong to no other face).  The volume behind a fill face
   (its extrusion by the thickness) is already covered by the split faces'
   small boxes, so it gets no small box of its own: that would be a
   duplicate, which B9 forbids.
7. B7/B9: the compound is the union of all small boxes.  The boxes of every
   cut layer are then re-merged: the layer's union is re-decomposed into
   maximal rows (runs along the first tangent axis, merged along the second
   where consecutive rows have the same run), which merges coplanar neighbours
   whose union is exactly a box, keeps the shape exact and bounds the count.

A later strike on a struck area cuts the current small boxes again (B9):
holes grow and multiply.

Faces for rendering
-------------------
``compound.faces`` is a :class:`FaceSet` of parallel arrays: the boundary of
the union of the small boxes, as axis-aligned quads with vertex data
``(F, 4, 3)`` (counter-clockwise seen from outside), unit outward normals
``(F, 3)`` and kinds ``(F,)``: :data:`OUTER` (on the crate's outer surface:
split faces and other faces), :data:`FILL` (walls of holes, B5) and
:data:`INNER` (the shell's inside, seen through a hole).  Covered sides of
touching boxes are not faces, so outer faces never cover a hole.
``compound.triangles()`` gives the same as ``(2F, 3, 3)`` triangles with
per-triangle normals and kinds, for the renderer and method C.
"""

from __future__ import annotations

import itertools
import math
import operator
import struct
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple, Sequence

import numpy as np

from . import tolerances as tol
from .range_box import box_from_sphere, overlaps

__all__ = [
    "OUTER",
    "FILL",
    "INNER",
    "KIND_NAMES",
    "DEFAULT_MARGIN",
    "CompoundError",
    "InvalidCompound",
    "Face",
    "FaceSet",
    "StrikeResult",
    "CompoundSnapshot",
    "Compound",
    "CompoundGroup",
    "GroupTouch",
    "reference_strike",
    "reference_faces",
]

#: Face kinds (``FaceSet.kinds``, ``Face.kind``).
OUTER, FILL, INNER = 0, 1, 2
KIND_NAMES = ("outer", "fill", "inner")

#: Default growth of the interaction region around the striker's footprint
#: (world units, B3).  A game tunable, not a tolerance.
DEFAULT_MARGIN = 0.02

_TANGENTS = ((1, 2), (0, 2), (0, 1))  # axis -> the other two axes, increasing
_CYCLIC = ((1, 2), (2, 0), (0, 1))  # axis -> (v, w) with e_v x e_w = e_axis
_MAGIC = b"RBCP"
_NINE_U = np.array([0, 1, 2, 0, 2, 0, 1, 2])  # 3 x 3 grid cells without the middle (1, 1)
_NINE_V = np.array([0, 0, 0, 1, 1, 2, 2, 2])
_NINE = tuple(zip(_NINE_U.tolist(), _NINE_V.tolist()))
_LAYER_IDS = np.arange(6, dtype=np.int8)
_LO_NEG_HI = np.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0])
_multiply, _less_equal = np.multiply, np.less_equal
# fmin, not minimum: a NaN limb (which touches nothing, as in A4) must not make the union box
# NaN and so hide every other limb's contacts (the same speed)
_min_reduce, _and_reduce = np.fmin.reduce, np.logical_and.reduce
_NO_PAIRS = np.zeros(0, dtype=np.intp)
_NO_PAIRS.flags.writeable = False
#: CompoundGroup.touching tests more limbs than this against each near compound's bounds
#: first (level 2); up to this many, level 3 on all of them costs less (measured: 2 and
#: 4 limbs 27 -> 18 and 40 -> 20 us without level 2, 22 limbs 53 us with it, 63 without).
_LEVEL2_MIN_LIMBS = 8
#: CompoundGroup keeps its level-1/2 operands tiled for at most this many limb counts.
_MAX_TILE_SIZES = 8
_VERSION = 1


class CompoundError(ValueError):
    """Bad input to a compound function (message names the argument and the fix)."""


class InvalidCompound(RuntimeError):
    """Raised by :meth:`Compound.validate` when a B9 invariant is broken."""


# --------------------------------------------------------------------------
# Faces
# --------------------------------------------------------------------------


class Face(NamedTuple):
    """One axis-aligned quad.

    vertices : (4, 3) float, counter-clockwise seen from the side the normal
        points to.
    normal : (3,) float, unit, along an axis.
    kind : int, :data:`OUTER`, :data:`FILL` or :data:`INNER`.
    """

    vertices: np.ndarray
    normal: np.ndarray
    kind: int

    @property
    def area(self) -> float:
        v = self.vertices
        return float(np.linalg.norm(np.cross(v[1] - v[0], v[3] - v[0])))

    @property
    def center(self) -> np.ndarray:
        return self.vertices.mean(axis=0)


class FaceSet(NamedTuple):
    """All faces of a compound as parallel arrays.

    vertices : (F, 4, 3) float, each quad counter-clockwise seen from outside.
    normals : (F, 3) float, unit outward normals.
    kinds : (F,) int8, :data:`OUTER` / :data:`FILL` / :data:`INNER`.
    box_index : (F,) int64, the small box whose side the face is.
    """

    vertices: np.ndarray
    normals: np.ndarray
    kinds: np.ndarray
    box_index: np.ndarray

    @property
    def count(self) -> int:
        return int(self.kinds.shape[0])

    def face(self, i: int) -> Face:
        return Face(self.vertices[i], self.normals[i], int(self.kinds[i]))

    def areas(self) -> np.ndarray:
        """(F,) float areas."""
        v = self.vertices
        return np.linalg.norm(np.cross(v[:, 1] - v[:, 0], v[:, 3] - v[:, 0]), axis=-1)

    def triangles(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Two triangles per quad, same winding as the quads.

        Returns
        -------
        triangles : (2F, 3, 3) float
        normals : (2F, 3) float
        kinds : (2F,) int8
        """
        v = self.vertices
        tri = np.stack((v[:, [0, 1, 2]], v[:, [0, 2, 3]]), axis=1).reshape(-1, 3, 3)
        return tri, np.repeat(self.normals, 2, axis=0), np.repeat(self.kinds, 2)


def _quads(axis: np.ndarray, sign: np.ndarray, plane: np.ndarray, rect: np.ndarray) -> np.ndarray:
    """Quads on planes ``x[axis] = plane`` covering ``rect``.

    axis, sign, plane : (n,) ; sign +1/-1 = normal along +axis / -axis.
    rect : (n, 2, 3) float box whose extent on the two other axes is the quad
        (its extent on ``axis`` is ignored).
    Returns (n, 4, 3) float vertices, counter-clockwise seen from the normal.
    """
    n = axis.shape[0]
    out = np.empty((n, 4, 3))
    if n == 0:
        return out
    cyc = np.asarray(_CYCLIC)[axis]  # (n, 2): v, w
    rows = np.arange(n)
    v0 = rect[rows, 0, cyc[:, 0]]
    v1 = rect[rows, 1, cyc[:, 0]]
    w0 = rect[rows, 0, cyc[:, 1]]
    w1 = rect[rows, 1, cyc[:, 1]]
    pos = sign > 0
    # + normal: (v0,w0) (v1,w0) (v1,w1) (v0,w1); - normal: reversed order.
    vs = np.where(pos[:, None], np.stack((v0, v1, v1, v0), 1), np.stack((v0, v0, v1, v1), 1))
    ws = np.where(pos[:, None], np.stack((w0, w0, w1, w1), 1), np.stack((w0, w1, w1, w0), 1))
    out[rows[:, None], np.arange(4)[None, :], axis[:, None]] = plane[:, None]
    out[rows[:, None], np.arange(4)[None, :], cyc[:, 0][:, None]] = vs
    out[rows[:, None], np.arange(4)[None, :], cyc[:, 1][:, None]] = ws
    return out


def _normals(axis: np.ndarray, sign: np.ndarray) -> np.ndarray:
    nrm = np.zeros((axis.shape[0], 3))
    nrm[np.arange(axis.shape[0]), axis] = sign
    return nrm


def _face_tuple(axis, sign, plane, rect, kind) -> tuple[Face, ...]:
    axis = np.asarray(axis, dtype=np.int64)
    sign = np.asarray(sign, dtype=float)
    verts = _quads(axis, sign, np.asarray(plane, dtype=float), np.asarray(rect, dtype=float).reshape(-1, 2, 3))
    nrm = _normals(axis, sign)
    for arr in (verts, nrm):
        arr.flags.writeable = False
    return tuple(Face(verts[i], nrm[i], kind) for i in range(axis.shape[0]))


# --------------------------------------------------------------------------
# 2D rectangle decomposition (shared by merging and face extraction)
# --------------------------------------------------------------------------


#: cells up to which :func:`_grid_rects` walks the rows in Python: a struck crate's layer is
#: a grid of a few dozen cells, where numpy's ~14 calls cost 2-3x the loop
SMALL_GRID = 192


def _grid_rects(occ: np.ndarray) -> np.ndarray:
    """Decompose a boolean cell grid into rectangles of cells.

    occ : (ny, nx) bool, row index along the second tangent axis.
    Returns (m, 4) int64 ``[x0, x1, y0, y1]`` cell ranges (half-open): the
    maximal runs of each row, merged over consecutive rows with the same run.
    Sorted by (y0, x0); a function of ``occ`` only.  Small grids take
    :func:`_grid_rects_rows` (the same result, row by row in Python).
    """
    if occ.size <= SMALL_GRID:
        return _grid_rects_rows(occ)
    return _grid_rects_batched(occ)


def _grid_rects_rows(occ) -> np.ndarray:
    """:func:`_grid_rects` one row at a time (``occ`` an array or a list of bool rows)."""
    return np.array(_grid_rect_list(occ), dtype=np.int64).reshape(-1, 4)


def _grid_rect_list(occ) -> list:
    """:func:`_grid_rects_rows` as a list of ``(x0, x1, y0, y1)`` int tuples."""
    return _stack_runs(_cell_runs(row) for row in (occ.tolist() if isinstance(occ, np.ndarray) else occ))


def _cell_runs(row: list) -> list:
    """The maximal runs ``(x0, x1)`` (half-open, increasing) of True cells in a bool row."""
    runs = []
    x, n = 0, len(row)
    while x < n:
        if row[x]:
            start = x
            x += 1
            while x < n and row[x]:
                x += 1
            runs.append((start, x))
        x += 1
    return runs


def _interval_runs(spans: list) -> list:
    """The maximal runs ``(x0, x1)`` of a row covered by disjoint cell spans ``(x0, x1)``
    (in any order): the spans sorted, touching ones joined."""
    spans.sort()
    runs = []
    for x0, x1 in spans:
        if runs and runs[-1][1] == x0:
            runs[-1] = (runs[-1][0], x1)
        else:
            runs.append((x0, x1))
    return runs


def _stack_runs(row_runs) -> list:
    """Rectangles ``(x0, x1, y0, y1)`` from each row's maximal runs (rows in order): a run
    continues the rectangle open in the row above with the same run, or opens one; the
    rectangles not continued close.  Sorted by (y0, x0)."""
    open_: dict = {}        # (x0, x1) -> y0 of the rectangle that run continues
    out: list = []
    y = -1
    for y, runs in enumerate(row_runs):
        now = {run: open_.pop(run, y) for run in runs}
        out += [(x0, x1, y0, y) for (x0, x1), y0 in open_.items()]
        open_ = now
    out += [(x0, x1, y0, y + 1) for (x0, x1), y0 in open_.items()]
    out.sort(key=lambda r: (r[2], r[0]))
    return out


def _grid_rects_batched(occ: np.ndarray) -> np.ndarray:
    """:func:`_grid_rects` for all rows at once (large grids)."""
    ny, nx = occ.shape
    pad = np.zeros((ny, nx + 2), dtype=np.int8)
    pad[:, 1:-1] = occ
    d = np.diff(pad, axis=1)
    rows, x0 = np.nonzero(d == 1)
    _, x1 = np.nonzero(d == -1)  # same row-major order: the i-th end closes the i-th start
    if rows.size == 0:
        return np.zeros((0, 4), dtype=np.int64)
    key = x0 * (nx + 2) + x1
    order = np.lexsort((rows, key))  # by run, then row
    k, r = key[order], rows[order]
    # a new rectangle starts where the run changes or a row is skipped
    start = np.ones(k.shape[0], dtype=bool)
    start[1:] = (k[1:] != k[:-1]) | (r[1:] != r[:-1] + 1)
    first = np.flatnonzero(start)
    last = np.append(first[1:], k.shape[0]) - 1
    o_first = order[first]
    out = np.stack((x0[o_first], x1[o_first], r[first], r[last] + 1), axis=1).astype(np.int64)
    return out[np.lexsort((out[:, 0], out[:, 2]))]


def _cover_grid(rects: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Cell coverage counts of 2D rects ``(n, 4)`` ``[x0, x1, y0, y1]`` on a grid
    with sorted edge coordinates ``xs``, ``ys`` (each rect edge must be one of
    them).  Returns (len(ys)-1, len(xs)-1) int counts."""
    ix0 = np.searchsorted(xs, rects[:, 0])
    ix1 = np.searchsorted(xs, rects[:, 1])
    iy0 = np.searchsorted(ys, rects[:, 2])
    iy1 = np.searchsorted(ys, rects[:, 3])
    nx = xs.shape[0]
    idx = np.concatenate((iy0 * nx + ix0, iy1 * nx + ix1, iy0 * nx + ix1, iy1 * nx + ix0))
    sgn = np.repeat(np.array([1, 1, -1, -1], dtype=np.int64), ix0.shape[0])
    diff = np.bincount(idx, weights=sgn, minlength=ys.shape[0] * nx).reshape(ys.shape[0], nx)
    return np.rint(diff.cumsum(0).cumsum(1)[:-1, :-1]).astype(np.int64)


def _merge_layer(boxes: np.ndarray, axis: int) -> np.ndarray:
    """B9 merge: re-decompose one layer's disjoint boxes ``(n, 2, 3)`` (all with
    the same extent along ``axis``) into maximal rows; returns (m, 2, 3).

    Rows run along the first tangent axis and are stacked along the second.
    The result depends only on the union's shape and the edge coordinates.
    (The strike merges with :func:`_merge_list`; this is its batched reference.)"""
    if boxes.shape[0] <= 1:
        return boxes
    u, v = _TANGENTS[axis]
    xs = np.unique(boxes[:, :, u])
    ys = np.unique(boxes[:, :, v])
    if (xs.shape[0] - 1) * (ys.shape[0] - 1) <= SMALL_GRID:
        # a struck layer's grid has a few dozen cells: mark them and walk the rows in Python
        # (the boxes are disjoint, so a cell is covered by at most one box)
        xi = {x: i for i, x in enumerate(xs.tolist())}
        yi = {y: i for i, y in enumerate(ys.tolist())}
        rows = [[False] * (xs.shape[0] - 1) for _ in range(ys.shape[0] - 1)]
        for (lo, hi) in boxes[:, :, (u, v)].tolist():
            x0, x1 = xi[lo[0]], xi[hi[0]]
            for row in rows[yi[lo[1]]:yi[hi[1]]]:
                row[x0:x1] = [True] * (x1 - x0)
        cells = _grid_rects_rows(rows)
    else:
        rects = boxes[:, :, (u, v)].transpose(0, 2, 1).reshape(-1, 4)  # [u0, u1, v0, v1]
        cells = _grid_rects_batched(_cover_grid(rects, xs, ys) > 0)
    out = np.empty((cells.shape[0], 2, 3))
    out[:, 0, axis] = boxes[0, 0, axis]
    out[:, 1, axis] = boxes[0, 1, axis]
    out[:, 0, u] = xs[cells[:, 0]]
    out[:, 1, u] = xs[cells[:, 1]]
    out[:, 0, v] = ys[cells[:, 2]]
    out[:, 1, v] = ys[cells[:, 3]]
    return out


def _merge_list(boxes: list, axis: int) -> np.ndarray:
    """:func:`_merge_layer` of boxes given as ``[[lo], [hi]]`` lists of floats, in Python:
    each band between consecutive v edges gets the u spans of the boxes across it, joined
    into maximal runs, and runs repeated in consecutive bands stack into one box.  The
    same boxes as :func:`_merge_layer` (tests hold them equal); its cost follows the
    boxes, not the grid's cells.  Returns (m, 2, 3) float."""
    if len(boxes) <= 1:
        return np.array(boxes, dtype=float).reshape(-1, 2, 3)
    u, v = _TANGENTS[axis]
    xs = sorted({c for lo, hi in boxes for c in (lo[u], hi[u])})
    ys = sorted({c for lo, hi in boxes for c in (lo[v], hi[v])})
    xi = {x: i for i, x in enumerate(xs)}
    yi = {y: i for i, y in enumerate(ys)}
    bands: list = [[] for _ in range(len(ys) - 1)]
    for lo, hi in boxes:
        span = (xi[lo[u]], xi[hi[u]])
        for band in bands[yi[lo[v]]:yi[hi[v]]]:
            band.append(span)
    a0, a1 = boxes[0][0][axis], boxes[0][1][axis]
    out = []
    for x0, x1, y0, y1 in _stack_runs(_interval_runs(b) for b in bands):
        lo, hi = [a0, a0, a0], [a1, a1, a1]
        lo[u], hi[u], lo[v], hi[v] = xs[x0], xs[x1], ys[y0], ys[y1]
        out.append((lo, hi))
    return np.array(out, dtype=float).reshape(-1, 2, 3)


# --------------------------------------------------------------------------
# Results and snapshots
# --------------------------------------------------------------------------


class _Quads(NamedTuple):
    """Compact face data: quads on planes ``x[axis] = plane``, extent ``rect`` on the other axes."""

    axis: np.ndarray  # (n,) int64
    sign: np.ndarray  # (n,) float, +1 / -1
    plane: np.ndarray  # (n,) float
    rect: np.ndarray  # (n, 2, 3) float
    kind: int

    def faces(self) -> tuple[Face, ...]:
        return _face_tuple(self.axis, self.sign, self.plane, self.rect, self.kind)


def _outer_quads(slabs: np.ndarray, lay: np.ndarray, rect: np.ndarray) -> _Quads:
    """Quads of ``rect`` (n, 2, 3) on the outer plane of their layers ``lay`` (n,)."""
    axis = lay // 2
    side = lay % 2
    return _Quads(axis, np.where(side == 1, 1.0, -1.0), slabs[lay, side, axis], rect, OUTER)


@dataclass(frozen=True)
class StrikeResult:
    """What one strike did (B2-B7).  Arrays are read-only; the face tuples are
    built on first access (the game loop reads only a few fields).

    Attributes
    ----------
    layers : (T,) int64, the target layers (``2 * axis + side``), one per region.
    tunnels : (T, 2, 3) float, region x wall thickness of each target layer:
        the volume this strike removed (or found already empty).
    removed_volume : float, volume removed by this strike.
    struck_boxes : (H,) int64, indices (before the strike) of the small boxes
        the striker touched in the target layers.
    target_faces : tuple of :class:`Face`, the faces (outer-plane sides), before the
        strike, of every small box the interaction region cuts (B2: the faces the
        interaction happens on).  The region is the footprint grown by the margin, so
        it can reach boxes beside the struck ones: those are target faces too.
    regions : tuple of :class:`Face`, one per target layer: the interaction
        region, footprint grown by the margin and clipped to the face (B3).
    split_faces : tuple of :class:`Face`, the pieces left around the region of
        every target face (B4); each is the face of a new small box (B6).
    split_target : (S,) int64, for each split face, the index into ``target_faces``
        of the face it was cut from: at most 8 split faces share one (B4).
    fill_faces : tuple of :class:`Face` (kind FILL), the walls of the hole, normals
        pointing into the hole (B5).
    target_vertices : (n, 3) float, the hole's corners on the face planes, where
        two fill faces meet (B5: split-face vertices that belong to no other face).
    """

    layers: np.ndarray
    tunnels: np.ndarray
    removed_volume: float
    struck_boxes: np.ndarray
    split_target: np.ndarray
    _target: tuple  # (slabs, layer (n,), rect (n, 2, 3)): outer-plane quads, built on first read
    _regions: tuple
    _split: tuple
    _boxes_after: np.ndarray  # (K', 2, 3) read-only: the compound's boxes right after the strike

    @cached_property
    def _walls(self) -> tuple[_Quads, np.ndarray]:
        return _hole_walls(self._boxes_after, self.tunnels, self.layers)

    @cached_property
    def target_faces(self) -> tuple[Face, ...]:
        return _outer_quads(*self._target).faces()

    @cached_property
    def regions(self) -> tuple[Face, ...]:
        return _outer_quads(*self._regions).faces()

    @cached_property
    def split_faces(self) -> tuple[Face, ...]:
        return _outer_quads(*self._split).faces()

    @cached_property
    def fill_faces(self) -> tuple[Face, ...]:
        return self._walls[0].faces()

    @cached_property
    def target_vertices(self) -> np.ndarray:
        f, lay = self._walls
        n = f.axis.shape[0]
        if n == 0:
            return _readonly(np.zeros((0, 3)))
        # each wall's edge on the outer plane of its tunnel's layer
        a = lay // 2
        outer = np.where(lay % 2 == 1, f.rect[np.arange(n), 1, a], f.rect[np.arange(n), 0, a])
        w = 3 - a - f.axis
        pts = np.empty((n, 2, 3))
        pts[np.arange(n), :, f.axis] = f.plane[:, None]
        pts[np.arange(n), :, a] = outer[:, None]
        pts[np.arange(n), 0, w] = f.rect[np.arange(n), 0, w]
        pts[np.arange(n), 1, w] = f.rect[np.arange(n), 1, w]
        uniq, counts = np.unique(pts.reshape(-1, 3), axis=0, return_counts=True)
        return _readonly(uniq[counts >= 2])


@dataclass(frozen=True)
class CompoundSnapshot:
    """Immutable copy of a compound's state (for rollback); see :meth:`Compound.restore`."""

    bounds: np.ndarray
    thickness: float
    boxes: np.ndarray
    layers: np.ndarray
    volume0: float


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def _as_box(x, name: str) -> np.ndarray:
    try:
        arr = np.array(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise CompoundError(f"{name}: expected a (2, 3) [min, max] box of numbers ({exc})") from None
    if arr.shape != (2, 3):
        raise CompoundError(f"{name}: expected a (2, 3) [min, max] box, got shape {arr.shape}")
    lo, hi = arr.tolist()       # six floats: checked in Python (a strike's frame runs numpy cold)
    if not all(map(math.isfinite, lo + hi)):
        raise CompoundError(f"{name}: coordinates must be finite, got {arr.tolist()}")
    if any(b < a for a, b in zip(lo, hi)):
        raise CompoundError(f"{name}: min row must be <= max row on every axis, got {arr.tolist()}")
    return arr


def _as_scalar(x, name: str) -> float:
    try:
        val = float(x)
    except (TypeError, ValueError):
        raise CompoundError(f"{name}: expected a number, got {x!r}") from None
    if not np.isfinite(val):
        raise CompoundError(f"{name}: must be finite, got {val}")
    return val


# --------------------------------------------------------------------------
# The compound
# --------------------------------------------------------------------------


class Compound:
    """A crate's bounding box as a compound of small boxes (method B).

    Build with :meth:`from_box` or :meth:`from_sphere`.  State is plain arrays:
    ``boxes`` (K, 2, 3) float and ``layers`` (K,) int8, both read-only; a strike
    replaces them (and bumps ``version``), so a reference taken before a strike
    keeps the old state.
    """

    __slots__ = ("_bounds", "_thickness", "_slabs", "_boxes", "_layers", "_offsets", "_volume0", "_version", "_faces")

    def __init__(self, bounds: np.ndarray, thickness: float, boxes: np.ndarray, layers: np.ndarray, volume0: float):
        """Low level (restore, pickle, tests): adopt the given state as is; boxes
        are re-ordered by layer if needed.  Nothing is checked here; call
        :meth:`validate`.  ``volume0`` is the initial shell volume."""
        self._bounds = _readonly(np.array(bounds, dtype=float))
        self._thickness = float(thickness)
        self._slabs = _readonly(_slabs(self._bounds, self._thickness))
        self._boxes = _readonly(np.ascontiguousarray(boxes, dtype=float))
        self._layers = _readonly(np.ascontiguousarray(layers, dtype=np.int8))
        if self._layers.size and (np.diff(self._layers) < 0).any():  # keep boxes grouped by layer
            order = np.argsort(self._layers, kind="stable")
            self._boxes = _readonly(np.ascontiguousarray(self._boxes[order]))
            self._layers = _readonly(self._layers[order])
        self._offsets = np.searchsorted(self._layers, np.arange(7)).tolist()  # layer l = rows [o[l], o[l+1])
        self._volume0 = float(volume0)
        self._version = 0
        self._faces: FaceSet | None = None

    # ---- construction -----------------------------------------------------

    @classmethod
    def from_box(cls, box, thickness: float) -> "Compound":
        """B6: extrude the six faces of ``box`` (2, 3) inward by ``thickness``.

        Corner/edge ownership: see the module docstring (x slabs full size, y
        slabs inset in x, z slabs inset in x and y).  Raises
        :class:`CompoundError` if ``thickness`` is not in
        ``[MIN_BOX_EXTENT, (smallest extent - MIN_BOX_EXTENT) / 2]``.
        """
        b = _as_box(box, "box")
        t = _as_scalar(thickness, "thickness")
        ext = b[1] - b[0]
        if t < tol.MIN_BOX_EXTENT:
            raise CompoundError(f"thickness: must be >= {tol.MIN_BOX_EXTENT} (MIN_BOX_EXTENT), got {t}")
        if (ext - 2.0 * t < tol.MIN_BOX_EXTENT).any():
            raise CompoundError(
                f"thickness: {t} leaves no hollow inside box with extents {ext.tolist()}; "
                f"use a thickness below half the smallest extent"
            )
        slabs = _slabs(b, t)
        vol = float(np.prod(slabs[:, 1] - slabs[:, 0], axis=1).sum())
        return cls(b, t, slabs, np.arange(6, dtype=np.int8), vol)

    @classmethod
    def from_sphere(cls, center, radius: float, thickness: float) -> "Compound":
        """B8: a spherical bounding volume becomes its circumscribed cube."""
        try:
            c = np.array(center, dtype=float)
        except (TypeError, ValueError):
            raise CompoundError(f"center: expected 3 numbers, got {center!r:.80}") from None
        if c.shape != (3,):
            raise CompoundError(f"center: expected 3 coordinates, got shape {c.shape}")
        if not np.isfinite(c).all():
            raise CompoundError(f"center: coordinates must be finite, got {c.tolist()}")
        r = _as_scalar(radius, "radius")
        if r <= 0:
            raise CompoundError(f"radius: must be > 0, got {r}")
        return cls.from_box(box_from_sphere(c, r), thickness)

    # ---- reading ----------------------------------------------------------

    @property
    def bounds(self) -> np.ndarray:
        """(2, 3) float, the original bounding box."""
        return self._bounds

    @property
    def thickness(self) -> float:
        return self._thickness

    @property
    def boxes(self) -> np.ndarray:
        """(K, 2, 3) float, read-only, C-contiguous: the small boxes (method A range boxes)."""
        return self._boxes

    @property
    def layers(self) -> np.ndarray:
        """(K,) int8: layer (``2 * axis + side``) of each small box."""
        return self._layers

    @property
    def version(self) -> int:
        """Bumped by every strike that changes the compound (cache key)."""
        return self._version

    def __len__(self) -> int:
        return int(self._boxes.shape[0])

    def box_volumes(self) -> np.ndarray:
        """(K,) float: the volume of each small box."""
        return np.prod(self._boxes[:, 1] - self._boxes[:, 0], axis=1)

    def volume(self) -> float:
        """Total volume of the small boxes (they never overlap)."""
        return float(self.box_volumes().sum())

    @property
    def volume0(self) -> float:
        """The initial shell volume (the six intact walls)."""
        return self._volume0

    def solid_fraction(self) -> float:
        """Remaining volume / initial shell volume, in [0, 1]."""
        return self.volume() / self._volume0

    @property
    def faces(self) -> FaceSet:
        """The boundary of the union of the small boxes (see :class:`FaceSet`).  Cached per version."""
        if self._faces is None:
            self._faces = _hole_walls_beside_the_core(_boundary_faces(self._boxes, self._layers, self._bounds),
                                                      self._core())
        return self._faces

    def _core(self) -> np.ndarray:
        """(2, 3) float: the crate's hollow inside, the bounds less one wall thickness."""
        return self._bounds + np.array([[self._thickness], [-self._thickness]])

    def triangles(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``faces`` as triangles: (2F, 3, 3) float, normals (2F, 3), kinds (2F,) int8."""
        return self.faces.triangles()

    def box_faces(self) -> tuple[Face, ...]:
        """The face (outer-plane side) of every small box, in box order (B6 vertex data)."""
        lay = self._layers.astype(np.int64)
        axis = lay // 2
        side = lay % 2
        plane = self._slabs[lay, side, axis]
        return _face_tuple(axis, np.where(side == 1, 1.0, -1.0), plane, self._boxes, OUTER)

    # ---- striking ----------------------------------------------------------

    def strike(self, striker_box, margin: float = DEFAULT_MARGIN) -> StrikeResult | None:
        """B1-B7, B9: punch the striker's hole through the walls it touches.

        Parameters
        ----------
        striker_box : (2, 3) float, the striking limb's range box.
        margin : float >= 0, growth of the interaction region (B3).

        Returns
        -------
        None if the striker touches no small box, or if the touch removes
        nothing (a zero-area region, e.g. an edge-on touch with margin 0);
        the compound is then unchanged.  Otherwise a :class:`StrikeResult`,
        after the compound has been updated.
        """
        s = _as_box(striker_box, "striker_box")
        m = _as_scalar(margin, "margin")
        if m < 0:
            raise CompoundError(f"margin: must be >= 0, got {m}")
        boxes = self._boxes
        hit = overlaps(s, boxes)
        if not hit.any():
            return None
        layers = self._layers
        off = self._offsets
        hit_layers = sorted(set(layers[hit].tolist()))
        sl, slabs = s.tolist(), self._slabs.tolist()

        new_parts: dict[int, np.ndarray] = {}
        t_layers: list[int] = []
        tunnels: list = []
        split: list = []              # the pieces of every cut layer, in layer order
        split_layer: list[int] = []
        split_of: list[int] = []      # the target face (its place in target_idx) each piece came from
        target_idx: list[int] = []    # B2: every box the region cuts, by index before the strike
        removed = 0.0
        for lay in hit_layers:
            cut = _cut_layer(boxes[off[lay] : off[lay + 1]], slabs[lay], sl, m, lay // 2)
            if cut is None:
                continue
            tun, pieces, new_parts[lay], vol, cut_local, owner = cut
            removed += vol
            t_layers.append(lay)
            tunnels.append(tun)
            split += pieces
            split_layer += [lay] * len(pieces)
            split_of += [len(target_idx) + k for k in owner]
            target_idx += [off[lay] + i for i in cut_local]
        if not t_layers:
            return None

        # B7: the new compound, layer by layer in layer order.
        parts = [new_parts[lay] if lay in new_parts else boxes[off[lay] : off[lay + 1]] for lay in range(6)]
        sizes = [p.shape[0] for p in parts]
        new_boxes = np.concatenate(parts)
        new_layers = np.repeat(_LAYER_IDS, sizes)

        # Result data (faces are built lazily by StrikeResult).
        hit_idx = np.flatnonzero(hit)
        if len(t_layers) < len(hit_layers):  # drop touched boxes of layers that were not cut
            hit_idx = hit_idx[(layers[hit_idx][:, None] == np.asarray(t_layers)).any(axis=1)]
        tl = np.array(t_layers, dtype=np.int64)
        tun_arr = np.array(tunnels, dtype=float)

        self._boxes = _readonly(new_boxes)
        self._layers = _readonly(new_layers)
        self._offsets = [0, *itertools.accumulate(sizes)]
        self._version += 1
        self._faces = None
        return StrikeResult(
            layers=_readonly(tl),
            tunnels=_readonly(tun_arr),
            removed_volume=removed,
            struck_boxes=_readonly(hit_idx),
            split_target=_readonly(np.array(split_of, dtype=np.int64)),
            _target=(self._slabs, layers[target_idx].astype(np.int64), boxes[target_idx]),
            _regions=(self._slabs, tl, tun_arr),
            _split=(self._slabs, np.array(split_layer, dtype=np.int64), np.array(split, dtype=float).reshape(-1, 2, 3)),
            _boxes_after=self._boxes,
        )

    # ---- checking ----------------------------------------------------------

    def validate(self) -> None:
        """Raise :class:`InvalidCompound` if a B9 invariant is broken.

        Checks: shapes and dtypes; finite coordinates; every extent >=
        ``MIN_BOX_EXTENT``; every box inside its layer's slab and spanning the
        slab's whole thickness; no two boxes overlapping with positive volume;
        no two boxes of a layer whose union is exactly a box (i.e. merged);
        count <= :meth:`max_boxes`.
        """
        b, lay = self._boxes, self._layers
        if b.ndim != 3 or b.shape[1:] != (2, 3) or lay.shape != (b.shape[0],):
            raise InvalidCompound(f"boxes/layers shapes {b.shape}/{lay.shape}, expected (K, 2, 3)/(K,)")
        if not b.flags.c_contiguous:
            raise InvalidCompound("boxes array is not C-contiguous")
        if not np.isfinite(b).all():
            raise InvalidCompound("non-finite box coordinates")
        if ((lay < 0) | (lay > 5)).any():
            raise InvalidCompound(f"layer ids outside 0..5: {np.unique(lay).tolist()}")
        ext = b[:, 1] - b[:, 0]
        small = np.flatnonzero((ext < tol.MIN_BOX_EXTENT).any(axis=1))
        if small.size:
            raise InvalidCompound(f"zero-size box(es) {small.tolist()}: extents {ext[small].tolist()}")
        sl = self._slabs[lay.astype(np.int64)]
        outside = np.flatnonzero(((b[:, 0] < sl[:, 0] - tol.PLANE_EPS) | (b[:, 1] > sl[:, 1] + tol.PLANE_EPS)).any(axis=1))
        if outside.size:
            raise InvalidCompound(f"box(es) {outside.tolist()} outside their layer's slab")
        axis = lay.astype(np.int64) // 2
        rows = np.arange(b.shape[0])
        thin = np.flatnonzero(
            (np.abs(b[rows, 0, axis] - sl[rows, 0, axis]) > tol.PLANE_EPS)
            | (np.abs(b[rows, 1, axis] - sl[rows, 1, axis]) > tol.PLANE_EPS)
        )
        if thin.size:
            raise InvalidCompound(f"box(es) {thin.tolist()} do not span their wall's thickness")
        # Boxes lie inside their slabs and the six slabs are disjoint, so duplicates
        # and mergeable pairs can only occur within one layer: check pairwise per layer.
        sov = np.minimum(self._slabs[:, None, 1], self._slabs[None, :, 1]) - np.maximum(self._slabs[:, None, 0], self._slabs[None, :, 0])
        if ((sov > tol.PLANE_EPS).all(axis=-1) & ~np.eye(6, dtype=bool)).any():
            raise InvalidCompound("the six wall slabs overlap")
        for layer in range(6):
            idx = np.flatnonzero(lay == layer)
            lb = b[idx]
            ov = np.minimum(lb[:, None, 1], lb[None, :, 1]) - np.maximum(lb[:, None, 0], lb[None, :, 0])
            dup = (ov > tol.PLANE_EPS).all(axis=-1)
            np.fill_diagonal(dup, False)
            if dup.any():
                i, j = idx[np.argwhere(dup)[0]]
                raise InvalidCompound(
                    f"duplicate: boxes {i} and {j} overlap with positive volume ({b[i].tolist()} / {b[j].tolist()})"
                )
            # mergeable: same interval on two axes, touching on the third
            eq = np.abs(lb[:, None] - lb[None, :]).max(axis=2) <= tol.PLANE_EPS  # (n, n, 3)
            touch = np.abs(lb[:, None, 1] - lb[None, :, 0]) <= tol.PLANE_EPS  # i.max == j.min per axis
            merge = (touch & (eq.sum(axis=-1) == 2)[..., None] & ~eq).any(axis=-1)
            if merge.any():
                i, j = idx[np.argwhere(merge)[0]]
                raise InvalidCompound(f"boxes {i} and {j} are coplanar neighbours whose union is a box (not merged)")
        if b.shape[0] > self.max_boxes():
            raise InvalidCompound(f"{b.shape[0]} boxes > bound {self.max_boxes()}")

    def max_boxes(self) -> int:
        """Upper bound on the box count (B9).

        Every box edge of a layer lies on one of the distinct coordinates its
        boxes use (``nu`` and ``nv`` of them on the two tangent axes), and the
        merged row decomposition is made of whole grid cells, so a layer holds
        at most ``(nu - 1) * (nv - 1)`` boxes.  Distinct coordinates of a layer
        are at least ``MIN_BOX_EXTENT`` apart (new cuts snap to edges within
        ``SNAP_EPS``), so the bound is finite for any number of strikes.
        """
        total = 0
        for lay in range(6):
            lb = self._boxes[self._layers == lay]
            if lb.shape[0] == 0:
                continue
            u, v = _TANGENTS[lay // 2]
            nu = np.unique(lb[:, :, u]).shape[0]
            nv = np.unique(lb[:, :, v]).shape[0]
            total += (nu - 1) * (nv - 1)
        return total

    # ---- state -------------------------------------------------------------

    def copy(self) -> "Compound":
        """An independent compound with the same state (arrays are shared read-only)."""
        c = Compound.__new__(Compound)
        c._bounds = self._bounds
        c._thickness = self._thickness
        c._slabs = self._slabs
        c._boxes = self._boxes
        c._layers = self._layers
        c._offsets = self._offsets
        c._volume0 = self._volume0
        c._version = self._version
        c._faces = self._faces
        return c

    __copy__ = copy

    def __reduce__(self):
        # pickle as the constructor's arguments, so a loaded compound has read-only arrays again
        return (Compound, (self._bounds, self._thickness, self._boxes, self._layers, self._volume0))

    def __deepcopy__(self, memo) -> "Compound":
        return self.copy()

    def snapshot(self) -> CompoundSnapshot:
        """Immutable state for rollback (O(1): the arrays are read-only and replaced, never mutated)."""
        return CompoundSnapshot(self._bounds, self._thickness, self._boxes, self._layers, self._volume0)

    @classmethod
    def restore(cls, snap: CompoundSnapshot) -> "Compound":
        """A compound in the state of ``snap``."""
        if not isinstance(snap, CompoundSnapshot):
            raise CompoundError(f"snap: expected a CompoundSnapshot, got {type(snap).__name__}")
        return cls(snap.bounds, snap.thickness, snap.boxes, snap.layers, snap.volume0)

    def state_bytes(self) -> bytes:
        """Stable little-endian serialisation for hashing.

        ``b"RBCP"``, version u16, box count u32, bounds 6 x f64, thickness f64,
        then the boxes (K x 6 f64) and layers (K x u8).  Boxes are stored in a
        canonical order (by layer, then merged-row order), so equal shapes reached
        by the same strikes give equal bytes.
        """
        head = struct.pack("<4sHI7d", _MAGIC, _VERSION, len(self), *self._bounds.ravel().tolist(), self._thickness)
        return head + self._boxes.astype("<f8").tobytes() + self._layers.astype("u1").tobytes()

    def __repr__(self) -> str:
        return f"Compound(bounds={self._bounds.tolist()}, thickness={self._thickness}, boxes={len(self)})"


# --------------------------------------------------------------------------
# Geometry helpers (pure functions)
# --------------------------------------------------------------------------


def _slabs(b: np.ndarray, t: float) -> np.ndarray:
    """B6: the six wall slabs ``(6, 2, 3)`` float of box ``b`` ``(2, 3)`` extruded inward by
    thickness ``t`` (layer order, ownership as in the module docstring)."""
    lo, hi = b[0], b[1]
    slabs = np.empty((6, 2, 3))
    slabs[:] = b
    for axis in range(3):
        slabs[2 * axis, 1, axis] = lo[axis] + t
        slabs[2 * axis + 1, 0, axis] = hi[axis] - t
        for other in range(axis):  # inset in the axes owned by earlier layers
            slabs[2 * axis : 2 * axis + 2, 0, other] = lo[other] + t
            slabs[2 * axis : 2 * axis + 2, 1, other] = hi[other] - t
    return slabs


def _cut_layer(lb: np.ndarray, slab: list, s: list, m: float, axis: int):
    """B3, B4, B9 for one struck layer, on Python floats.

    A strike runs once, on a frame where numpy's code is cold (the render loop has just
    waited in ``glFinish``): there each distinct numpy call costs 10-30x its cost in a
    loop, and a layer holds a few dozen boxes, so plain floats cost far less.  The same
    floats as :func:`_cut_layer_batched` (tests hold them equal).

    Parameters
    ----------
    lb : (n, 2, 3) float, the layer's boxes.
    slab : (2, 3) nested list of float, the layer's slab (B6).
    s : (2, 3) nested list of float, the striker's range box.
    m : float, the margin (B3).
    axis : int, the layer's normal axis.

    Returns
    -------
    None when the interaction region is thinner than MIN_BOX_EXTENT or cuts no box;
    else ``(tunnel, pieces, merged, removed, cut, owner)``: the region through the slab (B3) as a
    ``[lo, hi]`` list, the split pieces (B4, in cut-box order, nine-patch order within a
    box) as a list of ``[lo, hi]``, the layer re-merged (B9) ``(k, 2, 3)`` float, the
    volume removed, the indices into ``lb`` of the cut boxes, ascending (the target faces,
    B2: every face the region lies on), and per piece its cut box's place in that list
    (at most 8 pieces per cut box, B4).
    """
    u, v = _TANGENTS[axis]
    boxes = lb.tolist()
    tun = [list(slab[0]), list(slab[1])]
    for ax in (u, v):
        lo = max(s[0][ax] - m, slab[0][ax])
        hi = min(s[1][ax] + m, slab[1][ax])
        coords = [c for b0, b1 in boxes for c in (b0[ax], b1[ax])] + [slab[0][ax], slab[1][ax]]
        lo, hi = _snap_float(lo, coords), _snap_float(hi, coords)
        if hi - lo < tol.MIN_BOX_EXTENT:
            return None
        tun[0][ax], tun[1][ax] = lo, hi
    t0u, t1u, t0v, t1v = tun[0][u], tun[1][u], tun[0][v], tun[1][v]
    eps, small = tol.PLANE_EPS, tol.MIN_BOX_EXTENT
    kept, pieces, cut, owner = [], [], [], []
    vol_cut = vol_pieces = 0.0
    for i, (b0, b1) in enumerate(boxes):
        if not (min(b1[u], t1u) - max(b0[u], t0u) > eps and min(b1[v], t1v) - max(b0[v], t0v) > eps):
            kept.append((b0, b1))
            continue
        cut.append(i)
        vol_cut += (b1[0] - b0[0]) * (b1[1] - b0[1]) * (b1[2] - b0[2])
        # B4: the box's u and v ranges cut at the region's edges (clamped to the box)
        cu = (b0[u], min(max(t0u, b0[u]), b1[u]), min(max(t1u, b0[u]), b1[u]), b1[u])
        cv = (b0[v], min(max(t0v, b0[v]), b1[v]), min(max(t1v, b0[v]), b1[v]), b1[v])
        for iu, iv in _NINE:
            pu0, pu1, pv0, pv1 = cu[iu], cu[iu + 1], cv[iv], cv[iv + 1]
            if pu1 - pu0 >= small and pv1 - pv0 >= small:
                p0, p1 = list(b0), list(b1)
                p0[u], p1[u], p0[v], p1[v] = pu0, pu1, pv0, pv1
                pieces.append((p0, p1))
                owner.append(len(cut) - 1)
                vol_pieces += (p1[0] - p0[0]) * (p1[1] - p0[1]) * (p1[2] - p0[2])
    if len(kept) == len(boxes):
        return None
    return tun, pieces, _merge_list(kept + pieces, axis), vol_cut - vol_pieces, cut, owner


def _cut_layer_batched(lb: np.ndarray, slab: list, s: list, m: float, axis: int):
    """:func:`_cut_layer` as numpy array operations on the layer's boxes (the form the
    strike had first; kept as the reference the float version is tested against)."""
    u, v = _TANGENTS[axis]
    sl = np.array(slab, dtype=float)
    sb = np.array(s, dtype=float)
    tun = sl.copy()
    for ax in (u, v):
        lo = max(sb[0, ax] - m, sl[0, ax])
        hi = min(sb[1, ax] + m, sl[1, ax])
        coords = np.concatenate((lb[:, :, ax].ravel(), sl[:, ax]))
        lo = _snap(lo, coords)
        hi = _snap(hi, coords)
        if hi - lo < tol.MIN_BOX_EXTENT:
            return None
        tun[0, ax] = lo
        tun[1, ax] = hi
    ov_u = np.minimum(lb[:, 1, u], tun[1, u]) - np.maximum(lb[:, 0, u], tun[0, u])
    ov_v = np.minimum(lb[:, 1, v], tun[1, v]) - np.maximum(lb[:, 0, v], tun[0, v])
    cut = (ov_u > tol.PLANE_EPS) & (ov_v > tol.PLANE_EPS)
    if not cut.any():
        return None
    cb = lb[cut]
    pieces, owner = _nine_patch(cb, tun, u, v)
    removed = float(np.prod(cb[:, 1] - cb[:, 0], axis=1).sum() - np.prod(pieces[:, 1] - pieces[:, 0], axis=1).sum())
    merged = _merge_layer(np.concatenate((lb[~cut], pieces)), axis)
    return tun.tolist(), pieces.tolist(), merged, removed, np.flatnonzero(cut).tolist(), owner.tolist()


def _snap_float(x: float, coords: list) -> float:
    """:func:`_snap` on a list of floats (the first nearest, as ``argmin``)."""
    best, d = x, tol.SNAP_EPS
    for c in coords:
        if abs(c - x) < d:
            best, d = c, abs(c - x)
    return best


def _snap(x: float, coords: np.ndarray) -> float:
    """B3/B9: region edge ``x`` moved onto the nearest of ``coords`` (k,) float if within SNAP_EPS."""
    d = np.abs(coords - x)
    i = int(d.argmin())
    return float(coords[i]) if d[i] < tol.SNAP_EPS else x


def _nine_patch(cb: np.ndarray, tun: np.ndarray, u: int, v: int) -> tuple[np.ndarray, np.ndarray]:
    """B4: cut boxes ``cb`` (n, 2, 3) by the region of ``tun`` on axes u, v.

    Each box's u and v ranges are cut at the region's edges (clamped to the
    box) into 3 x 3 pieces; the middle piece and pieces with an extent below
    MIN_BOX_EXTENT are dropped.  Returns the pieces (m, 2, 3), m <= 8 n, and each
    piece's box, (m,) int64.
    """
    n = cb.shape[0]
    # (n, 4) cut coordinates per axis: box lo, region lo, region hi, box hi (region clamped to the box)
    cu = np.empty((n, 4))
    cv = np.empty((n, 4))
    for c, ax in ((cu, u), (cv, v)):
        lo, hi = cb[:, 0, ax], cb[:, 1, ax]
        c[:, 0] = lo
        c[:, 1] = np.minimum(np.maximum(tun[0, ax], lo), hi)
        c[:, 2] = np.minimum(np.maximum(tun[1, ax], lo), hi)
        c[:, 3] = hi
    iu, iv = _NINE_U, _NINE_V  # the 8 pieces around the middle one
    out = np.repeat(cb[:, None], 8, axis=1)  # (n, 8, 2, 3)
    out[:, :, 0, u] = cu[:, iu]
    out[:, :, 1, u] = cu[:, iu + 1]
    out[:, :, 0, v] = cv[:, iv]
    out[:, :, 1, v] = cv[:, iv + 1]
    out = out.reshape(n * 8, 2, 3)
    ext = out[:, 1] - out[:, 0]
    good = (ext[:, u] >= tol.MIN_BOX_EXTENT) & (ext[:, v] >= tol.MIN_BOX_EXTENT)
    return out[good], np.repeat(np.arange(n), 8)[good]


def _hole_walls(boxes: np.ndarray, tunnels: np.ndarray, tlayers: np.ndarray) -> tuple[_Quads, np.ndarray]:
    """B5: fill faces = sides of ``boxes`` (K, 2, 3) facing into a tunnel
    (T, 2, 3) of layer ``tlayers`` (T,), clipped to the tunnel.

    Returns the walls as :class:`_Quads` (normals into the tunnel) and the
    layer of each wall's tunnel, (n,) int64.
    """
    t = tunnels.shape[0]
    a = np.repeat(tlayers // 2, 4)  # (S,) tunnel axis of each of the 4 sides of each tunnel
    tang = np.asarray(_TANGENTS)[tlayers // 2]  # (T, 2)
    ax = np.stack((tang[:, 0], tang[:, 0], tang[:, 1], tang[:, 1]), axis=1).ravel()  # (S,)
    d = np.tile(np.array([0, 1, 0, 1]), t)
    tid = np.repeat(np.arange(t), 4)
    w = 3 - a - ax
    c = tunnels[tid, d, ax]  # (S,) side plane
    tb = tunnels[tid]  # (S, 2, 3)
    adj = np.abs(boxes[:, 1 - d, ax] - c[None, :]) <= tol.PLANE_EPS  # (K, S)
    lo = np.maximum(boxes[:, None, 0], tb[None, :, 0])  # (K, S, 3)
    hi = np.minimum(boxes[:, None, 1], tb[None, :, 1])
    ext = hi - lo
    s_idx = np.arange(ax.shape[0])
    good = adj & (ext[:, s_idx, a] > tol.PLANE_EPS) & (ext[:, s_idx, w] > tol.PLANE_EPS)
    kk, ss = np.nonzero(good)
    rect = np.stack((lo[kk, ss], hi[kk, ss]), axis=1)
    sign = np.where(d[ss] == 0, 1.0, -1.0)
    return _Quads(ax[ss].astype(np.int64), sign, c[ss], rect, FILL), tlayers[tid[ss]]


def _subtract_coverers(rects: np.ndarray, crow: np.ndarray, crects: np.ndarray):
    """Exposed parts of box sides: each side's rectangle minus its coverers'.

    rects : (P, 4) float ``[v0, v1, w0, w1]``, the partly covered sides (in-plane axes).
    crow : (m,) int, index into ``rects`` of each (side, coverer) pair, ascending.
    crects : (m, 4) float, the coverer's rectangle of each pair; the coverers of
        one side are disjoint rectangles.
    Returns ``(row (n,) int64, pieces (n, 4) float [v0, v1, w0, w1])``: the exposed
    pieces, ordered by ``(row, w0, v0)``; pieces of area <= ``MIN_FACE_AREA`` are
    dropped.  A side's coverers are subtracted one after the other, in their order in
    ``crow``.  A subtraction replaces each piece it overlaps with positive area by up
    to four pieces (left and right full-height strips, bottom and top middle strips,
    each kept if it has width): the untouched pieces, then the cut pieces' left
    strips, right strips, bottom strips and top strips.

    The cutting is a plain loop per side: a side has a handful of coverers and pieces,
    and batching it (one round of about 15 numpy calls per coverer rank, for all sides
    at once) costs several times more in call overhead.  Filtering and ordering are
    batched.
    """
    n_side = rects.shape[0]
    ends = np.searchsorted(crow, np.arange(1, n_side + 1)).tolist()
    cov = crects.tolist()
    out: list = []
    count = []
    start = 0
    # exact comparisons: pieces thinner than PLANE_EPS are real geometry (a tiny margin)
    for rect, end in zip(rects.tolist(), ends):
        pcs = [rect]
        for c0, c1, c2, c3 in cov[start:end]:
            keep, cut = [], []
            for p in pcs:
                p0, p1, p2, p3 = p
                # np.maximum / np.minimum (the same pick on signed-zero ties), 10x faster than max()
                v0 = p0 if p0 > c0 else c0  # noqa: FURB136
                v1 = p1 if p1 < c1 else c1  # noqa: FURB136
                if v1 - v0 > 0.0 and (p3 if p3 < c3 else c3) - (p2 if p2 > c2 else c2) > 0.0:  # noqa: FURB136
                    cut.append((p0, p1, p2, p3, v0, v1))
                else:
                    keep.append(p)
            if len(cut) == 1:
                p0, p1, p2, p3, v0, v1 = cut[0]
                if p0 < c0:
                    keep.append([p0, c0, p2, p3])
                if c1 < p1:
                    keep.append([c1, p1, p2, p3])
                if p2 < c2:
                    keep.append([v0, v1, p2, c2])
                if c3 < p3:
                    keep.append([v0, v1, c3, p3])
            elif cut:
                keep += [[p0, c0, p2, p3] for p0, p1, p2, p3, v0, v1 in cut if p0 < c0]
                keep += [[c1, p1, p2, p3] for p0, p1, p2, p3, v0, v1 in cut if c1 < p1]
                keep += [[v0, v1, p2, c2] for p0, p1, p2, p3, v0, v1 in cut if p2 < c2]
                keep += [[v0, v1, c3, p3] for p0, p1, p2, p3, v0, v1 in cut if c3 < p3]
            pcs = keep
        start = end
        out += pcs
        count.append(len(pcs))
    row = np.repeat(np.arange(n_side), count)
    pcs = np.array(out, dtype=float).reshape(-1, 4)
    keep = (pcs[:, 1] - pcs[:, 0]) * (pcs[:, 3] - pcs[:, 2]) > tol.MIN_FACE_AREA
    pcs, row = pcs.compress(keep, axis=0), row.compress(keep)
    order = np.lexsort((pcs[:, 0], pcs[:, 2], row))
    return row.take(order), pcs.take(order, axis=0)


def _face_set(axes: list, signs: list, planes: list, rects: list, kinds: list, owners: list) -> FaceSet:
    """Assemble a read-only :class:`FaceSet` from per-batch lists of face parameters."""
    if not axes:
        return FaceSet(_readonly(np.zeros((0, 4, 3))), _readonly(np.zeros((0, 3))),
                       _readonly(np.zeros(0, np.int8)), _readonly(np.zeros(0, np.int64)))
    axis = np.concatenate(axes).astype(np.int64)
    sign = np.concatenate(signs)
    verts = _quads(axis, sign, np.concatenate(planes), np.concatenate(rects))
    return FaceSet(_readonly(verts), _readonly(_normals(axis, sign)),
                   _readonly(np.concatenate(kinds).astype(np.int8)),
                   _readonly(np.concatenate(owners).astype(np.int64)))


def _side_tables() -> tuple[np.ndarray, ...]:
    """Index tables of the six side directions ``p = 2 * axis + d`` (-x, +x, -y, +y, -z, +z)
    over a box flattened to ``[lo_x, lo_y, lo_z, hi_x, hi_y, hi_z]``.

    Returns ``side_col`` (6,) (the side's plane coordinate), ``opp_col`` (6,) (the
    opposite side's), ``rect_col`` (6, 4) (the side's rectangle ``[v0, v1, w0, w1]``
    on the two other axes ``(v, w) = _TANGENTS[axis]``), ``quad_lane`` (6, 12) (per
    vertex and coordinate of the side's quad, wound as :func:`_quads` winds it, the
    lane of ``[v0, v1, w0, w1, plane]``), ``normal`` (6, 3) float and ``kind``
    (6, 6, 2) int8, the face kind by direction, box layer and "on the bounds' plane".
    """
    side_col = np.empty(6, dtype=np.int64)
    opp_col = np.empty(6, dtype=np.int64)
    rect_col = np.empty((6, 4), dtype=np.int64)
    quad_lane = np.empty((6, 4, 3), dtype=np.int64)
    normal = np.zeros((6, 3))
    kind = np.empty((6, 6, 2), dtype=np.int8)
    for p in range(6):
        ax, d = divmod(p, 2)
        t0, t1 = _TANGENTS[ax]
        side_col[p] = 3 * d + ax
        opp_col[p] = 3 * (1 - d) + ax
        rect_col[p] = (t0, 3 + t0, t1, 3 + t1)
        normal[p, ax] = 1.0 if d else -1.0
        cv, cw = _CYCLIC[ax]
        lane = {t0: 0, t1: 2}  # lo lane of each tangent axis in [v0, v1, w0, w1]; hi = lo + 1
        # + normal: (v0,w0) (v1,w0) (v1,w1) (v0,w1); - normal: (v0,w0) (v0,w1) (v1,w1) (v1,w0)
        hv, hw = ((0, 1, 1, 0), (0, 0, 1, 1)) if d else ((0, 0, 1, 1), (0, 1, 1, 0))
        quad_lane[p, :, ax] = 4
        quad_lane[p, :, cv] = lane[cv] + np.array(hv)
        quad_lane[p, :, cw] = lane[cw] + np.array(hw)
        # a side along its layer's axis: OUTER on the layer's outer side, INNER on the other;
        # any other side (a hole's wall or the shell's rim): OUTER on the bounds, else FILL
        kind[p, :, 0] = FILL
        kind[p, :, 1] = OUTER
        kind[p, p] = OUTER
        kind[p, p ^ 1] = INNER
    return side_col, opp_col, rect_col, quad_lane.reshape(6, 12), normal, kind


_SIDE_COL, _OPP_COL, _RECT_COL, _QUAD_LANE, _SIDE_NORMAL, _SIDE_KIND = _side_tables()


def _hole_walls_beside_the_core(fs: FaceSet, core: np.ndarray) -> FaceSet:
    """B5: the part of an :data:`INNER` face that lies beside the crate's hollow ``core``
    ((2, 3) float) is a wall of a hole, :data:`FILL`.

    A slab's inner side (:func:`_boundary_faces` calls every side along its layer's axis
    on the inner plane INNER) faces the crate's inside only within the core's rectangle.
    Beside it lies another wall's slab, which covers that part of the side until a strike
    cuts the slab away there: what shows then is a wall of the hole (a hole punched in a
    face next to its border, where the neighbouring wall owns the edge).  Such a face is
    cut at the core's edges; the pieces beside the core become FILL, the piece within it
    stays INNER.  Faces keep their order, a cut face replaced by its pieces (the inside
    one first); the winding and normals are unchanged."""
    eps = tol.PLANE_EPS
    v = fs.vertices
    # (F, 3) each, equal on the normal axis: corners 0 and 2 of a rectangle are opposite
    # (elementwise: numpy's reductions over a length-4 axis cost more than the whole rest)
    lo, hi = np.minimum(v[:, 0], v[:, 2]), np.maximum(v[:, 0], v[:, 2])
    out = ((lo < core[0] - eps) | (hi > core[1] + eps)) & (fs.normals == 0.0)
    beside = (fs.kinds == INNER) & (out[:, 0] | out[:, 1] | out[:, 2])
    if not beside.any():
        return fs
    keep, idx = np.flatnonzero(~beside), np.flatnonzero(beside)
    m = idx.shape[0]
    r = np.arange(m)
    ax = np.abs(fs.normals[idx]).argmax(axis=1)
    a, b = np.where(ax == 0, 1, 0), np.where(ax == 2, 1, 2)    # the tangent axes, ascending
    lo_i, hi_i = lo[idx], hi[idx]
    la, ha, lb, hb = lo_i[r, a], hi_i[r, a], lo_i[r, b], hi_i[r, b]
    ca0, ca1, cb0, cb1 = core[0, a], core[1, a], core[0, b], core[1, b]
    m0, m1 = np.maximum(la, ca0), np.minimum(ha, ca1)         # the face's span within the core on a
    # the face less the core's rectangle, (m, 5) pieces [a0, a1] x [b0, b1]: within [m0, m1]
    # the part inside the core and the strips below and above it on b, then the strips
    # below and above [m0, m1] on a (the whole face's height on b)
    a0 = np.stack((m0, m0, m0, la, np.maximum(la, ca1)), axis=1)
    a1 = np.stack((m1, m1, m1, np.minimum(ha, ca0), ha), axis=1)
    b0 = np.stack((np.maximum(lb, cb0), lb, np.maximum(lb, cb1), lb, lb), axis=1)
    b1 = np.stack((np.minimum(hb, cb1), np.minimum(hb, cb0), hb, hb, hb), axis=1)
    ok = (a1 - a0 > eps) & (b1 - b0 > eps)
    plo = np.repeat(lo_i[:, None], 5, axis=1)                   # (m, 5, 3) each piece's corners
    phi = np.repeat(hi_i[:, None], 5, axis=1)
    plo[r, :, a], phi[r, :, a], plo[r, :, b], phi[r, :, b] = a0, a1, b0, b1
    # each corner of the face onto the piece's: the same winding
    pv = np.where(v[idx][:, None] == lo_i[:, None, None], plo[:, :, None], phi[:, :, None])   # (m, 5, 4, 3)
    new_v = pv[ok]
    new_k = np.broadcast_to(np.array([INNER, FILL, FILL, FILL, FILL], dtype=np.int8), (m, 5))[ok]
    rows = np.repeat(idx, 5).reshape(m, 5)[ok]
    src = np.concatenate((keep, rows))
    order = src.argsort(kind="stable")       # faces keep their places; a cut face's pieces in order
    verts = np.concatenate((v[keep], new_v))[order]
    kinds = np.concatenate((fs.kinds[keep], new_k))[order]
    return FaceSet(_readonly(verts), _readonly(fs.normals[src[order]]), _readonly(kinds),
                   _readonly(fs.box_index[src[order]]))


def _boundary_faces(boxes: np.ndarray, layers: np.ndarray, bounds: np.ndarray) -> FaceSet:
    """B5, B7: the boundary of the union of disjoint boxes as quads, classified by kind.

    boxes : (K, 2, 3) float, layers : (K,) int (``2 * axis + side``), bounds : (2, 3) float.
    Returns a :class:`FaceSet`: every box side not covered by a touching box.  Box j
    covers side (i, p) (p = ``2 * axis + d``, the direction -x, +x, -y, +y, -z, +z) if
    j's opposite side lies on the side's plane (within ``PLANE_EPS``) and their
    rectangles overlap by more than ``PLANE_EPS`` on both in-plane axes.  A side
    without coverers is a face as a whole; a side whose covered area (the sum of the
    overlaps) leaves more than ``MIN_FACE_AREA`` is cut into its exposed rectangles
    by :func:`_subtract_coverers`, its coverers taken in order of their plane
    coordinate, then box index.  Faces come per direction (-x, +x, -y, +y, -z, +z),
    each direction's free sides first (by box), then its pieces (by box, then
    ``(w0, v0)``).  Kind: a side along its box's layer axis is :data:`OUTER` on the
    layer's outer side and :data:`INNER` on the other; any other side is
    :data:`OUTER` on the bounds' plane (within ``PLANE_EPS``), else :data:`FILL`.

    All six directions are handled at once, on (6K,) side slots ``s = p * K + i``:
    one sort finds every side's candidate coverers, one call cuts every partly
    covered side (at game sizes numpy's per-call overhead is the cost, not arithmetic).
    """
    k = boxes.shape[0]
    if k == 0:
        return _face_set([], [], [], [], [], [])
    n = 6 * k
    flat = boxes.reshape(k, 6)
    plane = flat.take(_SIDE_COL, axis=1).T.ravel()  # (6K,) plane of side slot s = p * K + i
    opp = flat.take(_OPP_COL, axis=1).T.ravel()  # (6K,) the same box's opposite side
    rect = flat.take(_RECT_COL, axis=1).transpose(1, 0, 2).reshape(n, 4)  # (6K, 4) [v0, v1, w0, w1]
    slot_dir = np.arange(n) // k  # (6K,) direction p of each slot

    # Candidate coverers of slot s: the slots t of the same direction with
    # plane[s] - eps <= opp[t] <= plane[s] + eps, in order of (opp[t], t).  One search for
    # all directions: every compared value is replaced by its exact rank among them all
    # (equal values share a rank), offset by direction, so keys sort direction-major.
    vals = np.concatenate((opp, plane - tol.PLANE_EPS, plane + tol.PLANE_EPS))
    key = np.sort(vals).searchsorted(vals).reshape(3, n) + slot_dir * (3 * n)  # opp, low, high
    by_opp = key[0].argsort(kind="stable")
    key_s = key[0].take(by_opp)
    first = key_s.searchsorted(key[1], side="left")
    cnt = key_s.searchsorted(key[2], side="right") - first
    ci = np.repeat(np.arange(n), cnt)  # (m,) side slot of each candidate pair, ascending
    cj = by_opp.take(np.arange(ci.shape[0]) - np.repeat(np.cumsum(cnt) - cnt - first, cnt))  # coverer
    ri, rj = rect.take(ci, axis=0), rect.take(cj, axis=0)
    ov = np.minimum(ri[:, 1::2], rj[:, 1::2]) - np.maximum(ri[:, 0::2], rj[:, 0::2])  # (m, 2) overlaps
    good = np.minimum(ov[:, 0], ov[:, 1]) > tol.PLANE_EPS
    ci, cj = ci.compress(good), cj.compress(good)
    covered = np.bincount(ci, weights=(ov[:, 0] * ov[:, 1]).compress(good), minlength=n)  # > 0 iff covered
    own_area = (rect[:, 1] - rect[:, 0]) * (rect[:, 3] - rect[:, 2])
    free = (covered == 0.0).nonzero()[0]  # direction-major, by box
    part = ((covered > 0.0) & (own_area - covered > tol.MIN_FACE_AREA)).nonzero()[0]
    if part.size:
        pos = np.full(n, -1)
        pos[part] = np.arange(part.size)
        prow = pos.take(ci)
        sel = prow >= 0  # ci is ascending, so every side's pairs stay together and in order
        prow, pieces = _subtract_coverers(rect.take(part, axis=0), prow.compress(sel),
                                          rect.take(cj.compress(sel), axis=0))
        slot = np.concatenate((free, part.take(prow)))
        quad = np.concatenate((rect.take(free, axis=0), pieces))
        # per direction its free sides, then its pieces (each group is direction-major)
        order = (2 * slot_dir.take(slot) + (np.arange(slot.shape[0]) >= free.shape[0])).argsort(kind="stable")
        slot, quad = slot.take(order), quad.take(order, axis=0)
    else:
        slot, quad = free, rect.take(free, axis=0)

    p = slot_dir.take(slot)
    box = slot - p * k
    pl = plane.take(slot)
    on_bound = np.abs(pl - bounds.reshape(6).take(_SIDE_COL).take(p)) <= tol.PLANE_EPS
    kind = _SIDE_KIND[p, layers.take(box), on_bound.view(np.int8)]
    f = slot.shape[0]
    lanes = np.concatenate((quad, pl[:, None]), axis=1)  # (F, 5) [v0, v1, w0, w1, plane]
    verts = lanes.take(_QUAD_LANE.take(p, axis=0) + 5 * np.arange(f)[:, None]).reshape(f, 4, 3)
    return FaceSet(_readonly(verts), _readonly(_SIDE_NORMAL.take(p, axis=0)), _readonly(kind), _readonly(box))


# --------------------------------------------------------------------------
# Many compounds at once
# --------------------------------------------------------------------------


class GroupTouch(NamedTuple):
    """The limbs that touch one compound of a :class:`CompoundGroup`, and where."""

    compound: int          # index into ``group.compounds``
    limbs: np.ndarray      # (m,) intp: limb indices, ascending
    rows: np.ndarray       # (m,) intp: the touched rows of that compound's ``boxes``, by limb then row


class CompoundGroup:
    """All small boxes of several compounds as one array, for one method-A pass.

    ``group.boxes`` (N, 2, 3) is the concatenation of every compound's boxes,
    ``group.owner`` (N,) int32 the compound index of each row, ``group.offsets``
    (C + 1,) the row ranges.  They are rebuilt only when read after some compound
    was struck: :meth:`touching` (the per-frame path), :meth:`pairs` and
    :meth:`overlaps` work from each touched compound's own packed boxes, repacked
    only for the compound a strike changed.

    :meth:`touching` answers the per-frame question "which limb boxes touch which
    small boxes" with the same verdict as
    ``range_box.overlaps(limbs[:, None], group.boxes[None])`` (A2-A4), but first
    tests the limbs' union box and then each limb against each compound's bounds,
    and only the limbs near a compound against its small boxes.  :meth:`pairs` is
    the same answer as group-wide ``(limb, row)`` pairs, :meth:`overlaps` as an
    ``(L, N)`` matrix.
    """

    __slots__ = ("compounds", "_key", "_boxes", "_owner", "_offsets", "_off_key", "_off_list", "_packed",
                 "_pb_list", "_pb_rows", "_tiles")

    def __init__(self, compounds: Sequence[Compound]):
        self.compounds = list(compounds)
        for i, c in enumerate(self.compounds):
            if not isinstance(c, Compound):
                raise CompoundError(f"compounds[{i}]: expected a Compound, got {type(c).__name__}")
        self._key: list | None = None
        self._off_key: list | None = None
        self._packed: list = [(None, None)] * len(self.compounds)
        # a compound's bounds never change: the broad phase's boxes are packed once
        bnd = np.array([c.bounds for c in self.compounds]).reshape(-1, 2, 3)
        pb = _readonly(np.concatenate((bnd[:, 1], -bnd[:, 0]), axis=1))        # (C, 6) [hi, -lo]
        self._pb_list = [tuple(r) for r in pb.tolist()]                        # as Python floats (level 1)
        self._pb_rows = list(pb)                                               # as (6,) rows (level 2)
        self._tiles: dict = {}                                                 # L -> _tiles_of(L)

    # A strike always installs a new (read-only) boxes array, so array identity is the key
    # of everything cached here.  touching() only needs each touched compound's packed
    # array, pairs() the row offsets too: the concatenated arrays are built on demand.

    def _offsets_now(self) -> list:
        """Row offsets ``(C + 1)`` of the compounds' current boxes, as Python ints."""
        key = [c._boxes for c in self.compounds]
        old = self._off_key
        if old is None or not all(map(operator.is_, old, key)):
            off = [0]
            for a in key:
                off.append(off[-1] + a.shape[0])
            self._off_key, self._off_list = key, off
        return self._off_list

    def _packed_of(self, c: int) -> np.ndarray:
        """Compound ``c``'s boxes packed ``(6, K)`` ``[hi, -lo]``: A4 as one comparison, a
        limb ``q = [lo, -hi]`` touches box ``p`` iff ``q <= p`` on all six lanes."""
        boxes = self.compounds[c]._boxes
        src, p = self._packed[c]
        if src is not boxes:
            p = np.ascontiguousarray(np.concatenate((boxes[:, 1], -boxes[:, 0]), axis=1).T)
            self._packed[c] = (boxes, p)
        return p

    def _tiles_of(self, n: int) -> tuple:
        """The sign row ``[1, 1, 1, -1, -1, -1]`` and each compound's packed bounds, each
        repeated to ``(n, 6)``, and :meth:`touching`'s scratch for ``n`` limbs (``q`` and
        level 2's verdicts, used within one call): a ufunc on two operands of one shape takes numpy's
        trivial-loop path, about 0.8 us cheaper per call at these sizes than broadcasting
        a ``(6,)`` row (measured: multiply 1.48 -> 0.64 us, compare 1.43 -> 0.56 us)."""
        t = self._tiles.get(n)
        if t is None:
            if len(self._tiles) >= _MAX_TILE_SIZES:                        # callers use one or two L
                self._tiles.clear()
            q = np.empty((n, 6))                                           # scratch: q, as (L, 6) and (L, 6, 1),
            t = (_readonly(np.tile(_LO_NEG_HI, (n, 1))), [_readonly(np.tile(r, (n, 1))) for r in self._pb_rows],
                 q, q.reshape(n, 6, 1), np.empty((n, 6), dtype=bool))     # and level 2's verdicts
            self._tiles[n] = t
        return t

    def _refresh(self) -> None:
        key = [c._boxes for c in self.compounds]
        old = self._key
        if old is not None and len(old) == len(key) and all(map(operator.is_, old, key)):
            return
        counts = np.array([a.shape[0] for a in key], dtype=np.int64)
        boxes = np.ascontiguousarray(np.concatenate(key)) if key else np.zeros((0, 2, 3))
        self._boxes = _readonly(boxes)
        self._owner = _readonly(np.repeat(np.arange(len(key), dtype=np.int32), counts))
        self._offsets = _readonly(np.concatenate(([0], np.cumsum(counts))).astype(np.int64))
        self._key = key

    @property
    def boxes(self) -> np.ndarray:
        self._refresh()
        return self._boxes

    @property
    def owner(self) -> np.ndarray:
        self._refresh()
        return self._owner

    @property
    def offsets(self) -> np.ndarray:
        self._refresh()
        return self._offsets

    def touching(self, limbs) -> list[GroupTouch]:
        """A2-A4 of limb boxes against every small box: the touching pairs, compound by compound.

        Parameters
        ----------
        limbs : (L, 2, 3) float

        Returns
        -------
        list of :class:`GroupTouch`, one per compound that some limb touches, in compound
        order; each holds ``limbs`` (m,) intp and that compound's own box ``rows`` (m,) intp,
        by limb, then row.  This is the per-frame test (``Stage.touch``): the box a limb
        touches is ``compounds[c].boxes[row]``, with no group-wide row numbers to make
        and take apart again.

        Every test is A4 as one comparison on packed endpoints: a limb ``q = [lo, -hi]``
        touches a box ``p = [hi, -lo]`` iff ``q <= p`` on all six lanes, the same verdict as
        ``j2 >= j1`` on every axis for boxes with ``lo <= hi``.  Three levels, each on
        fewer boxes than the last:

        1. the limbs' union box against each compound's bounds (Python floats: C is small; a limb
           with a NaN coordinate, which touches nothing, is left out of the union);
        2. for each compound that passes, every limb against its bounds (only for more
           than ``_LEVEL2_MIN_LIMBS`` limbs: for fewer, level 3 costs less than this);
        3. the limbs that pass against that compound's small boxes.
        """
        lb = np.asarray(limbs, dtype=float)
        if lb.ndim != 3 or lb.shape[1:] != (2, 3):
            raise CompoundError(f"limbs: expected (L, 2, 3) [min, max] boxes, got shape {lb.shape}")
        n = len(lb)
        if not n:
            return []
        # (every numpy call here is a module-level alias, positional arguments, into buffers
        # made once per limb count where the result does not leave this call: at these sizes
        # a lookup, a keyword or an allocation is a measurable share of a ~1 us call)
        sign, bounds, q, q3, fit = self._tiles.get(n) or self._tiles_of(n)   # (L, 6) each: no broadcasting
        _multiply(lb.reshape(n, 6), sign, q)                               # (L, 6): [lo, -hi]
        u0, u1, u2, u3, u4, u5 = _min_reduce(q, 0).tolist()                # the union box, packed (NaN limbs left out)
        out = []
        for c, (p0, p1, p2, p3, p4, p5) in enumerate(self._pb_list):       # level 1
            if not (u0 <= p0 and u1 <= p1 and u2 <= p2 and u3 <= p3 and u4 <= p4 and u5 <= p5):
                continue
            src, packed = self._packed[c]
            if src is not self.compounds[c]._boxes:                        # struck since last packed
                packed = self._packed_of(c)
            # (the methods .nonzero() rather than np.nonzero / np.flatnonzero: at these sizes
            # the functions' Python wrappers cost about as much as the work)
            if n <= _LEVEL2_MIN_LIMBS:                                     # a punch's few limbs: straight to level 3
                k, row = _and_reduce(q3 <= packed, 1).nonzero()
            else:
                _less_equal(q, bounds[c], fit)                             # level 2
                li = _and_reduce(fit, 1).nonzero()[0]
                if not li.size:
                    continue
                i, row = _and_reduce(q3.take(li, 0) <= packed, 1).nonzero()
                k = li.take(i)
            if k.size:
                out.append(GroupTouch(c, k, row))
        return out

    def pairs(self, limbs) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`touching` as one list of group-wide pairs.

        Parameters
        ----------
        limbs : (L, 2, 3) float

        Returns
        -------
        k, n : (M,) intp
            Limb ``k[i]`` touches group row ``n[i]``, in the order of
            ``np.nonzero(range_box.overlaps(limbs[:, None], self.boxes[None]))`` (by limb,
            then by row): the same pairs, without the ``(L, N)`` verdict matrix.
        """
        touch = self.touching(limbs)
        if not touch:
            return _NO_PAIRS, _NO_PAIRS
        off = self._offsets_now()
        if len(touch) == 1:                                                # the usual case: one crate
            c, k, row = touch[0]
            return k, row + off[c]
        k = np.concatenate([t.limbs for t in touch])
        n = np.concatenate([t.rows + off[t.compound] for t in touch])
        order = np.lexsort((n, k))
        return k[order], n[order]

    def overlaps(self, limbs) -> np.ndarray:
        """A4 verdict of every limb box against every small box.

        Parameters
        ----------
        limbs : (L, 2, 3) float

        Returns
        -------
        (L, N) bool, equal to ``range_box.overlaps(limbs[:, None], self.boxes[None])``:
        :meth:`pairs` spread into a matrix.
        """
        k, n = self.pairs(limbs)
        out = np.zeros((len(limbs), self._offsets_now()[-1]), dtype=bool)
        out[k, n] = True
        return out


# --------------------------------------------------------------------------
# Simple reference (per-box Python loops), for tests and the benchmark
# --------------------------------------------------------------------------


def reference_strike(compound: Compound, striker_box, margin: float = DEFAULT_MARGIN) -> tuple[np.ndarray, np.ndarray] | None:
    """The same strike as :meth:`Compound.strike`, written as plain Python loops
    over boxes, with pairwise greedy merging.  Does not change ``compound``.

    Returns ``(boxes (K, 2, 3), layers (K,))`` of the struck compound, or None
    when :meth:`Compound.strike` would return None.  The union of the boxes is
    the same as the fast path's (the decomposition may differ).
    """
    s = _as_box(striker_box, "striker_box").tolist()
    m = float(margin)
    slabs = compound._slabs.tolist()
    boxes = [(b[0], b[1], int(lay)) for b, lay in zip(compound.boxes.tolist(), compound.layers.tolist())]
    hit_layers = sorted({lay for lo, hi, lay in boxes if all(max(lo[a], s[0][a]) <= min(hi[a], s[1][a]) for a in range(3))})
    out = [b for b in boxes if b[2] not in hit_layers]
    changed = False
    for lay in hit_layers:
        axis = lay // 2
        u, v = _TANGENTS[axis]
        slab = slabs[lay]
        mine = [b for b in boxes if b[2] == lay]
        reg = {}
        ok = True
        for ax in (u, v):
            coords = [b[k][ax] for b in mine for k in (0, 1)] + [slab[0][ax], slab[1][ax]]
            lo = max(s[0][ax] - m, slab[0][ax])
            hi = min(s[1][ax] + m, slab[1][ax])
            lo = min(coords, key=lambda c: abs(c - lo)) if min(abs(c - lo) for c in coords) < tol.SNAP_EPS else lo
            hi = min(coords, key=lambda c: abs(c - hi)) if min(abs(c - hi) for c in coords) < tol.SNAP_EPS else hi
            if hi - lo < tol.MIN_BOX_EXTENT:
                ok = False
            reg[ax] = (lo, hi)
        if not ok:
            out.extend(mine)
            continue
        layer_out = []
        for lo, hi, _ in mine:
            if min(hi[u], reg[u][1]) - max(lo[u], reg[u][0]) <= tol.PLANE_EPS or min(hi[v], reg[v][1]) - max(lo[v], reg[v][0]) <= tol.PLANE_EPS:
                layer_out.append((lo, hi))
                continue
            changed = True
            cu = [lo[u], min(max(reg[u][0], lo[u]), hi[u]), min(max(reg[u][1], lo[u]), hi[u]), hi[u]]
            cv = [lo[v], min(max(reg[v][0], lo[v]), hi[v]), min(max(reg[v][1], lo[v]), hi[v]), hi[v]]
            for i in range(3):
                for j in range(3):
                    if i == 1 and j == 1:
                        continue
                    if cu[i + 1] - cu[i] < tol.MIN_BOX_EXTENT or cv[j + 1] - cv[j] < tol.MIN_BOX_EXTENT:
                        continue
                    plo, phi = list(lo), list(hi)
                    plo[u], phi[u], plo[v], phi[v] = cu[i], cu[i + 1], cv[j], cv[j + 1]
                    layer_out.append((plo, phi))
        merged = True
        while merged:  # pairwise: merge two boxes whose union is exactly a box
            merged = False
            for i in range(len(layer_out)):
                for j in range(i + 1, len(layer_out)):
                    (alo, ahi), (blo, bhi) = layer_out[i], layer_out[j]
                    for ax in (u, v):
                        other = v if ax == u else u
                        if alo[other] == blo[other] and ahi[other] == bhi[other] and (ahi[ax] == blo[ax] or bhi[ax] == alo[ax]):
                            nlo, nhi = list(alo), list(ahi)
                            nlo[ax], nhi[ax] = min(alo[ax], blo[ax]), max(ahi[ax], bhi[ax])
                            layer_out[i] = (nlo, nhi)
                            del layer_out[j]
                            merged = True
                            break
                    if merged:
                        break
                if merged:
                    break
        out.extend((lo, hi, lay) for lo, hi in layer_out)
    if not changed:
        return None
    out.sort(key=lambda b: b[2])
    return np.array([[lo, hi] for lo, hi, _ in out], dtype=float).reshape(-1, 2, 3), np.array([b[2] for b in out], dtype=np.int8)


def reference_faces(compound: Compound) -> FaceSet:
    """The same face set as ``compound.faces`` (up to how exposed sides are cut
    into quads), built the simple way: dense K x K side matching and, per
    partly covered side, a Python-loop grid subtraction of its coverers."""
    boxes, layers, bounds = compound.boxes, compound.layers, compound.bounds
    lay = layers.astype(np.int64)
    baxis = lay // 2
    bside = lay % 2
    axes, signs, planes, rects, kinds, owners = [], [], [], [], [], []
    for ax in range(3):
        v, w = _TANGENTS[ax]
        ov_v = np.minimum(boxes[:, None, 1, v], boxes[None, :, 1, v]) - np.maximum(boxes[:, None, 0, v], boxes[None, :, 0, v])
        ov_w = np.minimum(boxes[:, None, 1, w], boxes[None, :, 1, w]) - np.maximum(boxes[:, None, 0, w], boxes[None, :, 0, w])
        area_ov = np.where((ov_v > tol.PLANE_EPS) & (ov_w > tol.PLANE_EPS), ov_v * ov_w, 0.0)
        own_area = (boxes[:, 1, v] - boxes[:, 0, v]) * (boxes[:, 1, w] - boxes[:, 0, w])
        for d in (0, 1):
            plane = boxes[:, d, ax]
            cov = (np.abs(plane[:, None] - boxes[None, :, 1 - d, ax]) <= tol.PLANE_EPS) & (area_ov > 0)
            covered = (area_ov * cov).sum(axis=1)
            sign = 1.0 if d == 1 else -1.0
            on_bound = np.abs(plane - bounds[d, ax]) <= tol.PLANE_EPS
            kind = np.where(
                baxis == ax,
                np.where(bside == d, OUTER, INNER),
                np.where(on_bound, OUTER, FILL),
            ).astype(np.int8)
            free = ~cov.any(axis=1)
            partial = ~free & (own_area - covered > tol.MIN_FACE_AREA)
            idx = np.flatnonzero(free)
            if idx.size:
                axes.append(np.full(idx.size, ax))
                signs.append(np.full(idx.size, sign))
                planes.append(plane[idx])
                rects.append(boxes[idx])
                kinds.append(kind[idx])
                owners.append(idx)
            for i in np.flatnonzero(partial).tolist():
                js = np.flatnonzero(cov[i])
                cb = boxes[js]
                r = np.stack(
                    (
                        np.maximum(cb[:, 0, v], boxes[i, 0, v]),
                        np.minimum(cb[:, 1, v], boxes[i, 1, v]),
                        np.maximum(cb[:, 0, w], boxes[i, 0, w]),
                        np.minimum(cb[:, 1, w], boxes[i, 1, w]),
                    ),
                    axis=1,
                )
                xs = np.unique(np.concatenate((r[:, :2].ravel(), boxes[i, :, v])))
                ys = np.unique(np.concatenate((r[:, 2:].ravel(), boxes[i, :, w])))
                free_cells = _cover_grid(r, xs, ys) == 0
                cells = _grid_rects(free_cells)
                n = cells.shape[0]
                if n == 0:
                    continue
                rr = np.repeat(boxes[i][None], n, axis=0)
                rr[:, 0, v] = xs[cells[:, 0]]
                rr[:, 1, v] = xs[cells[:, 1]]
                rr[:, 0, w] = ys[cells[:, 2]]
                rr[:, 1, w] = ys[cells[:, 3]]
                keep = (rr[:, 1, v] - rr[:, 0, v]) * (rr[:, 1, w] - rr[:, 0, w]) > tol.MIN_FACE_AREA
                rr = rr[keep]
                n = rr.shape[0]
                axes.append(np.full(n, ax))
                signs.append(np.full(n, sign))
                planes.append(np.full(n, plane[i]))
                rects.append(rr)
                kinds.append(np.full(n, kind[i], dtype=np.int8))
                owners.append(np.full(n, i))
    return _hole_walls_beside_the_core(_face_set(axes, signs, planes, rects, kinds, owners), compound._core())
