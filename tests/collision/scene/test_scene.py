"""Method C scenes changed during play: ``update_model`` and ``replace_model`` (a struck crate, B7)
answer as a scene built afresh, keep the quadtree's invariants (C1), and a copied scene is
independent of the original."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.collision import CollisionModel, Scene
from game.collision.compound import Compound
from game.collision.range_box import box_triangles
from game.collision.scene import LEVEL_MEDIUM
from game.reference.scene import brute_nearest
from scenehelp import assert_c1_invariants, random_models


def test_B7_ray_passes_the_hole_after_update_model():
    crate = Compound.from_box([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]], 0.1)
    floor = np.array([[[-5, -0.01, -5], [5, -0.01, 5], [5, -0.01, -5]]], float)
    tri, _, _ = crate.triangles()
    scene = Scene.build([CollisionModel(floor, LEVEL_MEDIUM), CollisionModel(tri, LEVEL_MEDIUM)])
    origin_hole = np.array([0.5, 0.5, -1.0])
    origin_side = np.array([0.75, 0.5, -1.0])
    d = np.array([0.0, 0.0, 1.0])
    # before: the front wall stops both rays at z = 0
    for o in (origin_hole, origin_side):
        hit = scene.cast_nearest(o, d, 1.5)
        assert hit is not None and abs(hit.point[2]) < 1e-9
    r = crate.strike([[0.4, 0.4, -0.3], [0.6, 0.6, 0.05]], margin=0.02)
    assert r is not None
    tri, _, _ = crate.triangles()
    scene.update_model(1, triangles=tri)
    # through the hole the ray crosses the wall and the hollow and meets the back wall's inside
    hit = scene.cast_nearest(origin_hole, d, 3.0)
    assert hit is not None and abs(hit.point[2] - 0.9) < 1e-9
    assert not scene.cast_any(origin_hole, d, 1.0 + 0.8)  # stops short of the back wall
    hit = scene.cast_nearest(origin_side, d, 3.0)
    assert hit is not None and abs(hit.point[2]) < 1e-9


def test_C1_C5_replace_model_answers_as_a_scene_built_afresh():
    """Strike a crate and put its model in with ``replace_model`` (the stage's path), once
    before and once after a batched cast has packed the trees: every cast answers as a scene
    built from the same models does, and a non-model is refused."""
    rng = np.random.default_rng(5)
    crate = Compound.from_box([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]], 0.1)
    floor = np.array([[[-5, -0.01, -5], [5, -0.01, 5], [5, -0.01, -5]]], float)
    post = CollisionModel(np.array([[[2.0, 0, 2], [2.5, 2, 2], [2, 2, 2.5]]]), LEVEL_MEDIUM)
    scene = Scene.build([CollisionModel(floor, LEVEL_MEDIUM), CollisionModel.from_boxes(crate.boxes, LEVEL_MEDIUM),
                         post])
    origins = rng.uniform(-1.5, 2.5, (400, 3))
    dirs = rng.normal(size=(400, 3))
    for packed in (False, True):
        if packed:
            scene.cast_any_many(origins, dirs, 6.0)          # builds the packed trees; the next replace patches them
        assert crate.strike([[0.3 + 0.2 * packed, 0.4, -0.3], [0.5 + 0.2 * packed, 0.6, 0.05]], margin=0.02) is not None
        scene.replace_model(1, CollisionModel.from_boxes(crate.boxes, LEVEL_MEDIUM))
        fresh = Scene.build(list(scene.models))
        a, b = scene.cast_nearest_many(origins, dirs, 6.0), fresh.cast_nearest_many(origins, dirs, 6.0)
        assert np.array_equal(a.distance, b.distance) and np.array_equal(a.model, b.model)
        assert np.array_equal(scene.cast_any_many(origins, dirs, 6.0), fresh.cast_any_many(origins, dirs, 6.0))
        for o, d in zip(origins[:60], dirs[:60]):
            h, g = scene.cast_nearest(o, d, 6.0), fresh.cast_nearest(o, d, 6.0)
            assert (h is None) == (g is None) and (h is None or h.distance == g.distance)
    with pytest.raises(TypeError, match="CollisionModel"):
        scene.replace_model(1, box_triangles(crate.boxes))
    with pytest.raises(IndexError):
        scene.replace_model(3, post)


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_C1_C5_update_model_matches_fresh_build(seed):
    rng = np.random.default_rng(seed)
    models = random_models(rng, int(rng.integers(2, 25)))
    scene = Scene.build(models, leaf_capacity=3, max_depth=4)
    o = rng.uniform(-30, 30, (200, 3))
    d = rng.normal(size=(200, 3))
    scene.cast_nearest_many(o, d, 40)  # build the packed arrays so the update patches them
    for _ in range(4):
        i = int(rng.integers(len(models)))
        m = np.eye(4)
        m[3, :3] = rng.uniform(-40, 40, 3)  # may leave the root rect -> quadtree rebuilt
        kind = rng.integers(3)
        if kind == 0:
            scene.update_model(i, transform=m)
        elif kind == 1:
            scene.update_model(i, triangles=rng.normal(0, 2, (int(rng.integers(1, 30)), 3, 3)))
        else:
            scene.update_model(i, triangles=rng.normal(0, 2, (models[i].triangle_count, 3, 3)), transform=m)
        models[i] = scene.models[i]
        assert_c1_invariants(scene)
    fresh = Scene.build(models, leaf_capacity=3, max_depth=4)
    a = scene.cast_nearest_many(o, d, 40)
    b = fresh.cast_nearest_many(o, d, 40)
    ref = brute_nearest(models, o, d, 40)
    for x, y, z in zip(a, b, ref):
        assert np.array_equal(x, y) and np.array_equal(x, z)
    assert np.array_equal(scene.cast_any_many(o, d, 40), np.isfinite(ref[0]))
    for k in range(0, 200, 20):
        h = scene.cast_nearest(o[k], d[k], 40)
        assert (h is None and np.isinf(ref[0][k])) or (h.model, h.triangle) == (ref[1][k], ref[2][k])


def test_C1_C5_scene_copy_is_independent_of_update_model():
    import copy
    rng = np.random.default_rng(4)
    models = random_models(rng, 12)
    scene = Scene.build(models, leaf_capacity=2, max_depth=4)
    o = rng.uniform(-30, 30, (300, 3))
    d = rng.normal(size=(300, 3))
    before = scene.cast_nearest_many(o, d, 60)
    for other in (scene.copy(), copy.deepcopy(scene)):
        far = np.array([[[500.0, 0, 500], [501, 0, 500], [500, 1, 500]]])
        for i in range(len(models)):
            other.update_model(i, triangles=far)  # every model moves away in the copy
        assert not other.cast_any_many(o, d, 60).any()
        assert other.cast_nearest(o[0], d[0], 60) is None
        after = scene.cast_nearest_many(o, d, 60)
        for x, y in zip(before, after):
            assert np.array_equal(x, y)
        assert_c1_invariants(scene)
        assert_c1_invariants(other)


def test_C1_update_model_with_the_same_box_keeps_the_quadtree():
    """A struck crate keeps its outer box: its model is replaced without touching the quadtree
    (same cells, same node y ranges), and casts still agree with a fresh build."""
    rng = np.random.default_rng(12)
    models = random_models(rng, 10)
    scene = Scene.build(models, leaf_capacity=2, max_depth=4)
    o = rng.uniform(-30, 30, (300, 3))
    d = rng.normal(size=(300, 3))
    scene.cast_nearest(o[0], d[0], 60)                     # quadtree arrays and node boxes built
    qa = scene.quadtree.arrays()
    tris = models[3].world_triangles
    lo, hi = tris.min(axis=(0, 1)), tris.max(axis=(0, 1))
    inner = rng.uniform(lo, hi, (5, 3, 3))                 # new triangles inside the old box ...
    corners = np.array([[lo, hi, [lo[0], hi[1], lo[2]]]])  # ... plus one spanning it: same AABB
    new = scene.update_model(3, triangles=np.concatenate([inner, corners]), transform=np.eye(4))
    assert np.array_equal(new.root_box, models[3].root_box)
    assert scene.quadtree.arrays() is qa
    fresh = Scene.build([*models[:3], new, *models[4:]], leaf_capacity=2, max_depth=4)
    for k in range(0, 300, 7):
        a = scene.cast_nearest(o[k], d[k], 60)
        b = fresh.cast_nearest(o[k], d[k], 60)
        assert (a is None) == (b is None)
        assert a is None or (a.model, a.triangle, a.distance) == (b.model, b.triangle, b.distance)
    assert np.array_equal(scene.cast_any_many(o, d, 60), fresh.cast_any_many(o, d, 60))
    moved = scene.update_model(3, triangles=inner + 50.0)  # a new box moves it in the quadtree
    assert scene.quadtree.arrays() is not qa and not np.array_equal(moved.root_box, new.root_box)
