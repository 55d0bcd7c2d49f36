"""Method B, B3 and B4: how a strike re-splits the boxes of one struck layer.

Per struck layer, the **interaction region** (B3) is the striker's footprint on the layer's
face plane (its extent on the two tangent axes), grown by the margin on every side and
clipped to the layer's face.  A region edge closer than ``tolerances.SNAP_EPS`` to an
existing edge of that face snaps onto it, so no sliver thinner than ``MIN_BOX_EXTENT`` can
appear in later splits or merges (B9).  The region runs on across the coplanar neighbour
boxes of the same face, so the hole does not depend on how the face happens to be split
into boxes at the time.

Every box of the layer whose face the region overlaps with positive area is cut (B4) along
the lines through the region's two pairs of parallel edges: a 3 x 3 grid of quads (the
*nine-patch*).  The middle quad (the region) is dropped and so are empty pieces; a piece
thinner than ``MIN_BOX_EXTENT`` is dropped too (it becomes part of the hole).  The rest are
the **split faces** (at most 8 per cut box), each extruded by the wall thickness into a new
small box (B6), and the layer is re-merged (B9, :func:`~.rects.merge_layer`).

A strike runs once, on a frame where numpy's code is cold (the render loop has just waited
in ``glFinish``): there each distinct numpy call costs many times its cost in a loop, and a
layer holds a few dozen boxes, so the cut works on plain Python floats.  The numpy form it
is tested against is :func:`game.reference.compound.cut_layer_batched`.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

from .. import tolerances as tol
from .layout import TANGENTS
from .rects import BoxRows, merge_layer

__all__ = ["NINE", "NINE_U", "NINE_V", "LayerCut", "cut_layer", "snap_float"]

#: The 3 x 3 grid cells ``(iu, iv)`` of a nine-patch without the middle one (1, 1), in order.
NINE_U = np.array([0, 1, 2, 0, 2, 0, 1, 2])
NINE_V = np.array([0, 0, 0, 1, 1, 2, 2, 2])
NINE = tuple(zip(NINE_U.tolist(), NINE_V.tolist()))


class LayerCut(NamedTuple):
    """What one strike did to one layer (B3, B4, B9)."""

    tunnel: list[list[float]]       # [lo, hi] (2, 3): the region through the slab, region x wall thickness (B3)
    pieces: list[BoxRows]           # the split pieces [lo, hi] (B4), in cut-box order, nine-patch order within one
    merged: np.ndarray              # (k, 2, 3) float: the layer's boxes after the cut, re-merged (B9)
    removed: float                  # the volume removed
    cut: list[int]                  # indices into the layer's boxes of the cut ones, ascending (B2 target faces)
    owner: list[int]                # per piece, its cut box's place in ``cut`` (at most 8 pieces share one, B4)


def snap_float(x: float, coords: Sequence[float]) -> float:
    """B3/B9: region edge ``x`` moved onto the nearest of ``coords`` if within SNAP_EPS
    (the first nearest, as ``argmin`` picks it)."""
    best, d = x, tol.SNAP_EPS
    for c in coords:
        if abs(c - x) < d:
            best, d = c, abs(c - x)
    return best


def layer_region(boxes: list[BoxRows], slab: BoxRows, s: BoxRows, m: float, axis: int) -> list[list[float]] | None:
    """B3: the interaction region of striker ``s`` on a layer, as the tunnel ``[lo, hi]``
    (the slab with its two tangent extents replaced by the region's), or None when the
    region is thinner than ``MIN_BOX_EXTENT`` on either tangent axis.

    boxes : the layer's boxes as ``[lo, hi]`` lists; slab : the layer's slab (B6);
    s : the striker's range box; m : the margin; axis : the layer's normal axis.
    """
    tun = [list(slab[0]), list(slab[1])]
    for ax in TANGENTS[axis]:
        lo = max(s[0][ax] - m, slab[0][ax])
        hi = min(s[1][ax] + m, slab[1][ax])
        coords = [c for b0, b1 in boxes for c in (b0[ax], b1[ax])] + [slab[0][ax], slab[1][ax]]
        lo, hi = snap_float(lo, coords), snap_float(hi, coords)
        if hi - lo < tol.MIN_BOX_EXTENT:
            return None
        tun[0][ax], tun[1][ax] = lo, hi
    return tun


def cut_layer(lb: np.ndarray, slab: BoxRows, s: BoxRows, m: float, axis: int) -> LayerCut | None:
    """B3, B4, B9 for one struck layer, on Python floats.

    Parameters
    ----------
    lb : (n, 2, 3) float, the layer's boxes.
    slab : (2, 3) nested list of float, the layer's slab (B6).
    s : (2, 3) nested list of float, the striker's range box.
    m : float, the margin (B3).
    axis : int, the layer's normal axis.

    Returns
    -------
    None when the interaction region is thinner than MIN_BOX_EXTENT or cuts no box; else a
    :class:`LayerCut`.
    """
    u, v = TANGENTS[axis]
    boxes = lb.tolist()
    tun = layer_region(boxes, slab, s, m, axis)
    if tun is None:
        return None
    t0u, t1u, t0v, t1v = tun[0][u], tun[1][u], tun[0][v], tun[1][v]
    eps, small = tol.PLANE_EPS, tol.MIN_BOX_EXTENT
    kept: list[BoxRows] = []
    pieces: list[BoxRows] = []
    cut: list[int] = []
    owner: list[int] = []
    vol_cut = vol_pieces = 0.0
    for i, (b0, b1) in enumerate(boxes):
        if not (min(b1[u], t1u) - max(b0[u], t0u) > eps and min(b1[v], t1v) - max(b0[v], t0v) > eps):
            kept.append((b0, b1))
            continue
        cut.append(i)
        vol_cut += (b1[0] - b0[0]) * (b1[1] - b0[1]) * (b1[2] - b0[2])
        # B4: the box's u and v ranges cut at the region's edges (clamped to the box)
        cu = (b0[u], min(max(t0u, b0[u]), b1[u]), min(max(t1u, b0[u]), b1[u]), b1[u])
        cv = (b0[v], min(max(t0v, b0[v]), b1[v]), min(max(t1v, b0[v]), b1[v]), b1[v])
        for iu, iv in NINE:
            pu0, pu1, pv0, pv1 = cu[iu], cu[iu + 1], cv[iv], cv[iv + 1]
            if pu1 - pu0 >= small and pv1 - pv0 >= small:
                p0, p1 = list(b0), list(b1)
                p0[u], p1[u], p0[v], p1[v] = pu0, pu1, pv0, pv1
                pieces.append((p0, p1))
                owner.append(len(cut) - 1)
                vol_pieces += (p1[0] - p0[0]) * (p1[1] - p0[1]) * (p1[2] - p0[2])
    if len(kept) == len(boxes):
        return None
    return LayerCut(tun, pieces, merge_layer(kept + pieces, axis), vol_cut - vol_pieces, cut, owner)
