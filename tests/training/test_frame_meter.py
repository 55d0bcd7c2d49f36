"""Training's frame meter against the simulation: its segments are the move table's and the
frames the match really ran, and its advantage is who really acts first (the truth measured in
the match: ``Hit.frame``, and each fighter's first possible move after it)."""

from __future__ import annotations

import pytest

from game.sim import FrameInput, Hit, Whiff
from game.sim import FrameInput as F
from game.sim.data import load_game_data
from simhelp import (
    HELD,
    NEUTRAL,
    PRESS,
    first_act,
    gap,
    placed,
)
from traininghelp import runs, to_gap, training_match, window_step


def test_the_training_meter_shows_the_first_move_then_the_pair():
    """On the frame meter the jab's two frames and the throw's own 7 frames of startup are two
    segments (the throw's startup reads as its data), then its active and recovery frames."""
    from game.render.training import FrameMeter

    m = placed(1.0)
    meter = FrameMeter()
    for k in range(40):
        meter.observe(m, m.step(F(lp=True) if k < 2 else (F(lp=True, lk=True) if k == 2 else NEUTRAL), NEUTRAL))
    runs = [(phase, n) for phase, n, _ in meter.runs[0]]
    throw = m.data.moves["throw"]
    assert runs[:3] == [("startup", 2), ("startup", throw.startup), ("active", 1)]


@pytest.mark.slow
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


THROW = FrameInput(lp=True, lk=True)


SPEC = load_game_data().throw


HOLD = load_game_data().moves[SPEC.hold]


def test_training_meter_reads_a_throw_as_startup_one_active_grab_recovery_and_a_knockdown():
    from game.render.training import FrameMeter

    m = placed(0.8)
    meter = FrameMeter()
    for k in range(SPEC.frames + 20):
        meter.observe(m, m.step(THROW if k == 0 else NEUTRAL, NEUTRAL))
    grab, hold = load_game_data().moves[SPEC.move], HOLD
    p1 = [(ph, n) for ph, n, _ in meter.runs[0] if ph != "neutral"]
    p2 = [(ph, n) for ph, n, _ in meter.runs[1] if ph != "neutral"]
    assert p1 == [("startup", grab.startup), ("active", 1), ("recovery", hold.total - 1)]
    assert p2 == [("knockdown", SPEC.frames)]
    assert meter.advantage == SPEC.frames - hold.total


# ------------------------------------------------------------------ whiffs
@pytest.mark.parametrize("move", ["lp", "hp", "lk", "hk", "hk_low"])
def test_whiff_advantage_is_counted_as_hits_are(move):
    """A move whiffed at a dummy 3.5 m away: the meter counted the dummy free from the
    exchange's first frame, one frame more than a hit counts a free fighter (Hit.advantage,
    the meter after a hit): a whiffed jab read -19.  The truth, as for hits: from the state
    after the exchange's first step, the frames until each side can act (the jab: -18)."""
    m, tm = training_match()
    to_gap(m, tm, 3.5)
    window_step(m, tm, PRESS[move])
    assert tm.meter.active, "the exchange starts with the move"
    truth = first_act(m, 1) - first_act(m, 0)
    hits = []
    for _ in range(200):
        hits += [e for e in window_step(m, tm, HELD.get(move, NEUTRAL)) if isinstance(e, Hit)]
        if not tm.meter.active:
            break
    assert not hits and not tm.meter.active, "the case under test: a whiff"
    assert tm.meter.advantage == truth
    assert truth == 1 - m.data.moves[move].total          # the opponent acts from the move's 2nd frame


def test_the_last_advantage_is_not_shown_beside_a_new_exchange():
    """A blocked jab's advantage, then a new move: while it runs, the rows are the new
    exchange's, so the old figure goes (not kept next to them until the new one ends); the
    new exchange's own figure comes when it ends, and it is the truth."""
    m, tm = training_match(guard="all")
    to_gap(m, tm, 0.9)
    window_step(m, tm, PRESS["lp"])
    for _ in range(60):
        window_step(m, tm, NEUTRAL)
    assert tm.meter.advantage is not None and not tm.meter.active
    to_gap(m, tm, 3.0)
    window_step(m, tm, PRESS["hp"])
    truth = first_act(m, 1) - first_act(m, 0)
    while tm.meter.active:
        assert tm.meter.advantage is None
        window_step(m, tm, NEUTRAL)
    assert tm.meter.advantage == truth


def _point_blank(move, guard):
    """P1 walks in to 0.9 m and presses ``move`` at the training dummy.  Returns the match,
    training mode, the move's first frame, the first Hit, both first-free frames after it
    and the frames both fighters were frozen by its hitstop (all measured in the sim)."""
    m, tm = training_match("stand", guard)
    while gap(m) > 0.9:
        window_step(m, tm, FrameInput(forward=True))
    for _ in range(3):
        window_step(m, tm, NEUTRAL)
    start = m.frame
    events = list(window_step(m, tm, PRESS[move]))
    hit = truth = None
    for _ in range(200):
        for e in events:
            if isinstance(e, Hit) and hit is None:
                hit = e
                both_frozen = min(f.hitstop for f in m.fighters)
                truth = (first_act(m, 0), first_act(m, 1), both_frozen)
        if hit is not None and not tm.meter.active:
            break
        events = window_step(m, tm, HELD.get(move, NEUTRAL))
    assert hit is not None and hit.attacker == 0 and hit.blocked == (guard == "all")
    return m, tm, start, hit, truth


@pytest.mark.slow
@pytest.mark.parametrize("guard", ["none", "all"])
@pytest.mark.parametrize("move", ["lp", "hp", "lk", "hk", "hk_low", "fireball"])
def test_frame_meter_segments_are_the_move_table_and_the_sims_frames(move, guard):
    """On hit and on block the meter shows each move as the table has it (startup, active,
    recovery; the defender's hitstun or blockstun), and as the sim runs it: the move lands
    on the first active frame, and each fighter's last busy cell is the frame before it can
    act again, less the hitstop frames on which both were frozen (a meter does not count
    those: counted, a jab would show 8 frames active on hit and hitstun 20)."""
    m, tm, start, hit, (p1_free, p2_free, frozen) = _point_blank(move, guard)
    mv = m.data.moves[move]
    p1, p2 = (runs(r) for r in tm.meter.rows)
    # the table
    assert p1[:3] == [("startup", mv.startup), ("active", mv.active), ("recovery", mv.recovery)], p1
    assert p1[3][0] == "neutral"
    # a knockdown (the sweep on hit) is a phase of its own (tests/training/test_training_knockdown.py)
    stun = "blockstun" if hit.blocked else ("knockdown" if mv.knockdown else "hitstun")
    landed = hit.frame - start
    assert p2[0] == ("neutral", landed) and p2[-1][0] == "neutral", p2
    busy = p2[1:-1]
    if mv.projectile is None:
        assert busy == [(stun, mv.blockstun if hit.blocked else mv.hitstun)], p2
    else:
        # a fireball freezes its victim alone: the freeze is a segment of its own within the
        # stun, which still reads as the table's
        spec = mv.projectile
        assert busy == [(stun, 1), ("hitstop", spec.hitstop),
                        (stun, (spec.blockstun if hit.blocked else spec.hitstun) - 1)], p2
    # the sim, frame by frame: a move lands on its first active frame, and so does a
    # projectile at point-blank (launched on that frame, before the frame's judgement)
    assert landed == mv.startup
    assert mv.startup + mv.active + mv.recovery == p1_free - start - frozen
    assert landed + sum(n for _, n in busy) == p2_free - start - frozen
    assert tm.meter.advantage == p2_free - p1_free == hit.advantage


@pytest.mark.parametrize("guard", ["none", "all"])
def test_fireball_landing_after_its_thrower_recovered_is_one_exchange_with_the_true_advantage(guard):
    """A fireball thrown from 6 m lands after the throw's recovery.  The throw and the hit are
    one exchange (not one closed when the thrower recovers, showing -41 as for a whiff, and a
    new one at the hit), and its advantage is who really acts first."""
    m, tm = training_match("stand", guard)
    while gap(m) < 6.0:
        window_step(m, tm, FrameInput(back=True))
    for _ in range(3):
        window_step(m, tm, NEUTRAL)
    assert tm.meter.advantage is None
    events = window_step(m, tm, PRESS["fireball"])
    hit = truth = None
    for _ in range(200):
        for e in events:
            if isinstance(e, Hit):
                hit = e
                truth = first_act(m, 1) - first_act(m, 0)
        if hit is None:
            assert tm.meter.advantage is None, "an advantage shown before the fireball landed"
        elif not tm.meter.active:
            break
        events = window_step(m, tm, NEUTRAL)
    assert hit is not None and hit.move == "fireball" and hit.blocked == (guard == "all")
    assert not m.fighters[0].move, "the case under test: the thrower had recovered before the hit"
    assert tm.meter.advantage == truth
    p1, p2 = (runs(r) for r in tm.meter.rows)
    mv = m.data.moves["fireball"]
    assert p1[:3] == [("startup", mv.startup), ("active", mv.active), ("recovery", mv.recovery)]
    assert ("blockstun" if hit.blocked else "hitstun") in dict(p2)


def test_the_read_out_names_the_exchange_its_advantage_belongs_to():
    """A blocked HP, then a jab whiffed from afar: the advantage shown is the whiff's, and the
    label next to it must say so (not "P1 straight blocked (mid)" beside the whiffed jab's
    figure).  What each exchange was is read from the sim's events."""

    m, tm = training_match("stand", "all")
    while gap(m) > 0.9:
        window_step(m, tm, FrameInput(forward=True))
    log = []
    for p in [NEUTRAL] * 3 + [PRESS["hp"]] + [NEUTRAL] * 60:
        log += window_step(m, tm, p)
    hits = [e for e in log if isinstance(e, Hit)]
    assert [(h.move, h.blocked) for h in hits] == [("hp", True)] and not tm.meter.active
    assert tm.meter.last_hit == "P1 straight blocked (mid)"
    while gap(m) < 3.0:
        window_step(m, tm, FrameInput(back=True))
    log = []
    for p in [NEUTRAL] * 3 + [PRESS["lp"]] + [NEUTRAL] * 40:
        log += window_step(m, tm, p)
    assert not any(isinstance(e, Hit) for e in log)
    whiffs = [e for e in log if isinstance(e, Whiff)]
    assert [(w.fighter, w.move) for w in whiffs] == [(0, "lp")] and not tm.meter.active
    assert tm.meter.last_hit == "P1 jab whiff"
