"""Method B, B3 and B4: how a strike re-splits the boxes of the walls it cuts through.

Per struck layer, the **interaction region** (B3) is the striker's footprint on the face of
the bounding box (its extent on the layer's two tangent axes), grown by the margin on every
side and clipped to that face.  A region edge closer than ``tolerances.SNAP_EPS`` to an
existing edge of the layer snaps onto it, so no sliver thinner than ``MIN_BOX_EXTENT`` can
appear in later splits or merges (B9).  The region runs on across the coplanar neighbour
boxes of the same face, so the hole does not depend on how the face happens to be split
into boxes at the time.

The face of the bounding box is more than the layer's own slab: where a neighbouring wall
owns the face's edge (the x walls own every edge they meet, then the y walls: see
:mod:`.layout`), the end of that wall, its *rim*, is part of the face.  The region opens
where the striker is there too: an edge of the region that falls inside a rim moves out to
the rim's far side (a neighbouring wall's box spans its wall's whole thickness, so its rim
opens whole or not at all), and the **tunnel**, the region through the struck wall's
thickness, is removed from every layer it reaches: its own and the neighbours' rims.

Every box a tunnel overlaps with positive area on the box's face is cut (B4) along the lines
through the tunnel's two pairs of parallel edges: a 3 x 3 grid of quads (the *nine-patch*).
The middle quad is dropped and so are empty pieces; a piece thinner than ``MIN_BOX_EXTENT``
is dropped too (it becomes part of the hole).  The rest are the **split faces** (at most 8
per cut box and tunnel), each extruded by the wall thickness into a new small box (B6), and
the layer is re-merged (B9, :func:`~.rects.merge_layer`).

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

__all__ = ["NINE", "NINE_U", "NINE_V", "Tunnel", "LayerCut", "face_region", "tunnel_on_layer", "reaches",
           "cut_layer", "snap_float"]

#: The 3 x 3 grid cells ``(iu, iv)`` of a nine-patch without the middle one (1, 1), in order.
NINE_U = np.array([0, 1, 2, 0, 2, 0, 1, 2])
NINE_V = np.array([0, 0, 0, 1, 1, 2, 2, 2])
NINE = tuple(zip(NINE_U.tolist(), NINE_V.tolist()))

#: A box ``[lo, hi]`` as two lists of 3 floats: a region on a layer's two tangent axes times
#: the wall's thickness along its normal.
Tunnel = list[list[float]]


class LayerCut(NamedTuple):
    """What one strike did to one layer (B4, B9)."""

    pieces: list[BoxRows]           # the split pieces [lo, hi] (B4), in cut-box order, nine-patch order within one
    merged: np.ndarray              # (k, 2, 3) float: the layer's boxes after the cut, re-merged (B9)
    removed: float                  # the volume removed
    cut: list[int]                  # indices into the layer's boxes of the cut ones, ascending (B2 target faces)
    owner: list[int]                # per piece, its cut box's place in ``cut``
    used: list[bool]                # per tunnel given, whether it cut any box


def snap_float(x: float, coords: Sequence[float]) -> float:
    """B3/B9: region edge ``x`` moved onto the nearest of ``coords`` if within SNAP_EPS
    (the first nearest, as ``argmin`` picks it)."""
    best, d = x, tol.SNAP_EPS
    for c in coords:
        if abs(c - x) < d:
            best, d = c, abs(c - x)
    return best


def face_region(boxes: list[BoxRows], slab: BoxRows, bounds: BoxRows, s: BoxRows, m: float,
                axis: int) -> Tunnel | None:
    """B3: the tunnel of striker ``s`` through a struck layer: its region on the face of the
    bounding box, times the wall's thickness; None when the region is thinner than
    ``MIN_BOX_EXTENT`` on either tangent axis.

    boxes : the layer's boxes as ``[lo, hi]`` lists; slab : the layer's slab (B6); bounds :
    the bounding box; s : the striker's range box; m : the margin; axis : the layer's normal.
    The region is the footprint grown by ``m``, clipped to the bounds' face, its edges snapped
    to the layer's edges (SNAP_EPS), and an edge inside a neighbouring wall's rim (between the
    bounds' face edge and the slab's inset edge) moved out to that rim's far side.
    """
    tun = [list(slab[0]), list(slab[1])]
    for ax in TANGENTS[axis]:
        b0, b1, s0, s1 = bounds[0][ax], bounds[1][ax], slab[0][ax], slab[1][ax]
        lo = max(s[0][ax] - m, b0)
        hi = min(s[1][ax] + m, b1)
        coords = [c for p0, p1 in boxes for c in (p0[ax], p1[ax])] + [s0, s1]
        lo, hi = snap_float(lo, coords), snap_float(hi, coords)
        if b0 < lo < s0:            # in the min rim: the rim opens whole
            lo = b0
        elif s1 < lo < b1:
            lo = s1
        if s1 < hi < b1:            # in the max rim
            hi = b1
        elif b0 < hi < s0:
            hi = s0
        if hi - lo < tol.MIN_BOX_EXTENT:
            return None
        tun[0][ax], tun[1][ax] = lo, hi
    return tun


def reaches(tunnel: Tunnel, slab: BoxRows) -> bool:
    """True iff ``tunnel`` overlaps the layer ``slab`` with positive volume (> PLANE_EPS on every axis)."""
    eps = tol.PLANE_EPS
    return all(min(tunnel[1][a], slab[1][a]) - max(tunnel[0][a], slab[0][a]) > eps for a in range(3))


def tunnel_on_layer(boxes: list[BoxRows], slab: BoxRows, tunnel: Tunnel, axis: int) -> Tunnel | None:
    """Another layer's ``tunnel`` as a tunnel through this layer (normal ``axis``): its extent on
    this layer's two tangent axes clipped to the ``slab`` and snapped to the layer's edges
    (``boxes``), times this wall's thickness; None if thinner than ``MIN_BOX_EXTENT``."""
    tun = [list(slab[0]), list(slab[1])]
    for ax in TANGENTS[axis]:
        coords = [c for p0, p1 in boxes for c in (p0[ax], p1[ax])] + [slab[0][ax], slab[1][ax]]
        lo = snap_float(max(tunnel[0][ax], slab[0][ax]), coords)
        hi = snap_float(min(tunnel[1][ax], slab[1][ax]), coords)
        if hi - lo < tol.MIN_BOX_EXTENT:
            return None
        tun[0][ax], tun[1][ax] = lo, hi
    return tun


def cut_layer(boxes: list[BoxRows], tunnels: Sequence[Tunnel], axis: int) -> LayerCut | None:
    """B4, B9 for one layer, on Python floats: its boxes cut by each of ``tunnels`` in turn.

    Every box (or piece of one) a tunnel overlaps with positive area on the layer's tangent
    axes (> PLANE_EPS) is replaced by its nine-patch less the middle piece and less pieces
    thinner than MIN_BOX_EXTENT, in nine-patch order.

    Parameters
    ----------
    boxes : the layer's boxes as ``[lo, hi]`` lists of floats (``(n, 2, 3)`` ``.tolist()``).
    tunnels : the tunnels through this layer, each a ``[lo, hi]`` box whose extent on the
        layer's two tangent axes is cut out (:func:`face_region`, :func:`tunnel_on_layer`).
    axis : int, the layer's normal axis.

    Returns
    -------
    None when no tunnel cuts any box; else a :class:`LayerCut`.
    """
    if not tunnels:
        return None
    u, v = TANGENTS[axis]
    eps, small = tol.PLANE_EPS, tol.MIN_BOX_EXTENT
    rects = [(t[0][u], t[1][u], t[0][v], t[1][v]) for t in tunnels]
    # most boxes of a layer meet no tunnel: one test against the tunnels' bounding rectangle
    # (the tunnel itself when there is one) keeps them at the cost of a single region
    r0u, r1u = min(r[0] for r in rects), max(r[1] for r in rects)
    r0v, r1v = min(r[2] for r in rects), max(r[3] for r in rects)
    kept: list[BoxRows] = []
    pieces: list[BoxRows] = []
    cut: list[int] = []
    owner: list[int] = []
    used = [False] * len(tunnels)
    vol_cut = vol_pieces = 0.0
    for i, (b0, b1) in enumerate(boxes):
        if not (min(b1[u], r1u) - max(b0[u], r0u) > eps and min(b1[v], r1v) - max(b0[v], r0v) > eps):
            kept.append((b0, b1))
            continue
        parts: list[BoxRows] = [(b0, b1)]
        hit = False
        for k, (t0u, t1u, t0v, t1v) in enumerate(rects):
            nxt: list[BoxRows] = []
            for p0, p1 in parts:
                if not (min(p1[u], t1u) - max(p0[u], t0u) > eps and min(p1[v], t1v) - max(p0[v], t0v) > eps):
                    nxt.append((p0, p1))
                    continue
                used[k] = hit = True
                # B4: the part's u and v ranges cut at the tunnel's edges (clamped to the part)
                cu = (p0[u], min(max(t0u, p0[u]), p1[u]), min(max(t1u, p0[u]), p1[u]), p1[u])
                cv = (p0[v], min(max(t0v, p0[v]), p1[v]), min(max(t1v, p0[v]), p1[v]), p1[v])
                for iu, iv in NINE:
                    pu0, pu1, pv0, pv1 = cu[iu], cu[iu + 1], cv[iv], cv[iv + 1]
                    if pu1 - pu0 >= small and pv1 - pv0 >= small:
                        q0, q1 = list(p0), list(p1)
                        q0[u], q1[u], q0[v], q1[v] = pu0, pu1, pv0, pv1
                        nxt.append((q0, q1))
            parts = nxt
        if not hit:
            kept.append((b0, b1))
            continue
        cut.append(i)
        vol_cut += (b1[0] - b0[0]) * (b1[1] - b0[1]) * (b1[2] - b0[2])
        for p0, p1 in parts:
            pieces.append((p0, p1))
            owner.append(len(cut) - 1)
            vol_pieces += (p1[0] - p0[0]) * (p1[1] - p0[1]) * (p1[2] - p0[2])
    if not cut:
        return None
    return LayerCut(pieces, merge_layer(kept + pieces, axis), vol_cut - vol_pieces, cut, owner, used)
