"""Method A (A1-A7) against the plain per-axis references of ``game.reference.range_box``, in 2D
and 3D: judgement points and verdict, the match's PairJudge, range boxes of point sets, the
collision point, and bad input named."""

from __future__ import annotations

import copy
import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from game.collision import (
    PairJudge,
    all_pairs_index,
    box_centers,
    box_diagonals,
    box_from_center_half,
    box_from_sphere,
    collision_point,
    endpoints_by_coordinate_sum,
    judgement_points,
    overlaps,
    overlaps_pairs,
    padded_boxes,
    pair_index,
    range_box_of,
)
from game.reference.range_box import collision_point as ref_point
from game.reference.range_box import judgement_points as ref_judgement
from game.reference.range_box import overlap as ref_overlap

# Coordinates on a coarse grid so that touching and degenerate boxes are common.
coord = st.integers(-6, 6).map(lambda v: v / 2.0)


def box_strategy(d):
    def make(vals):
        lo = [min(vals[i], vals[i + d]) for i in range(d)]
        hi = [max(vals[i], vals[i + d]) for i in range(d)]
        return [lo, hi]
    return st.lists(coord, min_size=2 * d, max_size=2 * d).map(make)


@pytest.mark.slow
@pytest.mark.parametrize("d", [2, 3])
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_A2_A3_A4_A5_pairs_match_reference(d, data):
    a = data.draw(box_strategy(d))
    b = data.draw(box_strategy(d))
    j1, j2 = judgement_points(np.array(a), np.array(b))
    r1, r2 = ref_judgement(a, b)
    assert j1.tolist() == r1 and j2.tolist() == r2
    assert bool(overlaps(np.array(a), np.array(b))) == ref_overlap(a, b)
    assert bool(overlaps(np.array(b), np.array(a))) == ref_overlap(a, b)  # symmetric


@pytest.mark.slow
@pytest.mark.parametrize("d", [2, 3])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_A4_n_by_m_broadcast_matches_reference(d, data):
    A = data.draw(st.lists(box_strategy(d), min_size=1, max_size=7))
    B = data.draw(st.lists(box_strategy(d), min_size=1, max_size=7))
    got = overlaps(np.array(A)[:, None], np.array(B)[None, :])
    assert got.shape == (len(A), len(B))
    want = [[ref_overlap(a, b) for b in B] for a in A]
    assert got.tolist() == want
    pts = collision_point(np.array(A)[:, None], np.array(B)[None, :])
    assert pts.shape == (len(A), len(B), d)
    for i, a in enumerate(A):
        for j, b in enumerate(B):
            assert np.allclose(pts[i, j], ref_point(a, b), rtol=1e-12, atol=1e-12)


def raw_box_strategy(d):
    """Any [min, max] rows, inverted axes (min > max) included: A2-A4 are then still defined."""
    return st.lists(coord, min_size=2 * d, max_size=2 * d).map(lambda v: [v[:d], v[d:]])


@pytest.mark.slow
@pytest.mark.parametrize("d", [2, 3])
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_A1_A4_pairs_all_n_by_m_matches_reference(d, data):
    """The match's kernel (padded rows, one gather, contiguous ufuncs) on every pair of an
    N x M problem against the per-axis reference, touching, degenerate and inverted boxes
    included; its judgement points are A2/A3 as written out."""
    boxes = st.one_of(box_strategy(d), raw_box_strategy(d))
    A = data.draw(st.lists(boxes, min_size=1, max_size=11))
    B = data.draw(st.lists(boxes, min_size=1, max_size=11))
    padded = padded_boxes(np.array(A + B))
    assert padded.shape == (len(A) + len(B), 2, 4)
    ok, j1, j2 = overlaps_pairs(padded.reshape(-1, 4), all_pairs_index(len(A), len(B)))
    assert ok.reshape(len(A), len(B)).tolist() == [[ref_overlap(a, b) for b in B] for a in A]
    want = [ref_judgement(a, b) for a in A for b in B]
    assert j1[:, :d].tolist() == [w[0] for w in want]
    assert j2[:, :d].tolist() == [w[1] for w in want]


@pytest.mark.slow
@pytest.mark.parametrize("d", [2, 3])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_A1_A4_pair_judge_refilled_each_frame_matches_reference(d, data):
    """The match's PairJudge, made once and called on new rows frame after frame (its
    buffers refilled in place), gives the per-axis reference's verdict and judgement
    points on every call, shaped (n, m) by all_pairs()."""
    n = data.draw(st.integers(1, 11))
    m = data.draw(st.integers(1, 11))
    judge = PairJudge.all_pairs(n, m)
    for frame in range(3):
        A = data.draw(st.lists(box_strategy(d), min_size=n, max_size=n))
        B = data.draw(st.lists(box_strategy(d), min_size=m, max_size=m))
        call = judge.check if frame % 2 else judge        # the match calls .check directly
        ok, j1, j2 = call(padded_boxes(np.array(A + B)).reshape(-1, 4))
        assert ok.shape == (n, m) and j1.shape == j2.shape == (n, m, 4)
        assert ok.tolist() == [[ref_overlap(a, b) for b in B] for a in A]
        assert j1[..., :d].tolist() == [[ref_judgement(a, b)[0] for b in B] for a in A]
        assert j2[..., :d].tolist() == [[ref_judgement(a, b)[1] for b in B] for a in A]


def test_A1_A4_pair_judge_buffers_copies_and_errors():
    """A judge's results are read-only views of its buffers (the next call refills them);
    a deep copy or an unpickled judge has buffers of its own; bad rows or a bad index get
    a ValueError that names them, the index at construction (the per-frame gather trusts it)."""
    apart = padded_boxes(np.array([[[0.0, 0, 0], [1, 1, 1]], [[2.0, 0, 0], [3, 1, 1]]])).reshape(-1, 4)
    touch = padded_boxes(np.array([[[0.0, 0, 0], [1, 1, 1]], [[1.0, 0, 0], [3, 1, 1]]])).reshape(-1, 4)
    judge = PairJudge.all_pairs(1, 1)
    ok, j1, _ = judge(apart)
    assert ok.tolist() == [[False]] and not ok.flags.writeable and not j1.flags.writeable
    for other in (copy.deepcopy(judge), pickle.loads(pickle.dumps(judge))):
        assert other(touch)[0].tolist() == [[True]]
        assert ok.tolist() == [[False]]                     # the original's buffers untouched
    judge(touch)
    assert ok.tolist() == [[True]] and j1[0, 0, 0] == 1.0   # the same views, refilled
    with pytest.raises(ValueError, match="rows"):
        judge(apart[:3])
    with pytest.raises(ValueError, match="rows"):
        judge(apart.astype(np.float32))
    with pytest.raises(ValueError, match="rows"):
        judge(apart.tolist())
    with pytest.raises(ValueError, match="index"):
        PairJudge(pair_index([0], [2]), 4)                  # box 2 has rows 4 and 5
    with pytest.raises(ValueError, match="index"):
        PairJudge(np.zeros((4, 1)), 4)                      # row numbers must be integers
    with pytest.raises(ValueError, match="shape"):
        PairJudge(pair_index([0, 1], [1, 0]), 4, shape=(3,))
    with pytest.raises(ValueError, match="n_rows"):
        PairJudge(pair_index([0], [1]), -1)


@pytest.mark.slow
@pytest.mark.parametrize("d", [2, 3])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_A1_A4_pairs_any_pair_list_matches_overlaps(d, data):
    """An arbitrary pair list (repeats, a box with itself, either order) gives overlaps()'s verdict."""
    boxes = np.array(data.draw(st.lists(box_strategy(d), min_size=1, max_size=9)))
    n = len(boxes)
    a = data.draw(st.lists(st.integers(0, n - 1), min_size=0, max_size=30))
    b = data.draw(st.lists(st.integers(0, n - 1), min_size=len(a), max_size=len(a)))
    ok, j1, j2 = overlaps_pairs(padded_boxes(boxes).reshape(-1, 4), pair_index(a, b))
    assert ok.shape == (len(a),) and j1.shape == j2.shape == (len(a), 4)
    assert ok.tolist() == overlaps(boxes[a], boxes[b]).tolist()


def test_A1_A4_pairs_touching_degenerate_infinite_and_errors():
    inf = np.inf
    boxes = np.array([[[0.0, 0, 0], [1, 1, 1]],             # 0: unit cube
                      [[1.0, 1, 1], [2, 2, 2]],             # 1: corner contact with 0
                      [[1.0 + 1e-12, 0, 0], [2, 1, 1]],     # 2: just apart from 0
                      [[0.5, 0.5, 0.5], [0.5, 0.5, 0.5]]])  # 3: a point inside 0
    rows = padded_boxes(boxes).reshape(-1, 4)
    ok, _, _ = overlaps_pairs(rows, pair_index([0, 0, 0, 3], [1, 2, 3, 3]))
    assert ok.tolist() == [True, False, True, True]
    for infinite in ([[-inf, 0, 0], [inf, 1, 1]], [[inf, 0, 0], [inf, 1, 1]]):   # a slab, a box at infinity
        with pytest.raises(ValueError, match="boxes: .*finite"):
            padded_boxes(np.concatenate((boxes, [infinite])))
    with pytest.raises(ValueError, match="rows"):
        overlaps_pairs(boxes.reshape(-1, 3), pair_index([0], [1]))
    with pytest.raises(ValueError, match="index"):
        overlaps_pairs(rows, pair_index([0], [6]))                 # box 6 does not exist
    with pytest.raises(ValueError, match="index"):
        overlaps_pairs(rows, np.zeros(3, dtype=np.intp))
    with pytest.raises(ValueError, match="one box number per pair"):
        pair_index([0, 1], [1])
    with pytest.raises(ValueError, match=">= 0"):
        pair_index([0], [-1])


@pytest.mark.parametrize("lane, value", [(0, np.nan), (2, np.nan), (0, np.inf), (1, -np.inf)])
def test_A4_every_verdict_path_refuses_non_finite_boxes_naming_the_argument(lane, value):
    """The match's PairJudge and overlaps() gave two verdicts on a box with a NaN coordinate
    (colliding and apart).  A2-A4 are defined on finite boxes: every public entry refuses a
    non-finite coordinate with a ValueError naming the argument, the same on either path."""
    good = np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])
    bad = good.copy()
    bad[0 if value < 0 else 1, lane] = value                     # NaN and +inf on max, -inf on min
    for call, name in ((lambda: overlaps(bad, good), "a"), (lambda: overlaps(good, bad[None]), "b"),
                       (lambda: judgement_points(good, bad), "b"),
                       (lambda: padded_boxes(np.stack([good, bad])), "boxes")):
        with pytest.raises(ValueError, match=f"^{name}: .*finite"):
            call()
    # padded rows, the match's own layout (where an infinity is a pad lane, and padded_boxes
    # refuses infinite boxes): a NaN in a min or a max row is refused by the judge and by
    # overlaps_pairs, on the judge's every call
    judge = PairJudge.all_pairs(1, 1)
    if np.isnan(value):
        for row in (0, 3):
            rows = padded_boxes(np.stack([good, good])).reshape(-1, 4)
            rows[row, lane] = value
            for call in (lambda rows=rows: judge.check(rows), lambda rows=rows: judge(rows),
                         lambda rows=rows: overlaps_pairs(rows, all_pairs_index(1, 1))):
                with pytest.raises(ValueError, match="^rows: .*finite"):
                    call()
    assert judge.check(padded_boxes(np.stack([good, good])).reshape(-1, 4))[0].tolist() == [[True]]


@pytest.mark.parametrize("d", [2, 3])
def test_A4_touching_faces_edges_and_corners_count(d):
    a = np.zeros((2, d))
    a[1] = 1.0
    for shift in np.eye(d):                 # face contact on each axis
        assert overlaps(a, a + shift)
    assert overlaps(a, a + 1.0)             # corner contact
    assert not overlaps(a, a + 1.0 + 1e-12)
    assert not overlaps(a, a + np.eye(d)[0] * (1 + 1e-9))


def test_A4_degenerate_boxes():
    point = np.array([[0.5, 0.5, 0.5], [0.5, 0.5, 0.5]])
    unit = np.array([[0.0, 0, 0], [1, 1, 1]])
    assert overlaps(point, unit) and overlaps(point, point)
    flat = np.array([[0.0, 1.0, 0], [1, 1.0, 1]])     # zero thickness on y, on the top face
    assert overlaps(flat, unit)
    assert not overlaps(flat + [0, 1e-9, 0], unit)


@pytest.mark.slow
@pytest.mark.parametrize("d", [2, 3])
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_A7_collision_point_matches_reference(d, data):
    a = data.draw(box_strategy(d))
    b = data.draw(box_strategy(d))
    p = collision_point(np.array(a), np.array(b))
    assert np.allclose(p, ref_point(a, b), rtol=1e-12, atol=1e-12)
    assert np.all(np.isfinite(p))


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_A7_collision_point_pair_on_floats_equals_the_batched_point(data):
    """The single-pair A7 point on Python floats (a crate strike's) is the batched
    ``collision_point`` bit for bit, point boxes (zero diagonals) included."""
    from game.collision import collision_point_pair

    a = np.array(data.draw(box_strategy(3)))
    b = a.copy() if data.draw(st.booleans()) and data.draw(st.booleans()) else np.array(data.draw(box_strategy(3)))
    if data.draw(st.integers(0, 9)) == 0:
        a[1] = a[0]
        b[1] = b[0]
    got, want = collision_point_pair(a, b), collision_point(a, b)
    assert got.shape == (3,) and np.array_equal(got, want)


def test_A7_ratio_of_diagonals_and_degenerate_midpoint():
    a = np.array([[0.0, 0, 0], [2, 2, 2]])          # diagonal 2*sqrt(3), centre (1,1,1)
    b = np.array([[1.0, 1, 1], [2, 2, 2]])          # diagonal sqrt(3), centre (1.5,1.5,1.5)
    p = collision_point(a, b)
    assert np.allclose(p, [1 + 0.5 * 2 / 3] * 3)    # split 2:1 from c1
    pa = np.array([[1.0, 2.0], [1.0, 2.0]])
    pb = np.array([[3.0, 4.0], [3.0, 4.0]])
    with np.errstate(all="raise"):
        assert np.allclose(collision_point(pa, pb), [2.0, 3.0])


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(
    pts=hnp.arrays(np.float64, st.tuples(st.integers(1, 12), st.sampled_from([2, 3])),
                   elements=st.floats(-100, 100, allow_nan=False)),
)
def test_A6_range_box_of_any_point_set(pts):
    box = range_box_of(pts)
    for k in range(pts.shape[1]):
        assert box[0, k] == min(p[k] for p in pts)
        assert box[1, k] == max(p[k] for p in pts)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(
    pts=hnp.arrays(np.float64,
                   st.tuples(st.lists(st.integers(1, 6), max_size=2), st.integers(1, 40), st.sampled_from([2, 3]))
                   .map(lambda t: (*t[0], t[1], t[2])),
                   elements=st.floats(-1e6, 1e6, allow_nan=False)),
)
def test_A6_range_box_of_batched_equals_a_loop_over_each_set(pts):
    """Both layouts (many small sets: point axis outermost; few large sets: innermost)
    give each set's exact min / max endpoints, in the input's leading shape."""
    box = range_box_of(pts)
    assert box.shape == pts.shape[:-2] + (2, pts.shape[-1])
    for idx in np.ndindex(*pts.shape[:-2]):
        rows = pts[idx].tolist()
        for k in range(pts.shape[-1]):
            assert box[idx][0, k] == min(r[k] for r in rows)
            assert box[idx][1, k] == max(r[k] for r in rows)


def test_A6_coordinate_sum_rule_agrees_on_axis_aligned_corners():
    rng = np.random.default_rng(1)
    for _ in range(50):
        lo = rng.uniform(-5, 5, 3)
        hi = lo + rng.uniform(0.01, 3, 3)
        corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
        rng.shuffle(corners)
        assert np.array_equal(endpoints_by_coordinate_sum(corners), range_box_of(corners))


def test_A6_rotated_box_corners_give_enclosing_range_box():
    from pyrr import Matrix33
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-0.5, 0.5) for z in (-0.2, 0.2)], float)
    rot = np.asarray(Matrix33.from_y_rotation(0.7) @ Matrix33.from_x_rotation(0.3))
    world = corners @ rot.T + [3, 1, 0]
    box = range_box_of(world)
    assert np.all(box[0] <= world) and np.all(world <= box[1])
    assert np.allclose(box[0], world.min(0)) and np.allclose(box[1], world.max(0))


def test_A1_A5_bad_shapes_raise_clear_error():
    with pytest.raises(ValueError, match=r"\(\.\.\., 2, D\)"):
        overlaps(np.zeros((3, 3)), np.zeros((2, 3)))
    with pytest.raises(ValueError, match="D = 2 or 3"):
        overlaps(np.zeros((2, 4)), np.zeros((2, 4)))


@pytest.mark.parametrize("call, word", [
    (lambda: overlaps(np.zeros((2, 2)), np.zeros((2, 3))), "same D"),              # a 2D box against a 3D box
    (lambda: judgement_points(np.zeros((4, 2, 3)), np.zeros((3, 2, 3))), "broadcast"),
    (lambda: collision_point(np.zeros((4, 2, 3)), np.zeros((3, 2, 3))), "a\\[:, None\\]"),
    (lambda: overlaps("ab", np.zeros((2, 3))), "a: expected an array of numbers"),
    (lambda: range_box_of(np.zeros((0, 3))), "points: .*P >= 1"),
    (lambda: endpoints_by_coordinate_sum(np.zeros((0, 3))), "corners: .*P >= 1"),
    (lambda: endpoints_by_coordinate_sum(np.zeros(3)), "corners: expected shape"),
    (lambda: endpoints_by_coordinate_sum([["x", 1, 2]]), "corners: expected an array of numbers"),
    (lambda: box_from_center_half([0, 0, 0], [1, 1]), "center, half"),
    (lambda: box_from_center_half(1.0, 1.0), "center, half"),
    (lambda: box_from_sphere([0, 0, 0, 0], 1.0), "center, radius"),
])
def test_A1_A5_A6_bad_input_is_a_value_error_naming_the_argument(call, word):
    """Never numpy's own broadcast / argmin / axis message (DEVELOPERS.md: bad input)."""
    with pytest.raises(ValueError, match=word) as info:
        call()
    assert type(info.value) is ValueError
    assert "operands could not be broadcast" not in str(info.value)


@pytest.mark.slow
@pytest.mark.parametrize("d", [2, 3])
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_A6_A7_conversions_centres_and_diagonals_match_reference(d, data):
    b = data.draw(box_strategy(d))
    c = [(b[0][k] + b[1][k]) / 2 for k in range(d)]
    h = [(b[1][k] - b[0][k]) / 2 for k in range(d)]
    assert np.allclose(box_from_center_half(c, h), b)                       # A6 centre + half size
    assert np.allclose(box_from_center_half(c, [-x for x in h]), b)         # sign of the half size ignored
    assert np.allclose(box_centers(np.array(b)), c)                         # A7 centroid
    diag = math.sqrt(sum((b[1][k] - b[0][k]) ** 2 for k in range(d)))
    assert box_diagonals(np.array(b)) == pytest.approx(diag)                # A7 longest diagonal
    r = data.draw(coord.map(abs))
    assert np.allclose(box_from_sphere(c, r), [[x - r for x in c], [x + r for x in c]])   # A6/B8 cube


def test_B7_box_triangles_cover_each_box_surface_outward():
    from game.collision import box_triangles
    rng = np.random.default_rng(4)
    lo = rng.uniform(-3, 3, (20, 3))
    boxes = np.stack((lo, lo + rng.uniform(0.01, 2, (20, 3))), axis=1)
    tris = box_triangles(boxes).reshape(20, 12, 3, 3)
    for b, t in zip(boxes, tris):
        n = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])
        outward = np.einsum("ij,ij->i", n, t.mean(axis=1) - b.mean(axis=0))
        assert np.all(outward > 0)                                          # counter-clockwise from outside
        area = 0.5 * np.linalg.norm(n, axis=1).sum()
        e = b[1] - b[0]
        assert area == pytest.approx(2 * (e[0] * e[1] + e[1] * e[2] + e[0] * e[2]))   # whole surface, once
        assert np.array_equal(range_box_of(t.reshape(-1, 3)), b)
