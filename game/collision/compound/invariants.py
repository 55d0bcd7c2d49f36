"""Method B, B9: the invariants a compound keeps after any number of strikes, and the box bound.

``Compound.validate`` checks them: shapes and dtypes; finite coordinates; every extent >=
``MIN_BOX_EXTENT``; every box inside its layer's slab and spanning the slab's whole
thickness; no two boxes overlapping with positive volume; no two boxes of a layer whose
union is exactly a box (i.e. merged); count <= :func:`max_boxes`.
"""

from __future__ import annotations

import numpy as np

from .. import tolerances as tol
from .layout import TANGENTS, InvalidCompound

__all__ = ["check_invariants", "max_boxes"]


def check_invariants(boxes: np.ndarray, layers: np.ndarray, slabs: np.ndarray) -> None:
    """Raise :class:`InvalidCompound` if a B9 invariant is broken.

    boxes : (K, 2, 3) float, layers : (K,) int8, slabs : (6, 2, 3) float (the wall slabs).
    """
    _check_arrays(boxes, layers)
    _check_in_slabs(boxes, layers, slabs)
    # Boxes lie inside their slabs and the six slabs are disjoint, so duplicates
    # and mergeable pairs can only occur within one layer: check pairwise per layer.
    sov = np.minimum(slabs[:, None, 1], slabs[None, :, 1]) - np.maximum(slabs[:, None, 0], slabs[None, :, 0])
    if ((sov > tol.PLANE_EPS).all(axis=-1) & ~np.eye(6, dtype=bool)).any():
        raise InvalidCompound("the six wall slabs overlap")
    for layer in range(6):
        _check_layer_pairs(boxes, np.flatnonzero(layers == layer))
    bound = max_boxes(boxes, layers)
    if boxes.shape[0] > bound:
        raise InvalidCompound(f"{boxes.shape[0]} boxes > bound {bound}")


def _check_arrays(b: np.ndarray, lay: np.ndarray) -> None:
    """Shapes, layout, finite values, layer ids and extents."""
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


def _check_in_slabs(b: np.ndarray, lay: np.ndarray, slabs: np.ndarray) -> None:
    """Every box inside its layer's slab and spanning the slab's whole thickness."""
    sl = slabs[lay.astype(np.int64)]
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


def _check_layer_pairs(b: np.ndarray, idx: np.ndarray) -> None:
    """No duplicates (positive-volume overlaps) and no mergeable pairs among boxes ``b[idx]``."""
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


def max_boxes(boxes: np.ndarray, layers: np.ndarray) -> int:
    """Upper bound on the box count (B9) of boxes ``(K, 2, 3)`` float with layers ``(K,)``.

    Every box edge of a layer lies on one of the distinct coordinates its boxes use (``nu``
    and ``nv`` of them on the two tangent axes), and the merged row decomposition is made of
    whole grid cells, so a layer holds at most ``(nu - 1) * (nv - 1)`` boxes.  Distinct
    coordinates of a layer are at least ``MIN_BOX_EXTENT`` apart (new cuts snap to edges
    within ``SNAP_EPS``), so the bound is finite for any number of strikes.
    """
    total = 0
    for lay in range(6):
        lb = boxes[layers == lay]
        if lb.shape[0] == 0:
            continue
        u, v = TANGENTS[lay // 2]
        nu = np.unique(lb[:, :, u]).shape[0]
        nv = np.unique(lb[:, :, v]).shape[0]
        total += (nu - 1) * (nv - 1)
    return total
