"""Movement: walking and sidestepping in 3D, pushboxes, the arena's bounds, a pinned opponent
never overlapped, jumps that leave the ground and land, and a jumper hit in the air falling."""

from __future__ import annotations

import math

import numpy as np
import pytest

from game.sim import (
    FrameInput,
    Hit,
    Match,
)
from simhelp import (
    NEUTRAL,
    fight,
    gap,
    run,
    to_fight,
    walk_to,
)

AIR_FALL_MAX = 0.2      # m a hit jumper's lowest limb may drop in one step (the fall, plus its pose)


def _jumper_hit_at_apex():
    """P1 jumps straight up at 0.9 m; P2's roundhouse meets it near the apex.  Returns the match,
    the Hit and P1's lowest limb height (m above its ground) on every step from the hit on
    until P1 can act again."""
    m = fight(Match.new(seed=0))
    walk_to(m, 0.9)
    m.step(FrameInput(up=True), NEUTRAL)
    for i in range(40):
        ev = m.step(NEUTRAL, FrameInput(hk=True) if i == 3 else NEUTRAL)
        hit = next((e for e in ev if isinstance(e, Hit)), None)
        if hit is not None:
            break
    assert hit is not None and hit.defender == 0, "the roundhouse must meet the jump"
    a = m.fighters[0]
    lows = [float(a.limb_boxes()[:, 0, 1].min()) - a.ground_y]
    while a.state == "hitstun":
        m.step(NEUTRAL, NEUTRAL)
        lows.append(float(a.limb_boxes()[:, 0, 1].min()) - a.ground_y)
    return m, hit, lows


def test_a_jumper_hit_in_the_air_falls_instead_of_dropping_to_the_floor_in_one_frame():
    """With the jump's apex at 1.25 m, a fighter hit out of it (a roundhouse, a fireball met
    with the legs; the CPU's jumps are hit so) falls from where it was struck, not to the
    floor on the next step (a hit clears the jump's move, whose lift it was), and is down before
    its hitstun ends."""
    m, hit, lows = _jumper_hit_at_apex()
    assert lows[0] > 1.0, lows[:3]
    drops = [a - b for a, b in zip(lows, lows[1:])]
    assert max(drops) <= AIR_FALL_MAX, f"fell {max(drops):.2f} m in one step: {[round(v, 2) for v in lows]}"
    a = m.fighters[0]
    assert not a.airborne and a.air == 0.0, "landed by the end of its hitstun"
    assert min(lows[-3:]) < 0.2


def test_a_hit_jumper_is_airborne_for_the_camera_until_it_lands():
    """``Fighter.airborne`` (the camera's jump framing, the soak's pushbox check) holds while
    a hit jumper falls, and ends on landing."""
    m = fight(Match.new(seed=0))
    walk_to(m, 0.9)
    m.step(FrameInput(up=True), NEUTRAL)
    a = m.fighters[0]
    seen = []
    for i in range(80):
        m.step(NEUTRAL, FrameInput(hk=True) if i == 3 else NEUTRAL)
        seen.append((a.state, a.airborne))
    assert ("hitstun", True) in seen and seen[-1] == ("idle", False), seen


# ---------------------------------------------------------------- walls, pillars, crates
@pytest.mark.parametrize("pinned,pusher", [
    ((14.0, 0.0), (12.5, 0.0)),      # against the east wall
    ((0.0, 4.0), (0.0, 2.5)),        # against crate_north's south face
    ((7.0, 6.0), (7.0, 4.5)),        # against pillar_en
    ((14.0, 14.0), (12.5, 12.5)),    # in the north-east corner
])
def test_fighter_walking_into_a_pinned_opponent_never_overlaps_it(pinned, pusher):
    m = Match.new(seed=0)
    to_fight(m)
    a, b = m.fighters
    (a.x, a.z), (b.x, b.z) = pusher, pinned
    r = m.data.pushbox_radius
    closest = math.inf
    for _ in range(200):
        m.step(FrameInput(forward=True), NEUTRAL)
        closest = min(closest, gap(m))
        for f in m.fighters:                       # and neither is pushed into the obstacle
            x, z = m.stage.push_out(f.x, f.z, r)
            assert math.hypot(x - f.x, z - f.z) < 1e-9
    assert closest >= 2 * r - 1e-9


# ---------------------------------------------------------------- movement
def test_fighters_move_in_3d_and_sidestep_circles():
    m = Match.new(seed=0)
    to_fight(m)
    run(m, FrameInput(side_l=True), NEUTRAL, 40)
    a, b = m.fighters
    assert abs(a.z) > 0.5                                    # left the x axis
    assert abs(math.hypot(b.x - a.x, b.z - a.z) - 3.0) < 0.2  # roughly kept its distance
    # still faces the opponent
    d = np.array([b.x - a.x, b.z - a.z])
    d /= np.linalg.norm(d)
    assert np.allclose(a.facing, d, atol=1e-6)


def test_pushboxes_stop_walking_through():
    m = Match.new(seed=0)
    to_fight(m)
    run(m, FrameInput(forward=True), FrameInput(forward=True), 200)
    r = m.data.pushbox_radius
    assert gap(m) >= 2 * r - 1e-9
    assert m.fighters[0].x < m.fighters[1].x


@pytest.mark.slow
def test_arena_bounds_keep_fighters_inside():
    m = Match.new(seed=0)
    to_fight(m)
    run(m, FrameInput(back=True), FrameInput(back=True), 900)
    r = m.data.pushbox_radius
    (x0, z0), (x1, z1) = m.bounds
    for f in m.fighters:
        assert x0 + r - 1e-9 <= f.x <= x1 - r + 1e-9 and z0 + r - 1e-9 <= f.z <= z1 - r + 1e-9
    assert m.fighters[0].x == pytest.approx(x0 + r)


def test_jump_leaves_the_ground_and_lands():
    m = Match.new(seed=0)
    to_fight(m)
    m.step(FrameInput(up=True), NEUTRAL)
    heights = []
    for _ in range(40):
        m.step(NEUTRAL, NEUTRAL)
        heights.append(m.fighters[0].limb_boxes()[:, 0, 1].min())
    assert max(heights) > 0.4 and heights[-1] == pytest.approx(0.0, abs=1e-9)


def test_lying_rect_kept_for_the_same_body_and_facing_is_the_rect_made_afresh():
    """movement.lying_rect keeps a fighter's last rect with the body and facing objects it was
    made from: the same objects give it back, a new facing or body makes a new one, and every
    rect equals one made with nothing kept."""
    from game.sim.movement import lying_rect

    m = Match.new(seed=0)
    f = m.fighters[0]
    d = m.data
    f.take_pose(f.pose, f.local, d.knockdown_body[-1])
    first = lying_rect(m, f)
    assert lying_rect(m, f) is first
    for fx, fz in ((0.6, 0.8), (-1.0, 0.0)):
        f.fx, f.fz = fx, fz
        got = lying_rect(m, f)
        m.lying_rects[0] = None
        assert lying_rect(m, f) == got and got != first
    f.take_pose(f.pose, f.local, d.pose_body["ko"])
    got = lying_rect(m, f)
    m.lying_rects[0] = None
    assert lying_rect(m, f) == got


def test_resolve_pushboxes_kept_results_are_the_computed_ones():
    """Match.pushbox_memo: a pair resolved again from the same bits gets the computed result
    (overlapping, and against a pillar), and a tool's int position is resolved, not looked up."""
    from game.sim.movement import _resolve_pushboxes, resolve_pushboxes

    m = Match.new(seed=0)
    to_fight(m)
    a, b = m.fighters
    pillar = m.arena.object("pillar_en").aabb
    for pa, pb in (((0.0, 2.0), (0.2, 2.0)), ((float(pillar[0, 0]) + 0.1, float(pillar[0, 2]) - 0.1), (0.0, -0.0))):
        want = []
        for memo in (False, True, True):
            (a.x, a.z), (b.x, b.z) = pa, pb
            if memo:
                resolve_pushboxes(m)
            else:
                _resolve_pushboxes(m, 2 * m.data.pushbox_radius)
            want.append(repr((a.x, a.z, b.x, b.z)))
        assert want[0] == want[1] == want[2] and want[0] != repr((*pa, *pb))
    (a.x, a.z), (b.x, b.z) = (-3, 0), (3, 0)
    resolve_pushboxes(m)
    assert (a.x, b.x) == (-3, 3) and type(a.x) is int
