"""Method C, C6-C9: the single-ray walker, on Python floats.

Front to back: quadtree nodes -> leaves -> models' root boxes -> AABB trees -> triangles.
Quadtree children are visited nearest entry first; a leaf's models are walked as soon as the
leaf is reached, so the *nearest* policy (C7) stops as soon as the next node starts beyond
the best hit, and the *any* policy (C8) at the first hit.  A single cast touches a few dozen
boxes, where one numpy call costs more than the whole walk in plain floats; its batched twin
is :mod:`.walk_batched`, and both are tested against each other and against brute force.
"""

from __future__ import annotations

import math
from typing import Any, Callable, NamedTuple

from ..aabb_tree import LEAF_SIZE
from ..raycast import ray_triangle_scalar
from ..tolerances import INV_DIR_HUGE
from .packing import Box6, QuadBoxes, ScalarTree
from .queries import QueryStats, Ray

__all__ = ["ScalarWalk", "walk_one", "box_scalar"]

#: Builds a named tuple from a tuple of its fields without the generated Python-level
#: ``__new__``, whose call is a noticeable share of a single cast (which builds one or two).
_new = tuple.__new__


class ScalarWalk(NamedTuple):
    """What one single-ray walk found."""

    distance: float     # the hit's distance along the unit direction (the max distance if none)
    key: int            # the hit's ``model << 32 | triangle``, -1 for no hit
    stats: QueryStats   # the work done


class _TreeWalk(NamedTuple):
    """What the walk of one model's tree found, and its work."""

    best: float         # the best distance so far
    key: int            # its key, -1 for none yet
    nodes: int          # tree boxes tested
    tris: int           # triangles tested
    stop: bool          # the any policy hit: the walk ends here


def _inv(c: float) -> float:
    """Scalar twin of :func:`raycast.inverse_directions` for one direction component."""
    return 1.0 / c if abs(c) >= 1.0 / INV_DIR_HUGE else math.copysign(INV_DIR_HUGE, c)


def box_scalar(b: Box6, ox: float, oy: float, oz: float, ix: float, iy: float, iz: float,
               limit: float) -> float:
    """Slab test of one ray against one box ``(x0, y0, z0, x1, y1, z1)``; entry distance or -1.

    Deliberately unrolled per axis on Python floats: the single-ray walker calls
    it for every box it visits, and a loop or a numpy call per box costs several
    times more.  Its batched twin is ``raycast.ray_boxes_cm``.
    """
    t1 = (b[0] - ox) * ix
    t2 = (b[3] - ox) * ix
    if t1 > t2:
        t1, t2 = t2, t1
    s1 = (b[1] - oy) * iy
    s2 = (b[4] - oy) * iy
    if s1 > s2:
        s1, s2 = s2, s1
    if s1 > t1:
        t1 = s1
    if s2 < t2:
        t2 = s2
    s1 = (b[2] - oz) * iz
    s2 = (b[5] - oz) * iz
    if s1 > s2:
        s1, s2 = s2, s1
    if s1 > t1:
        t1 = s1
    if s2 < t2:
        t2 = s2
    if t1 < 0.0:
        t1 = 0.0
    if t2 > limit:
        t2 = limit
    return t1 if t1 <= t2 else -1.0


def walk_one(quad: QuadBoxes, leaf_models: list[list[int]], trees: list[ScalarTree | None],
             load: Callable[[int], ScalarTree], roots: list[Box6], levels: list[int], ray: Ray, md: float,
             lv: int | None, nearest: bool) -> ScalarWalk:
    """C6: walk one ray through the scene, front to back (see the module docstring).

    quad : the scene's quadtree boxes; leaf_models : per quadtree node its models;
    trees : per model its :class:`ScalarTree` or None (``load(m)`` makes it);
    roots, levels : per model its padded root box and its level; md : the max distance;
    lv : the ray's level (C9) or None; nearest : the C7 policy, else C8's.
    """
    ox, oy, oz, dx, dy, dz = ray
    ix, iy, iz = _inv(dx), _inv(dy), _inv(dz)
    qfast = quad.fast
    box_test = box_scalar
    nodes = 1
    tris_tested = 0
    best = md
    best_key = -1
    seen: set[int] = set()
    t0 = box_test(quad.boxes[0], ox, oy, oz, ix, iy, iz, md)
    qstack = [(t0, 0)] if t0 >= 0.0 else []
    while qstack:
        tq, n = qstack.pop()
        if tq > best:
            continue
        f = qfast[n]
        if f is not None:
            nodes += 4
            qstack.extend(_quad_children(f, ox, oy, oz, ix, iy, iz, best))
            continue
        order = []
        for m in leaf_models[n]:
            if m in seen:
                continue
            seen.add(m)
            if lv is not None and levels[m] <= lv:
                continue
            nodes += 1
            tn = box_test(roots[m], ox, oy, oz, ix, iy, iz, best)
            if tn >= 0.0:
                order.append((tn, m))
        if nearest and len(order) > 1:
            order.sort()
        for tn, m in order:
            if tn > best:
                break
            best, best_key, tree_nodes, tree_tris, stop = _walk_tree(trees[m] or load(m), m, tn, ray, ix, iy, iz, best,
                                                                     best_key, nearest)
            nodes += tree_nodes
            tris_tested += tree_tris
            if stop:
                return _new(ScalarWalk, (best, best_key, QueryStats(1, nodes, tris_tested)))
    return _new(ScalarWalk, (best, best_key, QueryStats(1, nodes, tris_tested)))


def _quad_children(f: tuple[Any, ...], ox: float, oy: float, oz: float, ix: float, iy: float, iz: float,
                   best: float) -> list[tuple[float, int]]:
    """The four quadrant children of an inner node at once (Jolt-style node step): they share
    the x and z split lines of ``f`` (see ``packing.quad_boxes``).  Returns ``(entry, child)``
    of the children the ray enters within ``best``, nearest last (on top of the stack)."""
    x0, xm, x1, z0, zm, z1, k0, a0, b0, k1, a1, b1, k2, a2, b2, k3, a3, b3 = f
    p = (x0 - ox) * ix
    q = (xm - ox) * ix
    w = (x1 - ox) * ix
    lxa, lxb = (p, q) if p < q else (q, p)
    hxa, hxb = (q, w) if q < w else (w, q)
    p = (z0 - oz) * iz
    q = (zm - oz) * iz
    w = (z1 - oz) * iz
    lza, lzb = (p, q) if p < q else (q, p)
    hza, hzb = (q, w) if q < w else (w, q)
    lo_l = lxa if lxa > 0.0 else 0.0
    lo_h = hxa if hxa > 0.0 else 0.0
    hi_l = lxb if lxb < best else best
    hi_h = hxb if hxb < best else best
    hits: list[tuple[float, int]] = []
    for k, ya, yb, lo, hi, za, zb in ((k0, a0, b0, lo_l, hi_l, lza, lzb), (k1, a1, b1, lo_h, hi_h, lza, lzb),
                                      (k2, a2, b2, lo_l, hi_l, hza, hzb), (k3, a3, b3, lo_h, hi_h, hza, hzb)):
        if za > lo:
            lo = za
        if zb < hi:
            hi = zb
        if lo > hi:
            continue
        p = (ya - oy) * iy
        q = (yb - oy) * iy
        if p > q:
            p, q = q, p
        if p > lo:
            lo = p
        if q < hi:
            hi = q
        if lo <= hi:
            hits.append((lo, k))
    if len(hits) > 1:
        hits.sort(reverse=True)  # nearest child on top of the stack
    return hits


def _walk_tree(tree: ScalarTree, m: int, tn: float, ray: Ray, ix: float, iy: float, iz: float, best: float,
               best_key: int, nearest: bool) -> _TreeWalk:
    """One model's AABB tree (C5, C6), entered at distance ``tn``: near child first, boxes
    beyond ``best`` pruned; ties keep the lowest key (C7); the any policy stops at its first
    hit (C8)."""
    ox, oy, oz, dx, dy, dz = ray
    box, child, leaf, tris, ids = tree.box, tree.child, tree.leaf, tree.tris, tree.ids
    box_test = box_scalar
    tri_test = ray_triangle_scalar
    nodes = tris_tested = 0
    stack = [(tn, 0)]
    while stack:
        tn, n = stack.pop()
        if tn > best:
            continue
        lf = leaf[n]
        if lf >= 0:
            base = lf * LEAF_SIZE
            for s in range(base, base + LEAF_SIZE):
                tri = tris[s]
                if tri is None:
                    break
                tris_tested += 1
                t = tri_test(ox, oy, oz, dx, dy, dz, tri, best)
                if t != math.inf:
                    key = (m << 32) | ids[s]
                    if not nearest:
                        return _new(_TreeWalk, (t, key, nodes, tris_tested, True))
                    if t < best or best_key < 0 or key < best_key:
                        best, best_key = t, key
            continue
        a, b = child[n]
        nodes += 2
        ta = box_test(box[a], ox, oy, oz, ix, iy, iz, best)
        tb = box_test(box[b], ox, oy, oz, ix, iy, iz, best)
        if ta >= 0.0:
            if tb >= 0.0:
                if ta <= tb:  # near child on top of the stack
                    stack.append((tb, b))
                    stack.append((ta, a))
                else:
                    stack.append((ta, a))
                    stack.append((tb, b))
            else:
                stack.append((ta, a))
        elif tb >= 0.0:
            stack.append((tb, b))
    return _new(_TreeWalk, (best, best_key, nodes, tris_tested, False))
