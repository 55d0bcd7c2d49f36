"""The round's first second: no hit of the CPU's lands in the 60 frames after "FIGHT!".

Against players who give it every reason to (a masher walking into it, swinging and whiffing;
a player who stands still in its reach) and against another CPU, over many seeds and every
level; a slow test plays whole matches, every round.  Without the limit the same matches
have the CPU land hits inside that second.
"""

from __future__ import annotations

import pytest

from game.sim import Fight, FrameInput, Hit, Match, ai
from game.sim.ai import situation
from game.tools.players import Masher

NEUTRAL = FrameInput()
#: The round's first second, in frames after "FIGHT!".
FIRST_SECOND = 60


def _early_hits(level: str, seed: int, opponent: str, rounds: int = 1) -> list[tuple[int, str]]:
    """The CPU's (P1's) hits inside the first second of each of the first ``rounds`` rounds:
    ``(frames after FIGHT!, move)``.  ``opponent``: "masher", "still" or a CPU level."""
    cpu = opponent if opponent in ai.LEVELS else None
    m = Match.new(seed=seed, p1_cpu=level, p2_cpu=cpu)
    masher = Masher(seed, 1) if opponent == "masher" else None
    fight, seen, out = None, 0, []
    while not m.over and seen <= rounds:
        p2 = masher(m) if masher is not None else NEUTRAL
        for e in m.step(NEUTRAL, p2):
            if isinstance(e, Fight):
                fight, seen = e.frame, seen + 1
            elif isinstance(e, Hit) and e.attacker == 0 and fight is not None and e.frame - fight <= FIRST_SECOND:
                out.append((e.frame - fight, e.move))
        if fight is not None and m.frame - fight > FIRST_SECOND + 30 and seen >= rounds:
            break
    return out


@pytest.mark.parametrize("level", list(ai.LEVELS))
def test_no_cpu_hit_lands_in_a_rounds_first_second(level):
    assert situation.OPENING >= FIRST_SECOND
    early = {(seed, opp): hits for seed in range(24) for opp in ("masher", "still", level)
             if (hits := _early_hits(level, seed, opp))}
    assert not early, early


def test_without_the_opening_the_same_cpus_hit_inside_it(monkeypatch):
    monkeypatch.setattr(situation, "OPENING", 0)
    early = [hits for level in ai.LEVELS for seed in range(8) for opp in ("masher", "still")
             if (hits := _early_hits(level, seed, opp))]
    assert early


@pytest.mark.slow
@pytest.mark.parametrize("level", ["easy", "hard"])
def test_no_cpu_hit_lands_in_the_first_second_of_any_round_of_whole_matches(level):
    for seed in range(3):
        for opp in ("masher", "normal"):
            assert _early_hits(level, seed, opp, rounds=5) == [], (seed, opp)
