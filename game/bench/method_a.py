"""Method A: the 10 x 10 limb check through the real code path vs a per-pair Python loop.

The references are the method-A oracles of :mod:`game.reference.range_box` (A2-A4 and A7 per
pair and per axis in plain Python); :func:`loop_tight` is the tightest plain Python form of
the same check, for scale.
"""

from __future__ import annotations

import numpy as np

from game.collision import PairJudge, box_triangles, collision_point, overlaps, padded_boxes, range_box_of
from game.reference.range_box import collision_points, overlap_matrix

from .common import interleaved_medians, report


def loop_tight(a: list, b: list) -> list:
    """A2-A4 as the tightest plain Python we found: flat 6-tuples, one comprehension,
    each axis's judgement points inline and short-circuit over the axes."""
    return [[(ax0 if ax0 > bx0 else bx0) <= (ax1 if ax1 < bx1 else bx1)
             and (ay0 if ay0 > by0 else by0) <= (ay1 if ay1 < by1 else by1)
             and (az0 if az0 > bz0 else bz0) <= (az1 if az1 < bz1 else bz1)
             for bx0, by0, bz0, bx1, by1, bz1 in b] for ax0, ay0, az0, ax1, ay1, az1 in a]


def run(args) -> None:
    rng = np.random.default_rng(0)
    lo = rng.uniform(-1, 1, (2, 10, 3))
    boxes = np.stack((lo, lo + rng.uniform(0.05, 0.6, (2, 10, 3))), axis=-2)   # (2, 10, 2, 3)
    a, b = boxes[0], boxes[1]
    a_list, b_list = a.tolist(), b.tolist()
    # The match's path: Skeleton.place(padded=True) makes the range boxes of both fighters as
    # padded rows (its turn matrix writes the pad lane, so there is no packing step), and all
    # pairs are one call of the match's PairJudge (made once per match) on them.
    rows = padded_boxes(boxes).reshape(-1, 4)                                    # (40, 4)
    judge = PairJudge.all_pairs(10, 10)
    want = overlap_matrix(a_list, b_list)
    assert judge.check(rows)[0].tolist() == want
    assert overlaps(a[:, None], b[None]).tolist() == want
    number = 2000 if args.quick else 20000
    repeat = 5 if args.quick else 9
    a_flat = [tuple(r) for r in a.reshape(-1, 6).tolist()]
    b_flat = [tuple(r) for r in b.reshape(-1, 6).tolist()]
    assert loop_tight(a_flat, b_flat) == want
    t_fast, t_api, t_ref, t_tight = interleaved_medians(
        [lambda: judge.check(rows), lambda: overlaps(a[:, None], b[None]),
         lambda: overlap_matrix(a_list, b_list), lambda: loop_tight(a_flat, b_flat)],
        numbers=[number, number, number // 8, number // 8], repeat=repeat)
    report("10x10 limb check, the match's path (A2-A4)", t_fast * 1e6, "us", ref=t_ref * 1e6, target="<= 4 us")
    report("  same, against the tightest Python loop", t_fast * 1e6, "us", ref=t_tight * 1e6)
    report("10x10 limb check, overlaps() on [min, max] boxes", t_api * 1e6, "us", ref=t_ref * 1e6)

    def match_path():
        # What combat.judge + combat.collision_points do for one attacker.
        ok, j1, j2 = judge.check(rows)
        if ok.any():
            k, m = np.nonzero(ok)
            j1[k, m, :3], j2[k, m, :3]
            collision_point(a[k], b[m])
    t_match, t_ref_pts = interleaved_medians(
        [match_path, lambda: collision_points(a_list, b_list)],
        numbers=[number // 2, number // 8], repeat=repeat)
    n_hit = int(overlaps(a[:, None], b[None]).sum())
    report(f"10x10 check + A7 points ({n_hit} colliding pairs)", t_match * 1e6, "us", ref=t_ref_pts * 1e6)
    # A frame of the match: one call judges all 11 x 11 limb pairs (both fighters' attacks
    # read it); the loop judges only what one active hitting limb needs, 1 x 11.
    rows11 = padded_boxes(np.concatenate((a, b[:1], b, a[:1]))).reshape(-1, 4)   # (44, 4)
    judge11 = PairJudge.all_pairs(11, 11)
    b11 = b_list + a_list[:1]
    t_one, t_one_ref = interleaved_medians(
        [lambda: judge11.check(rows11), lambda: overlap_matrix(a_list[:1], b11)],
        numbers=[number, number], repeat=repeat)
    report("a frame's 11x11 check vs loop over 1 limb x 11", t_one * 1e6, "us", ref=t_one_ref * 1e6)

    # A6 on a struck crate's scene model (Stage.sync_model: 124 small boxes, 1,488 triangles):
    # every triangle's range box (its AABB-tree leaves) and the model's box, against numpy's
    # plain reduction over the point axis, which runs its inner loop once per output element.
    lo = rng.uniform(-0.5, 0.5, (124, 3))
    tris = box_triangles(np.stack((lo, lo + rng.uniform(0.01, 0.3, (124, 3))), axis=1))   # (1488, 3, 3)
    pts = tris.reshape(-1, 3)

    def plain(p):
        return np.stack((p.min(axis=-2), p.max(axis=-2)), axis=-2)

    assert np.array_equal(range_box_of(tris), plain(tris)) and np.array_equal(range_box_of(pts), plain(pts))
    n = 50 if args.quick else 200
    t_tri, t_tri_ref, t_pts, t_pts_ref = interleaved_medians(
        [lambda: range_box_of(tris), lambda: plain(tris), lambda: range_box_of(pts), lambda: plain(pts)],
        numbers=[n, n, n, n], repeat=repeat)
    report("A6 range_box_of, 1,488 triangles' boxes vs .min/.max(axis=-2)", t_tri * 1e6, "us", ref=t_tri_ref * 1e6)
    report("A6 range_box_of, one box of 4,464 points vs .min/.max(axis=-2)", t_pts * 1e6, "us", ref=t_pts_ref * 1e6)
