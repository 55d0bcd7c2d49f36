"""Training mode against the simulation: what the frame meter, the advantage read-out, the
input history and the dummy show must be what the match really does.

The truth is measured in the match itself, never copied from the read-outs: the frame a
move lands (``Hit.frame``), and the frame each fighter can act again, found by letting only
that fighter mash a buffered move from a snapshot and noting its first ``MoveStarted``.
"""

from __future__ import annotations


import pytest

from game.render.training import TrainingMode
from game.sim import FrameInput, Hit, Match
from simhelp import first_act, gap

NEUTRAL = FrameInput()
PRESS = {"lp": FrameInput(lp=True), "hp": FrameInput(hp=True), "lk": FrameInput(lk=True),
         "hk": FrameInput(hk=True), "hk_low": FrameInput(hk=True, down=True),
         "fireball": FrameInput(lp=True, hp=True)}
HOLD = {"hk_low": FrameInput(down=True)}


def _training(stance="stand", guard="none", reversal="off"):
    """A match with training attached, its dummy set as given."""
    m = Match.new(seed=0)
    tm = TrainingMode()
    tm.attach(m)
    tm.dummy.stance, tm.dummy.guard = stance, guard
    tm.dummy.reversal = reversal
    return m, tm


def _step(m, tm, p1, live=NEUTRAL):
    """One window tick as Game.step does it: the dummy decides P2, the match steps, training records."""
    events = m.step(p1, tm.p2_input(m, live))
    tm.after_step(m, events)
    return events


def _runs(row):
    out = []
    for p in row:
        if out and out[-1][0] == p:
            out[-1][1] += 1
        else:
            out.append([p, 1])
    return [tuple(r) for r in out]


def _point_blank(move, guard):
    """P1 walks in to 0.9 m and presses ``move`` at the training dummy.  Returns the match,
    training mode, the move's first frame, the first Hit, both first-free frames after it
    and the frames both fighters were frozen by its hitstop (all measured in the sim)."""
    m, tm = _training("stand", guard)
    while gap(m) > 0.9:
        _step(m, tm, FrameInput(forward=True))
    for _ in range(3):
        _step(m, tm, NEUTRAL)
    start = m.frame
    events = list(_step(m, tm, PRESS[move]))
    hit = truth = None
    for _ in range(200):
        for e in events:
            if isinstance(e, Hit) and hit is None:
                hit = e
                both_frozen = min(f.hitstop for f in m.fighters)
                truth = (first_act(m, 0), first_act(m, 1), both_frozen)
        if hit is not None and not tm.meter.active:
            break
        events = _step(m, tm, HOLD.get(move, NEUTRAL))
    assert hit is not None and hit.attacker == 0 and hit.blocked == (guard == "all")
    return m, tm, start, hit, truth


@pytest.mark.parametrize("guard", ["none", "all"])
@pytest.mark.parametrize("move", ["lp", "hp", "lk", "hk", "hk_low", "fireball"])
def test_frame_meter_segments_are_the_move_table_and_the_sims_frames(move, guard):
    """On hit and on block the meter shows each move as the table has it (startup, active,
    recovery; the defender's hitstun or blockstun), and as the sim runs it: the move lands
    on the first active frame, and each fighter's last busy cell is the frame before it can
    act again, less the hitstop frames on which both were frozen (a meter does not count
    those; it used to, showing a jab 8 frames active on hit and hitstun 20)."""
    m, tm, start, hit, (p1_free, p2_free, frozen) = _point_blank(move, guard)
    mv = m.data.moves[move]
    p1, p2 = (_runs(r) for r in tm.meter.rows)
    # the table
    assert p1[:3] == [("startup", mv.startup), ("active", mv.active), ("recovery", mv.recovery)], p1
    assert p1[3][0] == "neutral"
    # a knockdown (the sweep on hit) is a phase of its own (tests/test_review_training_knockdown.py)
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
    """A fireball thrown from 6 m lands after the throw's recovery.  The meter used to close
    the exchange when the thrower recovered (showing -41 as for a whiff), then start a new
    one at the hit with the thrower free on that very frame (+27 on hit, +19 on block where
    the thrower can act from the next frame on: +26, +18).  Now the throw and the hit are one
    exchange and its advantage is who really acts first."""
    m, tm = _training("stand", guard)
    while gap(m) < 6.0:
        _step(m, tm, FrameInput(back=True))
    for _ in range(3):
        _step(m, tm, NEUTRAL)
    assert tm.meter.advantage is None
    events = _step(m, tm, PRESS["fireball"])
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
        events = _step(m, tm, NEUTRAL)
    assert hit is not None and hit.move == "fireball" and hit.blocked == (guard == "all")
    assert not m.fighters[0].move, "the case under test: the thrower had recovered before the hit"
    assert tm.meter.advantage == truth
    p1, p2 = (_runs(r) for r in tm.meter.rows)
    mv = m.data.moves["fireball"]
    assert p1[:3] == [("startup", mv.startup), ("active", mv.active), ("recovery", mv.recovery)]
    assert ("blockstun" if hit.blocked else "hitstun") in dict(p2)


@pytest.mark.parametrize("stance", ["stand", "crouch"])
@pytest.mark.parametrize("delay", [0, 2, 6, 12])
def test_guard_all_blocks_a_fireball_arriving_while_its_thrower_sweeps(stance, delay):
    """Guard all: a fireball (mid) still flying when its thrower starts a sweep (low) arrives
    first, so it must be blocked standing; the dummy used to crouch for the sweep at once
    and take the fireball."""
    m, tm = _training(stance, "all")
    while gap(m) < 8.0:
        _step(m, tm, FrameInput(back=True))
    for _ in range(3):
        _step(m, tm, NEUTRAL)
    seq = [PRESS["fireball"]] + [NEUTRAL] * 40 + [FrameInput(forward=True)] * delay \
        + [PRESS["hk_low"]] + [FrameInput(down=True)] * 60
    hits = []
    swept_in_flight = False
    for p in seq:
        hits += [e for e in _step(m, tm, p) if isinstance(e, Hit)]
        swept_in_flight |= m.fighters[0].move == "hk_low" and bool(m.stage.projectiles)
    assert swept_in_flight, "the case under test: the sweep started with the fireball in flight"
    assert [h.move for h in hits] == ["fireball"]
    assert all(h.blocked and h.damage == 0 for h in hits)


@pytest.mark.parametrize("move", ["lp", "hp", "lk", "hk", "hk_low", "fireball"])
def test_crouching_dummy_is_hit_by_mids_and_lows_and_highs_pass_over(move):
    """README: high attacks pass over a crouching fighter; mid and low ones hit it."""
    m, tm = _training("crouch", "none")
    for _ in range(5):
        _step(m, tm, NEUTRAL)
    assert m.fighters[1].state == "crouch"
    while gap(m) > 0.9:
        _step(m, tm, FrameInput(forward=True))
    hits = []
    for p in [NEUTRAL] * 3 + [PRESS[move]] + [HOLD.get(move, NEUTRAL)] * 60:
        hits += [e for e in _step(m, tm, p) if isinstance(e, Hit)]
    if m.data.moves[move].height == "high":
        assert hits == []
    else:
        assert hits and not hits[0].blocked and hits[0].damage > 0


def test_input_history_is_the_inputs_both_sides_gave_in_order_with_their_frame_counts():
    """Both rows of history, newest first, run-length encode what the match was given
    (P2: the dummy's own guard inputs, switching height with the attacker's move)."""
    m, tm = _training("stand", "all")
    script = [FrameInput(forward=True)] * 30 + [NEUTRAL] * 2 + [PRESS["hk_low"]] + [FrameInput(down=True)] * 12 \
        + [NEUTRAL] * 40 + [PRESS["lp"]] * 3 + [FrameInput(back=True, down=True)] * 7 + [NEUTRAL] * 20
    given = ([], [])
    for p in script:
        _step(m, tm, p)
        for side in (0, 1):
            given[side].append(m.last_inputs[side].bits)
    assert given[0] == [p.bits for p in script]
    for side in (0, 1):
        want = []
        for b in given[side]:
            if want and want[0][0] == b:
                want[0][1] += 1
            else:
                want.insert(0, [b, 1])
        assert [list(r) for r in tm.history[side].rows] == want[: len(tm.history[side].rows)]
        assert len(tm.history[side].rows) == min(len(want), tm.history[side].rows.maxlen)
    assert any(FrameInput.from_bits(b).down for b, _ in tm.history[1].rows), "the dummy crouch-guarded the sweep"


def test_the_read_out_names_the_exchange_its_advantage_belongs_to():
    """A blocked HP, then a jab whiffed from afar: the advantage shown is the whiff's, and the
    label next to it must say so (it used to keep saying "P1 HP blocked (mid)" beside the
    whiffed jab's figure).  What each exchange was is read from the sim's events."""
    from game.sim import Whiff

    m, tm = _training("stand", "all")
    while gap(m) > 0.9:
        _step(m, tm, FrameInput(forward=True))
    log = []
    for p in [NEUTRAL] * 3 + [PRESS["hp"]] + [NEUTRAL] * 60:
        log += _step(m, tm, p)
    hits = [e for e in log if isinstance(e, Hit)]
    assert [(h.move, h.blocked) for h in hits] == [("hp", True)] and not tm.meter.active
    assert tm.meter.last_hit == "P1 straight blocked (mid)"
    while gap(m) < 3.0:
        _step(m, tm, FrameInput(back=True))
    log = []
    for p in [NEUTRAL] * 3 + [PRESS["lp"]] + [NEUTRAL] * 40:
        log += _step(m, tm, p)
    assert not any(isinstance(e, Hit) for e in log)
    whiffs = [e for e in log if isinstance(e, Whiff)]
    assert [(w.fighter, w.move) for w in whiffs] == [(0, "lp")] and not tm.meter.active
    assert tm.meter.last_hit == "P1 jab whiff"
