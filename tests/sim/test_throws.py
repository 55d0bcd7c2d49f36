"""Throws (lp + lk; ``moves.json`` ``throw``): the grab is a method A contact of the grabbing
hands (A2-A4) with the A7 point, a standing guard does not stop it, a crouch ducks it, the
thrown fighter can break it in the tech window, and it lands as a knockdown otherwise."""

from __future__ import annotations

import numpy as np
import pytest

from game.collision import collision_point
from game.sim import FrameInput, Hit, Match, MoveStarted, ThrowBreak, ThrowGrab, Whiff
from game.sim.data import AssetError, load_game_data
from simhelp import GUARD, NEUTRAL, first_act, gap, placed, run_frames

THROW = FrameInput(lp=True, lk=True)


SPEC = load_game_data().throw


HOLD = load_game_data().moves[SPEC.hold]


def _throw(m: Match, p2=lambda k: NEUTRAL, frames: int = 90, p1=None):
    """P1 presses lp + lk on the first of ``frames`` steps; ``p2(k)`` is P2's input on step k.
    Returns ``(events, grab step or None)``; each event list entry is ``(step, event)``."""
    out, grab = [], None
    for k in range(frames):
        a = (p1 or (lambda k: THROW if k == 0 else NEUTRAL))(k)
        for e in m.step(a, p2(k)):
            out.append((k, e))
            if isinstance(e, ThrowGrab) and grab is None:
                grab = k
    return out, grab


def _kinds(events) -> list[str]:
    return [type(e).__name__ for _, e in events if not isinstance(e, MoveStarted)]


@pytest.mark.parametrize("p2", [NEUTRAL, GUARD], ids=["standing", "standing_guard"])
def test_A2_A4_A7_throw_grabs_a_standing_fighter_guard_or_not_and_lands_after_the_tech_window(p2):
    m = placed(0.8)
    hp = m.fighters[1].health
    judged = {}
    out = []
    for k in range(90):
        for e in m.step(THROW if k == 0 else NEUTRAL, p2):
            out.append((k, e))
            if isinstance(e, ThrowGrab):
                # the boxes the judge saw: range boxes are rebuilt in stage 3 of the next step
                judged.update(contacts=m.contacts, boxes=[f.limb_boxes() for f in m.fighters])
    grabs = [(k, e) for k, e in out if isinstance(e, ThrowGrab)]
    hits = [(k, e) for k, e in out if isinstance(e, Hit)]
    assert len(grabs) == 1 and len(hits) == 1, _kinds(out)
    (kg, g), (kh, h) = grabs[0], hits[0]
    # the grab is the throw's first active frame (the press is frame 0 of the move)
    assert kg == load_game_data().moves[SPEC.move].startup and (g.attacker, g.defender) == (0, 1)
    # its point is A7 of the touching (hand, limb) pair with the largest overlap (A2-A4)
    atk, ks, ls, j1, j2, pts = judged["contacts"][0]
    a_boxes, d_boxes = judged["boxes"]
    assert atk == 0 and set(ks) <= set(load_game_data().moves[SPEC.move].hit_limbs)
    assert np.array_equal(pts, collision_point(a_boxes[ks], d_boxes[ls]))
    best = int(np.argmax(np.prod(np.maximum(j2 - j1, 0.0), axis=-1)))
    assert np.array_equal(g.point, pts[best])
    # the throw lands on the tech-th frame after the grab: unblockable damage, and the advantage
    assert kh - kg == SPEC.tech
    assert h.move == SPEC.move and h.height == "throw" and not h.blocked and h.damage == SPEC.damage
    assert m.fighters[1].health == hp - SPEC.damage
    assert h.advantage == SPEC.frames - HOLD.total > 0


def test_throw_advantage_is_the_frames_each_side_can_act_again():
    """``Hit.advantage`` of a throw is the truth: the thrower starts a move that many frames
    before the thrown fighter can (both mash a buffered move from the landing on)."""
    m = placed(0.8)
    out, grab = _throw(m, frames=SPEC.tech + 1 + load_game_data().moves[SPEC.move].startup)
    hit = next(e for _, e in out if isinstance(e, Hit))
    assert first_act(m, 1) - first_act(m, 0) == hit.advantage


def test_A2_A4_throw_whiffs_over_a_crouch_and_under_a_jump():
    for p2 in (FrameInput(down=True), FrameInput(down=True, guard=True)):
        out, grab = _throw(placed(0.8), p2=lambda k, p2=p2: p2, frames=40)
        assert grab is None and any(isinstance(e, Whiff) and e.move == SPEC.move for _, e in out), _kinds(out)
    # a jump (pressed first) carries every limb over the reaching hands
    m = placed(0.8)
    out, grab = _throw(m, p2=lambda k: FrameInput(up=True) if k == 0 else NEUTRAL,
                       p1=lambda k: THROW if k == 3 else NEUTRAL, frames=40)
    assert grab is None, _kinds(out)


@pytest.mark.slow
def test_throw_reaches_shorter_than_a_jab():
    """The grab's reach (the clinch at the collar) is shorter than the jab's."""
    def reaches(press, dist):
        m = placed(dist)
        out = []
        for k in range(30):
            out += m.step(press if k == 0 else NEUTRAL, NEUTRAL)
        return any(isinstance(e, (Hit, ThrowGrab)) for e in out)
    jab = max(d for d in np.arange(0.7, 1.6, 0.05) if reaches(FrameInput(lp=True), d))
    grab = max(d for d in np.arange(0.7, 1.6, 0.05) if reaches(THROW, d))
    assert 0.9 <= grab < jab


@pytest.mark.slow
@pytest.mark.parametrize("late", range(SPEC.tech + 2))
def test_throw_break_needs_lp_lk_pressed_within_the_tech_window(late):
    """lp + lk by the thrown fighter ``late`` frames after the grab breaks the throw iff
    ``late < tech``: both reel ``break_stun`` frames (a blockstun, no damage) and slide apart."""
    m = placed(0.8)
    startup = load_game_data().moves[SPEC.move].startup
    hp = [f.health for f in m.fighters]
    grab = broke = hit = None
    states = ()
    for k in range(startup + SPEC.tech + 4):
        for e in m.step(THROW if k == 0 else NEUTRAL, THROW if k == startup + 1 + late else NEUTRAL):
            if isinstance(e, ThrowGrab):
                grab = k
            elif isinstance(e, ThrowBreak):
                broke, states = k, tuple((f.state, f.stun) for f in m.fighters)
            elif isinstance(e, Hit):
                hit = e
    assert grab == startup
    if late < SPEC.tech:
        assert broke == startup + 1 + late and hit is None
        assert [f.health for f in m.fighters] == hp
        assert states == (("blockstun", SPEC.break_stun),) * 2
        for _ in range(SPEC.break_stun):
            m.step(NEUTRAL, NEUTRAL)
        assert gap(m) > SPEC.distance + 1.8 * SPEC.break_pushback     # each slid (most of) its pushback
    else:
        assert broke is None and hit is not None and hit.height == "throw"


def test_a_break_press_held_from_before_the_grab_does_not_break_it():
    """The grab clears the thrown fighter's buffer: lp + lk pressed before it (a throw of its
    own that whiffed or a mash) and held is no break; only a press after the grab is."""
    m = placed(0.8)
    out, grab = _throw(m, p2=lambda k: THROW if k >= 5 else NEUTRAL, frames=40,
                       p1=lambda k: THROW if k == 0 else NEUTRAL)
    assert not any(isinstance(e, ThrowBreak) for _, e in out)


def test_both_grabbing_on_the_same_frame_break_and_a_faster_strike_beats_a_throw():
    out, _ = _throw(placed(0.8), p2=lambda k: THROW if k == 0 else NEUTRAL, frames=30)
    assert [type(e).__name__ for _, e in out if isinstance(e, (Hit, ThrowGrab, ThrowBreak))] == ["ThrowBreak"]
    # the jab's 6-frame startup beats the grab's 7: the thrower reels, nothing grabs
    out, grab = _throw(placed(0.8), p2=lambda k: FrameInput(lp=True) if k == 0 else NEUTRAL, frames=30)
    assert grab is None and any(isinstance(e, Hit) and e.attacker == 1 for _, e in out)


def test_no_grab_on_a_fighter_in_hitstun_or_blockstun():
    startup = load_game_data().moves[SPEC.move].startup
    for state in ("hitstun", "blockstun"):
        m = placed(0.8)
        m.step(THROW, NEUTRAL)
        for _ in range(startup - 2):
            m.step(NEUTRAL, NEUTRAL)
        d = m.fighters[1]
        d.state, d.stun, d.stun_height = state, 30, "mid"
        out = []
        for _ in range(6):
            out += m.step(NEUTRAL, NEUTRAL)
        assert not any(isinstance(e, ThrowGrab) for e in out), state


def test_a_thrown_fighter_is_struck_by_nothing_and_lands_on_its_back_in_front_of_the_thrower():
    from game.sim.stage import Projectile

    m = placed(0.8)
    out, grab = _throw(m, frames=load_game_data().moves[SPEC.move].startup + 2)
    assert grab is not None
    a, d = m.fighters
    # a fireball of the thrower's own, put right on the held body: it flies through it
    c = d.limb_boxes()[1].mean(axis=0)
    m.stage.projectiles = (Projectile(0, float(c[0]), float(c[1]), float(c[2]), 0.01, 0.0, 0),)
    hits = []
    for _ in range(30):
        hits += [e for e in m.step(NEUTRAL, NEUTRAL) if isinstance(e, Hit) and e.height != "throw"]
    assert not hits
    # lying: every limb below 0.6 m, the body ahead of the thrower along its facing
    boxes = d.limb_boxes()
    assert boxes[:, 1, 1].max() < 0.6
    centre = boxes.mean(axis=(0, 1))
    assert (centre[0] - a.x) * a.fx + (centre[2] - a.z) * a.fz > 0.3
    # hurled: it slid most of ``travel`` further away, so no limb of it lies in the thrower's
    assert gap(m) > SPEC.distance + 0.9 * SPEC.travel
    from game.collision import overlaps
    assert not any(overlaps(p, q) for p in a.limb_boxes() for q in boxes)


def test_a_thrower_struck_before_the_throw_lands_lets_go():
    """A fireball already flying at the thrower strikes it while it holds: the held fighter is
    free at once and takes no throw damage."""
    from game.sim.stage import Projectile

    m = placed(0.8)
    startup = load_game_data().moves[SPEC.move].startup
    out, grab = _throw(m, frames=startup + 2)
    a, d = m.fighters
    hp = d.health
    c = a.limb_boxes()[1].mean(axis=0)
    m.stage.projectiles = (Projectile(1, float(c[0]) + 0.3, float(c[1]), float(c[2]), -0.2, 0.0, 0),)
    out = []
    for _ in range(SPEC.tech + 4):
        out += m.step(NEUTRAL, NEUTRAL)
    assert any(isinstance(e, Hit) and e.defender == 0 for e in out)
    assert not any(isinstance(e, Hit) and e.height == "throw" for e in out)
    assert d.state != "thrown" and d.health == hp


def test_a_throw_re_simulates_identically_from_a_snapshot_mid_hold():
    m = placed(0.8)
    _throw(m, frames=load_game_data().moves[SPEC.move].startup + 3)
    assert m.fighters[1].state == "thrown"
    snap = m.snapshot()
    inputs = [(NEUTRAL, THROW if k == 4 else NEUTRAL) for k in range(40)]
    first = run_frames(m, inputs)
    m.restore(snap)
    assert run_frames(m, inputs) == first
    assert any("ThrowBreak" in str(ev) for _, _, ev, _ in first)


@pytest.mark.slow
def test_throw_section_errors_name_the_field_and_the_fix(tmp_path):
    from simhelp import edited_assets

    def assets(name, edit):
        (tmp_path / name).mkdir()
        return edited_assets(tmp_path / name, edit)

    def with_hold_that_hits(doc):
        doc["throw"]["hold"] = "lp"

    def tech_past_the_end(doc):
        doc["throw"]["tech"] = doc["throw"]["frames"]

    def no_throw(doc):
        del doc["throw"]
    with pytest.raises(AssetError, match=r"throw\.hold: expected another move with no hit_limbs"):
        load_game_data(assets("a", with_hold_that_hits))
    with pytest.raises(AssetError, match=r"throw\.tech: expected a whole number of frames from 0 to"):
        load_game_data(assets("b", tech_past_the_end))
    d = load_game_data(assets("c", no_throw))
    assert d.throw is None
    # without a throw, lp + lk is the priority's light kick, as before throws
    m = Match(d, 0, (None, None))
    while m.phase != "fight":
        m.step()
    assert any(isinstance(e, MoveStarted) and e.move == "lk" for e in m.step(THROW, NEUTRAL))


@pytest.mark.slow
def test_throw_sounds_and_training_read_out():
    from game.audio.player import sounds_for
    from game.render.training import FrameMeter

    m = placed(0.8)
    evs = []
    for k in range(40):
        evs.append(list(m.step(THROW if k == 0 else NEUTRAL, NEUTRAL)))
    grab = next(ev for ev in evs if any(isinstance(e, ThrowGrab) for e in ev))
    landed = next(ev for ev in evs if any(isinstance(e, Hit) for e in ev))
    now, _ = sounds_for(m, grab)
    assert [s for s, _, _ in now] == ["light_hit"]
    now, later = sounds_for(m, landed)
    assert "heavy_hit" in [s for s, _, _ in now] and [s for _, s, _, _ in later] == ["body_fall"]
    assert later[0][0] == SPEC.lands - SPEC.tech          # when the body hits the floor
    meter = FrameMeter()
    meter.record(("recovery", "knockdown"), [e for e in landed if isinstance(e, Hit)])
    assert meter.last_hit == f"P1 {SPEC.move} landed, knockdown"
    m = placed(0.8)
    out, _ = _throw(m, p2=lambda k: THROW if k == 10 else NEUTRAL, frames=20)
    brk = [e for _, e in out if isinstance(e, ThrowBreak)]
    assert [s for s, _, _ in sounds_for(m, brk)[0]] == ["blocked_hit"]
    meter.record(("neutral", "neutral"), brk)
    assert meter.last_hit == "P2 broke the throw"


def test_a_grab_against_the_wall_keeps_both_bodies_apart_and_in_bounds():
    """Grabbed with its back to the arena's bound, the thrown fighter cannot be set the full
    hold distance in front of the thrower: the thrower gives way, and neither body is ever in
    the other or out of bounds (the soak's own check, every frame of the throw)."""
    from game.tools.soak import check_match

    m = Match.new(seed=0, arena=False)
    while m.phase != "fight":
        m.step()
    a, d = m.fighters
    r = m.data.pushbox_radius
    d.x = float(m.bounds[1, 0]) - r
    a.x = d.x - 2 * r                      # touching: closer than the hold distance
    a.z = d.z = 0.0
    grabbed = False
    for k in range(SPEC.frames + 20):
        if any(isinstance(e, ThrowGrab) for e in m.step(THROW if k == 0 else NEUTRAL, NEUTRAL)):
            grabbed = True
            assert gap(m) == pytest.approx(SPEC.distance) and d.x == pytest.approx(float(m.bounds[1, 0]) - r)
        assert check_match(m) is None, (k, check_match(m))
    assert grabbed


def test_A7_overlay_draws_where_a_throw_lands_and_where_it_is_broken():
    """The frame a throw lands or is broken describes the thrower's hand on the thrown body as
    method A judged it (``Match.throw_contacts``; ``draw_contact``): its collision point is the
    event's point, and a frame later the description is gone."""
    from game.sim.debug import RecordingDraw

    startup = load_game_data().moves[SPEC.move].startup
    for late, kind in ((None, Hit), (4, ThrowBreak)):
        m = placed(0.8)
        found = None
        for k in range(startup + SPEC.tech + 3):
            p2 = THROW if late is not None and k == startup + 1 + late else NEUTRAL
            events = [e for e in m.step(THROW if k == 0 else NEUTRAL, p2) if isinstance(e, kind)]
            if events:
                rec = RecordingDraw()
                m.debug_draw(rec)
                found = events[0]
                assert len(m.throw_contacts) == 1
                assert any(np.array_equal(p, found.point) for (p,) in rec.of("point", "collision"))
                hand, body, point = m.throw_contacts[0]
                assert np.array_equal(point, collision_point(hand[None], body[None])[0])
                break
        assert found is not None, kind
        m.step(NEUTRAL, NEUTRAL)
        assert m.throw_contacts == ()


def test_a_fighter_grabbed_as_its_kick_enters_a_crate_gets_no_crate_hitstop():
    """Grabbed from behind on the step its roundhouse breaks into a crate: the crate is struck,
    but the freeze a crate strike gives its striker would stop the thrown fighter's clock (the
    break window grew to 16 frames, the landing to +16, the advantage to +22)."""
    m = Match.new(seed=0)
    while m.phase != "fight":
        m.step()
    crate = next(c for c in m.stage.crates if c.obj.name == "crate_north")
    lo, hi = (np.asarray(b, float) for b in crate.obj.aabb)
    a, d = m.fighters
    d.x, d.z = float(lo[0] + hi[0]) / 2, float(lo[2]) - 0.6
    a.x, a.z = d.x, d.z - 0.8
    m.step(NEUTRAL, NEUTRAL)
    d.fx, d.fz = a.fx, a.fz = 0.0, 1.0              # both face the crate: P1 at P2's back
    hk, grab = m.data.moves["hk"], m.data.moves[SPEC.move]
    d.move, d.mframe, d.state, d.move_hit, d.crate_hit = "hk", hk.startup - 1, "attack", False, False
    a.move, a.mframe, a.state, a.move_hit = SPEC.move, grab.startup - 1, "attack", False
    kinds, k_grab, k_hit, hit = [], None, None, None
    for k in range(SPEC.tech + 4):
        for e in m.step(NEUTRAL, NEUTRAL):
            kinds.append(type(e).__name__)
            if isinstance(e, ThrowGrab):
                k_grab = k
                assert d.hitstop == 0
            elif isinstance(e, Hit) and e.height == "throw":
                k_hit, hit = k, e
    assert "CrateStruck" in kinds and k_grab is not None, kinds
    assert k_hit - k_grab == SPEC.tech and hit.advantage == SPEC.frames - HOLD.total


def test_a_jump_is_thrown_on_its_grounded_take_off_frames_not_in_the_air():
    jump = load_game_data().moves["jump"]
    grounded = int(np.flatnonzero(jump.air > 0)[0])          # take-off frames before the lift
    startup = load_game_data().moves[SPEC.move].startup
    for early, grabbed in ((0, True), (grounded + 2, False)):
        # P2 presses up ``early`` steps before the grab's first active step
        m = placed(0.8)
        out, grab = _throw(m, p2=lambda k, e=early: FrameInput(up=True) if k == startup - e else NEUTRAL, frames=30)
        assert (grab is not None) == grabbed, (early, _kinds(out))


def test_a_throw_landing_as_a_fireball_strikes_the_thrower_counts_the_advantage_after_both():
    """A fireball reaching the thrower on the step the throw lands puts it in hitstun: the
    throw's ``Hit.advantage`` is counted after that hit too, as the truth (both mash) says."""
    from game.sim.stage import Projectile

    m = placed(0.8)
    startup = load_game_data().moves[SPEC.move].startup
    land = startup + SPEC.tech
    hit = None
    for k in range(land + 1):
        if k == land:                       # flies 0.2 m in stage 2, touches the thrower in stage 4
            a = m.fighters[0]
            c = a.limb_boxes()[1].mean(axis=0)
            m.stage.projectiles = (Projectile(1, float(c[0]) - 0.25, float(c[1]), float(c[2]), 0.2, 0.0, 0),)
        for e in m.step(THROW if k == 0 else NEUTRAL, NEUTRAL):
            if isinstance(e, Hit) and e.height == "throw":
                hit = e
                struck = [x for x in m.fighters if x.state == "hitstun"]
    assert hit is not None and struck, "the fireball did not reach the thrower on the landing step"
    assert hit.advantage != SPEC.frames - HOLD.total
    assert hit.advantage == first_act(m, 1) - first_act(m, 0)


def test_time_running_out_during_the_hold_lets_go_and_the_winner_poses():
    startup = load_game_data().moves[SPEC.move].startup
    m = placed(0.8)
    m.timer = startup + 4                      # TIME 3 frames after the grab
    a, d = m.fighters
    d.health -= 1                              # P1 leads: it wins on time
    for k in range(startup + 3):
        m.step(THROW if k == 0 else NEUTRAL, NEUTRAL)
    assert d.state == "thrown"
    hp = d.health
    events = []
    while not any(type(e).__name__ == "TimeOver" for e in events):
        events += m.step(NEUTRAL, NEUTRAL)
    m.step(NEUTRAL, NEUTRAL)
    # let go at once: no slam without its hurl (the body lay through the thrower's legs)
    assert d.state != "thrown" and a.move != SPEC.hold
    for _ in range(80):
        events += m.step(NEUTRAL, NEUTRAL)
    assert not any(isinstance(e, Hit) for e in events) and d.health == hp
    assert a.state == "win"
