"""Checks of the brute-force reference for method C ray casts (``game.reference.scene``).

The reference tests every ray against every triangle of every model with a plain numpy
Möller–Trumbore of its own (no quadtree, no AABB tree, no code from
``game.collision.raycast``), with the documented conventions."""

from __future__ import annotations

import numpy as np
import pytest

from game.collision import CollisionModel
from game.reference.scene import brute_nearest


def test_C6_reference_hits_known_triangle_at_known_distance():
    tri = CollisionModel([[[0, 0, 0], [2, 0, 0], [0, 0, 2]]], 0)
    dist, model, t = brute_nearest([tri], [[0.5, 3.0, 0.5], [0.5, 3.0, 0.5], [5, 3, 5]],
                                   [[0, -2, 0], [0, 1, 0], [0, -1, 0]], 10.0)
    assert dist[0] == pytest.approx(3.0) and model[0] == 0 and t[0] == 0
    assert np.isinf(dist[1]) and np.isinf(dist[2]) and model[1] == -1
    # max distance is inclusive and in world units whatever |direction|
    assert np.isfinite(brute_nearest([tri], [[0.5, 3, 0.5]], [[0, -7, 0]], 3.0)[0][0])
    assert np.isinf(brute_nearest([tri], [[0.5, 3, 0.5]], [[0, -7, 0]], 2.999)[0][0])


def test_C9_reference_levels_filter_models():
    low = CollisionModel([[[0, 0, 0], [2, 0, 0], [0, 0, 2]]], 0)
    high = CollisionModel([[[0, -1, 0], [2, -1, 0], [0, -1, 2]]], 2)
    o, d = [[0.5, 3, 0.5]], [[0, -1, 0]]
    assert brute_nearest([low, high], o, d, 10)[1][0] == 0
    assert brute_nearest([low, high], o, d, 10, level=0)[1][0] == 1
    assert brute_nearest([low, high], o, d, 10, level=2)[1][0] == -1
