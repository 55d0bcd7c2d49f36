"""Method C, C6-C9: the batched walker, for many rays at once (``cast_*_many``).

A *frontier* of ``(ray, node)`` pairs walks whole tree levels per numpy call: the quadtree
stage (C1, C6) finds the unique ``(ray, model)`` pairs whose leaf nodes a ray reaches, each
pair enters its model's packed AABB tree at the root box, and every step tests the
triangles of the leaves reached and the two children of the inner nodes (Jolt-style node
step: the ray's data is gathered once and broadcast over the children).  Gathers use
``np.take`` / ``np.compress``, several times faster than fancy indexing on these shapes.

Two policies: *nearest* (C7) keeps a pair only while its box entry distance is within the
ray's best hit so far (updated with ``np.minimum.at``; ties keep the lowest (model,
triangle)); *any* (C8) is an early exit per ray: each step tests one leaf per ray, the one it
enters first, and a ray that hits leaves the frontier at once, with every node it still had.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..aabb_tree import LEAF_SIZE
from ..raycast import inverse_directions, ray_boxes_cm, ray_triangles_cm
from .packing import QuadBoxes, TreePack
from .queries import NO_KEY, QueryStats, RayHits

__all__ = ["NearestWalk", "AnyWalk", "walk_nearest", "walk_any", "candidates"]

_LANES = np.arange(LEAF_SIZE)


class NearestWalk(NamedTuple):
    """The result of a batched nearest walk (C7)."""

    hits: RayHits
    stats: QueryStats


class AnyWalk(NamedTuple):
    """The result of a batched any-hit walk (C8)."""

    hit: np.ndarray     # (n,) bool: the ray hit some triangle within the max distance
    stats: QueryStats


class Candidates(NamedTuple):
    """The unique ``(ray, model)`` pairs whose quadtree leaves a ray reaches (C1, C6, C9)."""

    rays: np.ndarray    # (c,) int64, ray index, ascending
    models: np.ndarray  # (c,) int64, model index
    tested: int         # quadtree boxes tested


class _Rays(NamedTuple):
    """The batch's rays, component-major (one contiguous row per coordinate)."""

    inv: np.ndarray     # (6, n) rows o.xyz, 1/d.xyz (slab tests)
    dirs: np.ndarray    # (6, n) rows o.xyz, d.xyz (triangle tests)


class _SlotPairs(NamedTuple):
    """(ray, triangle slot) pairs: every slot of the leaves the rays reached."""

    rays: np.ndarray    # (k * LEAF_SIZE,) int64
    slots: np.ndarray   # (k * LEAF_SIZE,) int64, global slot index into the pack


class _Frontier(NamedTuple):
    """``(ray, node)`` pairs still to walk, and the work done reaching them."""

    r: np.ndarray       # (p,) int64, the ray of each pair
    nd: np.ndarray      # (p,) int64, its global tree node
    tn: np.ndarray      # (p,) float, the ray's entry distance into the node's box
    tested: int         # boxes tested so far


def _rays(o: np.ndarray, d: np.ndarray) -> _Rays:
    return _Rays(np.ascontiguousarray(np.concatenate([o, inverse_directions(d)], axis=1).T),
                 np.ascontiguousarray(np.concatenate([o, d], axis=1).T))


def candidates(quad: QuadBoxes, n_models: int, model_level: np.ndarray, ray: np.ndarray, md: float,
               lv: int | None) -> Candidates:
    """Quadtree stage (C1, C6): the unique (ray, model) pairs whose leaf nodes the ray reaches.

    ray : (6, n) rows ``o.xyz, inv.xyz``; model_level : (m,) int64, each model's level (C9).
    A frontier of (ray, node) pairs; each inner node tests its four children in one step
    (Jolt style).
    """
    qa = quad.arrays
    qleaf = qa.child[:, 0] < 0
    n_rays = ray.shape[1]
    r = np.flatnonzero(ray_boxes_cm(ray[:3], ray[3:], quad.box[:, :1], md)[0])
    nd = np.zeros(r.size, dtype=np.int64)
    tested = n_rays
    out_r, out_m = [], []
    while r.size:
        leafm = np.take(qleaf, nd)
        if leafm.any():
            lr, ln = np.compress(leafm, r), np.compress(leafm, nd)
            cnt = np.take(qa.leaf_count, ln)
            tot = int(cnt.sum())
            if tot:
                ends = np.cumsum(cnt)
                idx = np.arange(tot) + np.repeat(np.take(qa.leaf_start, ln) - (ends - cnt), cnt)
                out_r.append(np.repeat(lr, cnt))
                out_m.append(np.take(qa.leaf_models, idx))
            inner = ~leafm
            r, nd = np.compress(inner, r), np.compress(inner, nd)
        if not r.size:
            break
        g = np.take(ray, r, axis=1)[:, None, :]  # (6, 1, p): broadcast over the four children
        hit = ray_boxes_cm(g[:3], g[3:], np.take(quad.cbox, nd, axis=2), md)[0].ravel()  # (4 * p,)
        tested += hit.size
        nd = np.compress(hit, np.take(quad.cidx, nd, axis=1).ravel())
        r = np.compress(hit, np.tile(r, 4))
    if not out_r:
        e = np.zeros(0, dtype=np.int64)
        return Candidates(e, e, tested)
    cr, cm, _ = _unique_pairs(np.concatenate(out_r), np.concatenate(out_m), n_rays, n_models)
    if lv is not None:
        ok = np.take(model_level, cm) > lv  # C9
        cr, cm = np.compress(ok, cr), np.compress(ok, cm)
    return Candidates(cr, cm, tested)


def _unique_pairs(r: np.ndarray, m: np.ndarray, n_rays: int, n_models: int) -> Candidates:
    """The unique (ray, model) pairs of ``r, m`` (c,) int64, by ray then model (``tested`` 0)."""
    key = r * n_models + m
    space = n_rays * n_models
    if space <= 64 * key.size + (1 << 16):  # dense: a bitmap is cheaper than sorting
        mark = np.zeros(space, dtype=bool)
        mark[key] = True
        key = np.flatnonzero(mark)
    else:
        key = np.sort(key)
        key = key[np.concatenate(([True], key[1:] != key[:-1]))]
    cr, cm = np.divmod(key, n_models)
    return Candidates(cr, cm, 0)


def _enter(pack: TreePack, quad: QuadBoxes, n_models: int, rays: _Rays, md: float, lv: int | None) -> _Frontier:
    """Every candidate (ray, model) pair entering its model's tree at the root box."""
    c = candidates(quad, n_models, pack.level, rays.inv, md, lv)
    nd = np.take(pack.node_off, c.models)
    g = np.take(rays.inv, c.rays, axis=1)
    hit, tn = ray_boxes_cm(g[:3], g[3:], np.take(pack.box, nd, axis=1), md)
    return _Frontier(np.compress(hit, c.rays), np.compress(hit, nd), np.compress(hit, tn), c.tested + hit.size)


def _descend(pack: TreePack, rays: _Rays, r: np.ndarray, nd: np.ndarray, limit: float | np.ndarray,
             tested: int) -> _Frontier:
    """The two children of inner nodes ``nd`` (p,) that rays ``r`` (p,) enter within ``limit``."""
    g = np.take(rays.inv, r, axis=1)[:, None, :]  # (6, 1, p): broadcast over both children
    hit, tnk = ray_boxes_cm(g[:3], g[3:], np.take(pack.cbox, nd, axis=2), limit)  # (2, p)
    tested += hit.size
    hit = hit.ravel()
    return _Frontier(np.compress(hit, np.tile(r, 2)), np.compress(hit, np.take(pack.cidx, nd, axis=1).ravel()),
                     np.compress(hit, tnk.ravel()), tested)


def _leaf_slots(r: np.ndarray, lf: np.ndarray) -> _SlotPairs:
    """The (ray, slot) pairs of (ray, leaf) pairs: rays ``r`` (k,) and leaf blocks ``lf`` (k,)."""
    slots = (lf[:, None] * LEAF_SIZE + _LANES).ravel()
    return _SlotPairs(np.repeat(r, LEAF_SIZE), slots)


def _slot_hits(pack: TreePack, rays: _Rays, rr: np.ndarray, slots: np.ndarray,
               limit: float | np.ndarray) -> np.ndarray:
    """Triangle test of each (ray, slot) pair: (k,) float distance, inf = miss."""
    g = np.take(rays.dirs, rr, axis=1)
    return ray_triangles_cm(g[:3], g[3:], np.take(pack.tri, slots, axis=1), limit)


def walk_nearest(pack: TreePack, quad: QuadBoxes, n_models: int, o: np.ndarray, d: np.ndarray, md: float,
                 lv: int | None) -> NearestWalk:
    """C6, C7: the nearest hit of rays ``o, d`` (n, 3) float (unit directions) within ``md``."""
    n_rays = o.shape[0]
    best = np.full(n_rays, md)
    best_key = np.full(n_rays, NO_KEY, dtype=np.int64)
    if not n_models or n_rays == 0:
        return NearestWalk(RayHits(np.full(n_rays, np.inf), np.full(n_rays, -1, np.int64),
                                   np.full(n_rays, -1, np.int64)), QueryStats(n_rays, 0, 0))
    rays = _rays(o, d)
    r, nd, tn, tested = _enter(pack, quad, n_models, rays, md, lv)
    tri_tested = 0
    hits_r, hits_t, hits_k = [], [], []
    while r.size:
        keep = tn <= np.take(best, r)
        if not keep.all():
            r, nd = np.compress(keep, r), np.compress(keep, nd)
        lf = np.take(pack.leaf, nd)
        isleaf = lf >= 0
        if isleaf.any():
            rr, slots = _leaf_slots(np.compress(isleaf, r), np.compress(isleaf, lf))
            t = _slot_hits(pack, rays, rr, slots, np.take(best, rr))
            tri_tested += slots.size
            h = np.flatnonzero(t != np.inf)
            if h.size:
                hr = np.take(rr, h)
                ht = np.take(t, h)
                np.minimum.at(best, hr, ht)
                hits_r.append(hr)
                hits_t.append(ht)
                hits_k.append(np.take(pack.key, np.take(slots, h)))
            inner = ~isleaf
            r, nd = np.compress(inner, r), np.compress(inner, nd)
            if not r.size:
                break
        r, nd, tn, tested = _descend(pack, rays, r, nd, np.take(best, r), tested)
    stats = QueryStats(n_rays, int(tested), int(tri_tested))
    if hits_r:
        hr = np.concatenate(hits_r)
        ht = np.concatenate(hits_t)
        hk = np.concatenate(hits_k)
        sel = ht == np.take(best, hr)
        np.minimum.at(best_key, np.compress(sel, hr), np.compress(sel, hk))
    miss = best_key == NO_KEY
    return NearestWalk(RayHits(np.where(miss, np.inf, best), np.where(miss, -1, best_key >> 32),
                               np.where(miss, -1, best_key & 0xFFFFFFFF)), stats)


def walk_any(pack: TreePack, quad: QuadBoxes, n_models: int, o: np.ndarray, d: np.ndarray, md: float,
             lv: int | None) -> AnyWalk:
    """C6, C8: whether rays ``o, d`` (n, 3) float (unit directions) hit anything within ``md``.

    C8 is an early exit per ray: a ray that has hit leaves the frontier at once, with every
    node it still had in it.  So each step tests one leaf per ray, the one it enters first
    (the others wait in the frontier; two at exactly the same entry distance go together),
    and drops the rays that hit before their inner nodes are descended.
    """
    n_rays = o.shape[0]
    done = np.zeros(n_rays, dtype=bool)
    if not n_models or n_rays == 0:
        return AnyWalk(done, QueryStats(n_rays, 0, 0))
    rays = _rays(o, d)
    r, nd, tn, tested = _enter(pack, quad, n_models, rays, md, lv)
    tri_tested = 0
    while r.size:
        lf = np.take(pack.leaf, nd)
        leaves = np.flatnonzero(lf >= 0)
        if leaves.size:
            now = _first_leaf_per_ray(r, tn, leaves, n_rays)
            rr, slots = _leaf_slots(np.take(r, now), np.take(lf, now))
            t = _slot_hits(pack, rays, rr, slots, md)
            tri_tested += slots.size
            keep = np.ones(r.size, dtype=bool)
            keep[now] = False
            h = np.flatnonzero(t != np.inf)
            if h.size:
                done[np.take(rr, h)] = True
                keep &= ~np.take(done, r)
            r, nd, tn, lf = np.compress(keep, r), np.compress(keep, nd), np.compress(keep, tn), np.compress(keep, lf)
        inner = lf < 0
        if inner.any():
            waiting = ~inner                                   # leaves not tested yet: they stay
            below = _descend(pack, rays, np.compress(inner, r), np.compress(inner, nd), md, tested)
            tested = below.tested
            r = np.concatenate((np.compress(waiting, r), below.r))
            nd = np.concatenate((np.compress(waiting, nd), below.nd))
            tn = np.concatenate((np.compress(waiting, tn), below.tn))
    return AnyWalk(done, QueryStats(n_rays, int(tested), int(tri_tested)))


def _first_leaf_per_ray(r: np.ndarray, tn: np.ndarray, leaves: np.ndarray, n_rays: int) -> np.ndarray:
    """Of the frontier's leaf pairs ``leaves`` (k,) int, the ones each ray enters first: (m,) int
    frontier positions, those at the smallest entry distance of their ray (one per ray but for
    exact ties)."""
    rl, tl = np.take(r, leaves), np.take(tn, leaves)
    first = np.full(n_rays, np.inf)
    np.minimum.at(first, rl, tl)
    return np.compress(tl == np.take(first, rl), leaves)
