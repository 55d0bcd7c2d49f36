"""Method A: range boxes, judgement points, overlap verdict and collision point.

A *range box* is an axis-aligned box stored as its minimum and maximum
endpoints (A1).  Every function here takes boxes shaped ``(..., 2, D)``
(``[min, max]`` along axis -2, pyrr's convention) with ``D`` = 2 or 3 (A5),
and broadcasts over the leading axes, so an N x M check is
``overlaps(a[:, None], b[None, :])``: one call, no Python loop.
"""

from __future__ import annotations

import math
from typing import Any, Callable, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "JudgementPoints",
    "PairVerdict",
    "judgement_points",
    "verdict",
    "overlaps",
    "padded_boxes",
    "pair_index",
    "all_pairs_index",
    "overlaps_pairs",
    "PairJudge",
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


class JudgementPoints(NamedTuple):
    """A2 and A3 of box pairs: ``[j1, j2]`` is a colliding pair's overlap box."""

    j1: np.ndarray      # (..., D) float, A2: per axis the larger of the two min endpoints
    j2: np.ndarray      # (..., D) float, A3: per axis the smaller of the two max endpoints


class PairVerdict(NamedTuple):
    """A2-A4 on a list of box pairs (:func:`overlaps_pairs`, :class:`PairJudge`)."""

    ok: np.ndarray      # (P,) or the judge's shape, bool: A4, the pair collides (touching counts)
    j1: np.ndarray      # (..., 4) float: A2 (lanes >= D are pad)
    j2: np.ndarray      # (..., 4) float: A3 (lanes >= D are pad)


def _floats(x: ArrayLike, name: str) -> np.ndarray:
    """``x`` as a float array, or ValueError naming ``name`` (never numpy's own message)."""
    try:
        return np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected an array of numbers, got {x!r:.80}") from None


def _boxes(x: ArrayLike, name: str) -> np.ndarray:
    """Return ``x`` as a float array shaped ``(..., 2, D)`` of finite boxes or raise ValueError.

    A2-A4 are defined on finite boxes: a NaN makes every comparison false, so two correct
    forms of the verdict (``j2 >= j1`` on every axis, ``not any(j2 < j1)``) answer differently;
    the public entries refuse it, and infinities with it, instead.
    """
    arr = _floats(x, name)
    if arr.ndim < 2 or arr.shape[-2] != 2 or arr.shape[-1] not in (2, 3):
        raise ValueError(
            f"{name}: expected boxes shaped (..., 2, D) with D = 2 or 3 "
            f"([min, max] rows), got shape {arr.shape}"
        )
    if not np.isfinite(arr).all():
        raise ValueError(f"{name}: box coordinates must be finite numbers, got NaN or infinity in "
                         f"{int(arr.size - np.isfinite(arr).sum())} of {arr.size}")
    return arr


def _box_pair(a: ArrayLike, b: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
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


def _broadcasts(sa: tuple[int, ...], sb: tuple[int, ...]) -> bool:
    """True iff shapes ``sa`` and ``sb`` broadcast together."""
    if sa == sb:                 # the usual case, without numpy's shape machinery
        return True
    try:
        np.broadcast_shapes(sa, sb)
    except ValueError:
        return False
    return True


def _points(x: ArrayLike, name: str) -> np.ndarray:
    """Return ``x`` as a float array shaped ``(..., P, D)``, P >= 1, D = 2 or 3, or raise ValueError."""
    pts = _floats(x, name)
    if pts.ndim < 2 or pts.shape[-2] < 1 or pts.shape[-1] not in (2, 3):
        raise ValueError(f"{name}: expected shape (..., P, D) with P >= 1 and D = 2 or 3, got {pts.shape}")
    return pts


def judgement_points(a: ArrayLike, b: ArrayLike) -> JudgementPoints:
    """A2, A3: the two judgement points of box pairs.

    Parameters
    ----------
    a, b : (..., 2, D) float
        Range boxes; leading axes broadcast.

    Returns
    -------
    :class:`JudgementPoints` ``(j1, j2)``, each (..., D) float: A2, the per-axis larger of
    the two *min* endpoints, and A3, the per-axis smaller of the two *max* endpoints.
    """
    a, b = _box_pair(a, b)
    try:
        return JudgementPoints(np.maximum(a[..., 0, :], b[..., 0, :]), np.minimum(a[..., 1, :], b[..., 1, :]))
    except ValueError:
        raise _pair_error(a, b) from None


def verdict(j1: np.ndarray, j2: np.ndarray) -> np.ndarray | np.bool_:
    """A4 on judgement points already computed: ``(..., D), (..., D) -> (...,) bool``.

    Collision iff ``j2 >= j1`` on every axis; touching counts as collision.
    Callers that also need ``[j1, j2]`` (the overlap box) use this instead of
    calling :func:`overlaps` and :func:`judgement_points` twice.
    """
    return (j2 >= j1).all(axis=-1)


def overlaps(a: ArrayLike, b: ArrayLike) -> np.ndarray | np.bool_:
    """A2-A4: collision iff ``j2 >= j1`` on every axis (touching counts).

    Parameters
    ----------
    a, b : (..., 2, D) float

    Returns
    -------
    (...,) bool, the broadcast shape of the leading axes.
    """
    a, b = _box_pair(a, b)
    try:        # judgement_points, without building its named result
        return verdict(np.maximum(a[..., 0, :], b[..., 0, :]), np.minimum(a[..., 1, :], b[..., 1, :]))
    except ValueError:
        raise _pair_error(a, b) from None


#: Lanes of a padded box row (:func:`padded_boxes`): the D coordinates, then pad lanes.
PAD_LANES = 4
#: (2, 1): the pad lanes of the min and the max endpoint, which pass every A4 test (-inf <= inf).
PAD_VALUES = np.array([[-np.inf], [np.inf]])


def padded_boxes(boxes: ArrayLike) -> np.ndarray:
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


def pair_index(a: ArrayLike, b: ArrayLike) -> np.ndarray:
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


def overlaps_pairs(rows: np.ndarray, index: np.ndarray) -> PairVerdict:
    """A2-A4 for a list of box pairs, once: :class:`PairJudge` made for this call.

    Parameters
    ----------
    rows : (R, 4) float
        Padded boxes (:func:`padded_boxes`) flattened, ``padded.reshape(-1, 4)``.
    index : (4, P) intp
        From :func:`pair_index` or :func:`all_pairs_index`.

    Returns
    -------
    :class:`PairVerdict` ``(ok, j1, j2)``:

    ok : (P,) bool
        A4, the same verdict as :func:`overlaps` on each pair (touching counts).  Rows
        with a NaN are refused (ValueError); infinities cannot be told from pad lanes here
        (any pad that passes A4 will do), and :func:`padded_boxes` refuses infinite boxes
        where they enter this layout.
    j1, j2 : (P, 4) float
        A2 and A3, the judgement points (lanes ``>= D`` are pad): a colliding pair's
        overlap box is ``[j1, j2]`` without a second call.

    All three are read-only.  A check that runs every frame on the same pairs keeps a
    :class:`PairJudge`, which makes its buffers once.
    """
    if type(rows) is not np.ndarray or rows.ndim != 2 or rows.shape[1] != PAD_LANES:
        raise ValueError(f"rows: expected padded_boxes(...).reshape(-1, {PAD_LANES}) rows, got "
                         f"{getattr(rows, 'shape', type(rows).__name__)}")
    return PairJudge(index, len(rows))(rows.astype(np.float64, copy=False))


class PairJudge:
    """A2-A4 on a fixed list of box pairs, over box rows (A1) that change every frame.

    The match's limb check: every (P1 limb, P2 limb) pair, on each frame with an active
    hitting limb, on that frame's range boxes.  One ``take`` lays out the pairs' endpoints as four contiguous blocks
    (a.min, a.max, b.min, b.max), then ``maximum`` forms A2's judgement point,
    ``minimum`` A3's and ``less`` A4's per-axis verdict, whose four bytes per pair are
    read as one ``uint32``.  At these sizes numpy's per-call cost, not the arithmetic,
    is the whole price, so the judge makes every buffer and view once and each call
    only fills them (``out=``): no allocation, no reshape, no index checks per frame.

    Parameters
    ----------
    index : (4, P) int
        From :func:`pair_index` or :func:`all_pairs_index`; checked once, against
        ``n_rows``, and copied.
    n_rows : int
        R, the number of rows of every call's ``rows`` (2 per box).
    shape : tuple of int, optional
        The results' pair axes, ``(P,)`` by default; :meth:`all_pairs` gives ``(n, m)``.

    ``judge(rows)`` or ``judge.check(rows)``, on ``rows`` ``(R, 4)`` float64
    (``padded_boxes(...).reshape(-1, 4)``), returns ``(ok, j1, j2)``: ``ok`` shaped
    ``shape`` bool, ``j1, j2`` shaped ``shape + (4,)`` float (lanes ``>= D`` are pad).
    They are read-only views of the judge's buffers, overwritten by its next call: copy
    what must outlive it.  ``check`` is a closure over the buffers: calling it directly
    skips a method call and attribute loads, a measurable share of a 10 x 10 check.
    """

    __slots__ = ("_index", "check", "n_rows", "shape")

    def __init__(self, index: ArrayLike, n_rows: int, shape: tuple[int, ...] | None = None):
        if type(n_rows) is not int and not isinstance(n_rows, np.integer) or n_rows < 0:
            raise ValueError(f"n_rows: expected the number of rows (an int >= 0), got {n_rows!r}")
        index = np.asarray(index)
        if index.ndim != 2 or len(index) != 4:
            raise ValueError(f"index: expected (4, P) row numbers from pair_index(), got {index.shape}")
        if index.size and (index.dtype.kind not in "iu" or index.min() < 0 or index.max() >= n_rows):
            raise ValueError(f"index: row numbers must be integers from 0 to {n_rows - 1} (2 per box of "
                             f"the {n_rows} rows); build them with pair_index()")
        p = index.shape[1]
        shape = (p,) if shape is None else tuple(int(s) for s in shape)
        if int(np.prod(shape)) != p:
            raise ValueError(f"shape: {shape} does not hold the index's {p} pairs")
        # A private copy, which the clip-mode take trusts.  It stays writeable: numpy's take
        # runs slower with a read-only index.
        self._index = index.astype(np.intp)
        self.n_rows, self.shape = int(n_rows), shape
        self.check = _pair_kernel(self._index, self.n_rows, shape)

    @classmethod
    def all_pairs(cls, n: int, m: int) -> PairJudge:
        """Every pair (box ``i`` of the first ``n``, box ``n + j`` of the next ``m``), results
        shaped ``(n, m)``: what :func:`all_pairs_index` lists, on ``2 (n + m)`` rows."""
        return cls(all_pairs_index(n, m), 2 * (n + m), (n, m))

    def __call__(self, rows: np.ndarray) -> PairVerdict:
        return self.check(rows)

    def __deepcopy__(self, memo: dict[int, Any]) -> PairJudge:
        # The buffers are scratch; a copy gets its own (sharing them would let two
        # matches overwrite each other's results).
        return PairJudge(self._index, self.n_rows, self.shape)

    def __reduce__(self) -> tuple[type[PairJudge], tuple[np.ndarray, int, tuple[int, ...]]]:
        return PairJudge, (self._index, self.n_rows, self.shape)


_F64 = np.dtype(np.float64)   # native float64: the dtype of every judge buffer


def _pair_kernel(index: np.ndarray, n_rows: int,
                 shape: tuple[int, ...]) -> Callable[[np.ndarray], PairVerdict]:
    """:class:`PairJudge`'s per-call work as a closure over buffers made here, once."""
    p = index.shape[1]
    rows_shape = (n_rows, PAD_LANES)
    t = np.empty((4, p, PAD_LANES))                   # a.min, a.max, b.min, b.max of each pair
    amin, amax, bmin, bmax = t                        # their four contiguous views
    j1, j2 = np.empty((p, PAD_LANES)), np.empty((p, PAD_LANES))
    apart = np.empty((p, PAD_LANES), dtype=bool)
    apart_u32 = apart.view(np.uint32).ravel()         # a pair's 4 axis verdicts as one word
    ok = np.empty(p, dtype=bool)
    views = []
    for buf, s in ((ok, shape), (j1, shape + (PAD_LANES,)), (j2, shape + (PAD_LANES,))):
        view = buf.reshape(s)
        view.flags.writeable = False
        views.append(view)
    result = PairVerdict(views[0], views[1], views[2])     # read-only views of the buffers
    maximum, minimum, less, logical_not, ndarray = np.maximum, np.minimum, np.less, np.logical_not, np.ndarray
    max_of = np.maximum.reduce

    def check(rows: np.ndarray) -> PairVerdict:
        """A2-A4 on the judge's pairs of ``rows`` ``(R, 4)`` float64: ``(ok, j1, j2)``."""
        if (type(rows) is not ndarray or rows.shape != rows_shape
                or rows.dtype is not _F64 and rows.dtype != _F64):   # identity first: the common case
            raise ValueError(f"rows: expected {rows_shape} float64, padded_boxes(...).reshape(-1, "
                             f"{PAD_LANES}) of {n_rows // 2} boxes, got "
                             f"{getattr(rows, 'shape', type(rows).__name__)} {getattr(rows, 'dtype', '')}")
        # finite boxes only (see _boxes): the largest of the rows is NaN iff one of them is
        # (one reduction: this runs every frame)
        if n_rows and (largest := max_of(rows, None)) != largest:
            raise _non_finite_rows(rows, n_rows)
        rows.take(index, 0, t, "clip")                # (positional: cheaper) indices checked in __init__
        maximum(amin, bmin, out=j1)                   # A2: the larger min endpoint, per axis
        minimum(amax, bmax, out=j2)                   # A3: the smaller max endpoint, per axis
        less(j2, j1, apart)                           # A4: some coordinate of j2 below j1's ...
        logical_not(apart_u32, ok)                    # ... on any axis: apart
        return result

    return check


def _non_finite_rows(rows: np.ndarray, n_rows: int) -> ValueError:
    """The error of :class:`PairJudge` for rows with a non-finite box coordinate."""
    return ValueError(f"rows: box coordinates must be finite numbers, got {int(np.isnan(rows).sum())} NaN in the "
                      f"{n_rows} padded_boxes(...) rows")


def box_centers(boxes: ArrayLike) -> np.ndarray:
    """A7 centres: centroids ``(..., D)`` float of boxes ``(..., 2, D)`` float."""
    boxes = _boxes(boxes, "boxes")
    return 0.5 * (boxes[..., 0, :] + boxes[..., 1, :])


def box_diagonals(boxes: ArrayLike) -> np.ndarray:
    """A7 characteristic value: the longest diagonal length ``(...,)`` of each box.

    For an axis-aligned box every space diagonal has the same length,
    ``|max - min|``, which is also the longest.
    """
    boxes = _boxes(boxes, "boxes")
    ext = boxes[..., 1, :] - boxes[..., 0, :]
    return np.sqrt((ext * ext).sum(axis=-1))


def collision_point(a: ArrayLike, b: ArrayLike) -> np.ndarray:
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


def collision_point_pair(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """A7 for one pair of 3D boxes ``(2, 3)``, on Python floats: the same arithmetic as
    :func:`collision_point` (the same bits; a test holds them equal), for a crate strike,
    which runs once on a frame where numpy is cold.  Returns (3,) float."""
    (a0, a1), (b0, b1) = np.asarray(a, dtype=float).tolist(), np.asarray(b, dtype=float).tolist()
    ea = [a1[i] - a0[i] for i in range(3)]
    eb = [b1[i] - b0[i] for i in range(3)]
    d1 = math.sqrt(ea[0] * ea[0] + ea[1] * ea[1] + ea[2] * ea[2])
    d2 = math.sqrt(eb[0] * eb[0] + eb[1] * eb[1] + eb[2] * eb[2])
    total = d1 + d2
    half_t = 0.5 * (d1 / total if total > 0.0 else 0.5)
    sa = [a0[i] + a1[i] for i in range(3)]
    return np.array([0.5 * sa[i] + ((b0[i] + b1[i]) - sa[i]) * half_t for i in range(3)])


def range_box_of(points: ArrayLike) -> np.ndarray:
    """A6: the min/max endpoints of any point set (e.g. a rotated limb's corners).

    Parameters
    ----------
    points : (..., P, D) float, P >= 1

    Returns
    -------
    (..., 2, D) float

    Reductions along a short axis that is neither innermost nor outermost (``pts.min(axis=-2)``
    on ``(t, 3, 3)``) run numpy's inner loop once per output element and cost many times
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


def endpoints_by_coordinate_sum(corners: ArrayLike) -> np.ndarray:
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


def box_from_center_half(center: ArrayLike, half: ArrayLike) -> np.ndarray:
    """A6 conversion: centre ``(..., D)`` + half size ``(..., D)`` -> ``(..., 2, D)``."""
    c = _floats(center, "center")
    h = np.abs(_floats(half, "half"))
    if c.ndim < 1 or c.shape[-1] not in (2, 3) or not _broadcasts(c.shape, h.shape):
        raise ValueError(f"center, half: expected (..., D) arrays with D = 2 or 3 that broadcast, "
                         f"got shapes {c.shape} and {h.shape}")
    return np.stack(np.broadcast_arrays(c - h, c + h), axis=-2)


def box_from_sphere(center: ArrayLike, radius: ArrayLike) -> np.ndarray:
    """A6/B8 conversion: a sphere's circumscribed cube, ``(..., 2, D)``.

    center : (..., D) float, D = 2 or 3; radius : (...) float (its absolute value is used).
    """
    c = _floats(center, "center")
    r = np.abs(_floats(radius, "radius"))[..., None]
    if c.ndim < 1 or c.shape[-1] not in (2, 3) or not _broadcasts(c.shape, r.shape):
        raise ValueError(f"center, radius: expected center (..., D) with D = 2 or 3 and radius (...) "
                         f"that broadcast, got shapes {c.shape} and {r.shape[:-1]}")
    return np.stack(np.broadcast_arrays(c - r, c + r), axis=-2)


def box_triangles(boxes: ArrayLike) -> np.ndarray:
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
