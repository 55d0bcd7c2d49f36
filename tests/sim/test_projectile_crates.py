"""A projectile against the crates by its range box (A2-A4 on the compound, B7), not only by
its centre ray (C8): a hole smaller than the projectile stops it at the rim, one larger lets
it through; the crate's logic level rules the box test as it rules the ray (C9)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.collision import collision_point_pair, overlaps
from game.reference.stage import box_blocked as reference_box_blocked
from game.sim import FrameInput, Match, ProjectileImpact, ProjectileLaunched
from game.sim.stage import Projectile, Stage
from simhelp import NEUTRAL, crate, place, punch_crate, to_fight

NORTH = "crate_north"          # bounds x [-0.5, 0.5], y [0, 1.5], z [4.5, 5.5], walls 0.08 m


def crate_index(stage, name=NORTH) -> int:
    return next(i for i, c in enumerate(stage.crates) if c.obj.name == name)


def out_of_the_way() -> Match:
    """A match in its FIGHT phase with both fighters far from crate_north's line x = 0."""
    m = Match.new(seed=0)
    to_fight(m)
    a, b = m.fighters
    a.x, a.z, b.x, b.z = -6.0, -2.0, -3.0, -2.0
    m.step(NEUTRAL, NEUTRAL)
    return m


def fly(m, start, velocity, frames=120):
    """Launch a projectile of P1's at ``start`` with x-z ``velocity``; step until it is gone.
    Returns ``(impact or None, [projectile cube centres (x, y, z) before each step])``."""
    m.stage.projectiles = (Projectile(0, *start, velocity[0], velocity[1], 0),)
    centres = []
    for _ in range(frames):
        if not m.stage.projectiles:
            break
        p = m.stage.projectiles[0]
        centres.append((p.x, p.y, p.z))
        hit = [e for e in m.step(NEUTRAL, NEUTRAL) if isinstance(e, ProjectileImpact)]
        if hit:
            return hit[0], centres
    return None, centres


def cube(centre, half) -> np.ndarray:
    c = np.asarray(centre, dtype=float)
    return np.array([c - half, c + half])


def test_B7_fireball_larger_than_a_hole_stops_at_the_near_wall():
    """The review's reproducer: a 12 cm hole in the near wall, a 28 cm fireball flown at its
    centre.  The centre ray goes through the hole; the fireball's cube meets the hole's rim,
    and it stops there, on the first step whose cube touches a small box of the crate."""
    m = out_of_the_way()
    st_ = m.stage
    ci = crate_index(st_)
    result, broke = st_.strike(ci, np.array([[-0.01, 0.99, 4.4], [0.01, 1.01, 4.58]]))
    assert result is not None and not broke
    half = m.data.moves["fireball"].projectile.half
    comp = st_.crates[ci].compound
    z0, t = float(comp.bounds[0, 2]), comp.thickness
    hole_x = result.regions[0].vertices[:, 0]
    assert hole_x.max() - hole_x.min() < 2 * half                   # the hole is smaller than the fireball
    assert not st_.scene.cast_any((0.0, 1.0, 3.0), (0.0, 0.0, 1.0), z0 + t + 0.1 - 3.0, level=0)   # centre ray: clear

    hit, centres = fly(m, (0.0, 1.0, 3.0), (0.0, 0.16))
    assert hit is not None
    end_cube = cube(hit.end, half)
    assert overlaps(end_cube, comp.boxes).any()                     # its cube at the end touches the crate
    assert not any(overlaps(cube(c, half), comp.boxes).any() for c in centres)   # and no earlier one did
    assert hit.end[2] + half >= z0 and hit.end[2] - half <= z0 + t   # at the near wall,
    assert hit.end[2] < float(comp.bounds[1, 2]) - t - half          # not the far one
    # the centre segment meets nothing (it is in front of the hole): the event carries the A7 point
    seg = hit.end - hit.start
    assert st_.scene.cast_nearest(hit.start, seg / np.linalg.norm(seg), float(np.linalg.norm(seg)), level=0) is None
    assert hit.point is not None and not hit.point.flags.writeable
    touched = comp.boxes[overlaps(end_cube, comp.boxes)]
    assert any(np.array_equal(hit.point, collision_point_pair(end_cube, b)) for b in touched)
    assert z0 - half <= hit.point[2] <= z0 + t
    assert not m.stage.projectiles


def test_B7_fireball_passes_through_holes_larger_than_it_in_both_walls():
    """Lined-up holes 60 cm x 50 cm in the near and far walls: the 28 cm fireball flies through
    the crate untouched, and on to the arena's north wall."""
    m = out_of_the_way()
    st_ = m.stage
    ci = crate_index(st_)
    for z in ((4.4, 4.6), (5.4, 5.6)):                               # near wall, then far wall
        result, broke = st_.strike(ci, np.array([[-0.25, 0.8, z[0]], [0.25, 1.2, z[1]]]))
        assert result is not None and not broke
    comp = st_.crates[ci].compound
    half = m.data.moves["fireball"].projectile.half
    assert not st_.crates[ci].broken
    hit, centres = fly(m, (0.0, 1.0, 3.0), (0.0, 0.16))
    passed = [c for c in centres if c[2] - half > comp.bounds[1, 2]]
    assert passed, "the fireball did not get past the crate"
    assert hit is not None and hit.point is None and hit.end[2] > 14.0    # stopped by wall_north's ray
    seg = hit.end - hit.start
    near = st_.scene.cast_nearest(hit.start, seg, float(np.linalg.norm(seg)), level=0)
    assert near.model == m.arena.object("wall_north").model
    # inside the crate its cube did meet the crate's bounds: the holes, not a miss, let it by
    assert any(overlaps(cube(c, half), comp.bounds).all() for c in centres)


def test_B7_a_step_longer_than_the_cube_judges_the_whole_sweep():
    """A projectile faster than its own size (0.6 m a frame, cube 0.28 m) whose cubes fall on
    both sides of the near wall, centred on a 12 cm hole: the step's sweep (both cubes'
    bounding box) is judged, so it cannot tunnel through the wall between two frames."""
    m = out_of_the_way()
    ci = crate_index(m.stage)
    m.stage.strike(ci, np.array([[-0.01, 0.99, 4.4], [0.01, 1.01, 4.58]]))
    comp = m.stage.crates[ci].compound
    half = m.data.moves["fireball"].projectile.half
    start, v = (0.0, 1.0, 4.2), 0.6
    # neither cube touches the crate; the centre ray passes the hole
    assert not overlaps(cube(start, half), comp.boxes).any()
    assert not overlaps(cube((0.0, 1.0, 4.2 + v), half), comp.boxes).any()
    hit, _ = fly(m, start, (0.0, v), frames=1)
    assert hit is not None and hit.start[2] == pytest.approx(4.2)
    sweep = np.array([[-half, 1.0 - half, 4.2 - half], [half, 1.0 + half, 4.2 + v + half]])
    assert any(np.array_equal(hit.point, collision_point_pair(sweep, b))
               for b in comp.boxes[overlaps(sweep, comp.boxes)])


def struck_stage() -> Stage:
    st_ = Stage.load()
    ci = crate_index(st_)
    st_.strike(ci, np.array([[-0.01, 0.99, 4.4], [0.01, 1.01, 4.58]]))              # a small hole
    st_.strike(ci, np.array([[-0.3, 0.3, 4.4], [-0.1, 0.6, 4.58]]))                 # a larger one
    st_.strike(ci, np.array([[0.42, 0.5, 4.9], [0.6, 0.9, 5.1]]))                   # one in the east wall
    return st_


STAGE = struck_stage()


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(x=st.floats(-0.8, 0.8), y=st.floats(-0.2, 1.7), z=st.floats(4.2, 5.8),
       half=st.sampled_from([0.02, 0.06, 0.14, 0.3]), level=st.sampled_from([None, 0, 1, 2]),
       crate_level=st.sampled_from([0, 1, 2]))
def test_B7_C9_box_verdict_equals_a_per_box_reference(x, y, z, half, level, crate_level):
    ci = crate_index(STAGE)
    model = STAGE.crates[ci].obj.model
    old = STAGE.scene.models[model].level
    STAGE.scene.update_model(model, level=crate_level)
    try:
        box = [[x - half, y - half, z - half], [x + half, y + half, z + half]]
        got = STAGE.box_blocked(box, level)
        ref = reference_box_blocked(STAGE, box, level)
    finally:
        STAGE.scene.update_model(model, level=old)
    if ref is None:
        assert got is None
    else:
        assert got is not None and got[0] == ref[0] and got[1].tolist() == ref[1]


@pytest.mark.parametrize("crate_level", [0, 1, 2])
@pytest.mark.parametrize("level", [None, 0, 1, 2])
def test_C9_the_box_test_ignores_the_crates_the_ray_ignores(level, crate_level):
    """At each projectile level, a crate whose level the ray passes is passed by the box test
    too, and one the ray stops at stops the box."""
    st_ = Stage.load()
    ci = crate_index(st_)
    st_.scene.update_model(st_.crates[ci].obj.model, level=crate_level)
    ray = st_.scene.cast_any((0.0, 1.0, 3.0), (0.0, 0.0, 1.0), 2.0, level=level)      # into the near wall
    box = st_.box_blocked([[-0.14, 0.86, 4.3], [0.14, 1.14, 4.58]], level)             # the cube at it
    assert (box is not None) == ray == (level is None or crate_level > level)


def test_B7_a_broken_crate_stops_no_box():
    st_ = Stage.load()
    ci = crate_index(st_)
    box = [[-0.14, 0.86, 4.3], [0.14, 1.14, 4.58]]
    assert st_.box_blocked(box, 0)[0] == ci
    st_.crates[ci].broken = True
    st_._rebuild_group()
    assert st_.box_blocked(box, 0) is None


def scripted(m: Match):
    """P1 punches a hole in crate_north (smaller than a fireball), steps back 1.2 m (so the
    fireball flies before it meets the crate), then throws a fireball into it; yields each
    frame's events."""
    to_fight(m)
    for f, (x, z) in zip(m.fighters, ((0.0, 3.72), (0.0, 8.0))):
        f.x, f.z = x, z
    for inp in [NEUTRAL] + [FrameInput(hp=True)] + [NEUTRAL] * 40:
        yield m.step(inp, NEUTRAL)
    m.fighters[0].z = 2.52
    for inp in [FrameInput(lp=True, hp=True)] + [NEUTRAL] * 60:
        yield m.step(inp, NEUTRAL)


@pytest.mark.slow
def test_B7_fireball_into_a_struck_crate_is_deterministic_and_rolls_back():
    a, b = Match.new(seed=3), Match.new(seed=3)
    impacts, snap, hashes, events = [], None, [], []
    for i, (ea, eb) in enumerate(zip(scripted(a), scripted(b))):
        assert a.state_hash() == b.state_hash(), f"frame {i}"
        assert ea == eb
        impacts += [e for e in ea if isinstance(e, ProjectileImpact)]
        if snap is None and a.stage.projectiles:                  # the fireball in flight
            snap, hashes, events = a.snapshot(), [], []
        elif snap is not None:
            hashes.append(a.state_hash())
            events.append(ea)
    assert any(e.point is not None for e in impacts), "the fireball was not stopped by its box"
    assert snap is not None and hashes
    # restore the frame it was in flight and replay: the same hashes and events
    a.restore(snap)
    for h, ev in zip(hashes, events):
        assert a.step(NEUTRAL, NEUTRAL) == ev
        assert a.state_hash() == h


@pytest.mark.parametrize("start_z, walk", [(3.9, 0), (3.0, 60)])
def test_B7_C8_fireball_thrown_point_blank_into_a_crate_bursts_on_the_launch_frame(start_z, walk):
    """A fighter against crate_north's near wall throws a fireball at it: the launch point
    (the hand's box centre + 0.2 m) lies in or past the near wall, in the crate's hollow once
    the fighter has walked up to it.  The way from the body to the launch point is judged as
    a flight step, so the fireball bursts on its launch frame instead of flying on inside
    the crate to the far wall; nothing is left in flight."""

    m = Match.new(seed=0)
    to_fight(m)
    a, b = m.fighters
    a.x, a.z, b.x, b.z = 0.0, start_z, 0.0, 8.0
    for _ in range(walk):
        m.step(FrameInput(forward=True), NEUTRAL)         # up against the crate (pushboxes stop it)
    m.step(NEUTRAL, NEUTRAL)
    c = m.stage.crates[crate_index(m.stage)]
    near = c.obj.aabb[0][2]
    launched = impact = None
    for i in range(40):
        ev = m.step(FrameInput(lp=True, hp=True) if i == 0 else NEUTRAL, NEUTRAL)
        launched = launched or next((e for e in ev if isinstance(e, ProjectileLaunched)), None)
        impact = next((e for e in ev if isinstance(e, ProjectileImpact)), None)
        if impact is not None:
            break
    assert launched is not None and impact is not None
    assert impact.frame == launched.frame, "it bursts on its launch frame"
    assert not m.stage.projectiles
    assert a.z < near <= impact.end[2] + m.data.moves["fireball"].projectile.half
    assert np.allclose(impact.end, launched.position) and impact.start[2] == pytest.approx(a.z)


def _fly(m, start, velocity, frames=120):
    m.stage.projectiles = (Projectile(0, *start, velocity[0], velocity[1], 0),)
    for _ in range(frames):
        for e in m.step(NEUTRAL, NEUTRAL):
            if isinstance(e, ProjectileImpact):
                return e
    return None


def test_B7_C8_projectile_passes_through_a_punched_hole(at_crate):
    m = at_crate
    struck, active = punch_crate(m)
    assert struck
    p = active[0][0].mean(axis=0)          # the middle of the fist's footprint: the hole's
    c = crate(m, "crate_north")
    place(m, (-6.0, -2.0), (-3.0, -2.0))                        # out of the way
    # The fireball's cube (B7, A2-A4) stops it as its front face meets a wall, before its
    # centre does: the nearest hit along its path reaches the wall within the cube's half
    # past the segment's end, and the event carries the A7 point of the cube and the box.
    half = m.data.moves["fireball"].projectile.half
    z0, z1, t = c.obj.aabb[0, 2], c.obj.aabb[1, 2], c.compound.thickness
    hit = _fly(m, (p[0], p[1], 3.0), (0.0, 0.16))
    seg = hit.end - hit.start
    near = m.stage.scene.cast_nearest(hit.start, seg, np.linalg.norm(seg) + half, level=0)
    assert near.model == c.obj.model and near.point[2] > z1 - 0.1   # the far wall
    met = c.compound.boxes[overlaps(np.array([hit.end - half, hit.end + half]), c.compound.boxes)]
    assert len(met) and (met[:, 0, 2] >= z1 - t).all()                 # its boxes only
    assert hit.point is not None and hit.point[2] > z1 - 0.1
    hit2 = _fly(m, (p[0] + 0.3, p[1], 3.0), (0.0, 0.16))         # beside the hole: the near wall
    seg = hit2.end - hit2.start
    near = m.stage.scene.cast_nearest(hit2.start, seg, np.linalg.norm(seg) + half, level=0)
    assert near.point[2] == pytest.approx(z0)
    met = c.compound.boxes[overlaps(np.array([hit2.end - half, hit2.end + half]), c.compound.boxes)]
    assert len(met) and (met[:, 0, 2] == z0).all() and hit2.end[2] - half < z0 + t   # at the near face
    assert hit2.point is not None and z0 - half <= hit2.point[2] <= z0 + t
