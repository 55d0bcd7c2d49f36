"""Method B, B5 and B7: the faces of a compound, the boundary of the union of its small boxes.

``compound.faces`` is a :class:`~.faces.FaceSet`: every box side not covered by a touching
box, as axis-aligned quads wound counter-clockwise seen from outside, classified by kind:
:data:`OUTER` (on the crate's outer surface: split faces and other faces), :data:`FILL` (the
walls of holes, B5) and :data:`INNER` (the shell's inside, seen through a hole).  Covered
sides of touching boxes are not faces, so outer faces never cover a hole.

The FILL rule beside the core: a slab's inner side faces the crate's hollow inside only
within the core's rectangle; beside it lies another wall's slab, which covers that part of
the side until a strike cuts the slab away there, and what shows then is a wall of the hole
(:func:`hole_walls_beside_the_core`).

At game sizes numpy's per-call overhead is the cost, not arithmetic, so all six side
directions are handled at once on flat side slots (:func:`boundary_faces`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import tolerances as tol
from .faces import FaceSet, empty_face_set
from .layout import CYCLIC, FILL, INNER, OUTER, TANGENTS, readonly

__all__ = ["compound_faces", "boundary_faces", "hole_walls_beside_the_core", "subtract_coverers", "ExposedPieces"]


class SideTables(NamedTuple):
    """Index tables of the six side directions ``p = 2 * axis + d`` (-x, +x, -y, +y, -z, +z) over
    a box flattened to ``[lo_x, lo_y, lo_z, hi_x, hi_y, hi_z]``."""

    side_col: np.ndarray    # (6,) int64, the column of the side's plane coordinate
    opp_col: np.ndarray     # (6,) int64, the column of the opposite side's
    rect_col: np.ndarray    # (6, 4) int64, the side's rectangle [v0, v1, w0, w1] on (v, w) = TANGENTS[axis]
    quad_lane: np.ndarray   # (6, 12) int64, per vertex and coordinate of the quad, the lane of [v0, v1, w0, w1, plane]
    normal: np.ndarray      # (6, 3) float, the outward normal
    kind: np.ndarray        # (6, 6, 2) int8, the face kind by direction, box layer and "on the bounds' plane"


def _side_tables() -> SideTables:
    """:class:`SideTables`, with each side's quad wound as :func:`~.faces.quads` winds it."""
    side_col = np.empty(6, dtype=np.int64)
    opp_col = np.empty(6, dtype=np.int64)
    rect_col = np.empty((6, 4), dtype=np.int64)
    quad_lane = np.empty((6, 4, 3), dtype=np.int64)
    normal = np.zeros((6, 3))
    kind = np.empty((6, 6, 2), dtype=np.int8)
    for p in range(6):
        ax, d = divmod(p, 2)
        t0, t1 = TANGENTS[ax]
        side_col[p] = 3 * d + ax
        opp_col[p] = 3 * (1 - d) + ax
        rect_col[p] = (t0, 3 + t0, t1, 3 + t1)
        normal[p, ax] = 1.0 if d else -1.0
        cv, cw = CYCLIC[ax]
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
    return SideTables(side_col, opp_col, rect_col, quad_lane.reshape(6, 12), normal, kind)


_SIDES = _side_tables()


def compound_faces(boxes: np.ndarray, layers: np.ndarray, bounds: np.ndarray, core: np.ndarray) -> FaceSet:
    """B5, B7: the face set of a compound (``Compound.faces``).

    boxes : (K, 2, 3) float, layers : (K,) int8, bounds : (2, 3) float, core : (2, 3) float
    (the hollow inside, the bounds less one wall thickness).
    """
    return hole_walls_beside_the_core(boundary_faces(boxes, layers, bounds), core)


def hole_walls_beside_the_core(fs: FaceSet, core: np.ndarray) -> FaceSet:
    """B5: the part of an :data:`INNER` face that lies beside the crate's hollow ``core``
    ((2, 3) float) is a wall of a hole, :data:`FILL`.

    A slab's inner side (:func:`boundary_faces` calls every side along its layer's axis on the
    inner plane INNER) faces the crate's inside only within the core's rectangle.  Beside it
    lies another wall's slab, which covers that part of the side until a strike cuts the slab
    away there: what shows then is a wall of the hole (a hole punched in a face next to its
    border, where the neighbouring wall owns the edge).  Such a face is cut at the core's
    edges; the pieces beside the core become FILL, the piece within it stays INNER.  Faces
    keep their order, a cut face replaced by its pieces (the inside one first); the winding
    and normals are unchanged."""
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
    return FaceSet(readonly(verts), readonly(fs.normals[src[order]]), readonly(kinds),
                   readonly(fs.box_index[src[order]]))


class ExposedPieces(NamedTuple):
    """The exposed parts of partly covered box sides (:func:`subtract_coverers`)."""

    row: np.ndarray         # (n,) int64, the side each piece belongs to
    pieces: np.ndarray      # (n, 4) float [v0, v1, w0, w1], by (row, w0, v0)


class _Exposed(NamedTuple):
    """The exposed rectangles of all box sides, in face order."""

    slot: np.ndarray        # (F,) int64, the side slot of each face
    quad: np.ndarray        # (F, 4) float [v0, v1, w0, w1]


class _SideSlots(NamedTuple):
    """Every side of every box as one flat slot ``s = p * K + i`` (direction p, box i)."""

    plane: np.ndarray       # (6K,) float, the side's plane coordinate
    opp: np.ndarray         # (6K,) float, the same box's opposite side
    rect: np.ndarray        # (6K, 4) float, the side's rectangle [v0, v1, w0, w1]
    direction: np.ndarray   # (6K,) int64, the direction p of each slot


class _Cover(NamedTuple):
    """The (side, coverer) pairs of the side slots: the coverer's opposite side lies on the
    side's plane and their rectangles overlap on both in-plane axes."""

    side: np.ndarray        # (m,) int64, the covered slot, ascending
    coverer: np.ndarray     # (m,) int64, the covering slot (by its opposite side's plane, then slot)
    covered: np.ndarray     # (6K,) float, per slot the covered area (the sum of the overlaps)


def _side_slots(boxes: np.ndarray) -> _SideSlots:
    k = boxes.shape[0]
    n = 6 * k
    flat = boxes.reshape(k, 6)
    plane = flat.take(_SIDES.side_col, axis=1).T.ravel()  # (6K,) plane of side slot s = p * K + i
    opp = flat.take(_SIDES.opp_col, axis=1).T.ravel()  # (6K,) the same box's opposite side
    rect = flat.take(_SIDES.rect_col, axis=1).transpose(1, 0, 2).reshape(n, 4)  # (6K, 4) [v0, v1, w0, w1]
    return _SideSlots(plane, opp, rect, np.arange(n) // k)


def _coverers(s: _SideSlots) -> _Cover:
    """The candidate coverers of slot s are the slots t of the same direction with
    ``plane[s] - eps <= opp[t] <= plane[s] + eps``, in order of ``(opp[t], t)``.  One search for
    all directions: every compared value is replaced by its exact rank among them all (equal
    values share a rank), offset by direction, so keys sort direction-major."""
    n = s.plane.shape[0]
    vals = np.concatenate((s.opp, s.plane - tol.PLANE_EPS, s.plane + tol.PLANE_EPS))
    key = np.sort(vals).searchsorted(vals).reshape(3, n) + s.direction * (3 * n)  # opp, low, high
    by_opp = key[0].argsort(kind="stable")
    key_s = key[0].take(by_opp)
    first = key_s.searchsorted(key[1], side="left")
    cnt = key_s.searchsorted(key[2], side="right") - first
    ci = np.repeat(np.arange(n), cnt)  # (m,) side slot of each candidate pair, ascending
    cj = by_opp.take(np.arange(ci.shape[0]) - np.repeat(np.cumsum(cnt) - cnt - first, cnt))  # coverer
    ri, rj = s.rect.take(ci, axis=0), s.rect.take(cj, axis=0)
    ov = np.minimum(ri[:, 1::2], rj[:, 1::2]) - np.maximum(ri[:, 0::2], rj[:, 0::2])  # (m, 2) overlaps
    good = np.minimum(ov[:, 0], ov[:, 1]) > tol.PLANE_EPS
    ci, cj = ci.compress(good), cj.compress(good)
    covered = np.bincount(ci, weights=(ov[:, 0] * ov[:, 1]).compress(good), minlength=n)  # > 0 iff covered
    return _Cover(ci, cj, covered)


def _exposed(s: _SideSlots, c: _Cover) -> _Exposed:
    """The exposed rectangles, per direction its free sides first (by box), then the pieces of
    its partly covered sides."""
    n = s.plane.shape[0]
    rect = s.rect
    own_area = (rect[:, 1] - rect[:, 0]) * (rect[:, 3] - rect[:, 2])
    free = (c.covered == 0.0).nonzero()[0]  # direction-major, by box
    part = ((c.covered > 0.0) & (own_area - c.covered > tol.MIN_FACE_AREA)).nonzero()[0]
    if not part.size:
        return _Exposed(free, rect.take(free, axis=0))
    pos = np.full(n, -1)
    pos[part] = np.arange(part.size)
    prow = pos.take(c.side)
    sel = prow >= 0  # c.side is ascending, so every side's pairs stay together and in order
    prow, pieces = subtract_coverers(rect.take(part, axis=0), prow.compress(sel),
                                     rect.take(c.coverer.compress(sel), axis=0))
    slot = np.concatenate((free, part.take(prow)))
    quad = np.concatenate((rect.take(free, axis=0), pieces))
    # per direction its free sides, then its pieces (each group is direction-major)
    order = (2 * s.direction.take(slot) + (np.arange(slot.shape[0]) >= free.shape[0])).argsort(kind="stable")
    return _Exposed(slot.take(order), quad.take(order, axis=0))


def boundary_faces(boxes: np.ndarray, layers: np.ndarray, bounds: np.ndarray) -> FaceSet:
    """B5, B7: the boundary of the union of disjoint boxes as quads, classified by kind.

    boxes : (K, 2, 3) float, layers : (K,) int (``2 * axis + side``), bounds : (2, 3) float.
    Returns a :class:`FaceSet`: every box side not covered by a touching box.  Box j
    covers side (i, p) (p = ``2 * axis + d``, the direction -x, +x, -y, +y, -z, +z) if
    j's opposite side lies on the side's plane (within ``PLANE_EPS``) and their
    rectangles overlap by more than ``PLANE_EPS`` on both in-plane axes.  A side
    without coverers is a face as a whole; a side whose covered area (the sum of the
    overlaps) leaves more than ``MIN_FACE_AREA`` is cut into its exposed rectangles
    by :func:`subtract_coverers`, its coverers taken in order of their plane
    coordinate, then box index.  Faces come per direction (-x, +x, -y, +y, -z, +z),
    each direction's free sides first (by box), then its pieces (by box, then
    ``(w0, v0)``).  Kind: a side along its box's layer axis is :data:`OUTER` on the
    layer's outer side and :data:`INNER` on the other; any other side is
    :data:`OUTER` on the bounds' plane (within ``PLANE_EPS``), else :data:`FILL`.

    All six directions are handled at once, on (6K,) side slots: one sort finds every
    side's candidate coverers, one call cuts every partly covered side.
    """
    k = boxes.shape[0]
    if k == 0:
        return empty_face_set()
    s = _side_slots(boxes)
    slot, quad = _exposed(s, _coverers(s))
    p = s.direction.take(slot)
    box = slot - p * k
    pl = s.plane.take(slot)
    on_bound = np.abs(pl - bounds.reshape(6).take(_SIDES.side_col).take(p)) <= tol.PLANE_EPS
    kind = _SIDES.kind[p, layers.take(box), on_bound.view(np.int8)]
    f = slot.shape[0]
    lanes = np.concatenate((quad, pl[:, None]), axis=1)  # (F, 5) [v0, v1, w0, w1, plane]
    verts = lanes.take(_SIDES.quad_lane.take(p, axis=0) + 5 * np.arange(f)[:, None]).reshape(f, 4, 3)
    return FaceSet(readonly(verts), readonly(_SIDES.normal.take(p, axis=0)), readonly(kind), readonly(box))


def subtract_coverers(rects: np.ndarray, crow: np.ndarray, crects: np.ndarray) -> ExposedPieces:
    """Exposed parts of box sides: each side's rectangle minus its coverers'.

    rects : (P, 4) float ``[v0, v1, w0, w1]``, the partly covered sides (in-plane axes).
    crow : (m,) int, index into ``rects`` of each (side, coverer) pair, ascending.
    crects : (m, 4) float, the coverer's rectangle of each pair; the coverers of
        one side are disjoint rectangles.
    Returns :class:`ExposedPieces`: the exposed pieces, ordered by ``(row, w0, v0)``; pieces
    of area <= ``MIN_FACE_AREA`` are dropped.  A side's coverers are subtracted one after the other, in their order in
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
    out: list[list[float]] = []
    count = []
    start = 0
    for rect, end in zip(rects.tolist(), ends):
        pcs = _side_pieces(rect, cov[start:end])
        start = end
        out += pcs
        count.append(len(pcs))
    row = np.repeat(np.arange(n_side), count)
    pieces = np.array(out, dtype=float).reshape(-1, 4)
    keep = (pieces[:, 1] - pieces[:, 0]) * (pieces[:, 3] - pieces[:, 2]) > tol.MIN_FACE_AREA
    pieces, row = pieces.compress(keep, axis=0), row.compress(keep)
    order = np.lexsort((pieces[:, 0], pieces[:, 2], row))
    return ExposedPieces(row.take(order), pieces.take(order, axis=0))


def _side_pieces(rect: list[float], coverers: list[list[float]]) -> list[list[float]]:
    """One side's rectangle ``[v0, v1, w0, w1]`` less its coverers, one after the other (see
    :func:`subtract_coverers`).  Exact comparisons: pieces thinner than PLANE_EPS are real
    geometry (a tiny margin)."""
    pcs = [rect]
    for c0, c1, c2, c3 in coverers:
        keep, cut = [], []
        for p in pcs:
            p0, p1, p2, p3 = p
            # picks as np.maximum / np.minimum make them (the same on signed-zero ties), faster than max()
            v0 = p0 if p0 > c0 else c0
            v1 = p1 if p1 < c1 else c1
            if v1 - v0 > 0.0 and (p3 if p3 < c3 else c3) - (p2 if p2 > c2 else c2) > 0.0:
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
    return pcs
