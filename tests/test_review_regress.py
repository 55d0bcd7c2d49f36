"""Regressions found reviewing the day's gameplay changes (combos, the higher jump, the buffer
held through hitstop, training's meter).  Scripted through the frame-step API; each test that
guards a fix fails on the code before it."""

import pytest

from game.sim import FrameInput, Hit, Match
from simhelp import NEUTRAL, fight, first_act, gap, walk_to

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
    with the legs; the CPU's jumps were hit so 4-18 times in 30 matches a level) used to be on
    the floor on the next step: its lift was the jump's only while the move lasted, and a hit
    clears the move.  Now it falls from where it was struck, and is down before its hitstun
    ends."""
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


@pytest.mark.parametrize("guard", ["none", "all"])
@pytest.mark.parametrize("first,second", [("lp", "hp"), ("lp", "fireball"), ("lk", "hk"), ("lk", "fireball")])
def test_frame_meter_shows_a_cancelled_light_cut_at_the_cancel_and_the_strings_true_advantage(first, second, guard):
    """A light cancelled on contact (the follow-up pressed in the hit's freeze): the meter shows
    the light's startup, its one active frame before the cancel (no recovery), then the whole
    follow-up; and after the string the advantage each fighter really has (from the sim: who
    can start a move first), which is also the last Hit's.  Checked on hit and on block."""
    from simhelp import PRESS
    from traininghelp import runs, training_match, window_step

    m, tm = training_match("stand", guard)
    while gap(m) > 0.9:
        window_step(m, tm, FrameInput(forward=True))
    for _ in range(3):
        window_step(m, tm, NEUTRAL)
    events, hits, truth, pressed = list(window_step(m, tm, PRESS[first])), [], None, False
    for _ in range(250):
        hits += [e for e in events if isinstance(e, Hit)]
        if len(hits) == 2 and truth is None:
            truth = first_act(m, 1) - first_act(m, 0)
        if hits and not tm.meter.active:
            break
        inp = PRESS[second] if hits and not pressed else NEUTRAL
        pressed = pressed or bool(hits)
        events = window_step(m, tm, inp)
    assert [(h.move, h.blocked) for h in hits] == [(first, guard == "all"), (second, guard == "all")]
    a, b = m.data.moves[first], m.data.moves[second]
    p1 = runs(tm.meter.rows[0])
    assert p1[:5] == [("startup", a.startup), ("active", 1), ("startup", b.startup), ("active", b.active),
                      ("recovery", b.recovery)], p1
    assert tm.meter.advantage == truth == hits[-1].advantage


def test_a_jab_trading_with_a_point_blank_fireball_freezes_both_alike():
    """P2 throws a fireball at 0.9 m and P1's jab lands on its launch frame: each strikes the
    other on the same step, a trade.  As in a trade of two limbs, both freeze for the longer
    hitstop, whatever order the hits are applied in; the advantage is then the stuns'
    difference alone.  (The jabber used to freeze 7 frames and the thrower 5: the thrower was
    +4 where the stuns give +2.)"""
    from simhelp import mashed_advantage

    m = fight(Match.new(seed=0))
    walk_to(m, 0.9)
    fb, jab = m.data.moves["fireball"], m.data.moves["lp"]
    hits = []
    for i in range(40):
        hits += [e for e in m.step(FrameInput(lp=True) if i == fb.startup - jab.startup else NEUTRAL,
                                   FrameInput(lp=True, hp=True) if i == 0 else NEUTRAL) if isinstance(e, Hit)]
        if hits:
            break
    assert sorted((h.attacker, h.move) for h in hits) == [(0, "lp"), (1, "fireball")], hits
    stop = max(jab.hitstop, fb.projectile.hitstop)
    assert [f.hitstop for f in m.fighters] == [stop, stop]
    assert {h.hitstop for h in hits} == {stop}
    p1_hit = next(h for h in hits if h.attacker == 0)
    assert p1_hit.advantage == jab.hitstun - fb.projectile.hitstun == mashed_advantage(m)


def test_no_cancel_starts_a_move_after_the_knock_out():
    """A straight pressed just before the jab that knocks P2 out stays buffered through the hit's
    freeze (the buffer does not run down in hitstop).  It used to come out as a cancel after the
    K.O., a punch thrown at the fallen fighter (a buffered move out of neutral never did); now,
    as any buffered move, it starts only while the round is fought."""
    from game.sim import KO, MoveStarted

    m = fight(Match.new(seed=0))
    walk_to(m, 0.9)
    m.fighters[1].health = 3
    events = []
    for i in range(80):
        events += m.step(FrameInput(lp=True) if i == 0 else FrameInput(hp=True) if i == 3 else NEUTRAL, NEUTRAL)
    ko = next(e for e in events if isinstance(e, KO))
    assert ko.loser == 1
    late = [(e.frame - ko.frame, e.move) for e in events if isinstance(e, MoveStarted) and e.frame >= ko.frame]
    assert late == [], f"moves started after the K.O.: {late}"
