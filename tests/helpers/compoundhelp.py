"""Shared by the method-B tests: the test crate, strikers, and the simple measures the strikes
are checked with (per-box point coverage, a slab test for segments, union areas on a grid, a
face's plane and rectangle, the B3 region as the spec words it, the tunnels through a layer)."""

from __future__ import annotations

import hashlib

import numpy as np

from game.collision import tolerances as tol
from game.collision.compound import FILL, INNER, Compound

CRATE = np.array([[0.0, 0.0, 0.0], [1.0, 0.8, 1.2]])


T = 0.1


def fresh() -> Compound:
    return Compound.from_box(CRATE, T)


def covered(boxes: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """(N,) bool: point inside (closed) some box.  Per-box loop reference."""
    out = np.zeros(len(pts), dtype=bool)
    for b in boxes:
        out |= ((pts >= b[0]) & (pts <= b[1])).all(axis=1)
    return out


def in_shell(pts: np.ndarray, crate=CRATE, t=T) -> np.ndarray:
    inside = ((pts >= crate[0]) & (pts <= crate[1])).all(axis=1)
    hollow = ((pts > crate[0] + t) & (pts < crate[1] - t)).all(axis=1)
    return inside & ~hollow


def segment_hits_box(p0, p1, box) -> bool:
    """Slab test: does segment p0->p1 meet the open interior of box?"""
    d = p1 - p0
    t0, t1 = 0.0, 1.0
    for ax in range(3):
        if abs(d[ax]) < 1e-15:
            if not (box[0, ax] < p0[ax] < box[1, ax]):
                return False
            continue
        a = (box[0, ax] - p0[ax]) / d[ax]
        b = (box[1, ax] - p0[ax]) / d[ax]
        t0, t1 = max(t0, min(a, b)), min(t1, max(a, b))
    return t1 > t0


def segment_hits(boxes, p0, p1) -> bool:
    return any(segment_hits_box(np.asarray(p0, float), np.asarray(p1, float), b) for b in boxes)


def strictly_overlaps(boxes: np.ndarray, box: np.ndarray, eps: float = 1e-9) -> np.ndarray:
    ext = np.minimum(boxes[:, 1], box[1]) - np.maximum(boxes[:, 0], box[0])
    return (ext > eps).all(axis=1)


def face_plane_rect(face):
    """(axis, plane, rect (2, 3)) of an axis-aligned Face."""
    axis = int(np.flatnonzero(face.normal)[0])
    v = face.vertices
    return axis, float(v[0, axis]), np.stack((v.min(axis=0), v.max(axis=0)))


def region_reference(striker, margin, face_box, axis):
    """B3 reference: footprint on the two tangent axes grown by margin, clipped to the face."""
    r = face_box.copy()
    for ax in range(3):
        if ax == axis:
            continue
        r[0, ax] = max(striker[0, ax] - margin, face_box[0, ax])
        r[1, ax] = min(striker[1, ax] + margin, face_box[1, ax])
    return r


def rect_area(r, axis):
    ext = r[1] - r[0]
    return float(np.prod([ext[a] for a in range(3) if a != axis]))


def union_area(rects, axis):
    """Area of the union of boxes ``rects`` on the two axes other than ``axis`` (a grid of
    their edges, each cell counted once)."""
    u, v = [a for a in range(3) if a != axis]
    rects = [r for r in rects if r[1, u] > r[0, u] and r[1, v] > r[0, v]]
    if not rects:
        return 0.0
    xs = np.unique(np.concatenate([r[:, u] for r in rects]))
    ys = np.unique(np.concatenate([r[:, v] for r in rects]))
    cx, cy = 0.5 * (xs[1:] + xs[:-1]), 0.5 * (ys[1:] + ys[:-1])
    inside = np.zeros((len(cx), len(cy)), dtype=bool)
    for r in rects:
        inside |= ((cx > r[0, u]) & (cx < r[1, u]))[:, None] & ((cy > r[0, v]) & (cy < r[1, v]))[None, :]
    return float((np.diff(xs)[:, None] * np.diff(ys)[None, :])[inside].sum())


def tunnels_through(result, lay, before, lay_before, slab):
    """B3: the tunnels of a strike ``result`` that cut layer ``lay`` (slab ``slab``): its own, and
    each other tunnel that reaches into its slab (a neighbouring wall's rim), clipped to the slab
    and with its edges snapped to the layer's edges before the strike."""
    axis = lay // 2
    edges = before[lay_before == lay]
    out = []
    for t_lay, tun in zip(result.layers.tolist(), result.tunnels):
        if t_lay == lay:
            out.append(tun.copy())
        elif (np.minimum(tun[1], slab[1]) - np.maximum(tun[0], slab[0]) > tol.PLANE_EPS).all():
            reg = slab.copy()
            for ax in (a for a in range(3) if a != axis):
                coords = np.concatenate((edges[:, :, ax].ravel(), slab[:, ax]))
                for end, val in ((0, max(tun[0, ax], slab[0, ax])), (1, min(tun[1, ax], slab[1, ax]))):
                    d = np.abs(coords - val)
                    reg[end, ax] = coords[d.argmin()] if d.min() < tol.SNAP_EPS else val
            out.append(reg)
    return out


def front_punch(x0=0.4, y0=0.3, w=0.1, h=0.12, depth=0.05):
    """A striker entering the -z face (z = 0) from outside."""
    return np.array([[x0, y0, -0.2], [x0 + w, y0 + h, depth]])


def fill_cover(faces, g) -> float:
    """Area of the compound's FILL faces lying on fill face ``g`` (same plane and normal)."""
    axis, plane, rect = face_plane_rect(g)
    total = 0.0
    for v, n, k in zip(faces.vertices, faces.normals, faces.kinds):
        if k != FILL or not np.array_equal(n, g.normal) or abs(v[0, axis] - plane) > 1e-12:
            continue
        lo, hi = v.min(axis=0), v.max(axis=0)
        ext = [min(hi[a], rect[1, a]) - max(lo[a], rect[0, a]) for a in range(3) if a != axis]
        total += max(ext[0], 0.0) * max(ext[1], 0.0)
    return total


def assert_inner_faces_within_the_core(c):
    """Every INNER face lies within the hollow core's rectangle (beyond it, it would be a
    wall of a hole: B5, FILL)."""
    f = c.faces
    core = c.bounds + np.array([[c.thickness], [-c.thickness]])
    lo, hi = f.vertices.min(axis=1), f.vertices.max(axis=1)
    tangent = f.normals == 0
    inner = f.kinds == INNER
    assert not (((lo < core[0] - tol.PLANE_EPS) | (hi > core[1] + tol.PLANE_EPS)) & tangent)[inner].any()


def struck_hash() -> str:
    """sha256 of a crate's state bytes after 80 seeded strikes (compared across processes)."""
    rng = np.random.default_rng(12)
    c = Compound.from_box([[0, 0, 0], [1, 0.8, 1.2]], 0.1)
    for _ in range(80):
        p = rng.uniform(-0.1, 1.3, 3)
        h = rng.uniform(0.01, 0.15, 3)
        c.strike([p - h, p + h], margin=0.02)
    return hashlib.sha256(c.state_bytes()).hexdigest()


def fresh_hash() -> str:
    return hashlib.sha256(fresh().state_bytes()).hexdigest()
