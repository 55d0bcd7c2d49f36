"""Reference oracles for method B (``game.collision.compound``).

* :func:`reference_strike`: the strike as plain Python loops over boxes, with pairwise greedy
  merging (the benchmark's reference for ``Compound.strike``);
* :func:`reference_faces`: the face set the simple way, dense side matching and a per-side
  grid subtraction (the benchmark's reference for ``Compound.faces``);
* :func:`boundary_face_records`: the exposed sides one box side at a time, in plain Python, in
  the order ``boundary_faces`` gives them (its exact reference, floats compared bit for bit);
* :func:`face_region_batched` and :func:`cut_layer_batched`: a struck layer's tunnel (B3) and
  the cut of one layer by tunnels (B4, B9) as numpy array operations, the forms
  :mod:`game.collision.compound.resplit` (plain floats) is tested against, with their parts
  :func:`nine_patch`, :func:`snap` and :func:`merge_layer_batched`;
* :func:`grid_rects`: the B9 decomposition of a boolean cell grid into rectangles (row by row
  in Python for small grids, batched for large ones), and :func:`cover_grid`.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from game.collision import tolerances as tol
from game.collision.compound import Compound, FaceSet
from game.collision.compound.boundary import hole_walls_beside_the_core
from game.collision.compound.faces import face_set
from game.collision.compound.layout import DEFAULT_MARGIN, FILL, INNER, OUTER, TANGENTS, as_box
from game.collision.compound.rects import CellRect, Run, stack_runs
from game.collision.compound.resplit import NINE_U, NINE_V, LayerCut

__all__ = [
    "SMALL_GRID",
    "reference_strike",
    "reference_faces",
    "FaceRecord",
    "boundary_face_records",
    "face_region_batched",
    "cut_layer_batched",
    "nine_patch",
    "snap",
    "merge_layer_batched",
    "grid_rects",
    "grid_rects_rows",
    "grid_rects_batched",
    "cover_grid",
]

#: cells up to which :func:`grid_rects` walks the rows in Python: a struck crate's layer is
#: a grid of a few dozen cells, where numpy's ~14 calls cost more than the loop
SMALL_GRID = 192

Box = tuple[list[float], list[float]]


# --------------------------------------------------------------------------------- the strike


def reference_strike(compound: Compound, striker_box: Any,
                     margin: float = DEFAULT_MARGIN) -> tuple[np.ndarray, np.ndarray] | None:
    """The same strike as :meth:`Compound.strike`, written as plain Python loops
    over boxes, with pairwise greedy merging.  Does not change ``compound``.

    Each touched layer's region (B3: the footprint grown by the margin on the bounding box's
    face, snapped, opened over whole rims) through the wall is its tunnel; every layer is cut
    by its own tunnel and by every other tunnel that reaches into it (a neighbouring wall's
    rim), in turn, box by box.

    Returns ``(boxes (K, 2, 3), layers (K,))`` of the struck compound, or None
    when :meth:`Compound.strike` would return None.  The union of the boxes is
    the same as the fast path's (the decomposition may differ).
    """
    s = as_box(striker_box, "striker_box").tolist()
    m = float(margin)
    slabs = compound.slabs.tolist()
    bounds = compound.bounds.tolist()
    boxes = [(b[0], b[1], int(lay)) for b, lay in zip(compound.boxes.tolist(), compound.layers.tolist())]
    hit_layers = sorted({lay for lo, hi, lay in boxes
                         if all(max(lo[a], s[0][a]) <= min(hi[a], s[1][a]) for a in range(3))})
    mine_of = [[(lo, hi) for lo, hi, b_lay in boxes if b_lay == lay] for lay in range(6)]
    tunnels = []                                        # (layer, [lo, hi]) of each touched layer's tunnel
    for lay in hit_layers:
        reg = _region(mine_of[lay], slabs[lay], bounds, s, m, lay // 2)
        if reg is not None:
            tun = [list(slabs[lay][0]), list(slabs[lay][1])]
            for ax, (lo, hi) in reg.items():
                tun[0][ax], tun[1][ax] = lo, hi
            tunnels.append((lay, tun))
    out: list[tuple[list[float], list[float], int]] = []
    changed = False
    for lay in range(6):
        axis = lay // 2
        u, v = TANGENTS[axis]
        regions = [_within(mine_of[lay], slabs[lay], tun, axis) for t_lay, tun in tunnels if t_lay == lay]
        regions += [_within(mine_of[lay], slabs[lay], tun, axis) for t_lay, tun in tunnels
                    if t_lay != lay and all(min(tun[1][a], slabs[lay][1][a]) - max(tun[0][a], slabs[lay][0][a])
                                            > tol.PLANE_EPS for a in range(3))]
        layer_out = mine_of[lay]
        for reg in regions:
            if reg is not None:
                layer_out, cut_any = _split_layer(layer_out, reg, axis)
                changed |= cut_any
        if regions:
            layer_out = _merge_pairwise(layer_out, u, v)
        out.extend((lo, hi, lay) for lo, hi in layer_out)
    if not changed:
        return None
    return (np.array([[lo, hi] for lo, hi, _ in out], dtype=np.float64).reshape(-1, 2, 3),
            np.array([b[2] for b in out], dtype=np.int8))


def _snapped(x: float, coords: list[float]) -> float:
    """``x`` moved onto the nearest of ``coords`` if it is within SNAP_EPS of one."""
    return min(coords, key=lambda c: abs(c - x)) if min(abs(c - x) for c in coords) < tol.SNAP_EPS else x


def _region(mine: list[Box], slab: list[list[float]], bounds: list[list[float]], s: list[list[float]], m: float,
            axis: int) -> dict[int, tuple[float, float]] | None:
    """B3: the region ``{axis: (lo, hi)}`` on the layer's two tangent axes, or None if thin: the
    footprint grown by ``m`` and clipped to the bounds' face, snapped to the layer's edges, and
    an edge inside a rim (between the bounds and the slab) moved to the rim's far side."""
    reg = {}
    ok = True
    for ax in TANGENTS[axis]:
        coords = [b[k][ax] for b in mine for k in (0, 1)] + [slab[0][ax], slab[1][ax]]
        lo = _snapped(max(s[0][ax] - m, bounds[0][ax]), coords)
        hi = _snapped(min(s[1][ax] + m, bounds[1][ax]), coords)
        rims = ((bounds[0][ax], slab[0][ax]), (slab[1][ax], bounds[1][ax]))
        lo = next((r0 for r0, r1 in rims if r0 < lo < r1), lo)
        hi = next((r1 for r0, r1 in rims if r0 < hi < r1), hi)
        if hi - lo < tol.MIN_BOX_EXTENT:
            ok = False
        reg[ax] = (lo, hi)
    return reg if ok else None


def _within(mine: list[Box], slab: list[list[float]], tun: list[list[float]],
            axis: int) -> dict[int, tuple[float, float]] | None:
    """A tunnel ``[lo, hi]`` on a layer: its extent on the layer's tangent axes clipped to the
    slab and snapped to the layer's edges, ``{axis: (lo, hi)}``, or None if thin."""
    reg = {}
    for ax in TANGENTS[axis]:
        coords = [b[k][ax] for b in mine for k in (0, 1)] + [slab[0][ax], slab[1][ax]]
        lo = _snapped(max(tun[0][ax], slab[0][ax]), coords)
        hi = _snapped(min(tun[1][ax], slab[1][ax]), coords)
        if hi - lo < tol.MIN_BOX_EXTENT:
            return None
        reg[ax] = (lo, hi)
    return reg


def _split_layer(mine: list[Box], reg: dict[int, tuple[float, float]], axis: int) -> tuple[list[Box], bool]:
    """B4: every box the region overlaps cut into its nine-patch less the middle; the other
    boxes kept.  Returns the layer's boxes and whether any was cut."""
    u, v = TANGENTS[axis]
    layer_out: list[Box] = []
    changed = False
    for lo, hi in mine:
        if (min(hi[u], reg[u][1]) - max(lo[u], reg[u][0]) <= tol.PLANE_EPS
                or min(hi[v], reg[v][1]) - max(lo[v], reg[v][0]) <= tol.PLANE_EPS):
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
    return layer_out, changed


def _merge_pairwise(layer_out: list[Box], u: int, v: int) -> list[Box]:
    """B9: merge two boxes whose union is exactly a box, again and again until none is left."""
    merged = True
    while merged:
        merged = False
        for i in range(len(layer_out)):
            for j in range(i + 1, len(layer_out)):
                (alo, ahi), (blo, bhi) = layer_out[i], layer_out[j]
                for ax in (u, v):
                    other = v if ax == u else u
                    if (alo[other] == blo[other] and ahi[other] == bhi[other]
                            and (ahi[ax] == blo[ax] or bhi[ax] == alo[ax])):
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
    return layer_out


# --------------------------------------------------------------------------------- the faces


def reference_faces(compound: Compound) -> FaceSet:
    """The same face set as ``compound.faces`` (up to how exposed sides are cut
    into quads), built the simple way: dense K x K side matching and, per
    partly covered side, a Python-loop grid subtraction of its coverers."""
    boxes, layers, bounds = compound.boxes, compound.layers, compound.bounds
    lay = layers.astype(np.int64)
    baxis = lay // 2
    bside = lay % 2
    parts: list[list[np.ndarray]] = [[], [], [], [], [], []]     # axes, signs, planes, rects, kinds, owners
    for ax in range(3):
        v, w = TANGENTS[ax]
        ov_v = (np.minimum(boxes[:, None, 1, v], boxes[None, :, 1, v])
                - np.maximum(boxes[:, None, 0, v], boxes[None, :, 0, v]))
        ov_w = (np.minimum(boxes[:, None, 1, w], boxes[None, :, 1, w])
                - np.maximum(boxes[:, None, 0, w], boxes[None, :, 0, w]))
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
                _add_faces(parts, ax, sign, plane[idx], boxes[idx], kind[idx], idx)
            for i in np.flatnonzero(partial).tolist():
                rr = _exposed_rects(boxes, i, np.flatnonzero(cov[i]), v, w)
                if rr.shape[0]:
                    n = rr.shape[0]
                    _add_faces(parts, ax, sign, np.full(n, plane[i]), rr, np.full(n, kind[i], dtype=np.int8),
                               np.full(n, i))
    return hole_walls_beside_the_core(face_set(*parts), compound.core)


#: A rectangle on a side's two in-plane axes: ``(v0, v1, w0, w1)``.
Rect = tuple[float, float, float, float]
#: A face as :func:`boundary_face_records` gives it: ``(axis, d, plane, rect, kind, box)``, the axis
#: of its normal, 0 for a box's min side and 1 for its max, the plane's coordinate, its rectangle,
#: its :class:`FaceKind` and the index of the box it is a side of.
FaceRecord = tuple[int, int, float, Rect, int, int]


def boundary_face_records(boxes: np.ndarray, layers: np.ndarray, bounds: np.ndarray) -> list[FaceRecord]:
    """B5/B7: :func:`game.collision.compound.boundary.boundary_faces` one box side at a time in
    plain Python, as :data:`FaceRecord` tuples.

    For every side (direction -x, +x, -y, +y, -z, +z, then box): the coverers are the
    boxes whose opposite side lies on the side's plane (within PLANE_EPS) and whose
    rectangle overlaps it by more than PLANE_EPS on both in-plane axes, taken in order
    of their plane coordinate, then index.  No coverer: the whole side is a face.
    Covered area (sum of the overlaps) within MIN_FACE_AREA of the side's: no face.
    Otherwise the coverers are subtracted one by one (a cut piece becomes its left and
    right full-height strips and its bottom and top middle strips) and the pieces above
    MIN_FACE_AREA are faces.  Returns ``(axis, d, plane, (v0, v1, w0, w1), kind, box)``
    tuples in the documented order: per direction, the free sides by box, then the
    pieces by box, w0, v0.
    """
    eps = tol.PLANE_EPS
    b = boxes.tolist()
    lay = [int(x) for x in layers]
    bnd = bounds.tolist()

    def cut(p: Rect, c: Rect) -> list[Rect]:
        if min(p[1], c[1]) - max(p[0], c[0]) <= 0.0 or min(p[3], c[3]) - max(p[2], c[2]) <= 0.0:
            return [p]
        mid = (max(p[0], c[0]), min(p[1], c[1]))
        strips = [((p[0], c[0], p[2], p[3]), p[0] < c[0]), ((c[1], p[1], p[2], p[3]), c[1] < p[1]),
                  ((*mid, p[2], c[2]), p[2] < c[2]), ((*mid, c[3], p[3]), c[3] < p[3])]
        return [s for s, wide in strips if wide]

    out: list[FaceRecord] = []
    for axis in range(3):
        v, w = [a for a in range(3) if a != axis]
        for d in (0, 1):
            free: list[FaceRecord] = []
            pieces: list[FaceRecord] = []
            for i, box in enumerate(b):
                plane = box[d][axis]
                rect = (box[0][v], box[1][v], box[0][w], box[1][w])
                if lay[i] // 2 == axis:
                    kind = OUTER if lay[i] % 2 == d else INNER
                else:
                    kind = OUTER if abs(plane - bnd[d][axis]) <= eps else FILL
                coverers: list[tuple[float, int, Rect, float]] = []
                for j, other in enumerate(b):
                    opp = other[1 - d][axis]
                    ov_v = min(box[1][v], other[1][v]) - max(box[0][v], other[0][v])
                    ov_w = min(box[1][w], other[1][w]) - max(box[0][w], other[0][w])
                    if plane - eps <= opp <= plane + eps and ov_v > eps and ov_w > eps:
                        coverers.append((opp, j, (other[0][v], other[1][v], other[0][w], other[1][w]), ov_v * ov_w))
                if not coverers:
                    free.append((axis, d, plane, rect, kind, i))
                    continue
                coverers.sort(key=lambda c: (c[0], c[1]))
                covered = 0.0
                for c in coverers:
                    covered += c[3]
                if (rect[1] - rect[0]) * (rect[3] - rect[2]) - covered <= tol.MIN_FACE_AREA:
                    continue
                left: list[Rect] = [rect]
                for c in coverers:
                    left = [q for p in left for q in cut(p, c[2])]
                left = [p for p in left if (p[1] - p[0]) * (p[3] - p[2]) > tol.MIN_FACE_AREA]
                pieces += [(axis, d, plane, p, kind, i) for p in sorted(left, key=lambda p: (p[2], p[0]))]
            out += free + pieces
    return out


def _add_faces(parts: list[list[np.ndarray]], ax: int, sign: float, planes: np.ndarray, rects: np.ndarray,
               kinds: np.ndarray, owners: np.ndarray) -> None:
    n = rects.shape[0]
    for lst, arr in zip(parts, (np.full(n, ax), np.full(n, sign), planes, rects, kinds, owners)):
        lst.append(arr)


def _exposed_rects(boxes: np.ndarray, i: int, js: np.ndarray, v: int, w: int) -> np.ndarray:
    """Box ``i``'s side less its coverers ``js``, as boxes whose extent on ``v, w`` is each
    exposed rectangle (a grid subtraction); pieces of area <= MIN_FACE_AREA dropped."""
    cb = boxes[js]
    r = np.stack((np.maximum(cb[:, 0, v], boxes[i, 0, v]), np.minimum(cb[:, 1, v], boxes[i, 1, v]),
                  np.maximum(cb[:, 0, w], boxes[i, 0, w]), np.minimum(cb[:, 1, w], boxes[i, 1, w])), axis=1)
    xs = np.unique(np.concatenate((r[:, :2].ravel(), boxes[i, :, v])))
    ys = np.unique(np.concatenate((r[:, 2:].ravel(), boxes[i, :, w])))
    cells = grid_rects(cover_grid(r, xs, ys) == 0)
    n = cells.shape[0]
    rr = np.repeat(boxes[i][None], n, axis=0)
    if n == 0:
        return rr
    rr[:, 0, v] = xs[cells[:, 0]]
    rr[:, 1, v] = xs[cells[:, 1]]
    rr[:, 0, w] = ys[cells[:, 2]]
    rr[:, 1, w] = ys[cells[:, 3]]
    keep = (rr[:, 1, v] - rr[:, 0, v]) * (rr[:, 1, w] - rr[:, 0, w]) > tol.MIN_FACE_AREA
    return rr[keep]


# --------------------------------------------------------------------------------- one layer's cut


def face_region_batched(lb: np.ndarray, slab: Sequence[Sequence[float]], bounds: Sequence[Sequence[float]],
                        s: Sequence[Sequence[float]], m: float, axis: int) -> list[list[float]] | None:
    """:func:`game.collision.compound.resplit.face_region` with numpy arrays and :func:`snap`:
    the same arguments (the layer's boxes ``(n, 2, 3)``) and the same tunnel."""
    sl, bd, sb = np.array(slab, dtype=float), np.array(bounds, dtype=float), np.array(s, dtype=float)
    tun = sl.copy()
    for ax in TANGENTS[axis]:
        coords = np.concatenate((lb[:, :, ax].ravel(), sl[:, ax]))
        lo = snap(max(sb[0, ax] - m, bd[0, ax]), coords)
        hi = snap(min(sb[1, ax] + m, bd[1, ax]), coords)
        rims = ((bd[0, ax], sl[0, ax]), (sl[1, ax], bd[1, ax]))
        lo = next((float(r0) for r0, r1 in rims if r0 < lo < r1), lo)
        hi = next((float(r1) for r0, r1 in rims if r0 < hi < r1), hi)
        if hi - lo < tol.MIN_BOX_EXTENT:
            return None
        tun[0, ax], tun[1, ax] = lo, hi
    return tun.tolist()


def cut_layer_batched(lb: np.ndarray, tunnels: Sequence[Sequence[Sequence[float]]], axis: int) -> LayerCut | None:
    """:func:`game.collision.compound.resplit.cut_layer` as numpy array operations on the
    layer's boxes ``(n, 2, 3)``: the same tunnels, the same :class:`LayerCut`."""
    u, v = TANGENTS[axis]
    n = lb.shape[0]
    cur, src = lb, np.arange(n)                     # the current pieces and the box each came from
    hit = np.zeros(n, dtype=bool)
    used = []
    for tunnel in tunnels:
        tun = np.array(tunnel, dtype=float)
        ov_u = np.minimum(cur[:, 1, u], tun[1, u]) - np.maximum(cur[:, 0, u], tun[0, u])
        ov_v = np.minimum(cur[:, 1, v], tun[1, v]) - np.maximum(cur[:, 0, v], tun[0, v])
        cut = (ov_u > tol.PLANE_EPS) & (ov_v > tol.PLANE_EPS)
        used.append(bool(cut.any()))
        hit[src[cut]] = True
        pieces, group, cell = nine_patch(cur[cut], tun, u, v)
        # each cut piece replaced in place by its pieces, in nine-patch order
        pos = np.concatenate((np.flatnonzero(~cut) * 9, np.flatnonzero(cut)[group] * 9 + 1 + cell))
        order = np.argsort(pos, kind="stable")
        cur = np.concatenate((cur[~cut], pieces))[order]
        src = np.concatenate((src[~cut], src[cut][group]))[order]
    if not hit.any():
        return None
    cut_rows = np.flatnonzero(hit)
    keep = hit[src]
    pieces, owner = cur[keep], np.searchsorted(cut_rows, src[keep])
    removed = float(np.prod(lb[hit, 1] - lb[hit, 0], axis=1).sum() - np.prod(pieces[:, 1] - pieces[:, 0], axis=1).sum())
    merged = merge_layer_batched(np.concatenate((lb[~hit], pieces)), axis)
    return LayerCut(pieces.tolist(), merged, removed, cut_rows.tolist(), owner.tolist(), used)


def snap(x: float, coords: np.ndarray) -> float:
    """B3/B9: region edge ``x`` moved onto the nearest of ``coords`` (k,) float if within SNAP_EPS."""
    d = np.abs(coords - x)
    i = int(d.argmin())
    return float(coords[i]) if d[i] < tol.SNAP_EPS else x


def nine_patch(cb: np.ndarray, tun: np.ndarray, u: int, v: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """B4: cut boxes ``cb`` (n, 2, 3) by the region of ``tun`` (2, 3) on axes u, v.

    Each box's u and v ranges are cut at the region's edges (clamped to the
    box) into 3 x 3 pieces; the middle piece and pieces with an extent below
    MIN_BOX_EXTENT are dropped.  Returns the pieces (m, 2, 3), m <= 8 n, each
    piece's box, (m,) int64, and its place among the 8 (nine-patch order), (m,) int64.
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
    iu, iv = NINE_U, NINE_V  # the 8 pieces around the middle one
    out = np.repeat(cb[:, None], 8, axis=1)  # (n, 8, 2, 3)
    out[:, :, 0, u] = cu[:, iu]
    out[:, :, 1, u] = cu[:, iu + 1]
    out[:, :, 0, v] = cv[:, iv]
    out[:, :, 1, v] = cv[:, iv + 1]
    out = out.reshape(n * 8, 2, 3)
    ext = out[:, 1] - out[:, 0]
    good = (ext[:, u] >= tol.MIN_BOX_EXTENT) & (ext[:, v] >= tol.MIN_BOX_EXTENT)
    return out[good], np.repeat(np.arange(n), 8)[good], np.tile(np.arange(8), n)[good]


def merge_layer_batched(boxes: np.ndarray, axis: int) -> np.ndarray:
    """B9 merge: re-decompose one layer's disjoint boxes ``(n, 2, 3)`` (all with the same extent
    along ``axis``) into maximal rows; returns (m, 2, 3).  The batched form of
    :func:`game.collision.compound.rects.merge_layer` (the same boxes)."""
    if boxes.shape[0] <= 1:
        return boxes
    u, v = TANGENTS[axis]
    xs = np.unique(boxes[:, :, u])
    ys = np.unique(boxes[:, :, v])
    if (xs.shape[0] - 1) * (ys.shape[0] - 1) <= SMALL_GRID:
        # mark the cells and walk the rows in Python (the boxes are disjoint, so a cell is
        # covered by at most one box)
        xi = {x: i for i, x in enumerate(xs.tolist())}
        yi = {y: i for i, y in enumerate(ys.tolist())}
        rows = [[False] * (xs.shape[0] - 1) for _ in range(ys.shape[0] - 1)]
        for (lo, hi) in boxes[:, :, (u, v)].tolist():
            x0, x1 = xi[lo[0]], xi[hi[0]]
            for row in rows[yi[lo[1]]:yi[hi[1]]]:
                row[x0:x1] = [True] * (x1 - x0)
        cells = grid_rects_rows(rows)
    else:
        rects = boxes[:, :, (u, v)].transpose(0, 2, 1).reshape(-1, 4)  # [u0, u1, v0, v1]
        cells = grid_rects_batched(cover_grid(rects, xs, ys) > 0)
    out = np.empty((cells.shape[0], 2, 3))
    out[:, 0, axis] = boxes[0, 0, axis]
    out[:, 1, axis] = boxes[0, 1, axis]
    out[:, 0, u] = xs[cells[:, 0]]
    out[:, 1, u] = xs[cells[:, 1]]
    out[:, 0, v] = ys[cells[:, 2]]
    out[:, 1, v] = ys[cells[:, 3]]
    return out


# --------------------------------------------------------------------------------- cell grids


def grid_rects(occ: np.ndarray) -> np.ndarray:
    """Decompose a boolean cell grid into rectangles of cells.

    occ : (ny, nx) bool, row index along the second tangent axis.
    Returns (m, 4) int64 ``[x0, x1, y0, y1]`` cell ranges (half-open): the
    maximal runs of each row, merged over consecutive rows with the same run.
    Sorted by (y0, x0); a function of ``occ`` only.  Small grids take
    :func:`grid_rects_rows` (the same result, row by row in Python).
    """
    if occ.size <= SMALL_GRID:
        return grid_rects_rows(occ)
    return grid_rects_batched(occ)


def grid_rects_rows(occ: np.ndarray | list[list[bool]]) -> np.ndarray:
    """:func:`grid_rects` one row at a time (``occ`` an array or a list of bool rows)."""
    rows = occ.tolist() if isinstance(occ, np.ndarray) else occ
    rects: list[CellRect] = stack_runs(_cell_runs(row) for row in rows)
    return np.array(rects, dtype=np.int64).reshape(-1, 4)


def _cell_runs(row: list[bool]) -> list[Run]:
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


def grid_rects_batched(occ: np.ndarray) -> np.ndarray:
    """:func:`grid_rects` for all rows at once (large grids)."""
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


def cover_grid(rects: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
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
