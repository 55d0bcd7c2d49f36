"""The CPU as a whole: the levels play differently (hard beats easy), it finds its way round an
obstacle, and it reads only the match's own RNG, never the clock or global random state."""

from __future__ import annotations

import random
import time
from pathlib import Path

import numpy as np
import pytest

from game.sim import (
    Hit,
    Match,
    ai,
)
from simhelp import NEUTRAL, to_fight

#: every test here runs for more than about half a second
pytestmark = pytest.mark.slow


def test_cpu_reads_neither_global_random_state_nor_the_clock(monkeypatch):
    """Determinism: the same seed gives the same CPU-vs-CPU match whatever the global RNGs
    hold, and the CPU never asks the clock."""
    def boom(*_a, **_k):
        raise AssertionError("the CPU read the clock")

    hashes = []
    for g in (1, 2):
        random.seed(g)
        np.random.seed(g)
        m = Match.new(seed=7, p1_cpu="hard", p2_cpu="normal")
        with monkeypatch.context() as mp:
            for name in ("time", "perf_counter", "monotonic", "time_ns", "perf_counter_ns", "monotonic_ns"):
                mp.setattr(time, name, boom)
            for _ in range(900):
                m.step()
        hashes.append(m.state_hash())
    assert hashes[0] == hashes[1]
    src = "".join(p.read_text() for p in sorted(Path(ai.__file__).parent.glob("*.py")))
    for bad in ("import random", "import time", "np.random.", "datetime"):
        assert bad not in src.replace("np.random.Generator", ""), bad


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("obstacle,player,cpu", [
    ("crate_north", (0.0, 6.3), (0.0, 3.2)),
    ("pillar_en", (7.0, 8.6), (7.0, 5.4)),
])
def test_cpu_walks_round_an_obstacle_between_it_and_the_opponent(level, seed, obstacle, player, cpu):
    """A player standing still behind a crate or a pillar: the CPU must get round it and
    attack, not keep walking into it (60 frames pushing at it at most)."""
    m = Match.new(seed=seed, p2_cpu=level)
    to_fight(m)
    a, b = m.fighters
    (a.x, a.z), (b.x, b.z) = player, cpu
    m.step(NEUTRAL, NEUTRAL)
    box = m.arena.object(obstacle).aabb
    assert box[0, 0] < a.x < box[1, 0] and box[0, 0] < b.x < box[1, 0]   # the obstacle is between them
    pushing, longest, attacked = 0, 0, False
    for _ in range(900):
        before = (b.x, b.z)
        events = m.step(NEUTRAL, NEUTRAL)
        attacked = attacked or any(isinstance(e, Hit) and e.attacker == 1 for e in events)
        if attacked:
            break
        pushing = pushing + 1 if b.state == "walk_fwd" and (b.x, b.z) == before else 0
        longest = max(longest, pushing)
    assert longest <= 60, f"walked into {obstacle} for {longest} frames"
    assert attacked


def test_cpu_levels_differ_and_bad_level_is_rejected():
    with pytest.raises(ValueError, match="cpu level"):
        Match.new(seed=0, p1_cpu="godlike")
    wins = {"hard": 0, "easy": 0}
    for seed in range(3):
        m = Match.new(seed=seed, p1_cpu="hard", p2_cpu="easy")
        while not m.over:
            m.step()
        wins["hard" if m.winner == 0 else "easy"] += 1
    assert wins["hard"] >= 2
