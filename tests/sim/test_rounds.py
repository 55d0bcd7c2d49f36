"""Rounds and K.O.s: rounds start at the arena's fighter starts, a double K.O. floors both, a
knocked-out fighter is hit no more, and no move starts after the K.O."""

from __future__ import annotations

import numpy as np
import pytest

from game.sim import KO, FrameInput, Hit, Match, MoveStarted, rounds
from game.sim.stage import Projectile
from simhelp import FIREBALL, NEUTRAL, fight, placed, walk_to


def test_no_cancel_starts_a_move_after_the_knock_out():
    """A straight pressed just before the jab that knocks P2 out stays buffered through the hit's
    freeze (the buffer does not run down in hitstop).  As any buffered move it starts only
    while the round is fought, not as a cancel after the K.O., a punch thrown at the fallen
    fighter."""
    from game.sim import KO

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


# ---------------------------------------------------------------- K.O.
def test_double_ko_puts_both_fighters_down_until_the_next_round():
    m = placed(1.0)
    for f in m.fighters:
        f.health = m.data.moves["lp"].damage
    events = []
    for i in range(40):
        jab = FrameInput(lp=i == 0)
        events += m.step(jab, jab)
    ko = [e for e in events if isinstance(e, KO)]
    assert len(ko) == 1 and ko[0].loser is None
    while m.phase == "ko":
        assert [f.state for f in m.fighters] == ["ko", "ko"]
        poses = [f.pose_key for f in m.fighters]
        m.step(NEUTRAL, NEUTRAL)
    assert poses == ["ko", "ko"]                       # lying down on the last frame before the next round


def test_knocked_out_fighter_is_not_hit_again_and_stays_down():
    """P1's fireball is still flying at P2 when P1's jab knocks P2 out: it must fly on
    through the body, not hit it and stand it back up."""
    m = placed(0.9)
    b = m.fighters[1]
    b.health = m.data.moves["lp"].damage
    spec = m.data.moves["fireball"].projectile
    y = float(b.limb_boxes()[:, :, 1].mean())
    # 1.6 m short of P2, flying at it: it arrives after the jab has landed
    m.stage.projectiles = (Projectile(0, b.x - 1.6, y, b.z, spec.speed, 0.0, 0),)
    events = list(m.step(FrameInput(lp=True), NEUTRAL))
    for _ in range(60):
        events += m.step(NEUTRAL, NEUTRAL)
    ko = next(e for e in events if isinstance(e, KO))
    later = [e for e in events if isinstance(e, Hit) and e.frame > ko.frame]
    assert ko.loser == 1 and later == []
    assert b.state == "ko" and m.phase == "ko"


@pytest.mark.slow
def test_fireball_in_flight_after_the_ko_does_not_hit_the_winner():
    """P1's fireball knocks P2 out while P2's, thrown earlier from P1's side, is still on
    its way to P1.  It must not then hit P1: with 10 health left P1 would fall to 0 after
    winning (the HUD would read the round as a double K.O. / draw while P1 got the point).
    (From the side: two fireballs on one line would meet and cancel.)"""
    m = placed(3.0)
    a, b = m.fighters
    spec = m.data.moves["fireball"].projectile
    a.health = b.health = spec.damage
    m.stage.projectiles = (Projectile(1, a.x, 1.0, a.z - 6.0, 0.0, spec.speed, 0),)   # reaches P1 in 37 frames
    events = []
    for i in range(150):
        events += m.step(FIREBALL if i == 0 else NEUTRAL, NEUTRAL)
    ko = next(e for e in events if isinstance(e, KO))
    assert ko.loser == 1 and ko.frame < events[0].frame + 37
    assert [e.attacker for e in events if isinstance(e, Hit)] == [0]
    assert a.health == spec.damage and a.wins == 1


def test_rounds_start_at_the_arenas_fighter_starts_facing_each_other():
    """arena.scene.json's fighter_starts are where rounds start (not only checked for a clear
    area); a bare floor starts them at x = -1.5 / 1.5."""
    import dataclasses

    m = Match.new(seed=0)
    starts = np.array([[-3.0, 0.0, 1.0], [1.0, 0.0, -2.0]])
    m.stage.arena = dataclasses.replace(m.stage.arena, fighter_starts=starts)
    rounds.start_round(m)
    d = (starts[1] - starts[0])[[0, 2]] / np.linalg.norm(starts[1] - starts[0])
    for f, s, sign in zip(m.fighters, starts, (1, -1)):
        assert (f.x, f.z) == (s[0], s[2])
        assert np.allclose((f.fx, f.fz), sign * d)
    shipped = Match.new(seed=0)
    assert [(f.x, f.z) for f in shipped.fighters] == [tuple(s[[0, 2]]) for s in shipped.stage.arena.fighter_starts]
    bare = Match.new(seed=0, arena=False)
    assert [(f.x, f.z, f.fx) for f in bare.fighters] == [(-1.5, 0.0, 1.0), (1.5, 0.0, -1.0)]
