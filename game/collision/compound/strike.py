"""Method B, B1-B7 and B9: one strike on a compound, and its :class:`StrikeResult`.

``Compound.strike(striker_box, margin)`` runs :func:`strike_boxes`:

1. Method A (A4, touching counts) finds the small boxes the striker touches.  None touched
   -> ``None``, nothing changes.
2. B2: the layers of the touched small boxes are the target layers (a strike at an edge or
   corner has several).
3. B3: each target layer's interaction region, on the face of the bounding box, through the
   wall's thickness is its *tunnel* (:func:`~.resplit.face_region`).  The **target faces**
   are the faces of the small boxes the tunnels cut: in the target layers, and where a
   tunnel reaches a neighbouring wall's rim (the end of a wall that owns the face's edge),
   in that wall; every other face is an *other face*.
4. B4, B6: every target face is cut by the tunnels (:func:`~.resplit.cut_layer`): the split
   faces, each extruded by its layer's thickness into a small box.
5. B5: the **fill faces** are the walls of the hole: the sides of the remaining small boxes
   that face into a tunnel, clipped to the tunnel.
   Their outer edges run between the **target vertices** (the hole's corners on the face
   plane, vertices of the split faces that belong to no other face).  The volume behind a
   fill face (its extrusion by the thickness) is already covered by the split faces' small
   boxes, so it gets no small box of its own: that would be a duplicate, which B9 forbids.
6. B7/B9: the compound is the union of all small boxes, every cut layer re-merged.

A later strike on a struck area cuts the current small boxes again (B9): holes grow and
multiply.  The face tuples of a result are built when first read: the game loop reads only
a few fields.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np

from .. import tolerances as tol
from ..range_box import overlaps
from . import resplit
from .faces import Face, Quads, outer_quads
from .layout import FILL, LAYER_IDS, TANGENTS, readonly

__all__ = ["StrikeResult", "StrikeOutcome", "HoleWalls", "strike_boxes", "hole_walls", "hole_corners"]

#: Builds a named tuple from a tuple of its fields without the generated Python-level
#: ``__new__``, whose call is a noticeable share of a small strike (which builds several).
_new = tuple.__new__


class LayerRects(NamedTuple):
    """Rectangles on the outer planes of their layers, turned into faces when first read."""

    slabs: np.ndarray       # (6, 2, 3) float, the compound's wall slabs (each layer's outer plane)
    layers: np.ndarray      # (n,) int64, the layer of each rectangle
    rects: np.ndarray       # (n, 2, 3) float, the extent of each on its layer's tangent axes

    def faces(self) -> tuple[Face, ...]:
        return outer_quads(self.slabs, self.layers, self.rects).faces()


class HoleWalls(NamedTuple):
    """B5: the walls of the holes a strike made (the fill faces)."""

    quads: Quads            # the walls, kind FILL, normals into the hole
    layers: np.ndarray      # (n,) int64, the layer of each wall's tunnel


@dataclass(frozen=True)
class StrikeResult:
    """What one strike did (B2-B7).  Arrays are read-only; the face tuples are
    built on first access (the game loop reads only a few fields).

    Attributes
    ----------
    layers : (T,) int64, the target layers (``2 * axis + side``), one per region.
    tunnels : (T, 2, 3) float, region x wall thickness of each target layer:
        the volume this strike removed from every layer (or found already empty).
    removed_volume : float, volume removed by this strike.
    struck_boxes : (H,) int64, indices (before the strike) of the small boxes
        the striker touched in the target layers.
    target_faces : tuple of :class:`Face`, the faces (outer-plane sides), before the
        strike, of every small box a tunnel cuts (B2: the faces the interaction happens
        on).  The region is the footprint grown by the margin, so it can reach boxes
        beside the struck ones, and a tunnel runs on through the rims of the neighbouring
        walls that own the face's edges: those are target faces too.
    regions : tuple of :class:`Face`, one per target layer: the interaction region,
        footprint grown by the margin and clipped to the bounding box's face, on the
        layer's outer plane (B3; see :mod:`.resplit` for the rims).
    split_faces : tuple of :class:`Face`, the pieces left around the tunnels of every
        target face (B4); each is the face of a new small box (B6).
    split_target : (S,) int64, for each split face, the index into ``target_faces``
        of the face it was cut from: at most 8 per tunnel cutting it (B4).
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
    _target: LayerRects         # the target faces, before the strike
    _regions: LayerRects        # the interaction regions, one per target layer
    _split: LayerRects          # the split faces
    _boxes_after: np.ndarray    # (K', 2, 3) read-only: the compound's boxes right after the strike

    @cached_property
    def _walls(self) -> HoleWalls:
        return hole_walls(self._boxes_after, self.tunnels, self.layers)

    @cached_property
    def target_faces(self) -> tuple[Face, ...]:
        return self._target.faces()

    @cached_property
    def regions(self) -> tuple[Face, ...]:
        return self._regions.faces()

    @cached_property
    def split_faces(self) -> tuple[Face, ...]:
        return self._split.faces()

    @cached_property
    def fill_faces(self) -> tuple[Face, ...]:
        return self._walls.quads.faces()

    @cached_property
    def target_vertices(self) -> np.ndarray:
        return hole_corners(self._walls)


class StrikeOutcome(NamedTuple):
    """A compound's state after a strike that removed something, and what the strike did."""

    boxes: np.ndarray       # (K', 2, 3) float, read-only, grouped by layer
    layers: np.ndarray      # (K',) int8, read-only
    offsets: list[int]      # (7,) first row of each layer in ``boxes``, then K'
    result: StrikeResult


class _Cuts(NamedTuple):
    """What a strike's tunnels cut, gathered layer by layer in layer order."""

    merged: list[np.ndarray]        # per layer 0-5 its boxes after the strike (k, 2, 3)
    layers: list[int]               # the target layers whose tunnel cut something, ascending
    tunnels: list[list[list[float]]]  # per such layer its tunnel [lo, hi]
    split: list                     # the pieces of every cut layer, in layer order
    split_layer: list[int]          # the layer of each piece
    split_of: list[int]             # the target face (its place in ``target``) each piece came from
    target: list[int]               # B2: every box the tunnels cut, by index before the strike
    removed: float                  # the volume removed, added layer by layer in layer order


def _spills(tunnel: list[list[float]], slab: list[list[float]]) -> bool:
    """True iff the tunnel runs past its slab on a tangent axis (into a neighbouring wall's rim)."""
    (x0, y0, z0), (x1, y1, z1) = tunnel
    (sx0, sy0, sz0), (sx1, sy1, sz1) = slab
    return x0 < sx0 or y0 < sy0 or z0 < sz0 or x1 > sx1 or y1 > sy1 or z1 > sz1


def _cut_layers(boxes: np.ndarray, offsets: list[int], slabs: list, bounds: list, s: list, m: float,
                hit_layers: list[int]) -> _Cuts:
    """B3, B4: the tunnel of every touched layer (:func:`~.resplit.face_region`), cut out of its
    own layer and out of every neighbouring wall's rim it reaches (:func:`~.resplit.cut_layer`)."""
    merged = [boxes[offsets[lay] : offsets[lay + 1]] for lay in range(6)]
    rows: list[list | None] = [None] * 6       # each layer's boxes as lists, made when first needed
    targets: list[tuple[int, list[list[float]]]] = []
    for lay in hit_layers:
        lay_rows = rows[lay] = merged[lay].tolist()
        tun = resplit.face_region(lay_rows, slabs[lay], bounds, s, m, lay // 2)
        if tun is not None:
            targets.append((lay, tun))
    # per layer the tunnels through it: its own first, then the others reaching into its rims
    tunnels: list[list[list[list[float]]]] = [[] for _ in range(6)]
    sources: list[list[int]] = [[] for _ in range(6)]      # the target each tunnel belongs to
    for k, (lay, tun) in enumerate(targets):
        tunnels[lay].append(tun)
        sources[lay].append(k)
    for k, (t_lay, tun) in enumerate(targets):
        if not _spills(tun, slabs[t_lay]):
            continue
        for lay in range(6):
            if lay != t_lay and resplit.reaches(tun, slabs[lay]):
                lay_rows = rows[lay] = rows[lay] or merged[lay].tolist()
                through = resplit.tunnel_on_layer(lay_rows, slabs[lay], tun, lay // 2)
                if through is not None:
                    tunnels[lay].append(through)
                    sources[lay].append(k)
    did = [False] * len(targets)
    split: list = []
    split_layer: list[int] = []
    split_of: list[int] = []
    target: list[int] = []
    removed = 0.0
    for lay in range(6):
        if not tunnels[lay]:
            continue
        lay_rows = rows[lay] = rows[lay] or merged[lay].tolist()
        cut = resplit.cut_layer(lay_rows, tunnels[lay], lay // 2)
        if cut is None:
            continue
        pieces, merged[lay], vol, cut_rows, owner, used = cut
        for k, u in zip(sources[lay], used):
            did[k] = did[k] or u
        removed += vol
        split += pieces
        split_layer += [lay] * len(pieces)
        split_of += [len(target) + k for k in owner]
        target += [offsets[lay] + i for i in cut_rows]
    done = [t for t, d in zip(targets, did) if d]
    return _new(_Cuts, (merged, [lay for lay, _ in done], [tun for _, tun in done], split, split_layer, split_of,
                        target, removed))


def strike_boxes(boxes: np.ndarray, layers: np.ndarray, offsets: list[int], slabs: np.ndarray, bounds: np.ndarray,
                 striker: np.ndarray, margin: float) -> StrikeOutcome | None:
    """B1-B7, B9: the strike of ``striker`` on a compound's state, as a new state and its result.

    boxes : (K, 2, 3) float and layers : (K,) int8, grouped by layer, with ``offsets`` (7,)
    the first row of each layer, then K; slabs : (6, 2, 3) float, the wall slabs (B6);
    bounds : (2, 3) float, the bounding box; striker : (2, 3) float, a checked box;
    margin : float >= 0 (B3).
    Returns None when the striker touches no small box or the touch removes nothing.
    """
    hit = overlaps(striker, boxes)
    if not hit.any():
        return None
    hit_layers = sorted(set(layers[hit].tolist()))
    parts, cut_layers, tunnels, split, split_layer, split_of, target, removed = _cut_layers(
        boxes, offsets, slabs.tolist(), bounds.tolist(), striker.tolist(), margin, hit_layers)
    if not cut_layers:
        return None
    # B7: the new compound, layer by layer in layer order
    sizes = [p.shape[0] for p in parts]
    new_boxes = readonly(np.concatenate(parts))
    hit_idx = np.flatnonzero(hit)
    if len(cut_layers) < len(hit_layers):  # drop touched boxes of layers that were not cut
        hit_idx = hit_idx[(layers[hit_idx][:, None] == np.asarray(cut_layers)).any(axis=1)]
    tl = np.array(cut_layers, dtype=np.int64)
    tun_arr = np.array(tunnels, dtype=float)
    result = StrikeResult(
        layers=readonly(tl),
        tunnels=readonly(tun_arr),
        removed_volume=removed,
        struck_boxes=readonly(hit_idx),
        split_target=readonly(np.array(split_of, dtype=np.int64)),
        _target=_new(LayerRects, (slabs, layers[target].astype(np.int64), boxes[target])),
        _regions=_new(LayerRects, (slabs, tl, tun_arr)),
        _split=_new(LayerRects, (slabs, np.array(split_layer, dtype=np.int64),
                                 np.array(split, dtype=float).reshape(-1, 2, 3))),
        _boxes_after=new_boxes,
    )
    return _new(StrikeOutcome, (new_boxes, readonly(np.repeat(LAYER_IDS, sizes)), [0, *itertools.accumulate(sizes)],
                                result))


def hole_walls(boxes: np.ndarray, tunnels: np.ndarray, tlayers: np.ndarray) -> HoleWalls:
    """B5: fill faces = sides of ``boxes`` (K, 2, 3) facing into a tunnel
    (T, 2, 3) of layer ``tlayers`` (T,), clipped to the tunnel (normals into the tunnel)."""
    t = tunnels.shape[0]
    a = np.repeat(tlayers // 2, 4)  # (S,) tunnel axis of each of the 4 sides of each tunnel
    tang = np.asarray(TANGENTS)[tlayers // 2]  # (T, 2)
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
    return HoleWalls(Quads(ax[ss].astype(np.int64), sign, c[ss], rect, FILL), tlayers[tid[ss]])


def hole_corners(walls: HoleWalls) -> np.ndarray:
    """B5 target vertices: (n, 3) float, read-only, the points where two walls' edges on the
    outer plane of their tunnel's layer meet (the hole's corners on the face plane)."""
    f, lay = walls
    n = f.axis.shape[0]
    if n == 0:
        return readonly(np.zeros((0, 3)))
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
    return readonly(uniq[counts >= 2])
