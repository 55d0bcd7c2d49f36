"""B7 with method C: after a strike the crate's collision model (its compound's
triangles) lets a ray through the hole and still stops a ray beside it."""

from __future__ import annotations

import numpy as np

from game.collision.compound import Compound
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
