"""The training dummy (game/training/dummy.py, game/render/training.py): guards and stances, record
and loop playback, reset and refill, reversals, and its guard against fireballs and sweeps."""

from __future__ import annotations

import random

import pytest

from game.render.training import TrainingMode
from game.sim import (
    FrameInput,
    Hit,
    Match,
    MoveStarted,
    ThrowBreak,
    ThrowGrab,
)
from game.sim.data import load_game_data
from game.training import MAX_RECORD_FRAMES, REVERSALS, DummyController
from simhelp import HELD, NEUTRAL, PRESS, fight, first_act, gap, placed
from traininghelp import to_gap, training_match, window_step


def fight_match(seed=0):
    m = Match.new(seed=seed)
    while m.phase != "fight":
        m.step(NEUTRAL, NEUTRAL)
    return m


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


def test_dummy_reset_on_a_match_of_another_arena_setting_is_a_clear_error():
    d = DummyController(side=1)
    d.attach(fight(Match.new(seed=0)))
    with pytest.raises(ValueError, match="arena"):
        d.reset(Match.new(seed=0, arena=False))


@pytest.mark.parametrize("kw", [{"side": True}, {"max_frames": "abc"}, {"max_frames": 2.5}, {"max_frames": 0}])
def test_dummy_bad_arguments_name_the_argument(kw):
    with pytest.raises(ValueError, match=f"DummyController: {next(iter(kw))}"):
        DummyController(**kw)


THROW = FrameInput(lp=True, lk=True)


SPEC = load_game_data().throw


def test_a_training_dummy_with_a_throw_reversal_breaks_no_throw_and_throws_on_waking():
    """F9's throw reversal: thrown, the dummy does not press lp + lk in the tech window (it would
    break every throw the player practises); it throws on the first frame it can act."""
    from game.render.training import TrainingMode

    tm = TrainingMode()
    tm.dummy.reversal = "throw"
    m = placed(0.8)
    events = []
    for k in range(SPEC.frames + 30):
        events += [(k, e) for e in m.step(THROW if k == 0 else NEUTRAL, tm.dummy.next_input(m))]
    kinds = [type(e).__name__ for _, e in events if isinstance(e, (ThrowGrab, ThrowBreak, Hit))]
    assert kinds[:2] == ["ThrowGrab", "Hit"], kinds
    starts = [e for _, e in events if isinstance(e, MoveStarted) and e.fighter == 1]
    assert starts and starts[0].move == SPEC.move
    m2 = placed(0.8)                        # the same throw, the dummy's first free frame found by mashing
    for k in range(SPEC.tech + load_game_data().moves[SPEC.move].startup + 2):
        m2.step(THROW if k == 0 else NEUTRAL, NEUTRAL)
    assert starts[0].frame == first_act(m2, 1)


# ------------------------------------------------------------------ reversal
CASES = [("stand", "none", "hp"), ("stand", "all", "hp"), ("crouch", "all", "hk_low"),
         # blockstuns of every length parity under a crouching guard (a buffered press made with
         # down held is the sweep's, so the reversal's own press must be the one read), and a
         # knockdown: the reversal on waking up
         ("crouch", "all", "lp"), ("crouch", "all", "lk"), ("crouch", "all", "hp"), ("stand", "none", "hk_low")]


@pytest.mark.slow
@pytest.mark.parametrize("stance, guard, attack", CASES)
@pytest.mark.parametrize("reversal", [r for r in REVERSALS if r != "off"])
def test_reversal_comes_out_on_the_first_frame_the_dummy_can_act(reversal, stance, guard, attack):
    """The dummy's reversal starts the chosen move on the first frame the match lets it act
    after a hit or a block (the frame found by mashing from the state after the hit), and
    the dummy still guards meanwhile: a crouching guard against the sweep does not turn
    a reversal HK into a sweep, and the jump (which the match does not buffer) comes out."""
    m, tm = training_match(stance, guard, reversal)
    to_gap(m, tm, 0.9)
    events = list(window_step(m, tm, PRESS[attack]))
    hit = truth = start = None
    for _ in range(120):
        for e in events:
            if isinstance(e, Hit) and hit is None:
                hit = e
                truth = first_act(m, 1)
            elif isinstance(e, MoveStarted) and e.fighter == 1:
                start = e
        if start is not None:
            break
        events = window_step(m, tm, HELD.get(attack, NEUTRAL))
    assert hit is not None and hit.defender == 1 and hit.blocked == (guard == "all")
    assert start is not None, "no reversal"
    assert (start.move, start.frame) == (reversal, truth)


def test_refill_waits_for_a_knocked_down_dummy_to_get_up():
    """Endless health comes back once neither side is stunned: a swept dummy lies its whole
    knockdown with the sweep's damage taken (refilled on the ground, the next hit of a combo
    would read against full health), and is full again once up."""
    m, tm = training_match()
    to_gap(m, tm, 1.2)
    events = list(window_step(m, tm, PRESS["hk_low"]))
    while not any(isinstance(e, Hit) for e in events):
        events = window_step(m, tm, HELD["hk_low"])
    dummy = m.fighters[1]
    assert dummy.state == "knockdown"
    hurt = dummy.health
    assert hurt < dummy.max_health
    while dummy.state == "knockdown":
        assert dummy.health == hurt
        window_step(m, tm, NEUTRAL)
    assert dummy.health == dummy.max_health


def test_reversal_off_and_bad_names():
    """Off by default: the dummy stays still after a hit; a wrong name is refused by name."""
    m, tm = training_match()
    assert tm.dummy.reversal == "off"
    to_gap(m, tm, 0.9)
    log = []
    for p in [PRESS["hp"]] + [NEUTRAL] * 80:
        log += window_step(m, tm, p)
    assert any(isinstance(e, Hit) for e in log)
    assert not any(isinstance(e, MoveStarted) and e.fighter == 1 for e in log)
    with pytest.raises(ValueError, match="reversal.*lp"):
        tm.dummy.reversal = "uppercut"


def test_f9_cycles_the_reversal_and_the_status_names_it():
    from game.training import REVERSALS as R

    tm = TrainingMode()
    seen = [tm.dummy.reversal]
    for _ in range(len(R)):
        tm.cycle_reversal()
        seen.append(tm.dummy.reversal)
    assert seen == list(R) + [R[0]]
    tm.dummy.reversal = "hk_low"
    assert "reversal sweep" in tm.status()
    tm.dummy.reversal = "off"
    assert "reversal" not in tm.status()


@pytest.mark.slow
@pytest.mark.parametrize("stance", ["stand", "crouch"])
@pytest.mark.parametrize("delay", [0, 2, 6, 12])
def test_guard_all_blocks_a_fireball_arriving_while_its_thrower_sweeps(stance, delay):
    """Guard all: a fireball (mid) still flying when its thrower starts a sweep (low) arrives
    first, so it must be blocked standing (crouching for the sweep at once, the dummy would
    take the fireball)."""
    m, tm = training_match(stance, "all")
    while gap(m) < 8.0:
        window_step(m, tm, FrameInput(back=True))
    for _ in range(3):
        window_step(m, tm, NEUTRAL)
    seq = [PRESS["fireball"]] + [NEUTRAL] * 40 + [FrameInput(forward=True)] * delay \
        + [PRESS["hk_low"]] + [FrameInput(down=True)] * 60
    hits = []
    swept_in_flight = False
    for p in seq:
        hits += [e for e in window_step(m, tm, p) if isinstance(e, Hit)]
        swept_in_flight |= m.fighters[0].move == "hk_low" and bool(m.stage.projectiles)
    assert swept_in_flight, "the case under test: the sweep started with the fireball in flight"
    assert [h.move for h in hits] == ["fireball"]
    assert all(h.blocked and h.damage == 0 for h in hits)


@pytest.mark.parametrize("move", ["lp", "hp", "lk", "hk", "hk_low", "fireball"])
def test_crouching_dummy_is_hit_by_mids_and_lows_and_highs_pass_over(move):
    """README: high attacks pass over a crouching fighter; mid and low ones hit it."""
    m, tm = training_match("crouch", "none")
    for _ in range(5):
        window_step(m, tm, NEUTRAL)
    assert m.fighters[1].state == "crouch"
    while gap(m) > 0.9:
        window_step(m, tm, FrameInput(forward=True))
    hits = []
    for p in [NEUTRAL] * 3 + [PRESS[move]] + [HELD.get(move, NEUTRAL)] * 60:
        hits += [e for e in window_step(m, tm, p) if isinstance(e, Hit)]
    if m.data.moves[move].height == "high":
        assert hits == []
    else:
        assert hits and not hits[0].blocked and hits[0].damage > 0
