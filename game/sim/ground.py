"""The ground ray's distance (C7) without the scene walk: the few triangles under a point.

A fighter's ground ray is vertical, so the only triangles it can hit are those whose x–z
extent holds its x–z point.  :class:`GroundGrid` files every triangle the ray sees (models
above its level; not the ones standing edge-on to it, which it never hits) in the cells of
an x–z grid their padded x–z box overlaps, and answers a cast with the nearest hit among the
few triangles of the point's cell, each tested by the walk's own test
(``raycast.ray_triangle_scalar``) on the same numbers.  That is the nearest hit over every
triangle (the walk's boxes are padded so that it meets every triangle a ray hits), so the
distance is the walk's, bit for bit; only the walk's visit counters, which the debug
overlay shows, are not known: :meth:`Stage.ground_height` walks the ray again for them when
the overlay asks.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence

import numpy as np

from game.collision import CollisionModel, Scene
from game.collision.raycast import ray_triangle_scalar
from game.collision.tolerances import RAY_PARALLEL_EPS

#: x–z size of a grid cell (m): a floor triangle's size, so a cell holds a handful
CELL = 0.5
#: Growth of each triangle's x–z box (m): far more than the ray test's edge tolerance
#: (``RAY_EDGE_EPS`` of a triangle's size) and its rounding
PAD = 1e-6


class GroundGrid:
    """The triangles a downward vertical ray can hit, filed by x–z cell.

    ``x0``, ``z0`` : float, the grid's corner; ``nx``, ``nz`` : int, its cells along x and z;
    ``cells`` : list, per cell (``ix * nz + iz``) the 9-tuples ``(v0, e1, e2)`` of its triangles."""

    def __init__(self, models: Sequence[CollisionModel]) -> None:
        """File the triangles of ``models`` (a scene's models above the ray's level, C9)."""
        parts = [np.zeros((0, 9))]
        for model in models:
            t = model.tree
            parts.append(np.concatenate([t.v0, t.e1, t.e2], axis=1)[np.asarray(t.slot_tri) >= 0])
        rows = np.concatenate(parts)
        rows = rows[np.abs(_det_down(rows.T)) >= RAY_PARALLEL_EPS]       # (T, 9): v0, e1, e2
        xs = rows[:, [0, 0, 0]] + np.concatenate([np.zeros((len(rows), 1)), rows[:, [3, 6]]], axis=1)
        zs = rows[:, [2, 2, 2]] + np.concatenate([np.zeros((len(rows), 1)), rows[:, [5, 8]]], axis=1)
        lo = np.stack([xs.min(axis=1), zs.min(axis=1)], axis=1) - PAD        # (T, 2): x-z box, grown
        hi = np.stack([xs.max(axis=1), zs.max(axis=1)], axis=1) + PAD
        corner = lo.min(axis=0) if len(rows) else np.zeros(2)
        self.x0: float = float(corner[0])
        self.z0: float = float(corner[1])
        # cells as distance() finds them: floor((v - corner) / CELL), the same operations
        first = np.floor((lo - corner) / CELL).astype(np.int64)
        last = np.floor((hi - corner) / CELL).astype(np.int64)
        size = (last.max(axis=0) + 1).tolist() if len(rows) else [1, 1]
        self.nx: int = size[0]
        self.nz: int = size[1]
        self.cells: list[list[tuple[float, ...]]] = [[] for _ in range(self.nx * self.nz)]
        for tri, (ix0, iz0), (ix1, iz1) in zip(map(tuple, rows.tolist()), first.tolist(), last.tolist()):
            for ix in range(ix0, ix1 + 1):
                for iz in range(iz0, iz1 + 1):
                    self.cells[ix * self.nz + iz].append(tri)

    def distance(self, x: float, top: float, z: float, max_distance: float) -> float | None:
        """``Scene.cast_nearest_distance((x, top, z), (0, -1, 0), max_distance, level)``: the
        nearest hit's distance, or None."""
        if not (self.x0 <= x and self.z0 <= z):
            return None
        ix, iz = int(math.floor((x - self.x0) / CELL)), int(math.floor((z - self.z0) / CELL))
        if ix >= self.nx or iz >= self.nz:
            return None
        best, hit = max_distance, False
        for tri in self.cells[ix * self.nz + iz]:
            t = ray_triangle_scalar(x, top, z, 0.0, -1.0, 0.0, tri, best)
            if t != math.inf:
                best, hit = t, True
        return best if hit else None


#: The grids made so far, by the identities of the models they file (and the level): each
#: entry keeps its models, so no other model takes their ids.  Every match's stage shares
#: the arena's models (a crate's strike replaces only that crate's, which the ray never sees).
_GRIDS: dict[tuple[int, ...], tuple[tuple[CollisionModel, ...], GroundGrid]] = {}
#: entries :data:`_GRIDS` holds at most
GRIDS_KEPT = 8


def ground_grid(scene: Scene, level: int) -> GroundGrid:
    """The :class:`GroundGrid` of ``scene``'s models above ``level`` as they are now, made
    once for the same models."""
    seen = tuple(m for m in scene.models if m.level > level)
    key = (level, *map(id, seen))
    hit = _GRIDS.get(key)
    if hit is not None and all(map(operator.is_, hit[0], seen)):
        return hit[1]
    if len(_GRIDS) >= GRIDS_KEPT:
        _GRIDS.clear()
    grid = GroundGrid(seen)
    _GRIDS[key] = (seen, grid)
    return grid


def _det_down(tri: np.ndarray) -> np.ndarray:
    """The ray test's determinant for the direction ``(0, -1, 0)`` of triangles ``(9, T)``, as
    ``ray_triangle_scalar`` computes it: zero (below ``RAY_PARALLEL_EPS``) for a triangle
    edge-on to a vertical ray, which the test never hits."""
    _, _, _, ax, ay, az, bx, by, bz = tri
    dx, dy, dz = 0.0, -1.0, 0.0
    px = dy * bz - dz * by
    py = dz * bx - dx * bz
    pz = dx * by - dy * bx
    return ax * px + ay * py + az * pz
