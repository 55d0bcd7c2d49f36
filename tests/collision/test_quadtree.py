"""The scene quadtree (C1): insertion invariants for random models, a full leaf splits and the
deepest leaf keeps its models, and bad rectangles are named."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.collision import Scene
from game.collision.aabb_tree import build_aabb_tree
from game.collision.quadtree import QuadTree
from scenehelp import assert_c1_invariants, random_models


@pytest.mark.slow
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
