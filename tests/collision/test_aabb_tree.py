"""Per-model AABB trees (C5): every triangle in one leaf, nodes sorted along their longest axis
and split at the median, and the padded root box on floats equal to the batched padding."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.collision.aabb_tree import LEAF_SIZE, build_aabb_tree

#: every test here runs for more than about half a second
pytestmark = pytest.mark.slow


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
