"""The training dummy (game.training.dummy): guards, stances, record + loop playback, reset."""

from __future__ import annotations

import math
import random

import pytest

from game.sim import FrameInput, Hit, Match
from game.training import MAX_RECORD_FRAMES, DummyController
from simhelp import NEUTRAL


def fight_match(seed=0):
    m = Match.new(seed=seed)
    while m.phase != "fight":
        m.step(NEUTRAL, NEUTRAL)
    return m


def gap(m):
    a, b = m.fighters
    return math.hypot(b.x - a.x, b.z - a.z)


def attack(m, dummy, press: FrameInput, hold: FrameInput = NEUTRAL, frames=60, distance=1.0):
    """P1 walks in to ``distance``, presses ``press`` once, holds ``hold``; the dummy drives P2."""
    fwd = FrameInput(forward=True)
    while gap(m) > distance:
        m.step(fwd, dummy.next_input(m))
    m.step(NEUTRAL, dummy.next_input(m))
    events = list(m.step(press, dummy.next_input(m)))
    for _ in range(frames):
        events += m.step(hold, dummy.next_input(m))
    return [e for e in events if isinstance(e, Hit)]


SWEEP = (FrameInput(down=True, hk=True), FrameInput(down=True))     # hk_low, height low
MID_PUNCH = (FrameInput(hp=True), NEUTRAL)                          # hp, height mid
HIGH_KICK = (FrameInput(hk=True), NEUTRAL)                          # hk, height high


@pytest.mark.parametrize("script, height", [(SWEEP, "low"), (MID_PUNCH, "mid"), (HIGH_KICK, "high")])
@pytest.mark.parametrize("stance", ["stand", "crouch"])
def test_block_all_blocks_every_height(script, height, stance):
    m = fight_match()
    d = DummyController(side=1)
    d.stance, d.guard = stance, "all"
    hits = attack(m, d, *script)
    if height == "high" and stance == "crouch":
        # a high attack may pass over a crouching guard; if it connects it must be blocked
        assert all(h.blocked for h in hits)
        return
    assert hits, "the scripted attack must reach the dummy"
    assert hits[0].height == height
    assert all(h.blocked and h.damage == 0 for h in hits)
    assert m.fighters[1].health == m.fighters[1].max_health


@pytest.mark.parametrize("script", [SWEEP, MID_PUNCH])
def test_block_none_gets_hit(script):
    m = fight_match()
    d = DummyController(side=1, mode="block_none")
    hits = attack(m, d, *script)
    assert hits and not hits[0].blocked and hits[0].damage > 0
    assert m.fighters[1].health < m.fighters[1].max_health


def test_wrong_fixed_guard_is_not_block_all():
    """Reference: a dummy that always holds a standing guard eats the sweep (so block-all's switch matters)."""
    m = fight_match()

    class StandGuard:
        def next_input(self, m):
            return FrameInput(guard=True)
    hits = attack(m, StandGuard(), *SWEEP)
    assert hits and not hits[0].blocked


def test_stances():
    m = fight_match()
    d = DummyController(side=1, mode="crouch")
    for _ in range(5):
        m.step(NEUTRAL, d.next_input(m))
    assert m.fighters[1].state == "crouch"
    d.mode = "stand"
    for _ in range(5):
        m.step(NEUTRAL, d.next_input(m))
    assert m.fighters[1].state == "idle"
    d.mode = "block_all"
    m.step(NEUTRAL, d.next_input(m))
    assert m.fighters[1].state == "block_stand"


def test_record_then_loop_reproduces_inputs_cyclically():
    m = fight_match()
    d = DummyController(side=1)
    r = random.Random(5)
    live = [FrameInput.from_bits(r.randrange(1 << FrameInput.BITS)) for _ in range(37)]
    d.start_recording()
    for inp in live:
        assert d.next_input(m, inp) == inp            # passed through while recording
        m.step(NEUTRAL, inp)
    d.stop_recording()
    assert d.recorded == tuple(live)
    d.start_playback()
    out = [d.next_input(m, FrameInput(lp=True)) for _ in range(3 * len(live) + 5)]
    assert out == [live[k % len(live)] for k in range(len(out))]
    d.stop_playback()
    assert d.next_input(m) == NEUTRAL


def test_recording_stops_by_itself_after_ten_seconds():
    m = fight_match()
    d = DummyController(side=1)
    d.start_recording()
    for k in range(MAX_RECORD_FRAMES + 50):
        d.next_input(m, FrameInput.from_bits(k % 7))
    assert d.phase == "idle" and len(d.recorded) == MAX_RECORD_FRAMES == 600
    assert d.recorded[-1] == FrameInput.from_bits((MAX_RECORD_FRAMES - 1) % 7)


def test_playback_drives_the_match_like_the_recording():
    """Looping a recording from the same start gives the same fight as the recording did."""
    m = fight_match()
    d = DummyController(side=1)
    d.attach(m)
    r = random.Random(9)
    p1 = [FrameInput.from_bits(r.randrange(1 << FrameInput.BITS)) for _ in range(120)]
    d.start_recording()
    for k in range(120):
        m.step(p1[k], d.next_input(m, FrameInput.from_bits(r.randrange(1 << FrameInput.BITS))))
    h = m.state_hash()
    d.reset(m)
    d.start_playback()
    for k in range(120):
        m.step(p1[k], d.next_input(m))
    assert m.state_hash() == h


def test_reset_restores_start_positions():
    m = fight_match()
    d = DummyController(side=1)
    d.attach(m)
    start = [(f.x, f.z, f.health) for f in m.fighters]
    attack(m, DummyController(side=1, mode="block_none"), *MID_PUNCH)
    assert [(f.x, f.z, f.health) for f in m.fighters] != start
    d.reset(m)
    assert [(f.x, f.z, f.health) for f in m.fighters] == start


def test_refill_keeps_training_going():
    m = fight_match()
    d = DummyController(side=1, mode="block_none")
    attack(m, d, *MID_PUNCH, frames=80)
    d.refill(m)
    assert m.fighters[1].health == m.fighters[1].max_health and m.timer == 60 * 60


def test_bad_settings_are_named():
    with pytest.raises(ValueError, match="mode.*block_all"):
        DummyController(mode="jumpy")
    with pytest.raises(ValueError, match="side"):
        DummyController(side=2)
    with pytest.raises(ValueError, match="start_recording"):
        DummyController().start_playback()
    with pytest.raises(ValueError, match="attach"):
        DummyController().reset(fight_match())


def test_dummy_module_has_no_pyglet():
    import game.training.dummy as mod
    src = open(mod.__file__).read()
    assert "pyglet" not in src.replace("no pyglet", "")


@pytest.mark.parametrize("stance", ["stand", "crouch"])
def test_block_all_blocks_a_fireball_in_flight(stance):
    """The fireball (lp+hp, mid) outlives its throw: block-all guards it by the projectile's
    height after the thrower has recovered (standing, also from the crouch stance, where
    the old move-only rule stayed crouched)."""
    m = fight_match()
    d = DummyController(side=1)
    d.stance, d.guard = stance, "all"
    back = FrameInput(back=True)
    for _ in range(100):                       # P1 backs off: the fireball lands after its move ends
        m.step(back, d.next_input(m))
    events = list(m.step(FrameInput(lp=True, hp=True), d.next_input(m)))
    thrower_idle_at_hit = []
    for _ in range(150):
        ev = m.step(NEUTRAL, d.next_input(m))
        events += ev
        thrower_idle_at_hit += [not m.fighters[0].move for e in ev if isinstance(e, Hit)]
    fire = [e for e in events if isinstance(e, Hit) and e.move == "fireball"]
    assert fire, "the fireball must reach the dummy"
    assert all(thrower_idle_at_hit), "the fireball should land after the throw's recovery"
    assert all(h.blocked for h in fire)
    assert m.fighters[1].health == m.fighters[1].max_health
