"""Brute-force reference for method C ray casts, and checks of the reference itself.

The reference tests every ray against every triangle of every model with a
plain numpy Möller–Trumbore written here (no quadtree, no AABB tree, no code
from ``game.collision.raycast``).  It uses the documented conventions:
unit direction, distance in ``[0, max_distance]``, two-sided triangles,
``|det| < RAY_PARALLEL_EPS`` misses, closed triangles inflated by
``RAY_EDGE_EPS`` in barycentric coordinates, ties broken by the lowest
(model, triangle).  Other scene tests import :func:`brute_nearest`.
"""

from __future__ import annotations

import numpy as np
import pytest

from game.collision import CollisionModel
from game.collision.tolerances import RAY_EDGE_EPS, RAY_PARALLEL_EPS


def _unit(directions):
    d = np.asarray(directions, dtype=np.float64).reshape(-1, 3)
    d = d / np.abs(d).max(axis=1)[:, None]  # documented normalisation: scale by max |component| first
    n = np.sqrt(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1] + d[:, 2] * d[:, 2])
    return d / n[:, None]


def brute_distances(models, origins, directions, max_distance, level=None):
    """(rays, all triangles) distance matrix (inf = miss), plus model and triangle id of each column."""
    o = np.asarray(origins, dtype=np.float64).reshape(-1, 3)
    d = _unit(directions)
    cols_m, cols_t, tris = [], [], []
    for i, m in enumerate(models):
        if level is not None and not m.level > level:
            continue
        w = m.world_triangles
        tris.append(w)
        cols_m.append(np.full(len(w), i))
        cols_t.append(np.arange(len(w)))
    if not tris:
        return np.full((len(o), 0), np.inf), np.zeros(0, int), np.zeros(0, int)
    w = np.concatenate(tris)
    v0 = w[None, :, 0]
    a = (w[:, 1] - w[:, 0])[None]
    b = (w[:, 2] - w[:, 0])[None]
    dx, dy, dz = (d[:, k:k + 1] for k in range(3))
    px = dy * b[..., 2] - dz * b[..., 1]
    py = dz * b[..., 0] - dx * b[..., 2]
    pz = dx * b[..., 1] - dy * b[..., 0]
    det = a[..., 0] * px + a[..., 1] * py + a[..., 2] * pz
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        inv = 1.0 / det
        sx = o[:, 0:1] - v0[..., 0]
        sy = o[:, 1:2] - v0[..., 1]
        sz = o[:, 2:3] - v0[..., 2]
        u = (sx * px + sy * py + sz * pz) * inv
        qx = sy * a[..., 2] - sz * a[..., 1]
        qy = sz * a[..., 0] - sx * a[..., 2]
        qz = sx * a[..., 1] - sy * a[..., 0]
        v = (dx * qx + dy * qy + dz * qz) * inv
        t = (b[..., 0] * qx + b[..., 1] * qy + b[..., 2] * qz) * inv
        ok = ((np.abs(det) >= RAY_PARALLEL_EPS) & (u >= -RAY_EDGE_EPS) & (v >= -RAY_EDGE_EPS)
              & (u + v <= 1.0 + RAY_EDGE_EPS) & (t >= 0.0) & (t <= max_distance))
    return np.where(ok, t, np.inf), np.concatenate(cols_m), np.concatenate(cols_t)


def brute_nearest(models, origins, directions, max_distance, level=None):
    """(distance (n,), model (n,), triangle (n,)) of the nearest hit; inf / -1 for a miss."""
    dist, cm, ct = brute_distances(models, origins, directions, max_distance, level)
    n = dist.shape[0]
    if dist.shape[1] == 0:
        return np.full(n, np.inf), np.full(n, -1), np.full(n, -1)
    j = np.argmin(dist, axis=1)  # first minimum = lowest (model, triangle)
    best = dist[np.arange(n), j]
    miss = np.isinf(best)
    return best, np.where(miss, -1, cm[j]), np.where(miss, -1, ct[j])


def test_C6_reference_hits_known_triangle_at_known_distance():
    tri = CollisionModel([[[0, 0, 0], [2, 0, 0], [0, 0, 2]]], 0)
    dist, model, t = brute_nearest([tri], [[0.5, 3.0, 0.5], [0.5, 3.0, 0.5], [5, 3, 5]],
                                   [[0, -2, 0], [0, 1, 0], [0, -1, 0]], 10.0)
    assert dist[0] == pytest.approx(3.0) and model[0] == 0 and t[0] == 0
    assert np.isinf(dist[1]) and np.isinf(dist[2]) and model[1] == -1
    # max distance is inclusive and in world units whatever |direction|
    assert np.isfinite(brute_nearest([tri], [[0.5, 3, 0.5]], [[0, -7, 0]], 3.0)[0][0])
    assert np.isinf(brute_nearest([tri], [[0.5, 3, 0.5]], [[0, -7, 0]], 2.999)[0][0])


def test_C9_reference_levels_filter_models():
    low = CollisionModel([[[0, 0, 0], [2, 0, 0], [0, 0, 2]]], 0)
    high = CollisionModel([[[0, -1, 0], [2, -1, 0], [0, -1, 2]]], 2)
    o, d = [[0.5, 3, 0.5]], [[0, -1, 0]]
    assert brute_nearest([low, high], o, d, 10)[1][0] == 0
    assert brute_nearest([low, high], o, d, 10, level=0)[1][0] == 1
    assert brute_nearest([low, high], o, d, 10, level=2)[1][0] == -1
