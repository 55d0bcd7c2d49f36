"""The stage in the match: pushboxes against crates and pillars, the ground's height from a
downward ray at its logic level (C7, C9), a body pushed out of an obstacle the least way, and
the stage's debug drawing."""

from __future__ import annotations

import numpy as np
import pytest

from game.sim import FrameInput, Match
from game.sim.stage import GROUND_LEVEL, GROUND_RAY_DOWN, GROUND_RAY_UP, Stage
from simhelp import NEUTRAL, crate, place, punch_crate, run, to_fight


# ---------------------------------------------------------------- C9: ground ray
@pytest.mark.parametrize("x, z, prop, top", [(0.0, 5.0, "crate_north", 1.5), (-10.0, 3.0, "grass_0", 0.35)])
def test_C9_ground_ray_sees_only_high_models(x, z, prop, top):
    stage = Stage.load()
    assert stage.ground_height(x, z, 0.0) == 0.0
    assert stage.rays[-1].point[1] == 0.0
    # the case discriminates: a levelless ray from the same origin lands on the prop
    origin = (x, 0.0 + GROUND_RAY_UP, z)
    hit = stage.scene.cast_nearest(origin, (0.0, -1.0, 0.0), GROUND_RAY_DOWN)
    assert hit is not None and hit.model == stage.arena.object(prop).model
    assert hit.point[1] == pytest.approx(top)
    assert stage.scene.models[hit.model].level <= GROUND_LEVEL


def test_C9_fighter_on_the_grass_stands_on_the_floor():
    m = Match.new(seed=0)
    to_fight(m)
    place(m, (-10.0, 3.0), (-6.0, 3.0))
    f = m.fighters[0]
    assert (f.x, f.z) == (-10.0, 3.0)
    assert f.ground_y == 0.0
    assert f.limb_boxes()[:, 0, 1].min() == pytest.approx(0.0, abs=0.05)


def test_pushboxes_respect_crates_and_pillars():
    m = Match.new(seed=0)
    to_fight(m)
    r = m.data.pushbox_radius
    place(m, (0.0, 3.0), (0.0, 8.0))
    run(m, FrameInput(forward=True), NEUTRAL, 120)              # walk into crate_north
    assert m.fighters[0].z <= crate(m, "crate_north").obj.aabb[0, 2] - r + 1e-9
    place(m, (7.0, 5.0), (7.0, 10.0))
    run(m, FrameInput(forward=True), NEUTRAL, 120)              # walk into pillar_en at (7, 7)
    pillar = m.arena.object("pillar_en").aabb
    assert m.fighters[0].z <= pillar[0, 2] - r + 1e-9


def test_C7_ground_height_comes_from_a_downward_ray():
    m = Match.new(seed=0)
    to_fight(m)
    floor = m.arena.object("floor")
    raised = np.eye(4)
    raised[3, 1] = 0.25                                        # row-vector translation, as the arena bakes
    m.stage.scene.update_model(floor.model, transform=raised)
    run(m, FrameInput(forward=True), NEUTRAL, 10)
    f = m.fighters[0]
    assert f.ground_y == pytest.approx(0.25)
    assert f.limb_boxes()[:, 0, 1].min() == pytest.approx(0.25)
    ground_rays = [r for r in m.stage.rays if r.kind == "ray_nearest"]   # walking re-casts every frame
    assert ground_rays and ground_rays[0].point[1] == pytest.approx(0.25) and ground_rays[0].end[1] < 0.25


def test_debug_draw_describes_crates_quadtree_and_rays(at_crate):
    from game.sim.debug import RecordingDraw
    m = at_crate
    punch_crate(m, frames=10)
    d = RecordingDraw()
    m.debug_draw(d)
    assert len(d.of("box", "crate_slab")) >= sum(len(c.compound.boxes) for c in m.stage.crates)
    assert d.of("rect_xz", "quadtree")
    assert d.of("quad", "crate_region") and d.of("quad", "crate_fill_face") and d.of("quad", "crate_target_face")


def test_C7_C8_cast_counts_are_the_kinds_of_this_steps_ray_log():
    from game.sim import Match
    from simhelp import FIREBALL, NEUTRAL, to_fight
    m = Match.new(seed=4)
    to_fight(m)
    seen = [0, 0]
    for f in range(120):                               # P1 throws a fireball: its path is cast (C8)
        m.step(FIREBALL if f == 0 else NEUTRAL, NEUTRAL)
        kinds = [r.kind for r in m.stage.rays]
        counts = m.stage.cast_counts()
        assert counts == (kinds.count("ray_any"), kinds.count("ray_nearest")) and sum(counts) == len(kinds)
        seen = [seen[0] + counts[0], seen[1] + counts[1]]
    assert seen[0] > 0 and seen[1] > 0                 # both kinds were cast and counted


def test_push_out_answers_kept_are_the_computed_ones_and_keep_a_zeros_sign():
    stage = Stage.load()
    pillar = stage.arena.object("pillar_en").aabb
    into = (float(pillar[0, 0]) + 0.05, float(pillar[0, 2]) - 0.1)        # overlapping the pillar's corner
    for x, z in (into, (1.25, 2.5), (0.0, 1.0), (-0.0, 1.0), (1.0, -0.0)):
        first = stage.push_out(x, z, 0.3)
        assert stage.push_out(x, z, 0.3) == first == stage._push_out(x, z, 0.3)
    assert stage.push_out(*into, 0.3) != into
    x, _ = stage.push_out(-0.0, 1.0, 0.3)       # asked after 0.0, which compares equal to it
    assert str(x) == "-0.0"
