"""What the training read-outs say (issue #34, point 6): a crate strike is named as one and
its freeze is not counted as active frames, a plain jump has no frame advantage, and moves
are called by their names."""

from __future__ import annotations

import pytest

from game.render.training import TrainingMode
from game.sim import CrateStruck, FrameInput, Hit, Match, MoveStarted, Whiff

NEUTRAL = FrameInput()
PRESS = {"lp": FrameInput(lp=True), "hp": FrameInput(hp=True), "hk_low": FrameInput(hk=True, down=True),
         "jump": FrameInput(up=True)}


def _training(**dummy) -> tuple[Match, TrainingMode]:
    m = Match.new(seed=0)
    tm = TrainingMode()
    tm.attach(m)
    for k, v in dummy.items():
        setattr(tm.dummy, k, v)
    return m, tm


def _step(m: Match, tm: TrainingMode, p1: FrameInput):
    """One step as the window takes it: P1's input, P2 from the dummy, then the read-outs."""
    events = m.step(p1, tm.p2_input(m, NEUTRAL))
    tm.after_step(m, events)
    return events


def _to_gap(m, tm, dist):
    while abs(m.fighters[1].x - m.fighters[0].x) > dist:
        _step(m, tm, FrameInput(forward=True))
    for _ in range(3):
        _step(m, tm, NEUTRAL)


@pytest.mark.parametrize("move", ["lp", "hp"])
def test_a_crate_strike_is_named_and_its_freeze_is_no_active_frame(move):
    """A fist in a crate: the line said "P1 LP whiff" and the active segment read 7 (3
    active frames and the striker's own 4 frozen ones).  Now the line names the strike, and
    the frozen frames are a hitstop segment between the active ones: they add up to the
    move table's 3."""
    m, tm = _training()
    f1, f2 = m.fighters
    f1.x, f1.z = 0.0, 3.72                 # just south of crate_north, facing it
    f2.x, f2.z = 0.0, 8.0
    _step(m, tm, NEUTRAL)
    events = list(_step(m, tm, PRESS[move]))
    for _ in range(60):
        events += _step(m, tm, NEUTRAL)
    assert any(isinstance(e, CrateStruck) for e in events), "the case under test: a crate strike"
    assert any(isinstance(e, Whiff) for e in events)              # it struck no fighter
    mv = m.data.moves[move]
    assert tm.meter.last_hit == f"P1 {mv.label} struck a crate"
    runs = [(ph, n) for ph, n, _at in tm.meter.runs[0]]
    assert runs[0] == ("startup", mv.startup)
    assert sum(n for ph, n in runs if ph == "active") == mv.active, runs
    assert [ph for ph, _ in runs[1:4]] == ["active", "hitstop", "active"], runs
    assert runs[4] == ("recovery", mv.recovery), runs


def test_a_plain_jump_has_no_advantage():
    """A jump that meets nothing is no exchange of attack and defence: the meter showed -35
    (the opponent free 35 frames before the jumper lands).  Its rows show the jump, the line
    says who jumped, and no advantage is given."""
    m, tm = _training()
    _step(m, tm, NEUTRAL)
    _step(m, tm, PRESS["jump"])
    assert tm.meter.active
    for _ in range(80):
        _step(m, tm, NEUTRAL)
        if not tm.meter.active:
            break
    assert not tm.meter.active
    assert tm.meter.advantage is None
    assert tm.meter.last_hit == "P1 jump"
    assert [ph for ph, _n, _at in tm.meter.runs[0]][:1] == ["jump"]


def test_a_jump_over_an_attack_still_has_its_advantage():
    """A jump in an exchange with an attack (the dummy's sweep whiffing under it) is an
    exchange like any other: its advantage is given."""
    m, tm = _training()
    _to_gap(m, tm, 1.2)
    events = []
    for t in range(90):
        p1 = PRESS["jump"] if t == 0 else NEUTRAL
        p2 = PRESS["hk_low"] if t == 3 else (FrameInput(down=True) if 3 < t < 30 else NEUTRAL)
        ev = m.step(p1, p2)                    # P2 played by hand here, not by the dummy
        tm.after_step(m, ev)
        events += ev
        if t > 5 and not tm.meter.active:
            break
    assert any(isinstance(e, MoveStarted) and e.move == "hk_low" for e in events)
    assert not tm.meter.active and tm.meter.advantage is not None


def test_moves_are_called_by_their_names():
    """The line under the meter said "P1 HK_LOW hit (low), knockdown", the move's key in the
    data.  It now uses the move's label from moves.json: "P1 sweep hit (low), knockdown";
    and the status line names the dummy's reversal the same way, with its input."""
    m, tm = _training()
    _to_gap(m, tm, 1.1)
    events = list(_step(m, tm, PRESS["hk_low"]))
    for _ in range(120):
        events += _step(m, tm, FrameInput(down=True) if m.fighters[0].move else NEUTRAL)
        if any(isinstance(e, Hit) for e in events) and not tm.meter.active:
            break
    assert tm.meter.last_hit == "P1 sweep hit (low), knockdown"
    assert "_" not in tm.meter.last_hit and "HK" not in tm.meter.last_hit
    tm.dummy.reversal = "hk_low"
    assert "reversal sweep (↓HK)" in tm.status()
    tm.dummy.reversal = "lp"
    assert "reversal jab (LP)" in tm.status()
