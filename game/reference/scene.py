"""Reference oracle for method C ray casts (``game.collision.scene``): every ray against every
triangle of every model.

A plain numpy Möller–Trumbore written here (no quadtree, no AABB tree, no code from
``game.collision.raycast``), with the documented conventions: unit direction (scaled by its
largest |component| first, then normalised), distance in ``[0, max_distance]``, two-sided
triangles, ``|det| < RAY_PARALLEL_EPS`` misses, closed triangles inflated by
``RAY_EDGE_EPS`` in barycentric coordinates, C9 levels (a model is hit only if its level is
above the ray's), ties broken by the lowest (model, triangle).  The tests compare every cast
with :func:`brute_nearest`; the ``scene`` benchmark checks and times its casts against it.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Sequence

import numpy as np

from game.collision.scene import CollisionModel
from game.collision.tolerances import RAY_EDGE_EPS, RAY_PARALLEL_EPS

__all__ = ["BruteHits", "brute_distances", "brute_nearest"]

#: Ray-triangle pairs per chunk of :func:`brute_nearest` (bounds its temporaries' memory).
CHUNK_PAIRS = 1_000_000


class BruteHits(NamedTuple):
    """The nearest hit of each ray; a miss is ``inf`` / -1 / -1."""

    distance: np.ndarray    # (n,) float, world units along the unit direction
    model: np.ndarray       # (n,) int, the model's index in the list given
    triangle: np.ndarray    # (n,) int, the triangle's index in that model


def _unit(directions: Any) -> np.ndarray:
    """(n, 3) float: the directions scaled by their largest |component|, then normalised."""
    d = np.asarray(directions, dtype=np.float64).reshape(-1, 3)
    d = d / np.abs(d).max(axis=1)[:, None]
    n = np.sqrt(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1] + d[:, 2] * d[:, 2])
    return d / n[:, None]


def _columns(models: Sequence[CollisionModel],
             level: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Every triangle of the models a ray of ``level`` can hit (C9): world triangles (T, 3, 3),
    and the model and triangle index of each; None if there are none."""
    cols_m, cols_t, tris = [], [], []
    for i, m in enumerate(models):
        if level is not None and not m.level > level:
            continue
        w = m.world_triangles
        tris.append(w)
        cols_m.append(np.full(len(w), i))
        cols_t.append(np.arange(len(w)))
    if not tris:
        return None
    return np.concatenate(tris), np.concatenate(cols_m), np.concatenate(cols_t)


def _distances(o: np.ndarray, d: np.ndarray, w: np.ndarray, max_distance: float) -> np.ndarray:
    """(rays, triangles) hit distances (inf = miss) of rays ``o, d`` (n, 3) and triangles ``w`` (T, 3, 3)."""
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
    return np.where(ok, t, np.inf)


def brute_distances(models: Sequence[CollisionModel], origins: Any, directions: Any, max_distance: float,
                    level: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (rays, all triangles) distance matrix (inf = miss), and the model and triangle index
    of each column.

    origins, directions : (n, 3) float; a model is hit only if ``level`` is None or its level is
    above ``level`` (C9).  Returns ``(dist (n, T) float, model (T,) int, triangle (T,) int)``.
    """
    o = np.asarray(origins, dtype=np.float64).reshape(-1, 3)
    cols = _columns(models, level)
    if cols is None:
        return np.full((len(o), 0), np.inf), np.zeros(0, int), np.zeros(0, int)
    w, cm, ct = cols
    return _distances(o, _unit(directions), w, max_distance), cm, ct


def brute_nearest(models: Sequence[CollisionModel], origins: Any, directions: Any, max_distance: float,
                  level: int | None = None) -> BruteHits:
    """C7 by brute force: the nearest hit of each ray (see the module docstring), the rays
    taken in chunks of at most :data:`CHUNK_PAIRS` ray-triangle pairs.

    origins, directions : (n, 3) float.  Returns :class:`BruteHits`.
    """
    o = np.asarray(origins, dtype=np.float64).reshape(-1, 3)
    n = o.shape[0]
    cols = _columns(models, level)
    if cols is None:
        return BruteHits(np.full(n, np.inf), np.full(n, -1), np.full(n, -1))
    w, cm, ct = cols
    d = _unit(directions)
    best = np.full(n, np.inf)
    j = np.zeros(n, dtype=np.intp)
    per = max(1, CHUNK_PAIRS // len(w))
    for a in range(0, n, per):
        dist = _distances(o[a:a + per], d[a:a + per], w, max_distance)
        j[a:a + per] = np.argmin(dist, axis=1)  # first minimum = lowest (model, triangle)
        best[a:a + per] = dist[np.arange(dist.shape[0]), j[a:a + per]]
    miss = np.isinf(best)
    return BruteHits(best, np.where(miss, -1, cm[j]), np.where(miss, -1, ct[j]))
