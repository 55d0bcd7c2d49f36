"""C1 scene quadtree invariants, C5 AABB trees, and update_model against a fresh build."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.collision import CollisionModel, Scene
from game.collision.aabb_tree import LEAF_SIZE, build_aabb_tree
from game.collision.quadtree import QuadTree
from game.reference.scene import brute_nearest
from scenehelp import assert_c1_invariants, random_models


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 60), cap=st.integers(1, 8), depth=st.integers(0, 6))
def test_C1_quadtree_insertion_invariants(seed, n, cap, depth):
    scene = Scene.build(random_models(np.random.default_rng(seed), n), leaf_capacity=cap, max_depth=depth)
    assert_c1_invariants(scene)
    cells, depths = scene.quadtree_cells()
    assert cells.shape == (scene.quadtree.node_count, 2, 2) and depths.shape == (scene.quadtree.node_count,)
    assert np.all(cells[:, 0] <= cells[:, 1])


def test_C1_full_leaf_splits_and_deepest_leaf_keeps_models():
    qt = QuadTree((0, 0, 8, 8), leaf_capacity=2, max_depth=2)
    for i in range(2):
        qt.insert(i, (1, 1, 1.5, 1.5))
    assert qt.node_count == 1 and qt.models[0] == [0, 1]
    qt.insert(2, (1, 1, 1.5, 1.5))  # third model: root splits, models go down to depth 2 and stay
    assert qt.children[0] is not None and qt.models[0] == []
    deep = [n for n in range(qt.node_count) if qt.depth[n] == 2 and qt.models[n]]
    assert len(deep) == 1 and sorted(qt.models[deep[0]]) == [0, 1, 2]
    qt.insert(3, (20, 20, 30, 30))  # A2: outside the root -> not stored
    assert all(3 not in ms for ms in qt.models)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), t=st.integers(1, 300))
def test_C5_aabb_tree_covers_triangles_sorted_on_longest_axis(seed, t):
    rng = np.random.default_rng(seed)
    tris = rng.normal(0, 1, (t, 3, 3)) * rng.uniform(0.1, 10, 3)
    tree = build_aabb_tree(tris)
    used = tree.slot_tri[tree.slot_tri >= 0]
    assert sorted(used.tolist()) == list(range(t))  # every triangle in exactly one leaf slot
    def leaf_tris(n):
        if tree.leaf[n] >= 0:
            s = tree.slot_tri[tree.leaf[n] * LEAF_SIZE:(tree.leaf[n] + 1) * LEAF_SIZE]
            return s[s >= 0].tolist()
        return leaf_tris(tree.child[n, 0]) + leaf_tris(tree.child[n, 1])
    for n in range(tree.node_count):
        ids = leaf_tris(n)
        box = tree.box[n]
        assert np.all(tris[ids].min(axis=(0, 1)) >= box[0]) and np.all(tris[ids].max(axis=(0, 1)) <= box[1])
        if tree.leaf[n] < 0:
            assert len(ids) > LEAF_SIZE
            left, right = (leaf_tris(c) for c in tree.child[n])
            ext = tris[ids].max(axis=(0, 1)) - tris[ids].min(axis=(0, 1))
            ax = int(np.argmax(ext))
            cent = tris.mean(axis=1)[:, ax]
            assert cent[left].max() <= cent[right].min() + 1e-12  # split along the longest axis
            assert abs(len(left) - len(right)) <= 1  # median split
        else:
            assert 1 <= len(ids) <= LEAF_SIZE


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


def test_C1_C5_bad_rects_and_empty_meshes_raise_value_error_naming_the_argument():
    with pytest.raises(ValueError, match="root_rect"):
        QuadTree((0.0, 0.0, 1.0))
    with pytest.raises(ValueError, match="root_rect"):
        QuadTree((1.0, 0.0, 0.0, 1.0))                      # xmin > xmax
    qt = QuadTree((0.0, 0.0, 1.0, 1.0))
    with pytest.raises(ValueError, match="rect_xz"):
        qt.insert(0, (float("nan"), 0.0, 1.0, 1.0))          # would silently be in no node
    assert qt.node_count == 1 and qt.models == [[]]
    with pytest.raises(ValueError, match="triangles"):
        build_aabb_tree(np.zeros((0, 3, 3)))                # not numpy's reduceat IndexError
    with pytest.raises(ValueError, match="leaf_capacity"):
        QuadTree((0.0, 0.0, 1.0, 1.0), leaf_capacity="a")   # not int()'s "invalid literal"
    with pytest.raises(ValueError, match="max_depth"):
        QuadTree((0.0, 0.0, 1.0, 1.0), max_depth=None)
    scene = Scene.build(random_models(np.random.default_rng(0), 2))
    with pytest.raises(TypeError, match="index"):
        scene.update_model("a")                             # not a str/int comparison error


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
