"""The reversal dummy's input history (issue #34, point 6): one row per thing it did, not
one per frame of a mashed button."""

from __future__ import annotations

import pytest

from game.render.training import TrainingMode
from game.sim import FrameInput, Match, MoveStarted

NEUTRAL = FrameInput()


def _step(m: Match, tm: TrainingMode, p1: FrameInput):
    """One step as the window takes it: P1's input, P2 from the dummy, then the read-outs."""
    events = m.step(p1, tm.p2_input(m, NEUTRAL))
    tm.after_step(m, events)
    return events


@pytest.mark.parametrize("guard", ["none", "all"])
def test_the_reversal_dummy_leaves_one_history_row_per_action(guard):
    """A dummy with a reversal pressed its move's buttons on every other frame of its stun,
    so its input history filled with rows of one frame each.  Now it holds its guard (or
    nothing) through the stun and presses once, on the frame it can act: its rows between
    the hit and the reversal are the guard held, then the one press."""
    m = Match.new(seed=0)
    tm = TrainingMode()
    tm.attach(m)
    tm.dummy.reversal, tm.dummy.guard = "hp", guard
    while abs(m.fighters[1].x - m.fighters[0].x) > 0.9:
        _step(m, tm, FrameInput(forward=True))
    for _ in range(3):
        _step(m, tm, NEUTRAL)
    events = list(_step(m, tm, FrameInput(lp=True)))
    start = None
    for _ in range(80):
        events = _step(m, tm, NEUTRAL)
        start = start or next((e for e in events if isinstance(e, MoveStarted) and e.fighter == 1), None)
        if start is not None:
            break
    assert start is not None and start.move == "hp", "the reversal came out"
    rows = [(bits, held) for bits, held in tm.history[1].rows]
    assert FrameInput.from_bits(rows[0][0]).hp and rows[0][1] == 1      # the press, newest
    one_frame = [r for r in rows[1:] if r[1] == 1]
    assert not one_frame, rows
