"""The CPU's arithmetic against the match itself: the projectile lanes a sidestep needs and the
jump that clears a fireball."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from cpuhelp import cpu_placed, cpu_vs_throw
from game.sim import FrameInput, Hit, ai
from simhelp import FIREBALL, NEUTRAL


def test_projectile_lanes_match_what_a_sidestep_needs():
    """The CPU's dodge arithmetic (``ai.projectile_lanes``) against the match itself: a fighter
    sidestepping from when it decides the fireball strikes in the frames it needs gets out of
    its path; starting later by several frames, it is struck."""
    m = cpu_placed(3.0, p1_cpu=None)
    ahead, front, clear = ai.projectile_lanes(m.data)
    spec = m.data.moves["fireball"]
    need = int(clear / 0.040) + 1
    flight = int(max(0.0, 3.0 - ahead - front) / spec.projectile.speed)
    arrive = spec.startup + flight                       # frames after the press, as the CPU counts
    for start, struck in ((arrive - need, False), (arrive - need + 4, True)):
        m = cpu_placed(3.0, p1_cpu=None)
        hit = False
        for t in range(90):
            ev = m.step(FrameInput(side_l=True) if t >= start else NEUTRAL, FIREBALL if t == 0 else NEUTRAL)
            hit = hit or any(isinstance(e, Hit) for e in ev)
        assert hit == struck, (start, arrive, need)
    assert 0.0 < front < ahead and 0.0 < clear < 1.0 and math.isfinite(ahead)


@pytest.mark.slow
def test_cpu_jump_arithmetic_matches_the_match(monkeypatch):
    """``ai.moves.jump_over`` against the match: a CPU that always notices and always jumps when a
    jump now would clear (from 3.5 to 6 m) clears every fireball it jumps; easy never jumps one.
    (Closer, the hard CPU sees the throw, its reaction time late, too late to time a jump.)"""
    monkeypatch.setitem(ai.LEVELS, "hard", replace(ai.LEVELS["hard"], notice=1.0, jump=1.0))
    for dist in (3.5, 4.5, 6.0):
        for cpu in (0, 1):
            jumped, struck = cpu_vs_throw(dist, 1, cpu)
            assert jumped and not struck, (dist, cpu, jumped, struck)
    assert ai.LEVELS["easy"].jump == 0.0 < ai.LEVELS["normal"].jump < ai.LEVELS["hard"].jump
