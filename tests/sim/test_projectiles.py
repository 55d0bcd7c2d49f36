"""Fireballs: launched, flown and judged (A2-A4 on floats, equal to ``overlaps``), stopped by
pillars and walls but not by low props (C8, C9), a mid no crouch ducks, blocked standing, two
that meet cancel at their A7 point, one at a time, jumped over, and striking on the launch
frame at point-blank range."""

from __future__ import annotations

import numpy as np
import pytest

from cpuhelp import placed_facing
from game.collision import (
    overlaps,
)
from game.reference.combat import projectile_verdict as _reference_projectile_verdict
from game.sim import (
    FrameInput,
    Hit,
    Match,
    MoveStarted,
    ProjectileClash,
    ProjectileImpact,
    ProjectileLaunched,
    Whiff,
    combat,
)
from game.sim.stage import Projectile
from simhelp import (
    FIREBALL,
    GUARD,
    NEUTRAL,
    mashed_advantage,
    place,
    placed,
    to_fight,
)

# ---------------------------------------------------------------- C9: projectile ray
# railing_north runs from (-4, 0, 13) to (4, 0, 13), 1 m high, level 0: a rail at
# y 0.94..1.0 and posts at x = -4, -2, 0, 2, 4.  A path along +z from z = 12.5 to 13.5
# crosses it and nothing else (the north wall starts at z = 15).
RAILING_PATHS = {"rail": (1.0, 0.97), "post": (0.0, 0.5)}


@pytest.mark.parametrize("where", sorted(RAILING_PATHS))
def test_C9_projectile_path_passes_the_low_railing_a_levelless_ray_hits(where):
    m = Match.new(seed=0)
    level = m.data.moves["fireball"].projectile.level
    sc = m.stage.scene
    rail = m.arena.object("railing_north")
    assert sc.models[rail.model].level <= level          # not above the fireball's level
    x, y = RAILING_PATHS[where]
    start, step = np.array([x, y, 12.5]), np.array([0.0, 0.0, 1.0])
    # the case discriminates: without a level the same segment is blocked, by the railing
    assert sc.cast_any(start, step, 1.0)
    hit = sc.cast_nearest(start, step, 1.0)
    assert hit is not None and hit.model == rail.model
    assert not m.stage.path_blocked(start, step, level)
    assert m.stage.rays[-1].kind == "ray_any" and not m.stage.rays[-1].hit
    # ... while a model above the level on such a path does block it (crate_north, level 1)
    assert m.stage.path_blocked(np.array([0.0, 0.75, 4.0]), step, level)


@pytest.mark.parametrize("where", sorted(RAILING_PATHS))
def test_C9_projectile_in_flight_crosses_the_railing_and_stops_at_the_wall(where):
    # A thrown fireball's height follows the throw pose (moves.json); this one is put in
    # flight at the railing's height (as test_stage's _fly), so only the levels let it by.
    m = Match.new(seed=0)
    to_fight(m)
    place(m, (-6.0, -2.0), (-3.0, -2.0))                 # out of the way
    spec = m.data.moves["fireball"].projectile
    rail = m.arena.object("railing_north")
    x, y = RAILING_PATHS[where]
    m.stage.projectiles = (Projectile(0, x, y, 11.0, 0.0, spec.speed, 0),)
    crossed, impact = False, None
    for _ in range(spec.lifetime):
        impacts = [e for e in m.step(NEUTRAL, NEUTRAL) if isinstance(e, ProjectileImpact)]
        if impacts:
            impact = impacts[0]
            break
        crossed |= bool(m.stage.projectiles) and m.stage.projectiles[0].z > rail.aabb[1, 2]
    assert impact is not None, "the projectile never hit anything"
    assert impact.start[2] > rail.aabb[1, 2], f"stopped at the railing: {impact}"
    assert crossed
    seg = impact.end - impact.start
    near = m.stage.scene.cast_nearest(impact.start, seg, np.linalg.norm(seg), level=impact.level)
    assert near.model == m.arena.object("wall_north").model


# ---------------------------------------------------------------- jumping a fireball
def _struck_by_fireball(dist: float, press: int, forward: bool) -> bool:
    """P2 throws at frame 0; P1 jumps (``forward``: toward P2) at frame ``press``: is P1 hit?"""
    m = placed_facing(dist)
    jump = FrameInput(up=True, forward=forward)
    launched = False
    for t in range(110):
        ev = m.step(jump if t == press else NEUTRAL, FIREBALL if t == 0 else NEUTRAL)
        launched = launched or any(isinstance(e, ProjectileLaunched) for e in ev)
        if any(isinstance(e, Hit) and e.defender == 0 for e in ev):
            return True
    assert launched
    return False


@pytest.mark.slow
@pytest.mark.parametrize("forward", [False, True], ids=["neutral", "toward"])
def test_a_well_timed_jump_clears_a_fireball_and_an_early_or_late_one_is_hit(forward):
    """Jumping over a projectile is the basic answer to one.  From 4.5 m, P1 jumps on each
    frame after P2's throw: some stretch of consecutive frames clears the fireball (a jump
    0.55 m high would clear none), jumps before it and after it are hit (the legs still or already
    in its path: a timing, not a free pass), and so is standing still."""
    press_frames = range(0, 40)
    struck = [_struck_by_fireball(4.5, t, forward) for t in press_frames]
    clear = [t for t, s in zip(press_frames, struck) if not s]
    assert clear, "no jump clears the fireball"
    assert clear == list(range(clear[0], clear[-1] + 1)), f"the clearing jumps are not one window: {clear}"
    assert struck[0] and struck[-1], f"early and late jumps must be hit: clear {clear}"
    assert 3 <= len(clear) <= 15, f"window of {len(clear)} frames"
    m = placed_facing(4.5)
    hits = []
    for t in range(110):
        hits += [e for e in m.step(NEUTRAL, FIREBALL if t == 0 else NEUTRAL) if isinstance(e, Hit)]
    assert [e.move for e in hits] == ["fireball"]


def test_jump_apex_lifts_every_limb_over_the_fireball_that_still_strikes_a_crouch():
    """The data behind it (range boxes, method A): at the jump's apex the lowest limb box is
    above the fireball's range box, while the crouch's limb boxes reach up into it (the
    fireball was lowered in the first review so that a crouch does not duck it)."""
    m = placed_facing(3.0)
    data = m.data
    spec = data.moves["fireball"].projectile
    launch = None
    for t in range(20):
        launch = launch or next((e for e in m.step(FIREBALL if t == 0 else NEUTRAL, NEUTRAL)
                                 if isinstance(e, ProjectileLaunched)), None)
    y = float(launch.position[1]) - m.fighters[0].ground_y          # it flies level at this height
    bottom, top = y - spec.half, y + spec.half
    jump = data.moves["jump"]
    sk = data.skeleton

    def boxes(local, lift):
        return sk.pose(np.zeros((1, 3)), np.array([[1.0, 0.0]]), local[None], np.array([lift]))[2][0]

    apex = int(np.argmax(jump.air))
    assert boxes(jump.rot[apex], jump.air[apex])[:, 0, 1].min() > top
    assert boxes(data.pose_rot["crouch"], 0.0)[:, 1, 1].max() > bottom
    low = [f for f in range(jump.total) if boxes(jump.rot[f], jump.air[f])[:, 0, 1].min() <= top]
    assert low[0] == 0 and low[-1] == jump.total - 1         # take-off and landing: in its path


# ---------------------------------------------------------------- the fireball's first frame
@pytest.mark.slow
@pytest.mark.parametrize("dist", [0.6, 0.8, 1.0, 1.2])
@pytest.mark.parametrize("crouch", [False, True], ids=["standing", "crouching"])
def test_point_blank_fireball_strikes_on_its_launch_frame(dist, crouch):
    """A projectile move's active frame can strike at point-blank, as a punch's does: on the
    launch frame the fireball's range box (method A) is judged against the defender's limb
    boxes, so a Hit comes on that frame exactly when they overlap there.  (Spawned after the
    judge, it was first judged a frame later, one step on: thrown at 0.6 m into a crouch it
    spawned inside the body and flew out the back, no hit at all.)"""
    m = placed_facing(dist)
    hold = FrameInput(down=True) if crouch else NEUTRAL
    for _ in range(6):
        m.step(NEUTRAL, hold)
    half = m.data.moves["fireball"].projectile.half
    launch, hits = None, []
    for t in range(60):
        ev = m.step(FIREBALL if t == 0 else NEUTRAL, hold)
        hits += [e for e in ev if isinstance(e, Hit)]
        for e in ev:
            if isinstance(e, ProjectileLaunched):
                launch = e.frame
                c = np.asarray(e.position)
                box = np.array([c - half, c + half])
                reach = bool(overlaps(box[None], m.fighters[1].limb_boxes()).any())
    assert launch is not None
    assert [e.move for e in hits] == ["fireball"] and not hits[0].blocked
    if reach:
        assert hits[0].frame == launch
    else:
        assert hits[0].frame > launch
    if dist <= 1.0:
        assert reach, "at point-blank the fireball starts inside the defender's range boxes"


def _fast_projectile_verdict(m: Match) -> tuple[list, list]:
    proj, clash = combat.judge_projectiles(m)
    return ([(i, p, best, box.tolist()) for i, p, best, box in proj],
            [(i, j, a.tolist(), b.tolist()) for i, j, a, b in clash])


@pytest.mark.slow
def test_A2_A4_projectile_verdict_on_floats_matches_overlaps_touching_faces_included():
    m = Match.new(seed=2)
    half = m.projectile_spec.half
    boxes = m.limbs.boxes[1].tolist()                       # P2's limbs, struck by P1's projectile
    touching = hits = misses = 0
    for limb, ((x0, y0, z0), (x1, y1, z1)) in enumerate(boxes):
        centre = [(x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2]
        for axis, (lo, hi) in enumerate(((x0, x1), (y0, y1), (z0, z1))):
            for face, sign in ((lo, -1.0), (hi, 1.0)):
                c = face + sign * half                 # the cube's near face on the limb's face ...
                for ulps in range(-3, 4):              # ... and a few ulps either way
                    at = list(centre)
                    at[axis] = float(c)
                    for _ in range(abs(ulps)):
                        at[axis] = float(np.nextafter(at[axis], np.inf if ulps > 0 else -np.inf))
                    m.stage.projectiles = (Projectile(0, at[0], at[1], at[2], 0.1, 0.0, 0),)
                    near = at[axis] - sign * half      # the cube's face toward the limb
                    touching += near == face
                    ref = _reference_projectile_verdict(m)
                    assert _fast_projectile_verdict(m) == ref, (limb, axis, sign, ulps)
                    hits += bool(ref[0])
                    misses += not ref[0]
    assert touching > 0 and hits > 0 and misses > 0     # the boundary was met, both ways
    # a knocked-down victim is struck by nothing; two projectiles that meet clash instead
    p = Projectile(0, *[(a + b) / 2 for a, b in zip(*boxes[0])], 0.1, 0.0, 0)
    m.stage.projectiles = (p,)
    m.fighters[1].state = "knockdown"
    assert _fast_projectile_verdict(m) == _reference_projectile_verdict(m) == ([], [])
    m.fighters[1].state = "idle"
    m.stage.projectiles = (p, Projectile(1, p.x + half, p.y, p.z, -0.1, 0.0, 0))
    fast = _fast_projectile_verdict(m)
    assert fast == _reference_projectile_verdict(m) and fast[1] and not fast[0]


# ---------------------------------------------------------------- the fireball
@pytest.mark.parametrize("dist", [1.0, 2.0, 4.0])
def test_fireball_is_a_mid_that_a_crouch_does_not_duck(dist):
    """The fireball is a mid (moves.json, README): a crouch guard does not block it and a
    crouch does not make it fly overhead (thrown at 1.35 m, it would pass over any crouch)."""
    spec = None
    for guard in (False, True):
        crouch = FrameInput(down=True, guard=guard)
        m = placed(dist)
        spec = m.data.moves["fireball"].projectile
        events = []
        for i in range(120):
            events += m.step(FrameInput(lp=True, hp=True) if i == 5 else NEUTRAL, crouch)
        assert any(isinstance(e, ProjectileLaunched) for e in events)
        hits = [e for e in events if isinstance(e, Hit)]
        assert len(hits) == 1 and hits[0].move == "fireball" and not hits[0].blocked
        assert m.fighters[1].health == m.fighters[1].max_health - spec.damage
    assert spec.height == "mid"


def test_fireball_is_blocked_standing():
    m = placed(2.0)
    events = []
    for i in range(120):
        events += m.step(FrameInput(lp=True, hp=True) if i == 5 else NEUTRAL, GUARD)
    hits = [e for e in events if isinstance(e, Hit)]
    assert len(hits) == 1 and hits[0].blocked and m.fighters[1].health == m.fighters[1].max_health


@pytest.mark.parametrize("dist, lag", [(4.0, 0), (6.0, 0), (5.0, 9)])
def test_fireballs_that_meet_cancel_each_other_at_their_A7_collision_point(dist, lag):
    """Both fighters throw: the fireballs meet, burst (a ProjectileClash at the A7 point of
    their two range boxes) and hit no one; before, they flew through each other and both
    fighters were hit.  ``lag``: P2 throws that many frames later, so they meet off centre."""
    from game.collision.range_box import collision_point

    m = placed(dist)
    half = m.data.moves["fireball"].projectile.half
    events, before = [], ()
    for i in range(150):
        before = m.stage.projectiles
        step = m.step(FIREBALL if i == 5 else NEUTRAL, FIREBALL if i == 5 + lag else NEUTRAL)
        events += step
        if any(isinstance(e, ProjectileClash) for e in step):
            break
    clash = [e for e in events if isinstance(e, ProjectileClash)]
    assert len(clash) == 1 and not m.stage.projectiles
    assert not any(isinstance(e, Hit) for e in events)
    assert all(f.health == f.max_health for f in m.fighters)
    # the point: A7 of the two boxes where this frame moved them (reference: numpy collision_point)
    moved = [(p.x + p.vx, p.y, p.z + p.vz) for p in before]
    boxes = [np.array([np.subtract(c, half), np.add(c, half)]) for c in moved]
    assert np.allclose(clash[0].point, collision_point(boxes[0], boxes[1]))
    if lag == 0:
        assert abs(clash[0].point[0]) < 1e-9        # mirrored throws meet in the middle
    else:
        assert clash[0].point[0] > 0.5              # P1's was on its way sooner: nearer P2


def test_fireball_pressed_while_ones_own_is_in_flight_comes_out_as_the_heavy_punch():
    """One fireball at a time: pressed again while the first still flies, lp + hp gives the
    heavy punch (its stronger button) instead of a 41-frame throw that launches nothing; once
    the first is gone, the next press throws again."""
    m = placed(9.0)
    started, launched = [], []
    for i in range(200):
        press = i in (0, 45) or (i > 45 and not m.stage.projectiles and not m.fighters[0].move and not launched[1:])
        for e in m.step(FIREBALL if press else NEUTRAL, NEUTRAL):
            if isinstance(e, MoveStarted) and e.fighter == 0:
                started.append(e.move)
            elif isinstance(e, ProjectileLaunched):
                launched.append(e.frame)
    assert started[:3] == ["fireball", "hp", "fireball"]
    assert len(launched) == 2


def test_a_fireball_that_hits_is_not_reported_as_a_whiff():
    """The throw's one active frame launches the projectile and ends before it lands: that
    is not a whiff (a Whiff came one frame after every launch, even for a fireball that hit).
    A jab that misses still is one."""

    m = placed(4.0)
    events = []
    for i in range(120):
        events += m.step(FIREBALL if i == 0 else (FrameInput(lp=True) if i == 80 else NEUTRAL), NEUTRAL)
    assert [e.move for e in events if isinstance(e, Hit)] == ["fireball"]
    assert [e.move for e in events if isinstance(e, Whiff)] == ["lp"]


@pytest.mark.parametrize("d,guard", [(2.0, NEUTRAL), (4.0, NEUTRAL), (6.0, NEUTRAL), (4.0, FrameInput(guard=True))])
def test_A8_projectile_hit_advantage_matches_who_acts_first(d, guard):
    """A fireball does not freeze its thrower, who may still be recovering when it lands:
    Hit.advantage is the truth, the difference of the frames both players' next moves
    start when both mash right after the hit (it grows with the fireball's flight)."""
    m = Match.new(seed=0)
    to_fight(m)
    m.fighters[0].x, m.fighters[1].x = -d / 2, d / 2
    m.step(NEUTRAL, guard)
    ev = list(m.step(FrameInput(lp=True, hp=True), guard))
    for _ in range(200):
        if any(isinstance(e, Hit) for e in ev):
            break
        ev = list(m.step(NEUTRAL, guard))
    hit = next(e for e in ev if isinstance(e, Hit))
    assert hit.move == "fireball" and hit.blocked == (guard is not NEUTRAL)
    assert mashed_advantage(m) == hit.advantage


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
    # Toward pillar_en at (7, 7): stopped there, by its ray (no crate box: no point).
    hit = _fly(m, (5.0, 1.3, 7.0), (0.16, 0.0))
    assert hit is not None and hit.point is None
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
