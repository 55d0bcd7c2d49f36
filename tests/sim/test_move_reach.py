"""Reach of the basic strikes, measured with the frame-step API: the straight and the front
kick reach at least as far as the jab, and the straight's arm is level, not pointed at the
floor (issue #34, point 6)."""

import math

import numpy as np
import pytest

from game.sim import FrameInput, Hit, Match

NEUTRAL = FrameInput()
PRESS = {"lp": FrameInput(lp=True), "hp": FrameInput(hp=True), "lk": FrameInput(lk=True)}


def _placed(dist: float) -> Match:
    """A bare-floor match in its FIGHT phase, the fighters ``dist`` apart, both standing."""
    m = Match.new(seed=0, arena=False)
    while m.phase != "fight":
        m.step(NEUTRAL, NEUTRAL)
    a, b = m.fighters
    a.x, b.x = -dist / 2, dist / 2
    m.step(NEUTRAL, NEUTRAL)
    return m


def _connects(move: str, dist: float) -> bool:
    """P1's ``move`` pressed at ``dist`` (centres) against a standing P2: does it hit?"""
    m = _placed(dist)
    events = list(m.step(PRESS[move], NEUTRAL))
    for _ in range(40):
        events += m.step(NEUTRAL, NEUTRAL)
    return any(isinstance(e, Hit) and e.attacker == 0 for e in events)


def _reach(move: str) -> float:
    """The farthest distance (to 5 mm) from which ``move`` connects, by bisection between a
    distance where it does and one where it does not."""
    lo, hi = 0.7, 2.5
    assert _connects(move, lo) and not _connects(move, hi)
    while hi - lo > 0.005:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _connects(move, mid) else (lo, mid)
    return lo


@pytest.fixture(scope="module")
def reaches():
    return {move: _reach(move) for move in PRESS}


@pytest.mark.parametrize("move", ["hp", "lk"])
def test_the_straight_and_the_front_kick_reach_at_least_as_far_as_the_jab(reaches, move):
    """Pressed from where a jab lands, the heavier straight and the front kick land too."""
    assert reaches[move] >= reaches["lp"], reaches
    assert _connects(move, reaches["lp"])


def test_the_straight_reaches_further_than_the_jab_but_not_the_roundhouse(reaches):
    assert reaches["hp"] > reaches["lp"] + 0.05
    assert not _connects("hp", 1.6)        # the roundhouse's distance (about 1.52 m) and more


def test_the_straights_arm_is_level_on_its_active_frames():
    """The fist leads a nearly level forearm (within 30 degrees of horizontal), pointing
    forward, on every active frame; it used to point 60 degrees down at the floor."""
    m = _placed(3.0)
    f = m.fighters[0]
    mv = m.data.moves["hp"]
    li = f.limb_names.index("forearm_r")
    m.step(PRESS["hp"], NEUTRAL)
    seen = 0
    for _ in range(mv.total):
        if mv.is_active(f.mframe):
            rot, _origin = f.limb_frames()
            d = rot[li] @ np.array([0.0, -1.0, 0.0])          # elbow to fist, world frame
            assert math.degrees(math.asin(d[1])) >= -30.0, d
            assert d[0] * f.fx + d[2] * f.fz > 0.8, d             # toward the opponent
            seen += 1
        m.step(NEUTRAL, NEUTRAL)
    assert seen == mv.active
