"""Method C ray primitives: ray normalisation, slab tests, Möller–Trumbore (C6).

Pure functions, batched first (trimesh ``ray_triangle`` style: parallel
component arrays narrowed by boolean masks), plus scalar twins used by the
single-ray path.  The scalar and the batched triangle test evaluate the same
IEEE expressions in the same order, so they give bit-identical distances.

Conventions (shared by every caller and by the test reference):

* A ray is ``origin + s * unit(direction)`` for ``0 <= s <= max_distance``;
  distances are world units whatever the length of ``direction``.
* Triangles are two-sided.  A ray (nearly) parallel to a triangle's plane,
  ``|det| < RAY_PARALLEL_EPS``, misses it, even if it lies in the plane.
* Edge convention: triangles are *closed* and inflated by ``RAY_EDGE_EPS`` in
  barycentric coordinates (``u >= -eps``, ``v >= -eps``, ``u + v <= 1 + eps``),
  so a ray through a shared edge or vertex hits every triangle that has it;
  the nearest query then breaks the tie by the lowest (model, triangle).
"""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence

import numpy as np
from numpy.typing import ArrayLike

from .tolerances import INV_DIR_HUGE, RAY_EDGE_EPS, RAY_PARALLEL_EPS

__all__ = [
    "RayBatch",
    "SlabHits",
    "normalize_rays",
    "inverse_directions",
    "ray_triangles",
    "ray_triangle_scalar",
]

_LO = -RAY_EDGE_EPS
_HI = 1.0 + RAY_EDGE_EPS


class RayBatch(NamedTuple):
    """Checked rays (:func:`normalize_rays`)."""

    origins: np.ndarray     # (n, 3) float64, C-contiguous
    directions: np.ndarray  # (n, 3) float64, unit


class SlabHits(NamedTuple):
    """The slab test of rays against boxes (:func:`ray_boxes_cm`)."""

    hit: np.ndarray         # (n,) bool: the ray enters the box within its limit
    tnear: np.ndarray       # (n,) float: the entry distance (0 if the origin is inside)


def normalize_rays(origins: ArrayLike, directions: ArrayLike) -> RayBatch:
    """Check and normalise a batch of rays.

    Parameters
    ----------
    origins, directions : (n, 3) float
        Any non-zero direction length.

    Returns
    -------
    :class:`RayBatch` ``(o, d)``: o (n, 3) float64, d (n, 3) float64 unit directions.

    Raises
    ------
    ValueError
        On a wrong shape, a non-finite value or a zero direction.
    """
    try:
        o = np.asarray(origins, dtype=np.float64)
        d = np.asarray(directions, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("origins/directions: expected (n, 3) arrays of numbers") from None
    if o.ndim != 2 or o.shape[1] != 3:
        raise ValueError(f"origins: expected shape (n, 3), got {o.shape}")
    if d.shape != o.shape:
        raise ValueError(f"directions: expected shape {o.shape} like origins, got {d.shape}")
    if not (np.isfinite(o).all() and np.isfinite(d).all()):
        raise ValueError("origins/directions: contain NaN or inf")
    scale = np.abs(d).max(axis=1) if d.size else np.zeros(0)
    if (scale == 0.0).any():
        bad = int(np.flatnonzero(scale == 0.0)[0])
        raise ValueError(f"directions[{bad}]: zero direction; a ray needs a non-zero direction")
    d = d / scale[:, None]  # largest component becomes +-1: no underflow/overflow in the norm
    dx, dy, dz = d[:, 0], d[:, 1], d[:, 2]
    norm = np.sqrt(dx * dx + dy * dy + dz * dz)
    return RayBatch(np.ascontiguousarray(o), d / norm[:, None])


def inverse_directions(d: np.ndarray) -> np.ndarray:
    """(n, 3) float: ``1 / d`` with zero (and subnormal) components replaced by ``±INV_DIR_HUGE``.

    The stand-in is finite, so slab products never make ``0 * inf = NaN``.
    """
    tiny = np.abs(d) < 1.0 / INV_DIR_HUGE
    with np.errstate(divide="ignore", over="ignore"):
        inv = 1.0 / d
    if tiny.any():
        inv[tiny] = np.copysign(INV_DIR_HUGE, d[tiny])
    return inv


def ray_triangles(o: np.ndarray, d: np.ndarray, v0: np.ndarray, e1: np.ndarray, e2: np.ndarray,
                  limit: float | np.ndarray) -> np.ndarray:
    """Two-sided Möller–Trumbore, one ray per triangle (pairs), batched (C6).

    Parameters
    ----------
    o, d : (p, 3) float
        Ray origin and unit direction of each pair.
    v0, e1, e2 : (p, 3) float
        Triangle first vertex and edges ``v1 - v0``, ``v2 - v0`` of each pair.
    limit : (p,) float or float
        Max distance of each pair.

    Returns
    -------
    t : (p,) float
        Hit distance, ``inf`` where the pair misses (see the module conventions).
    """
    # One kernel: the component-major form on the transposed (view) arrays.
    return ray_triangles_cm(o.T, d.T, np.concatenate((v0.T, e1.T, e2.T)), limit)


def ray_triangle_scalar(ox: float, oy: float, oz: float, dx: float, dy: float, dz: float, tri: Sequence[float],
                        limit: float) -> float:
    """Scalar twin of :func:`ray_triangles` for one ray and one triangle.

    ``tri`` is a 9-sequence ``(v0x, v0y, v0z, e1x, e1y, e1z, e2x, e2y, e2z)``.
    Returns the hit distance or ``math.inf``.  Same expressions, same order.
    """
    vx, vy, vz, ax, ay, az, bx, by, bz = tri
    px = dy * bz - dz * by
    py = dz * bx - dx * bz
    pz = dx * by - dy * bx
    det = ax * px + ay * py + az * pz
    if abs(det) < RAY_PARALLEL_EPS:
        return math.inf
    inv = 1.0 / det
    sx = ox - vx
    sy = oy - vy
    sz = oz - vz
    u = (sx * px + sy * py + sz * pz) * inv
    if u < _LO:
        return math.inf
    qx = sy * az - sz * ay
    qy = sz * ax - sx * az
    qz = sx * ay - sy * ax
    v = (dx * qx + dy * qy + dz * qz) * inv
    if v < _LO or u + v > _HI:
        return math.inf
    t = (bx * qx + by * qy + bz * qz) * inv
    if t < 0.0 or t > limit:
        return math.inf
    return t


# ---- component-major forms used by the batched walker --------------------------------
# Arrays are (k, n): one contiguous row per coordinate, so every numpy call runs
# one long inner loop instead of many length-3 ones.

def ray_boxes_cm(o: np.ndarray, inv: np.ndarray, box: np.ndarray,
                 limit: float | np.ndarray) -> SlabHits:
    """C6 slab test, component-major: ``o, inv`` (3, n) float, ``box`` (6, n) rows
    ``xmin, ymin, zmin, xmax, ymax, zmax``; ``limit`` float or (n,).  Returns :class:`SlabHits` ``(hit, tnear)``."""
    t0 = box[:3] - o
    t1 = box[3:] - o
    with np.errstate(over="ignore"):  # huge inverse components may overflow to +-inf: still ordered
        t0 *= inv
        t1 *= inv
    tmin = np.minimum(t0, t1)
    np.maximum(t0, t1, out=t1)
    tnear = np.maximum(tmin[0], tmin[1])
    np.maximum(tnear, tmin[2], out=tnear)
    np.maximum(tnear, 0.0, out=tnear)
    tfar = np.minimum(t1[0], t1[1])
    np.minimum(tfar, t1[2], out=tfar)
    np.minimum(tfar, limit, out=tfar)
    return SlabHits(tnear <= tfar, tnear)


def ray_triangles_cm(o: np.ndarray, d: np.ndarray, tri: np.ndarray, limit: float | np.ndarray) -> np.ndarray:
    """C6 two-sided Möller–Trumbore, component-major: ``o, d`` (3, n) float, ``tri`` (9, n) rows
    ``v0xyz, e1xyz, e2xyz``.  The kernel behind :func:`ray_triangles`; (n,) t or inf."""
    ox, oy, oz = o
    dx, dy, dz = d
    vx, vy, vz, ax, ay, az, bx, by, bz = tri
    px = dy * bz - dz * by
    py = dz * bx - dx * bz
    pz = dx * by - dy * bx
    det = ax * px + ay * py + az * pz
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        inv = 1.0 / det
        sx = ox - vx
        sy = oy - vy
        sz = oz - vz
        u = (sx * px + sy * py + sz * pz) * inv
        qx = sy * az - sz * ay
        qy = sz * ax - sx * az
        qz = sx * ay - sy * ax
        v = (dx * qx + dy * qy + dz * qz) * inv
        t = (bx * qx + by * qy + bz * qz) * inv
        ok = np.abs(det) >= RAY_PARALLEL_EPS
        ok &= u >= _LO
        ok &= v >= _LO
        u += v
        ok &= u <= _HI
        ok &= t >= 0.0
        ok &= t <= limit
    return np.where(ok, t, np.inf)
