"""Fixtures of the simulation's tests."""

import numpy as np
import pytest

from game.sim import Match
from simhelp import place, to_fight


@pytest.fixture
def at_crate():
    """P1 just south of crate_north (centre (0, 0.75, 5)), facing it; P2 behind the crate."""
    m = Match.new(seed=0)
    to_fight(m)
    place(m, (0.0, 3.72), (0.0, 8.0))
    assert np.allclose(m.fighters[0].facing, [0, 1])
    return m


@pytest.fixture
def across_crate():
    """P1 and P2 on either side of crate_north (centre (0, 0.75, 5), 1 x 1.5 x 1 m), 3 m apart:
    beyond every attack's reach, so the CPU may zone."""
    m = Match.new(seed=0)
    to_fight(m)
    place(m, (0.0, 3.5), (0.0, 6.5))
    return m
