"""The arena in the match: crates struck by limbs (method B), projectiles and ground
rays on the method C scene, obstacles, and rollback over struck crates."""

import numpy as np
import pytest

from game.collision import overlaps
from game.reference.stage import touch as reference_touch
from game.sim import CrateStruck, FrameInput, Hit, Match, ProjectileImpact, ProjectileLaunched
from game.sim.stage import Projectile

from simhelp import NEUTRAL, run, to_fight


def place(m, p1, p2):
    """Put the fighters at x–z points ``p1``, ``p2`` and let one frame settle facing and ground."""
    for f, (x, z) in zip(m.fighters, (p1, p2)):
        f.x, f.z = float(x), float(z)
    m.step(NEUTRAL, NEUTRAL)


def punch_crate(m, button="hp", frames=40):
    """P1 presses ``button`` and waits; return (CrateStruck events, P1's hit-limb boxes on active frames)."""
    events, active = list(m.step(FrameInput(**{button: True}), NEUTRAL)), []
    for _ in range(frames):
        events += m.step(NEUTRAL, NEUTRAL)
        f = m.fighters[0]
        if f.move and m.data.moves[f.move].is_active(f.mframe):
            active.append(f.limb_boxes()[list(m.data.moves[f.move].hit_limbs)])
    return [e for e in events if isinstance(e, CrateStruck)], active


@pytest.fixture
def at_crate():
    """P1 just south of crate_north (centre (0, 0.75, 5)), facing it; P2 behind the crate."""
    m = Match.new(seed=0)
    to_fight(m)
    place(m, (0.0, 3.72), (0.0, 8.0))
    assert np.allclose(m.fighters[0].facing, [0, 1])
    return m


def crate(m, name):
    return next(c for c in m.stage.crates if c.obj.name == name)


def test_B1_B7_punch_leaves_a_hole_at_the_collision_point_and_a_second_punch_tears_its_rim(at_crate):
    m = at_crate
    c = crate(m, "crate_north")
    start = (m.fighters[0].x, m.fighters[0].z)
    struck, _ = punch_crate(m)
    assert len(struck) == 1 and struck[0].name == "crate_north" and struck[0].limb == "forearm_r"
    p = struck[0].point
    assert struck[0].removed > 0 and not struck[0].broke
    assert struck[0].normal.tolist() == [0.0, 0.0, -1.0]          # the south face, toward the puncher
    # The hole is where the fist met the wall: a thin rod through the south wall at the
    # collision point's (x, y) meets no small box, and one 3 cm past the hole's side does.
    wall_z = c.obj.aabb[0, 2]
    rod = np.array([[p[0] - 0.01, p[1] - 0.01, wall_z - 0.05], [p[0] + 0.01, p[1] + 0.01, wall_z + 0.2]])
    assert not overlaps(rod, c.compound.boxes).any()
    tunnel = c.last_strike.tunnels[c.last_strike.layers.tolist().index(4)]
    assert tunnel[0, 0] < p[0] < tunnel[1, 0]
    assert overlaps(rod + [tunnel[1, 0] - p[0] + 0.03, 0, 0], c.compound.boxes).any()
    c.compound.validate()
    # The same punch from the same spot goes through the hole (its fist meets no crate box)
    # and tears the hole's rim (B3): the hole grows on every side the rim was near.
    f = m.fighters[0]
    f.x, f.z = start
    m.step(NEUTRAL, NEUTRAL)
    before = c.compound.boxes
    struck2, active = punch_crate(m)
    assert len(struck2) == 1 and struck2[0].removed > 0 and active
    for boxes in active:
        assert not overlaps(boxes[:, None], before[None]).any()
    grown = c.last_strike.tunnels[c.last_strike.layers.tolist().index(4)]
    assert grown[0, 0] < tunnel[0, 0] - 0.05 and grown[1, 0] > tunnel[1, 0] + 0.05


def test_B7_C_struck_crate_updates_its_scene_model(at_crate):
    m = at_crate
    c = crate(m, "crate_north")
    sc = m.stage.scene
    before = sc.models[c.obj.model].triangles.shape[0]
    struck, _ = punch_crate(m)
    p = struck[0].point
    assert sc.models[c.obj.model].triangles.shape[0] > before
    # A ray through the hole along the wall normal passes the south wall and meets the north wall's inside.
    hit = sc.cast_nearest([p[0], p[1], 3.0], [0, 0, 1], 5.0, level=0)
    assert hit is not None and hit.model == c.obj.model
    assert hit.point[2] > c.obj.aabb[1, 2] - 0.1            # the far wall, not the near one
    beside = sc.cast_nearest([p[0] + 0.3, p[1], 3.0], [0, 0, 1], 5.0, level=0)
    assert beside is not None and beside.point[2] == pytest.approx(c.obj.aabb[0, 2])


def test_B9_crates_break_after_enough_strikes_and_stop_blocking(at_crate):
    m = at_crate
    c = crate(m, "crate_north")
    f = m.fighters[0]
    for i in range(40):
        f.x, f.z = 0.2 * ((i % 7) - 3), 3.72
        m.step(NEUTRAL, NEUTRAL)
        struck, _ = punch_crate(m, ("hp", "lk", "lp")[i % 3])
        c.compound.validate()
        if c.broken:
            break
    assert c.broken and any(e.broke for e in struck)
    assert not m.stage.scene.cast_any([0, 0.75, 3.0], [0, 0, 1], 4.0, level=0)
    assert m.stage.touch(c.obj.aabb[None].copy()) is None                 # limbs pass where it stood
    place(m, (0.0, 4.2), (0.0, 8.0))                            # stand where the crate was
    assert m.fighters[0].z == pytest.approx(4.2)


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


def test_C8_C9_fireball_hits_the_opponent_at_an_A7_point():
    m = Match.new(seed=0)
    to_fight(m)
    place(m, (-2.0, 0.0), (2.0, 0.0))
    events = list(m.step(FrameInput(lp=True, hp=True), NEUTRAL))
    for _ in range(80):
        events += m.step(NEUTRAL, NEUTRAL)
    assert any(isinstance(e, ProjectileLaunched) for e in events)
    hits = [e for e in events if isinstance(e, Hit)]
    assert len(hits) == 1 and hits[0].move == "fireball" and hits[0].attack_limb == "fireball"
    assert m.fighters[1].health == m.fighters[1].max_health - hits[0].damage
    assert not m.stage.projectiles


def _fly(m, start, velocity, frames=120):
    m.stage.projectiles = (Projectile(0, *start, velocity[0], velocity[1], 0),)
    for _ in range(frames):
        for e in m.step(NEUTRAL, NEUTRAL):
            if isinstance(e, ProjectileImpact):
                return e
    return None


def test_C8_C9_projectiles_stop_at_pillars_and_walls_and_pass_low_props():
    m = Match.new(seed=0)
    to_fight(m)
    place(m, (-1.5, -3.0), (1.5, -3.0))
    sc = m.stage.scene
    # Toward pillar_en at (7, 7): stopped there.
    hit = _fly(m, (5.0, 1.3, 7.0), (0.16, 0.0))
    assert hit is not None
    near = sc.cast_nearest(hit.start, hit.end - hit.start, np.linalg.norm(hit.end - hit.start), level=0)
    assert near.model == m.arena.object("pillar_en").model
    # Through the north banner (level 0) into the wall behind it (level 2).
    hit = _fly(m, (0.0, 2.5, 13.0), (0.0, 0.16))
    assert hit is not None
    seg = hit.end - hit.start
    near = sc.cast_nearest(hit.start, seg, np.linalg.norm(seg), level=0)
    assert near.model == m.arena.object("wall_north").model
    anything = sc.cast_nearest(hit.start, seg, np.linalg.norm(seg), level=None)
    assert anything.model == m.arena.object("banner_north").model   # a levelless ray would stop there


def test_B7_C8_projectile_passes_through_a_punched_hole(at_crate):
    m = at_crate
    struck, _ = punch_crate(m)
    p = struck[0].point
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


def test_rollback_over_a_crate_strike_restores_compound_scene_and_hash(at_crate):
    m = at_crate
    c = crate(m, "crate_north")
    snap, h0 = m.snapshot(), m.state_hash()
    tris0 = m.stage.scene.models[c.obj.model].triangles.copy()
    struck, _ = punch_crate(m)
    assert struck
    h1 = m.state_hash()
    m.restore(snap)
    assert m.state_hash() == h0
    assert np.array_equal(m.stage.scene.models[c.obj.model].triangles, tris0)
    assert m.stage.scene.cast_any([struck[0].point[0], struck[0].point[1], 3.0], [0, 0, 1], 1.5, level=0)
    struck2, _ = punch_crate(m)
    assert m.state_hash() == h1 and np.array_equal(struck2[0].point, struck[0].point)


def test_debug_draw_describes_crates_quadtree_and_rays(at_crate):
    from game.sim.debug import RecordingDraw
    m = at_crate
    punch_crate(m, frames=10)
    d = RecordingDraw()
    m.debug_draw(d)
    assert len(d.of("box", "crate_slab")) >= sum(len(c.compound.boxes) for c in m.stage.crates)
    assert d.of("rect_xz", "quadtree")
    assert d.of("quad", "crate_region") and d.of("quad", "crate_fill_face") and d.of("quad", "crate_target_face")


def test_B7_stage_touch_picks_the_largest_overlap_first_of_equals_like_brute_force():
    """The limb, crate and small box that ``Stage.touch`` returns, at one crate, at two at
    once, and on exact ties (limbs made as copies of one another), equal a plain loop's."""
    m = Match.new(seed=0)
    to_fight(m)
    st = m.stage
    rng = np.random.default_rng(5)
    for c in st.crates[:3]:                     # holes first, so rows and volumes vary
        for _ in range(8):
            p = rng.uniform(c.compound.bounds[0], c.compound.bounds[1])
            st.strike(st.crates.index(c), np.stack((p - 0.1, p + 0.1)))
    standing = [c for c in st.crates if not c.broken]
    checked = 0
    for trial in range(60):
        picks = [standing[int(rng.integers(len(standing)))] for _ in range(int(rng.integers(1, 3)))]
        limbs = []
        for c in picks:
            lo, hi = c.compound.bounds
            centre = rng.uniform(lo, hi)
            centre[int(rng.integers(3))] = (lo if rng.random() < 0.5 else hi)[0]   # near a wall
            h = rng.uniform(0.03, 0.25, 3)
            limbs.append(np.stack((centre - h, centre + h)))
        if trial % 3 == 0:
            limbs.append(limbs[0].copy())        # a tie: the same box twice
        limbs = np.array(limbs)
        got, want = st.touch(limbs), reference_touch(st, limbs)
        assert (got is None) == (want is None)
        if got is not None:
            k, ci, row = want
            assert got[:2] == (k, ci) and np.array_equal(got[2], st.crates[ci].compound.boxes[row])
            checked += 1
    assert checked > 20


def test_B9_break_test_reads_one_volume_pass_like_its_two_parts():
    """``Crate.too_little_left`` computes the boxes' volumes once; it agrees, strike after
    strike, with its two parts as written: the thinnest wall's share against BREAK_WALL,
    the compound's solid fraction against BREAK_TOTAL."""
    from game.sim.stage import BREAK_TOTAL, BREAK_WALL

    m = Match.new(seed=0)
    rng = np.random.default_rng(4)
    seen = set()
    for c in m.stage.crates:
        lo, hi = c.compound.bounds
        for _ in range(80):
            p = rng.uniform(lo, hi)
            h = rng.uniform(0.05, 0.2, 3)
            c.compound.strike(np.array([p - h, p + h]), margin=0.03)
            want = bool((c.wall_volumes() / c._wall0).min() < BREAK_WALL
                        or c.compound.solid_fraction() < BREAK_TOTAL)
            assert c.too_little_left() == want
            seen.add(want)
    assert seen == {False, True}
