"""B7 with method C: after a strike the crate's collision model (its compound's
triangles) lets a ray through the hole and still stops a ray beside it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.collision.compound import Compound
from game.collision.range_box import box_triangles
from game.collision.scene import LEVEL_MEDIUM, CollisionModel, Scene


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


_coords = st.sampled_from([-2.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 3.0])


@st.composite
def _boxes(draw):
    k = draw(st.integers(1, 8))
    lo = np.array(draw(st.lists(st.lists(_coords, min_size=3, max_size=3), min_size=k, max_size=k)))
    ext = np.array(draw(st.lists(st.lists(st.sampled_from([0.01, 0.1, 0.5, 2.0]), min_size=3, max_size=3),
                                 min_size=k, max_size=k)))
    return np.stack([lo, lo + ext], axis=1)


@settings(max_examples=150, deadline=None)
@given(_boxes(), st.integers(0, 2))
def test_C2_B7_model_from_boxes_equals_the_model_of_their_triangles(boxes, level):
    """The struck crate's model, built from its boxes, is the model of their 12 triangles
    each, attribute for attribute (the sign of a zero included) and tree for tree."""
    ref = CollisionModel(box_triangles(boxes), level)
    got = CollisionModel.from_boxes(boxes, level)
    assert got.level == ref.level
    for name in ("triangles", "transform", "world_triangles", "aabb", "root_box"):
        a, b = getattr(got, name), getattr(ref, name)
        assert a.dtype == b.dtype and np.array_equal(a, b) and np.array_equal(np.signbit(a), np.signbit(b)), name
        assert not a.flags.writeable, name
    for name in ("box", "child", "leaf", "slot_tri", "v0", "e1", "e2"):
        assert np.array_equal(getattr(got.tree, name), getattr(ref.tree, name)), name


def test_C2_model_from_boxes_refuses_bad_boxes_and_levels():
    good = np.array([[[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]])
    for bad, match in ((np.zeros((0, 2, 3)), "boxes"), (np.zeros((2, 3)), "boxes"), ("crate", "boxes"),
                       (np.where(good == 1.0, np.nan, good), "NaN")):
        with pytest.raises(ValueError, match=match):
            CollisionModel.from_boxes(bad, LEVEL_MEDIUM)
    for level in (3, -1, True, 1.0):
        with pytest.raises(ValueError, match="level"):
            CollisionModel.from_boxes(good, level)


def test_C1_C5_replace_model_answers_as_a_scene_built_afresh():
    """Strike a crate and put its model in with ``replace_model`` (the stage's path), once
    before and once after a batched cast has packed the trees: every cast answers as a scene
    built from the same models does, and a non-model is refused."""
    rng = np.random.default_rng(5)
    crate = Compound.from_box([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]], 0.1)
    floor = np.array([[[-5, -0.01, -5], [5, -0.01, 5], [5, -0.01, -5]]], float)
    post = CollisionModel(np.array([[[2.0, 0, 2], [2.5, 2, 2], [2, 2, 2.5]]]), LEVEL_MEDIUM)
    scene = Scene.build([CollisionModel(floor, LEVEL_MEDIUM), CollisionModel.from_boxes(crate.boxes, LEVEL_MEDIUM), post])
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


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False), min_size=3, max_size=3),
       st.lists(st.floats(0.0, 1e4, allow_nan=False, allow_infinity=False), min_size=3, max_size=3))
def test_C5_pad_box_floats_equals_pad_boxes(lo, ext):
    """One box padded on Python floats (a struck crate's model root) is bit for bit the batched
    ``pad_boxes`` of that box."""
    from game.collision.aabb_tree import pad_box_floats, pad_boxes

    hi = [a + e for a, e in zip(lo, ext)]
    want = pad_boxes(np.array([[lo, hi]]))[0]
    got = np.array(pad_box_floats(lo, hi))
    assert np.array_equal(got, want) and np.array_equal(np.signbit(got), np.signbit(want))
