"""Method C: one AABB tree per collision model (C5), stored as flat arrays.

Layout follows Box2D v3 ``dynamic_tree``: nodes are rows of int/float arrays
indexed by int, ``-1`` means "none", traversal uses an explicit stack.  The
tree is built top-down as C5 says: a node's triangles are sorted along the
**longest coordinate axis** of the node's box and split at the median, until
a node holds at most ``LEAF_SIZE`` triangles.  The build is vectorised per
tree level (every node of a level is split in one ``lexsort``), so building
a 250-triangle model costs a handful of numpy calls per level.

Leaves own a fixed block of ``LEAF_SIZE`` triangle *slots*; unused slots hold a
degenerate all-zero triangle that no ray can hit.  This lets batched casts
expand ``(ray, leaf)`` pairs to ``(ray, slot)`` pairs by a reshape.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .range_box import range_box_of
from .tolerances import BOX_PAD_ABS, BOX_PAD_REL

__all__ = ["LEAF_SIZE", "AABBTree", "build_aabb_tree", "pad_boxes", "pad_box_floats"]

#: Triangles per leaf (slots per leaf block).
LEAF_SIZE = 4


def pad_boxes(boxes: np.ndarray) -> np.ndarray:
    """(..., 2, 3) float -> the same boxes grown by the method-C box padding.

    Padding is ``BOX_PAD_REL * (largest extent + largest |coordinate|) + BOX_PAD_ABS``
    on every side, so slab tests stay conservative w.r.t. the triangle test.
    """
    e = boxes[..., 1, :] - boxes[..., 0, :]
    a = np.abs(boxes)
    # maxima over the 3 (6) lanes as element-wise passes: a reduction over a short last
    # axis runs numpy's inner loop once per box, many times slower for a tree's node array
    ext = np.maximum(np.maximum(e[..., 0], e[..., 1]), e[..., 2])
    mag = np.maximum(a[..., 0, :], a[..., 1, :])
    mag = np.maximum(np.maximum(mag[..., 0], mag[..., 1]), mag[..., 2])
    pad = (BOX_PAD_REL * (ext + mag) + BOX_PAD_ABS)[..., None]
    out = boxes.copy()
    out[..., 0, :] -= pad
    out[..., 1, :] += pad
    return out


def pad_box_floats(lo: list[float], hi: list[float]) -> tuple[list[float], list[float]]:
    """:func:`pad_boxes` of one box given as two lists of 3 floats: the same arithmetic,
    for one struck crate's model (its frame runs numpy cold).  Returns ``(lo, hi)`` lists."""
    ext = max(max(hi[0] - lo[0], hi[1] - lo[1]), hi[2] - lo[2])
    mag = max(max(max(abs(lo[0]), abs(hi[0])), max(abs(lo[1]), abs(hi[1]))), max(abs(lo[2]), abs(hi[2])))
    pad = BOX_PAD_REL * (ext + mag) + BOX_PAD_ABS
    return [x - pad for x in lo], [x + pad for x in hi]


@dataclass(frozen=True, eq=False)
class AABBTree:
    """Flat AABB tree of one model (C5).

    Attributes
    ----------
    box : (n, 2, 3) float64
        Padded ``[min, max]`` box of every node; node 0 is the root.
    child : (n, 2) int32
        Left/right child of every node, ``-1`` for a leaf.
    leaf : (n,) int32
        Leaf block number (slots ``LEAF_SIZE*leaf ... +LEAF_SIZE``), ``-1`` for internal nodes.
    slot_tri : (s,) int32
        Original triangle index held by each slot, ``-1`` for an empty slot.
    v0, e1, e2 : (s, 3) float64
        Slot triangles as first vertex and two edges (zeros in empty slots).
    """

    box: np.ndarray         # (n, 2, 3) float64, padded [min, max] per node
    child: np.ndarray       # (n, 2) int32, -1 for a leaf
    leaf: np.ndarray        # (n,) int32, leaf block, -1 for an inner node
    slot_tri: np.ndarray    # (s,) int32, triangle per slot, -1 empty
    v0: np.ndarray          # (s, 3) float64, first vertex per slot
    e1: np.ndarray          # (s, 3) float64, v1 - v0 per slot
    e2: np.ndarray          # (s, 3) float64, v2 - v0 per slot

    def __post_init__(self) -> None:
        # Read-only: a tree is shared by every scene copy holding its model (each match's
        # ``stage.scene`` shares the cached arena's trees), and a scene replaces a model's
        # tree, never writes into it.  A tool writing here would move every match's rays.
        for a in (self.box, self.child, self.leaf, self.slot_tri, self.v0, self.e1, self.e2):
            a.flags.writeable = False

    @property
    def node_count(self) -> int:
        return int(self.box.shape[0])

    @property
    def leaf_count(self) -> int:
        return int(self.slot_tri.shape[0] // LEAF_SIZE)


class _Leaves(NamedTuple):
    """The leaves of a built tree: each one's node and its range of the sorted triangles."""

    node: np.ndarray    # (L,) int, the leaf's node
    lo: np.ndarray      # (L,) int, first position in ``perm`` of its triangles
    hi: np.ndarray      # (L,) int, one past the last


def build_aabb_tree(triangles: np.ndarray) -> AABBTree:
    """C5: build the AABB tree of ``triangles`` (t, 3, 3) float (world space, t >= 1).

    Every level: compute each node's box, sort the triangles of the nodes that
    hold more than ``LEAF_SIZE`` along their box's longest axis (centroid key),
    split at the median.  Returns an :class:`AABBTree`.
    """
    tris = np.asarray(triangles, dtype=np.float64)
    if tris.ndim != 3 or tris.shape[1:] != (3, 3) or tris.shape[0] < 1:
        raise ValueError(f"triangles: expected shape (t, 3, 3) with t >= 1, got {tris.shape}")
    t = tris.shape[0]
    perm = np.arange(t)
    box_arr = np.empty((max(2 * t, 1), 2, 3))
    child = np.full((max(2 * t, 1), 2), -1, dtype=np.int32)
    n_nodes, leaves = _split_levels(tris, perm, box_arr, child)
    return _with_slots(tris, perm, pad_boxes(box_arr[:n_nodes]), child[:n_nodes], leaves)


class _Built(NamedTuple):
    """What the level-by-level split made."""

    n_nodes: int        # nodes used in the preallocated arrays
    leaves: _Leaves


def _split_levels(tris: np.ndarray, perm: np.ndarray, box_arr: np.ndarray, child: np.ndarray) -> _Built:
    """The top-down build, one tree level per pass: fills ``box_arr`` (unpadded node boxes),
    ``child`` and the order ``perm`` of the triangles in place."""
    tmin, tmax = range_box_of(tris).transpose(1, 0, 2)          # (t, 3) each: the triangles' boxes
    cent = (tris[:, 0] + tris[:, 1] + tris[:, 2]) / 3.0        # (the order of sum(axis=1): same bits)
    t = tris.shape[0]
    # current partition of perm into contiguous segments, with their node ids
    seg_lo = np.array([0])
    seg_hi = np.array([t])
    seg_node = np.array([0])
    n_nodes = 1
    leaf_node, leaf_lo, leaf_hi = [], [], []
    while seg_lo.size:
        # node boxes of this level: reduceat over the live segments' members (segments ascend)
        lens = seg_hi - seg_lo
        starts = np.concatenate(([0], np.cumsum(lens)[:-1]))
        pos = np.arange(int(lens.sum())) + np.repeat(seg_lo - starts, lens)
        idx = perm[pos]
        bmin = np.minimum.reduceat(tmin[idx], starts, axis=0)
        bmax = np.maximum.reduceat(tmax[idx], starts, axis=0)
        box_arr[seg_node, 0] = bmin
        box_arr[seg_node, 1] = bmax
        split = lens > LEAF_SIZE
        leaf_node.append(seg_node[~split])
        leaf_lo.append(seg_lo[~split])
        leaf_hi.append(seg_hi[~split])
        if not split.any():
            break
        s_lo, s_hi, s_node = seg_lo[split], seg_hi[split], seg_node[split]
        axis = np.argmax(bmax[split] - bmin[split], axis=1)
        # sort each split segment's triangles along its box's longest axis (C5)
        s_len = s_hi - s_lo
        seg_id = np.repeat(np.arange(s_lo.size), s_len)
        s_starts = np.concatenate(([0], np.cumsum(s_len)[:-1]))
        spos = np.arange(int(s_len.sum())) + np.repeat(s_lo - s_starts, s_len)
        members = perm[spos]
        key = cent[members, axis[seg_id]]
        order = np.lexsort((key, seg_id))
        perm[spos] = members[order]
        mid = s_lo + s_len // 2
        left = n_nodes + 2 * np.arange(s_lo.size)
        right = left + 1
        n_nodes += 2 * s_lo.size
        child[s_node, 0] = left
        child[s_node, 1] = right
        seg_lo = np.stack([s_lo, mid], axis=1).ravel()
        seg_hi = np.stack([mid, s_hi], axis=1).ravel()
        seg_node = np.stack([left, right], axis=1).ravel()
    return _Built(n_nodes, _Leaves(np.concatenate(leaf_node), np.concatenate(leaf_lo), np.concatenate(leaf_hi)))


def _with_slots(tris: np.ndarray, perm: np.ndarray, box: np.ndarray, child: np.ndarray, leaves: _Leaves) -> AABBTree:
    """The :class:`AABBTree` of the built nodes: every leaf gets a block of ``LEAF_SIZE``
    slots holding its triangles (in ``perm`` order) as first vertex and two edges."""
    n_leaves = leaves.node.size
    leaf = np.full(box.shape[0], -1, dtype=np.int32)
    leaf[leaves.node] = np.arange(n_leaves)
    slot_tri = np.full(n_leaves * LEAF_SIZE, -1, dtype=np.int32)
    lens = leaves.hi - leaves.lo
    offs = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
    slot_tri[np.repeat(np.arange(n_leaves) * LEAF_SIZE, lens) + offs] = perm[np.repeat(leaves.lo, lens) + offs]
    used = slot_tri >= 0
    v0 = np.zeros((slot_tri.size, 3))
    e1 = np.zeros((slot_tri.size, 3))
    e2 = np.zeros((slot_tri.size, 3))
    src = tris[slot_tri[used]]
    v0[used] = src[:, 0]
    e1[used] = src[:, 1] - src[:, 0]
    e2[used] = src[:, 2] - src[:, 0]
    return AABBTree(box, child, leaf, slot_tri, v0, e1, e2)
