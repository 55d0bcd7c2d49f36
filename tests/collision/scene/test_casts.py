"""Method C ray casts (C6-C9), single and batched, nearest hit (C7) and any hit (C8) against the
brute-force reference ``game.reference.scene``; edge conventions, bad arguments, the any-hit
early exit per ray, and logic levels (C9)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.collision import (
    CollisionModel,
    RayHit,
    Scene,
)
from game.collision.aabb_tree import LEAF_SIZE
from game.reference.scene import brute_nearest
from scenehelp import rays, scenes


# ---------------------------------------------------------------- C8: early exit
def _spires(n):
    """``n`` one-triangle models, each slanted from y = i (z = 0) up to y = 10 (z = 3): every
    model's box is entered at the same distance by a ray coming down at x = z = 0.5, which
    crosses model i at y = i + (10 - i) / 6, so a nearest search cannot prune any of them."""
    return [CollisionModel([[[-1.0, i, 0.0], [2.0, i, 0.0], [0.5, 10.0, 3.0]]], 0) for i in range(n)]


def test_C8_single_any_hit_stops_at_its_first_triangle():
    models = _spires(5)
    o, d = [0.5, 100.0, 0.5], [0.0, -1.0, 0.0]
    for mdl in models:                                        # the ray crosses every model's triangle
        assert Scene.build([mdl]).cast_any(o, d, 200.0)
    sc = Scene.build(models)
    h = sc.cast_nearest(o, d, 200.0)
    assert h.model == 4 and h.distance == pytest.approx(100.0 - (4 + 6 / 6))
    nearest_tris = sc.stats.triangles_tested
    assert nearest_tris == 5
    assert sc.cast_any(o, d, 200.0)
    assert sc.stats.triangles_tested == 1 < nearest_tris      # the first triangle tested hit: stop there


def test_C8_batched_any_hit_drops_a_finished_ray_from_deeper_nodes():
    # model 0: one floor at y = 20, its root is a leaf; model 1: 40 floors (y = 0..39), a deep tree.
    # Both roots are in the first frontier; model 0's leaf hits, so the any policy must not
    # descend model 1 (nearest must: model 1's box starts at y = 39, before the y = 20 hit).
    floor = [[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 0.0, 4.0]]
    near = CollisionModel(np.array([floor]) + [0.0, 20.0, 0.0], 0)
    stack = CollisionModel(np.array([floor] * 40) + np.arange(40.0)[:, None, None] * [0.0, 1.0, 0.0], 0)
    assert stack.tree.node_count > 1
    sc = Scene.build([near, stack])
    o = np.tile([0.5, 100.0, 0.5], (3, 1))
    d = np.tile([0.0, -1.0, 0.0], (3, 1))
    assert sc.cast_any_many(o, d, 200.0).all()
    any_tris = sc.stats.triangles_tested
    assert any_tris == 3 * LEAF_SIZE                          # model 0's leaf block, once per ray
    assert sc.cast_nearest_many(o, d, 200.0).model.tolist() == [1, 1, 1]
    assert any_tris < sc.stats.triangles_tested


# ---------------------------------------------------------------- C9: ray levels
def _level_scene():
    """Floors under (0.5, *, 0.5): level 2 at y = 0, level 1 at y = 1, level 0 at y = 2."""
    tri = np.array([[[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 0.0, 4.0]]])
    return Scene.build([CollisionModel(tri + [0.0, 2.0 - lv, 0.0], lv) for lv in (2, 1, 0)])


_O, _D = [0.5, 5.0, 0.5], [0.0, -1.0, 0.0]


CASTS = {
    "cast_nearest": lambda sc, lv: sc.cast_nearest(_O, _D, 10.0, level=lv),
    "cast_nearest_distance": lambda sc, lv: sc.cast_nearest_distance(_O, _D, 10.0, level=lv),
    "cast_any": lambda sc, lv: sc.cast_any(_O, _D, 10.0, level=lv),
    "cast_nearest_many": lambda sc, lv: sc.cast_nearest_many([_O], [_D], 10.0, level=lv),
    "cast_any_many": lambda sc, lv: sc.cast_any_many([_O], [_D], 10.0, level=lv),
}


BAD_LEVELS = [3, 5, -1, np.int64(7), True, False, 1.0, "1"]


@pytest.mark.parametrize("bad", BAD_LEVELS, ids=repr)
@pytest.mark.parametrize("cast", sorted(CASTS))
def test_C9_ray_level_must_be_none_or_0_1_2(cast, bad):
    with pytest.raises(ValueError, match=r"^level: .*0 \(low\), 1 \(medium\) or 2 \(high\), got "):
        CASTS[cast](_level_scene(), bad)


@pytest.mark.parametrize("cast", sorted(CASTS))
def test_C9_ray_levels_none_0_1_2_are_accepted(cast):
    sc = _level_scene()
    # distance from y = 5 to the first model above the ray's level (C9): None sees all three
    want = [(None, 3.0), (0, 4.0), (np.int64(0), 4.0), (1, 5.0), (np.int32(1), 5.0), (2, None)]
    for lv, dist in want:
        r = CASTS[cast](sc, lv)
        if cast == "cast_any":
            assert r is (dist is not None)
        elif cast == "cast_any_many":
            assert r.tolist() == [dist is not None]
        elif cast == "cast_nearest_many":
            assert r.distance.tolist() == [np.inf if dist is None else dist]
        elif cast == "cast_nearest":
            assert (r is None) if dist is None else r.distance == dist
        else:
            assert r == dist


REL = 1e-9


def _check_batch(scene, o, d, md, level):
    ref_d, ref_m, ref_t = brute_nearest(scene.models, o, d, md, level)
    got = scene.cast_nearest_many(o, d, md, level)
    assert np.array_equal(np.isinf(got.distance), np.isinf(ref_d))
    hit = np.isfinite(ref_d)
    np.testing.assert_allclose(got.distance[hit], ref_d[hit], rtol=REL, atol=0)
    assert np.all(got.model[~hit] == -1) and np.all(got.triangle[~hit] == -1)
    assert np.array_equal(got.model, ref_m) and np.array_equal(got.triangle, ref_t)
    anyhit = scene.cast_any_many(o, d, md, level)
    assert anyhit.dtype == bool and np.array_equal(anyhit, hit)
    return ref_d, ref_m, ref_t


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_C7_C8_C9_batch_casts_match_brute_force(data):
    scene = data.draw(scenes())
    o, d = data.draw(rays(scene))
    md = data.draw(st.sampled_from([0.0, 0.5, 3.0, 7.25, 50.0, float("inf")]))
    level = data.draw(st.sampled_from([None, 0, 1, 2]))
    _check_batch(scene, o, d, md, level)


@pytest.mark.slow
@settings(max_examples=210, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_C6_C7_C8_C9_single_casts_and_distance_only_match_brute_force(data):
    """The scalar walker (nearest hit, its distance alone, any hit) against brute force, with
    rays through vertices, along edges and axis-parallel, every level, and a ``max_distance``
    of 0, finite, 1e300 or unbounded."""
    scene = data.draw(scenes())
    o, d = data.draw(rays(scene))
    md = data.draw(st.sampled_from([0.0, 0.5, 3.0, 7.25, 50.0, 1e300, float("inf")]))
    level = data.draw(st.sampled_from([None, 0, 1, 2]))
    ref_d, ref_m, ref_t = brute_nearest(scene.models, o, d, md, level)
    for k in range(len(o)):
        h = scene.cast_nearest(o[k], d[k], md, level)
        assert scene.cast_any(o[k], d[k], md, level) == bool(np.isfinite(ref_d[k]))
        t = scene.cast_nearest_distance(o[k], d[k], md, level)
        if np.isinf(ref_d[k]):
            assert h is None and t is None
            continue
        assert t == h.distance                  # the same walk, without building the RayHit
        assert isinstance(h, RayHit)
        assert h.distance == pytest.approx(ref_d[k], rel=REL, abs=0)
        assert (h.model, h.triangle) == (ref_m[k], ref_t[k])
        u = d[k] / np.abs(d[k]).max()           # scaled first: a tiny direction's norm must not underflow
        u = u / np.sqrt(u @ u)
        np.testing.assert_allclose(h.point, o[k] + ref_d[k] * u, rtol=1e-9, atol=1e-9)
        w = scene.models[h.model].world_triangles[h.triangle]
        n = np.cross(w[1] - w[0], w[2] - w[0])
        assert abs(abs(n @ h.normal) - np.linalg.norm(n)) <= 1e-9 * np.linalg.norm(n)
        assert h.normal @ u <= 0.0  # two-sided: normal faces the origin


def _quad_scene():
    """Two triangles sharing the diagonal edge (0,0,0)-(2,0,2) on the floor, plus a wall."""
    floor = CollisionModel([[[0, 0, 0], [2, 0, 0], [2, 0, 2]], [[0, 0, 0], [2, 0, 2], [0, 0, 2]]], 2)
    wall = CollisionModel([[[5, 0, 0], [5, 2, 0], [5, 0, 2]]], 1)
    return Scene.build([floor, wall], leaf_capacity=1, max_depth=3)


def test_C7_edge_convention_ray_through_shared_edge_hits_lowest_triangle():
    sc = _quad_scene()
    o, d = np.array([[1.0, 2.0, 1.0], [0.0, 1.0, 0.0], [2.0, 1.0, 2.0]]), np.array([[0.0, -1.0, 0.0]] * 3)
    got = sc.cast_nearest_many(o, d, 10)
    assert np.all(got.distance == [2.0, 1.0, 1.0])
    assert np.all(got.model == 0) and np.all(got.triangle == 0)  # tie: lowest index
    assert sc.cast_nearest(o[0], d[0], 10).triangle == 0
    _check_batch(sc, o, d, 10, None)


def test_C6_ray_parallel_to_face_misses_even_in_its_plane():
    sc = _quad_scene()
    o = np.array([[-1.0, 0.0, 1.0], [-1.0, 0.5, 1.0]])
    d = np.array([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    got = sc.cast_nearest_many(o, d, 10)
    assert np.all(got.model == 1)  # passes the coplanar floor, hits the wall
    assert got.distance.tolist() == [6.0, 6.0]
    _check_batch(sc, o, d, 10, None)


def test_C6_ray_starting_inside_a_model_box_and_max_distance_inclusive():
    sc = _quad_scene()
    o = np.array([[1.0, 0.0, 0.5]])  # inside the floor's (flat) box, on the floor
    assert sc.cast_nearest_many(o, [[0, -1, 0]], 1).distance[0] == 0.0
    box = CollisionModel(np.array([[[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 0, 1], [1, 0, 1], [0, 1, 1]]]), 0)
    sc2 = Scene.build([box])
    h = sc2.cast_nearest([0.2, 0.2, 0.5], [0, 0, 5], 0.5)  # starts between the two faces
    assert h is not None and h.distance == pytest.approx(0.5) and h.triangle == 1
    assert sc2.cast_nearest([0.2, 0.2, 0.5], [0, 0, 5], 0.4999) is None
    assert sc2.cast_any([0.2, 0.2, 0.5], [0, 0, -1], 0.5)


def test_C6_direction_length_does_not_change_distance():
    sc = _quad_scene()
    a = sc.cast_nearest([1, 3, 0.5], [0, -1, 0], 10)
    b = sc.cast_nearest([1, 3, 0.5], [0, -1000, 0], 10)
    assert a.distance == b.distance == 3.0
    many = sc.cast_nearest_many([[1, 3, 0.5]] * 3, [[0, -1e-3, 0], [0, -7, 0], [0, -1e-300, 0]], 10)
    assert many.distance.tolist() == [3.0, 3.0, 3.0]
    assert sc.cast_nearest([1, 3, 0.5], [0, -1e-310, 0], 10).distance == 3.0  # subnormal length
    assert sc.cast_nearest([-1, 1, 1], [1e300, 0, 0], 10).distance == 6.0  # huge length


def test_C6_zero_direction_and_bad_arguments_raise_value_error():
    sc = _quad_scene()
    with pytest.raises(ValueError, match="zero direction"):
        sc.cast_nearest([0, 0, 0], [0, 0, 0], 5)
    with pytest.raises(ValueError, match="zero direction"):
        sc.cast_any([0, 0, 0], [0, 0, 0], 5)
    with pytest.raises(ValueError, match="zero direction"):
        sc.cast_nearest_many([[0, 0, 0], [1, 1, 1]], [[0, 1, 0], [0, 0, 0]], 5)
    with pytest.raises(ValueError, match="zero direction"):
        sc.cast_any_many([[0, 0, 0]], [[0, 0, 0]], 5)
    with pytest.raises(ValueError, match="max_distance"):
        sc.cast_any([0, 0, 0], [0, 1, 0], -1)
    with pytest.raises(ValueError, match="origins"):
        sc.cast_nearest_many(np.zeros((3, 2)), np.zeros((3, 2)), 5)
    with pytest.raises(ValueError, match="NaN"):
        sc.cast_nearest([np.nan, 0, 0], [0, 1, 0], 5)
    with pytest.raises(ValueError, match="level"):
        sc.cast_any([0, 0, 0], [0, 1, 0], 5, level="high")
    with pytest.raises(ValueError, match="max_distance"):
        sc.cast_any([0, 0, 0], [0, 1, 0], "far")
    with pytest.raises(ValueError, match="level"):
        CollisionModel([[[0, 0, 0], [1, 0, 0], [0, 1, 0]]], None)
    with pytest.raises(ValueError, match="level"):
        CollisionModel([[[0, 0, 0], [1, 0, 0], [0, 1, 0]]], 3)
    with pytest.raises(ValueError, match="triangles"):
        CollisionModel(np.zeros((0, 3, 3)), 0)
    with pytest.raises(ValueError, match="transform"):
        CollisionModel([[[0, 0, 0], [1, 0, 0], [0, 1, 0]]], 0, np.ones((4, 4)))
    with pytest.raises(ValueError, match="triangles: expected a"):
        CollisionModel("abc", 0)
    with pytest.raises(ValueError, match="transform: expected a"):
        CollisionModel([[[0, 0, 0], [1, 0, 0], [0, 1, 0]]], 0, "abc")
    with pytest.raises(ValueError, match="origins/directions: expected"):
        sc.cast_any_many("ab", "cd", 5)


def test_C9_ray_hits_only_models_above_its_level():
    sc = _quad_scene()  # floor level 2, wall level 1
    o, d = [-1.0, 0.5, 1.0], [1.0, 0.0, 0.0]
    assert sc.cast_nearest(o, d, 10).model == 1
    assert sc.cast_nearest(o, d, 10, level=0).model == 1
    assert sc.cast_nearest(o, d, 10, level=1) is None
    assert not sc.cast_any(o, d, 10, level=1)
    down = [1.0, 1.0, 0.5], [0, -1, 0]
    assert sc.cast_any(*down, 10, level=1) and not sc.cast_any(*down, 10, level=2)


def test_C8_any_hit_visits_fewer_triangles_than_nearest():
    # a stack of 40 parallel floors: nearest must prune, any must stop at the first triangle
    tris = np.array([[[0, y, 0], [4, y, 0], [0, y, 4]] for y in range(40)], dtype=float)
    sc = Scene.build([CollisionModel(tris, 0)])
    assert sc.cast_any([0.5, 100, 0.5], [0, -1, 0], 200)
    any_tris = sc.stats.triangles_tested
    h = sc.cast_nearest([0.5, 100, 0.5], [0, -1, 0], 200)
    assert h.distance == 61.0 and h.triangle == 39
    assert 1 <= any_tris <= sc.stats.triangles_tested < 40
    o = np.tile([0.5, 100, 0.5], (5, 1))
    d = np.tile([0, -1.0, 0], (5, 1))
    assert sc.cast_any_many(o, d, 200).all()
    batch_any = sc.stats.triangles_tested
    assert sc.cast_nearest_many(o, d, 200).triangle.tolist() == [39] * 5
    assert batch_any <= sc.stats.triangles_tested


def test_C8_batched_any_hit_stops_each_ray_at_its_first_hit():
    """C8 is an early exit per ray: in a batch, a ray that has found a hit is walked no further
    (no more nodes, no more triangles for it).  Rays straight down a stack of 64 floors in one
    model reach all the floors' leaves at the same depth of its tree; the nearest query (C7)
    tests every one of them (none can be pruned before the first is tested), the any-hit
    query only the nearest leaf of each ray, which hits.  Rays over the stack's edge and
    beside it (a miss) are in the batch too; the answers equal brute force."""
    from game.collision.aabb_tree import LEAF_SIZE

    floors = np.array([[[0, y, 0], [4, y, 0], [0, y, 4]] for y in range(64)], dtype=float)
    sc = Scene.build([CollisionModel(floors, 0)])
    o = np.array([[0.5, 100.0, 0.5], [1.0, 100.0, 1.0], [0.2, 100.0, 2.5], [1.5, 100.0, 0.3], [9.0, 100.0, 9.0]])
    d = np.tile([0.0, -1.0, 0.0], (len(o), 1))
    ref_d, ref_m, ref_t = brute_nearest(sc.models, o, d, 200.0)
    hit = sc.cast_any_many(o, d, 200.0)
    any_tris = sc.stats.triangles_tested
    near = sc.cast_nearest_many(o, d, 200.0)
    near_tris = sc.stats.triangles_tested
    assert hit.tolist() == np.isfinite(ref_d).tolist() == [True, True, True, True, False]
    assert near.distance.tolist() == ref_d.tolist() and near.triangle.tolist() == ref_t.tolist()
    assert near_tris >= 4 * 64                       # every floor, for each ray that hits
    assert any_tris == 4 * LEAF_SIZE                 # one leaf block per hitting ray, and it hits


def test_C6_empty_scene_and_empty_batch():
    sc = Scene.build([])
    assert sc.cast_nearest([0, 0, 0], [0, 1, 0], 5) is None
    assert sc.cast_any_many(np.zeros((2, 3)), np.ones((2, 3)), 5).tolist() == [False, False]
    sc2 = _quad_scene()
    r = sc2.cast_nearest_many(np.zeros((0, 3)), np.zeros((0, 3)), 5)
    assert r.distance.shape == (0,) and r.model.shape == (0,)
