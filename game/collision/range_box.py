"""Method A: range boxes, judgement points, overlap verdict and collision point.

A *range box* is an axis-aligned box stored as its minimum and maximum
endpoints (A1).  Every function here takes boxes shaped ``(..., 2, D)``
(``[min, max]`` along axis -2, pyrr's convention) with ``D`` = 2 or 3 (A5),
and broadcasts over the leading axes, so an N x M check is
``overlaps(a[:, None], b[None, :])``: one call, no Python loop.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "judgement_points",
    "verdict",
    "overlaps",
    "padded_boxes",
    "pair_index",
    "all_pairs_index",
    "overlaps_pairs",
    "PAD_LANES",
    "collision_point",
    "range_box_of",
    "endpoints_by_coordinate_sum",
    "box_from_center_half",
    "box_from_sphere",
    "box_centers",
    "box_diagonals",
    "box_triangles",
]

# Corner index = 4*ix + 2*iy + iz (i = 0 for min, 1 for max); two triangles per face,
# counter-clockwise seen from outside.
_BOX_TRI_CORNERS = np.array([
    (0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5),      # -x, +x
    (0, 4, 5), (0, 5, 1), (2, 3, 7), (2, 7, 6),      # -y, +y
    (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3),      # -z, +z
])
_CORNER_PICK = np.array([[(i >> 2) & 1, (i >> 1) & 1, i & 1] for i in range(8)])   # (8, 3): 0 = min, 1 = max


def _floats(x, name: str) -> np.ndarray:
    """``x`` as a float array, or ValueError naming ``name`` (never numpy's own message)."""
    try:
        return np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected an array of numbers, got {x!r:.80}") from None


def _boxes(x, name: str) -> np.ndarray:
    """Return ``x`` as a float array shaped ``(..., 2, D)`` or raise ValueError."""
    arr = _floats(x, name)
    if arr.ndim < 2 or arr.shape[-2] != 2 or arr.shape[-1] not in (2, 3):
        raise ValueError(
            f"{name}: expected boxes shaped (..., 2, D) with D = 2 or 3 "
            f"([min, max] rows), got shape {arr.shape}"
        )
    return arr


def _box_pair(a, b) -> tuple[np.ndarray, np.ndarray]:
    """Both arguments of a pairwise function as boxes of the same D.

    Whether their leading axes broadcast is left to the ufunc that pairs them
    (checking first costs more than the check itself): callers catch numpy's
    broadcast error there and raise :func:`_pair_error` instead.
    """
    a = _boxes(a, "a")
    b = _boxes(b, "b")
    if a.shape[-1] != b.shape[-1]:
        raise _pair_error(a, b)
    return a, b


def _pair_error(a: np.ndarray, b: np.ndarray) -> ValueError:
    return ValueError(
        f"a, b: boxes of shapes {a.shape} and {b.shape} do not pair up; both need the same D "
        f"and leading axes that broadcast (e.g. a[:, None] against b[None, :] for N x M)"
    )


def _broadcasts(sa: tuple, sb: tuple) -> bool:
    """True iff shapes ``sa`` and ``sb`` broadcast together."""
    try:
        np.broadcast_shapes(sa, sb)
    except ValueError:
        return False
    return True


def _points(x, name: str) -> np.ndarray:
    """Return ``x`` as a float array shaped ``(..., P, D)``, P >= 1, D = 2 or 3, or raise ValueError."""
    pts = _floats(x, name)
    if pts.ndim < 2 or pts.shape[-2] < 1 or pts.shape[-1] not in (2, 3):
        raise ValueError(f"{name}: expected shape (..., P, D) with P >= 1 and D = 2 or 3, got {pts.shape}")
    return pts


def judgement_points(a, b) -> tuple[np.ndarray, np.ndarray]:
    """A2, A3: the two judgement points of box pairs.

    Parameters
    ----------
    a, b : (..., 2, D) float
        Range boxes; leading axes broadcast.

    Returns
    -------
    j1 : (..., D) float
        A2, per-axis larger of the two *min* endpoints.
    j2 : (..., D) float
        A3, per-axis smaller of the two *max* endpoints.
    """
    a, b = _box_pair(a, b)
    try:
        return np.maximum(a[..., 0, :], b[..., 0, :]), np.minimum(a[..., 1, :], b[..., 1, :])
    except ValueError:
        raise _pair_error(a, b) from None


def verdict(j1: np.ndarray, j2: np.ndarray) -> np.ndarray:
    """A4 on judgement points already computed: ``(..., D), (..., D) -> (...,) bool``.

    Collision iff ``j2 >= j1`` on every axis; touching counts as collision.
    Callers that also need ``[j1, j2]`` (the overlap box) use this instead of
    calling :func:`overlaps` and :func:`judgement_points` twice.
    """
    return (j2 >= j1).all(axis=-1)


def overlaps(a, b) -> np.ndarray:
    """A2-A4: collision iff ``j2 >= j1`` on every axis (touching counts).

    Parameters
    ----------
    a, b : (..., 2, D) float

    Returns
    -------
    (...,) bool, the broadcast shape of the leading axes.
    """
    return verdict(*judgement_points(a, b))


#: Lanes of a padded box row (:func:`padded_boxes`): the D coordinates, then pad lanes.
PAD_LANES = 4
#: (2, 1): the pad lanes of the min and the max endpoint, which pass every A4 test (-inf <= inf).
PAD_VALUES = np.array([[-np.inf], [np.inf]])


def padded_boxes(boxes) -> np.ndarray:
    """A1 storage for pair lists: boxes ``(..., 2, D)`` -> ``(..., 2, 4)`` float.

    Each endpoint keeps its D coordinates in lanes ``0 .. D-1``; the other lanes
    hold ``-inf`` (min endpoint) and ``+inf`` (max endpoint), which pass the
    verdict on every pair, so D = 2 and D = 3 share one layout and a pair's four
    per-axis verdicts are four contiguous bytes.  ``padded.reshape(-1, 4)`` are the
    *rows* of :func:`overlaps_pairs`: box ``i``'s min endpoint is row ``2 i``, its
    max endpoint row ``2 i + 1``.  The match keeps one such array and copies each
    frame's limb boxes into its coordinate lanes before its first check.
    """
    b = _boxes(boxes, "boxes")
    out = np.empty(b.shape[:-1] + (PAD_LANES,))
    out[...] = PAD_VALUES
    out[..., :b.shape[-1]] = b
    return out


def pair_index(a, b) -> np.ndarray:
    """Gather rows for :func:`overlaps_pairs` from a list of box pairs.

    Parameters
    ----------
    a, b : (P,) int
        Box numbers (into ``padded.reshape(-1, 2, 4)``) of each pair's two boxes.

    Returns
    -------
    (4, P) intp: the rows of ``a``'s min and max endpoints, then ``b``'s.
    """
    a = np.asarray(a, dtype=np.intp).reshape(-1)
    b = np.asarray(b, dtype=np.intp).reshape(-1)
    if a.shape != b.shape:
        raise ValueError(f"a, b: one box number per pair on each side, got {a.size} and {b.size}")
    if a.size and min(a.min(), b.min()) < 0:
        raise ValueError("a, b: box numbers must be >= 0 (a negative one would wrap to the last boxes)")
    return np.stack((2 * a, 2 * a + 1, 2 * b, 2 * b + 1))


def all_pairs_index(n: int, m: int) -> np.ndarray:
    """:func:`pair_index` of every pair (box ``i`` of the first ``n``, box ``n + j`` of
    the next ``m``), row-major: pair ``i * m + j``.  ``(4, n m)`` intp."""
    return pair_index(np.repeat(np.arange(n), m), n + np.tile(np.arange(m), n))


def overlaps_pairs(rows: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A2-A4 for a list of box pairs: one gather and four ufunc calls, all on contiguous rows.

    Parameters
    ----------
    rows : (R, 4) float
        Padded boxes (:func:`padded_boxes`) flattened, ``padded.reshape(-1, 4)``.
    index : (4, P) intp
        From :func:`pair_index` or :func:`all_pairs_index`.

    Returns
    -------
    ok : (P,) bool
        A4, the same verdict as :func:`overlaps` on each pair (touching counts; boxes
        with NaN coordinates are not boxes, and the two may differ on them).
    j1, j2 : (P, 4) float
        A2 and A3, the judgement points (lanes ``>= D`` are pad): a colliding pair's
        overlap box is ``[j1, j2]`` without a second call.

    One ``take`` lays out the pairs' endpoints as four contiguous blocks (a.min,
    a.max, b.min, b.max); numpy's per-call cost, not the arithmetic, dominates at
    these sizes, and a contiguous operand costs a quarter of a broadcast one.
    """
    if type(rows) is not np.ndarray or rows.ndim != 2 or rows.shape[1] != PAD_LANES:
        raise ValueError(f"rows: expected padded_boxes(...).reshape(-1, {PAD_LANES}) rows, got "
                         f"{getattr(rows, 'shape', type(rows).__name__)}")
    if type(index) is not np.ndarray or index.ndim != 2 or len(index) != 4:
        raise ValueError(f"index: expected (4, P) row numbers from pair_index(), got "
                         f"{getattr(index, 'shape', type(index).__name__)}")
    try:
        t = rows.take(index, axis=0)                  # (4, P, 4): a.min, a.max, b.min, b.max
    except (IndexError, TypeError):
        raise ValueError(f"index: row numbers must be integers below {len(rows)} (2 per box of rows); "
                         f"build them with pair_index()") from None
    j1 = np.maximum(t[0], t[2])                       # A2: the larger min endpoint, per axis
    j2 = np.minimum(t[1], t[3])                       # A3: the smaller max endpoint, per axis
    apart = np.less(j2, j1)                           # A4: some coordinate of j2 below j1's ...
    return np.logical_not(apart.view(np.uint32).ravel()), j1, j2   # ... on any axis (4 bytes read as one uint32)


def box_centers(boxes) -> np.ndarray:
    """A7 centres: centroids ``(..., D)`` float of boxes ``(..., 2, D)`` float."""
    boxes = _boxes(boxes, "boxes")
    return 0.5 * (boxes[..., 0, :] + boxes[..., 1, :])


def box_diagonals(boxes) -> np.ndarray:
    """A7 characteristic value: the longest diagonal length ``(...,)`` of each box.

    For an axis-aligned box every space diagonal has the same length,
    ``|max - min|``, which is also the longest.
    """
    boxes = _boxes(boxes, "boxes")
    ext = boxes[..., 1, :] - boxes[..., 0, :]
    return np.sqrt((ext * ext).sum(axis=-1))


def collision_point(a, b) -> np.ndarray:
    """A7: split the centre-to-centre segment in the ratio of the diagonals.

    ``p = c1 + (c2 - c1) * d1 / (d1 + d2)``, where ``c`` is a box's centroid
    and ``d`` its longest diagonal.  When ``d1 + d2 == 0`` (two point boxes)
    the midpoint is used instead of dividing by zero.

    Parameters
    ----------
    a, b : (..., 2, D) float

    Returns
    -------
    (..., D) float
    """
    a, b = _box_pair(a, b)
    if not _broadcasts(a.shape[:-2], b.shape[:-2]):
        raise _pair_error(a, b)
    sa = a[..., 0, :] + a[..., 1, :]            # 2 * c1
    ea = a[..., 1, :] - a[..., 0, :]
    eb = b[..., 1, :] - b[..., 0, :]
    d1 = np.sqrt((ea * ea).sum(axis=-1))
    d2 = np.sqrt((eb * eb).sum(axis=-1))
    total = d1 + d2
    t = np.divide(d1, total, out=np.full(np.shape(total), 0.5), where=total > 0.0)
    half_t = 0.5 * t[..., None]
    return 0.5 * sa + ((b[..., 0, :] + b[..., 1, :]) - sa) * half_t


def range_box_of(points) -> np.ndarray:
    """A6: the min/max endpoints of any point set (e.g. a rotated limb's corners).

    Parameters
    ----------
    points : (..., P, D) float, P >= 1

    Returns
    -------
    (..., 2, D) float

    Reductions along a short axis that is neither innermost nor outermost (``pts.min(axis=-2)``
    on ``(t, 3, 3)``) run numpy's inner loop once per output element and cost 10-30x
    more than the same reduction on a contiguous layout, so the points are laid out first.
    """
    pts = _points(points, "points")
    n_sets = pts.size // (pts.shape[-2] * pts.shape[-1])
    if pts.shape[-2] <= n_sets * pts.shape[-1]:
        # many small sets (triangles, box corners): the point axis outermost, so each
        # min / max is one element-wise pass over contiguous (..., D) blocks
        p = np.ascontiguousarray(np.moveaxis(pts, -2, 0))                  # (P, ..., D)
        return np.stack((np.minimum.reduce(p, axis=0), np.maximum.reduce(p, axis=0)), axis=-2)
    # few large sets (a model's vertices): the point axis innermost and contiguous
    p = np.ascontiguousarray(np.moveaxis(pts, -2, -1))                     # (..., D, P)
    return np.stack((np.minimum.reduce(p, axis=-1), np.maximum.reduce(p, axis=-1)), axis=-2)


def endpoints_by_coordinate_sum(corners) -> np.ndarray:
    """A6 as worded: min endpoint = corner with the smallest coordinate sum,
    max endpoint = corner with the largest.

    Valid for the corners of an *axis-aligned* box, where it agrees with
    :func:`range_box_of`; a rotated box must go through :func:`range_box_of`.

    Parameters
    ----------
    corners : (..., P, D) float, P >= 1

    Returns
    -------
    (..., 2, D) float
    """
    pts = _points(corners, "corners")
    s = pts.sum(axis=-1)
    lo = np.take_along_axis(pts, s.argmin(axis=-1)[..., None, None], axis=-2)
    hi = np.take_along_axis(pts, s.argmax(axis=-1)[..., None, None], axis=-2)
    return np.concatenate((lo, hi), axis=-2)


def box_from_center_half(center, half) -> np.ndarray:
    """A6 conversion: centre ``(..., D)`` + half size ``(..., D)`` -> ``(..., 2, D)``."""
    c = _floats(center, "center")
    h = np.abs(_floats(half, "half"))
    if c.ndim < 1 or c.shape[-1] not in (2, 3) or not _broadcasts(c.shape, h.shape):
        raise ValueError(f"center, half: expected (..., D) arrays with D = 2 or 3 that broadcast, "
                         f"got shapes {c.shape} and {h.shape}")
    return np.stack(np.broadcast_arrays(c - h, c + h), axis=-2)


def box_from_sphere(center, radius) -> np.ndarray:
    """A6/B8 conversion: a sphere's circumscribed cube, ``(..., 2, D)``.

    center : (..., D) float, D = 2 or 3; radius : (...) float (its absolute value is used).
    """
    c = _floats(center, "center")
    r = np.abs(_floats(radius, "radius"))[..., None]
    if c.ndim < 1 or c.shape[-1] not in (2, 3) or not _broadcasts(c.shape, r.shape):
        raise ValueError(f"center, radius: expected center (..., D) with D = 2 or 3 and radius (...) "
                         f"that broadcast, got shapes {c.shape} and {r.shape[:-1]}")
    return np.stack(np.broadcast_arrays(c - r, c + r), axis=-2)


def box_triangles(boxes) -> np.ndarray:
    """The 12 surface triangles of each box: ``(N, 2, 3) -> (N * 12, 3, 3)``.

    Used to give a method-B compound of small boxes to method C as one
    triangle mesh (B7: rays see exactly the union of the small boxes).
    """
    b = _boxes(boxes, "boxes")
    if b.shape[-1] != 3:
        raise ValueError(f"boxes: box_triangles needs 3D boxes, got shape {b.shape}")
    b = b.reshape(-1, 2, 3)
    corners = b[:, _CORNER_PICK, np.arange(3)]          # (N, 8, 3)
    return corners[:, _BOX_TRI_CORNERS].reshape(-1, 3, 3)
