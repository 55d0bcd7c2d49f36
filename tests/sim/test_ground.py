"""The ground ray's distance from the triangles under a point (``game.sim.ground``) is the
scene walk's, bit for bit, and the stage's ray log still shows the walk's visit counters."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from game.sim import FrameInput, Match
from game.sim.ground import ground_grid
from game.sim.stage import GROUND_LEVEL, GROUND_RAY_DOWN, Stage
from simhelp import NEUTRAL, place, run, to_fight


def test_C7_ground_grid_distance_is_the_walks_on_edges_corners_and_tops():
    stage = Stage.load()
    scene = stage.scene
    grid = ground_grid(scene, GROUND_LEVEL)
    # the x and z of every corner of the models the ray sees: rays down edges and corners too
    seen = [m for m in scene.models if m.level > GROUND_LEVEL]
    verts = np.concatenate([m.world_triangles.reshape(-1, 3) for m in seen])
    xs, zs = sorted(set(verts[:, 0].tolist())), sorted(set(verts[:, 2].tolist()))
    rng = random.Random(7)
    hits = 0
    for _ in range(400):
        x = rng.choice(xs) if rng.random() < 0.5 else rng.uniform(xs[0] - 1.0, xs[-1] + 1.0)
        z = rng.choice(zs) if rng.random() < 0.5 else rng.uniform(zs[0] - 1.0, zs[-1] + 1.0)
        if rng.random() < 0.3:
            x = math.nextafter(x, rng.choice((-math.inf, math.inf)))
        top = rng.choice((2.0, 2.25, 4.0, 5.0, 6.5, -1.0))      # floor, pillar and wall tops, nothing
        want = scene.cast_nearest_distance((x, top, z), (0.0, -1.0, 0.0), GROUND_RAY_DOWN, level=GROUND_LEVEL)
        got = grid.distance(x, top, z, GROUND_RAY_DOWN)
        assert got == want and (got is None or math.copysign(1.0, got) == math.copysign(1.0, want))
        hits += got is not None
    assert 100 < hits < 400


def test_C7_ground_grid_follows_a_model_the_ray_sees_when_it_is_replaced():
    stage = Stage.load()
    floor = stage.arena.object("floor")
    assert stage.ground_height(1.0, 1.0, 0.0) == 0.0
    raised = np.eye(4)
    raised[3, 1] = 0.5
    stage.scene.update_model(floor.model, transform=raised)
    assert stage.ground_height(1.0, 1.0, 0.0) == 0.5


def test_ground_rays_logged_show_the_walks_visit_counters():
    m = Match.new(seed=0)
    to_fight(m)
    place(m, (-3.0, 2.0), (3.0, 2.0))
    run(m, FrameInput(forward=True), NEUTRAL, 3)
    rays = [r for r in m.stage.rays if r.kind == "ray_nearest"]
    assert rays
    for r in rays:
        got = m.stage.scene.cast_nearest_distance(tuple(r.origin.tolist()), (0.0, -1.0, 0.0), GROUND_RAY_DOWN,
                                                  level=GROUND_LEVEL)
        st = m.stage.scene.stats
        assert (r.nodes, r.triangles) == (st.nodes_visited, st.triangles_tested) and r.nodes > 0
        assert r.point is not None and r.point[1] == r.origin[1] - got


def test_ground_height_of_a_value_not_a_plain_finite_float_is_the_scenes_cast():
    """An int or numpy coordinate is cast by the scene as before, and a NaN is refused by it."""
    stage = Stage.load()
    assert stage.ground_height(1, np.float64(1.0), 0.0) == stage.ground_height(1.0, 1.0, 0.0) == 0.0
    assert stage.rays[0].nodes > 0                    # counted by the cast itself
    with pytest.raises(ValueError, match="NaN or inf"):
        stage.ground_height(math.nan, 0.0, 0.0)
