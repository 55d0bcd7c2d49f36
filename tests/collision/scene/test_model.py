"""Method C collision models (C2): world triangles, box and padding equal their plain forms, the
AABB tree is built on first use, and a struck crate's model made from its boxes is the model of
their triangles."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.collision import CollisionModel, Scene
from game.collision.range_box import box_triangles
from game.collision.scene import LEVEL_MEDIUM
from scenehelp import random_models

_coords = st.sampled_from([-2.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 3.0])


@st.composite
def _boxes(draw):
    k = draw(st.integers(1, 8))
    lo = np.array(draw(st.lists(st.lists(_coords, min_size=3, max_size=3), min_size=k, max_size=k)))
    ext = np.array(draw(st.lists(st.lists(st.sampled_from([0.01, 0.1, 0.5, 2.0]), min_size=3, max_size=3),
                                 min_size=k, max_size=k)))
    return np.stack([lo, lo + ext], axis=1)


@pytest.mark.slow
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


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), t=st.integers(1, 400), identity=st.booleans())
def test_C2_C5_model_world_box_and_padding_equal_their_plain_forms(seed, t, identity):
    """The model's world triangles, box and padded boxes, written as element-wise passes and
    with the identity transform skipped, are bit-equal to the plain matrix product and
    reductions they replace."""
    from game.collision.aabb_tree import pad_boxes
    from game.collision.tolerances import BOX_PAD_ABS, BOX_PAD_REL
    rng = np.random.default_rng(seed)
    tris = rng.normal(0, 1, (t, 3, 3)) * rng.uniform(0.1, 100, 3)
    tris[rng.random((t, 3, 3)) < 0.05] = -0.0                   # signed zeros: the product makes them +0.0
    m = np.eye(4)
    if not identity:
        m[:3, :3] = rng.normal(size=(3, 3))
        m[3, :3] = rng.uniform(-50, 50, 3)
    model = CollisionModel(tris, 1, m)
    world = tris @ m[:3, :3] + m[3, :3]
    assert np.array_equal(model.world_triangles, world)
    assert not np.signbit(model.world_triangles[model.world_triangles == 0]).any() or not identity
    assert np.array_equal(model.aabb, [world.min(axis=(0, 1)), world.max(axis=(0, 1))])
    boxes = np.sort(rng.normal(size=(t, 2, 3)) * 10.0 ** rng.uniform(-3, 3), axis=1)
    pad = BOX_PAD_REL * ((boxes[:, 1] - boxes[:, 0]).max(axis=-1) + np.abs(boxes).max(axis=(-2, -1))) + BOX_PAD_ABS
    assert np.array_equal(pad_boxes(boxes), boxes + np.array([-1.0, 1.0])[:, None] * pad[:, None, None])
    tree = model.tree
    assert np.array_equal(tree.box[0], model.root_box)


def test_C5_model_tree_is_built_on_first_use_and_its_root_is_the_padded_aabb():
    """A replaced model (a struck crate) gets its AABB tree only when a ray reaches its root box;
    the root box the walkers test before that is exactly the tree's root."""
    rng = np.random.default_rng(11)
    models = random_models(rng, 6)
    for m in models:
        assert np.array_equal(m.root_box, m.tree.box[0])
    scene = Scene.build(models, leaf_capacity=2, max_depth=4)
    scene.cast_nearest_many(rng.uniform(-30, 30, (50, 3)), rng.normal(size=(50, 3)), 40)  # pack built
    box = np.array([[[0.0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0.0, 0, 1], [1, 0, 1], [0, 1, 1]]])
    new = scene.update_model(0, triangles=box + 100.0)        # far from everything else
    assert new._tree is None
    assert scene.cast_nearest([100.2, 100.2, -50.0], [0, 0, 1], 10.0) is None   # stops short of it
    assert new._tree is None
    hit = scene.cast_nearest([100.2, 100.2, 90.0], [0, 0, 1], 20.0)
    assert hit is not None and hit.model == 0 and hit.distance == pytest.approx(10.0)
    assert new._tree is not None and np.array_equal(new.root_box, new.tree.box[0])
    # the batched walker patches the replaced model in and agrees with a fresh build
    o = np.array([[100.2, 100.2, 90.0], [100.2, 100.2, 101.5]])
    d = np.array([[0.0, 0, 1], [0, 0, -1]])
    fresh = Scene.build(scene.models, leaf_capacity=2, max_depth=4)
    for x, y in zip(scene.cast_nearest_many(o, d, 20.0), fresh.cast_nearest_many(o, d, 20.0)):
        assert np.array_equal(x, y)
