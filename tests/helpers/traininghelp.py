"""Shared by the training-mode tests: a match with training attached, stepped as the window
steps it (the dummy decides P2, training records), and the frame meter's rows as runs."""

from __future__ import annotations

from game.render.training import TrainingMode
from game.sim import FrameInput, Match
from simhelp import NEUTRAL, gap


def training_match(stance="stand", guard="none", reversal="off"):
    """A match with training attached, its dummy set as given."""
    m = Match.new(seed=0)
    tm = TrainingMode()
    tm.attach(m)
    tm.dummy.stance, tm.dummy.guard = stance, guard
    tm.dummy.reversal = reversal
    return m, tm


def window_step(m, tm, p1, live=NEUTRAL):
    """One window tick as Game.step does it: the dummy decides P2, the match steps, training records."""
    events = m.step(p1, tm.p2_input(m, live))
    tm.after_step(m, events)
    return events


def runs(row):
    out = []
    for p in row:
        if out and out[-1][0] == p:
            out[-1][1] += 1
        else:
            out.append([p, 1])
    return [tuple(r) for r in out]


def to_gap(m, tm, d):
    while gap(m) > d:
        window_step(m, tm, FrameInput(forward=True))
    while gap(m) < d:
        window_step(m, tm, FrameInput(back=True))
    for _ in range(3):
        window_step(m, tm, NEUTRAL)
