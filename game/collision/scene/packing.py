"""Method C: the scene's trees laid out for its two walkers.

* :class:`TreePack`: every model's AABB tree (C5) concatenated into global flat arrays,
  component-major, for the batched walker; a model whose new tree keeps its shape is
  patched in place (:func:`patch_pack`).
* :class:`ScalarTree`: one model's tree as Python lists, for the single-ray walker.
* :class:`QuadBoxes`: the quadtree's nodes (C1) as 3D boxes, in both forms.

Both walkers read only these, so neither needs the scene's internals.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Sequence

import numpy as np

from ..aabb_tree import LEAF_SIZE, AABBTree
from ..quadtree import QuadArrays
from ..tolerances import INV_DIR_HUGE
from .model import CollisionModel
from .queries import NO_KEY

__all__ = ["TreePack", "pack_trees", "patch_pack", "ScalarTree", "QuadBoxes", "quad_boxes", "ChildBlocks",
           "child_blocks"]

#: A box as six floats ``(xmin, ymin, zmin, xmax, ymax, zmax)`` (the scalar walker's form).
Box6 = tuple[float, ...]


@dataclass(frozen=True, eq=False)
class TreePack:
    """All models' AABB trees packed into global flat arrays for the batched walker.

    Component-major (one row per coordinate) so numpy runs long inner loops.
    """

    node_off: np.ndarray      # (m+1,) first global node of each model
    slot_off: np.ndarray      # (m+1,) first global slot of each model
    box: np.ndarray           # (6, g) rows xmin, ymin, zmin, xmax, ymax, zmax
    child: np.ndarray         # (g, 2) global child index, -1 for a leaf
    leaf: np.ndarray          # (g,) global leaf block, -1 for an inner node
    tri: np.ndarray           # (9, s) rows v0xyz, e1xyz, e2xyz of every slot
    key: np.ndarray           # (s,) int64 model << 32 | triangle, NO_KEY for empty slots
    level: np.ndarray         # (m,) int64
    cbox: np.ndarray          # (6, 2, g) boxes of each node's two children (garbage for leaves)
    cidx: np.ndarray          # (2, g) child indices (= child.T)


class _TreeParts(NamedTuple):
    """One model's tree in the packed layout (see :class:`TreePack`), offset to global indices."""

    box: np.ndarray     # (6, n) float
    child: np.ndarray   # (n, 2) int64
    leaf: np.ndarray    # (n,) int64
    tri: np.ndarray     # (9, s) float
    key: np.ndarray     # (s,) int64


class ChildBlocks(NamedTuple):
    """Each node's children side by side (c = 2 for AABB trees, 4 for the quadtree)."""

    box: np.ndarray     # (6, c, g) float, the children's boxes (garbage for leaves)
    child: np.ndarray   # (c, g) int64, the children (``child.T``)


def child_blocks(box: np.ndarray, child: np.ndarray) -> ChildBlocks:
    """Per node, its children's boxes side by side: ``box`` (6, g), ``child`` (g, c) int
    -> :class:`ChildBlocks`.

    One gather per (ray, node) pair then fetches both children, and the ray's
    data is gathered once and broadcast over the two (Jolt-style node step).
    """
    safe = np.where(child >= 0, child, 0)
    return ChildBlocks(np.ascontiguousarray(box[:, safe.T]), np.ascontiguousarray(child.T))


def _tree_parts(t: AABBTree, index: int, node0: int, slot0: int) -> _TreeParts:
    """One model's tree in the packed layout, offset to global node ``node0`` and slot ``slot0``."""
    child = np.where(t.child >= 0, t.child.astype(np.int64) + node0, -1)
    leaf = np.where(t.leaf >= 0, t.leaf.astype(np.int64) + slot0 // LEAF_SIZE, -1)
    key = np.where(t.slot_tri >= 0, (np.int64(index) << 32) | t.slot_tri.astype(np.int64), NO_KEY)
    tri = np.concatenate([t.v0, t.e1, t.e2], axis=1).T
    return _TreeParts(t.box.reshape(-1, 6).T, child, leaf, tri, key)


def pack_trees(models: Sequence[CollisionModel]) -> TreePack:
    """C5, C6: every model's AABB tree concatenated into one :class:`TreePack`."""
    trees = [m.tree for m in models]
    ncount = np.array([t.node_count for t in trees], dtype=np.int64)
    scount = np.array([t.slot_tri.size for t in trees], dtype=np.int64)
    node_off = np.concatenate(([0], np.cumsum(ncount))).astype(np.int64)
    slot_off = np.concatenate(([0], np.cumsum(scount))).astype(np.int64)
    if not trees:
        return TreePack(node_off, slot_off, np.zeros((6, 0)), np.zeros((0, 2), np.int64), np.zeros(0, np.int64),
                        np.zeros((9, 0)), np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((6, 2, 0)),
                        np.zeros((2, 0), np.int64))
    parts = [_tree_parts(t, i, int(node_off[i]), int(slot_off[i])) for i, t in enumerate(trees)]
    box = np.concatenate([q.box for q in parts], axis=1)
    child = np.concatenate([q.child for q in parts])
    leaf = np.concatenate([q.leaf for q in parts])
    tri = np.concatenate([q.tri for q in parts], axis=1)
    key = np.concatenate([q.key for q in parts])
    box = np.ascontiguousarray(box)
    cbox, cidx = child_blocks(box, child)
    return TreePack(node_off, slot_off, box, child, leaf, np.ascontiguousarray(tri), key,
                    np.array([m.level for m in models], dtype=np.int64), cbox, cidx)


def patch_pack(p: TreePack, index: int, new: CollisionModel) -> bool:
    """Overwrite model ``index``'s slice of ``p`` with ``new``'s tree if the tree kept its
    shape (node and slot counts); returns False (nothing written) if it did not."""
    a, b = int(p.node_off[index]), int(p.node_off[index + 1])
    sa, sb = int(p.slot_off[index]), int(p.slot_off[index + 1])
    t = new.tree
    if t.node_count != b - a or t.slot_tri.size != sb - sa:
        return False
    parts = _tree_parts(t, index, a, sa)
    p.box[:, a:b] = parts.box
    p.child[a:b] = parts.child
    cb, ci = child_blocks(p.box, parts.child)
    p.cbox[:, :, a:b] = cb
    p.cidx[:, a:b] = ci
    p.leaf[a:b] = parts.leaf
    p.tri[:, sa:sb] = parts.tri
    p.key[sa:sb] = parts.key
    p.level[index] = new.level
    return True


class ScalarTree:
    """Python-list copy of one model's tree for the single-ray walker."""

    __slots__ = ("box", "child", "leaf", "tris", "ids")

    def __init__(self, model: CollisionModel):
        t = model.tree
        self.box: list[Box6] = [tuple(r) for r in t.box.reshape(-1, 6).tolist()]   # per node
        self.child: list[tuple[int, int]] = [(a, b) for a, b in t.child.tolist()]  # per node, -1 for a leaf
        self.leaf: list[int] = t.leaf.tolist()                                     # per node, -1 inner
        tris: list[tuple[float, ...] | None] = list(map(tuple, np.concatenate([t.v0, t.e1, t.e2], axis=1).tolist()))
        for s in np.flatnonzero(t.slot_tri < 0).tolist():
            tris[s] = None
        self.tris = tris                        # per slot (v0xyz, e1xyz, e2xyz), None for an empty slot
        self.ids: list[int] = t.slot_tri.tolist()   # per slot its triangle index in the model


class QuadBoxes(NamedTuple):
    """Quadtree nodes as 3D boxes: the node's x–z rect times the y range of the models under it.

    C1 places models by their x–z rect only; the y range is derived data that lets a walker
    skip a node a ray passes above or below.  Empty nodes get an unreachable box.
    """

    arrays: QuadArrays          # the compiled quadtree these boxes were made from
    box: np.ndarray             # (6, q) float rows xmin, ymin, zmin, xmax, ymax, zmax
    boxes: list[Box6]           # the same per node (scalar walker)
    fast: list[tuple[float, ...] | None]  # per inner node, see :func:`quad_boxes`; None for leaves
    cbox: np.ndarray            # (6, 4, q) float, each node's four children's boxes (batched walker)
    cidx: np.ndarray            # (4, q) int64, each node's four children


def quad_boxes(qa: QuadArrays, models: Sequence[CollisionModel]) -> QuadBoxes:
    """The :class:`QuadBoxes` of compiled quadtree ``qa`` holding ``models``.

    ``fast[n]`` (inner nodes) is ``(x0, xm, x1, z0, zm, z1, k0, y0, y1, ... k3, y0, y1)``: the
    split lines shared by the four quadrant children and each child's index and y range, so
    the scalar walker tests all four with 6 + 8 products instead of 24.
    """
    q = qa.rect.shape[0]
    y0 = np.full(q, np.inf)
    y1 = np.full(q, -np.inf)
    if models and qa.leaf_models.size:
        my = np.array([m.root_box[:, 1] for m in models])
        nz = np.flatnonzero(qa.leaf_count > 0)
        y0[nz] = np.minimum.reduceat(my[qa.leaf_models, 0], qa.leaf_start[nz])
        y1[nz] = np.maximum.reduceat(my[qa.leaf_models, 1], qa.leaf_start[nz])
    inner = qa.child[:, 0] >= 0
    for depth in range(int(qa.depth.max()) - 1, -1, -1):
        nodes = np.flatnonzero(inner & (qa.depth == depth))
        if nodes.size:
            y0[nodes] = y0[qa.child[nodes]].min(axis=1)
            y1[nodes] = y1[qa.child[nodes]].max(axis=1)
    empty = y0 > y1
    y0[empty] = INV_DIR_HUGE  # unreachable: entry distance beyond any finite ray
    y1[empty] = INV_DIR_HUGE
    r = qa.rect.reshape(q, 4)
    box = np.stack([r[:, 0], y0, r[:, 1], r[:, 2], y1, r[:, 3]])
    rl = r.tolist()
    yl0, yl1 = y0.tolist(), y1.tolist()
    fast: list[tuple[float, ...] | None] = []
    for n, kids in enumerate(qa.child.tolist()):
        if kids[0] < 0:
            fast.append(None)
            continue
        x0, z0, x1, z1 = rl[n]
        xm, zm = rl[kids[0]][2], rl[kids[0]][3]
        f = [x0, xm, x1, z0, zm, z1]
        for k in kids:
            f += [k, yl0[k], yl1[k]]
        fast.append(tuple(f))
    cbox, cidx = child_blocks(box, qa.child)
    return QuadBoxes(qa, box, [tuple(b) for b in box.T.tolist()], fast, cbox, cidx)
