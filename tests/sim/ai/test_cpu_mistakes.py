"""The CPU's mistakes on purpose: each happens at the rate its level says, within sampling error.

Each mistake is one roll of the match's RNG in one rule, so each is measured on that rule: the
same situation (an attack seen coming, a whiff seen recovering, a heavy seen winding up, a
swing in reach) put to the rule 2,000 times, a fresh plan each time, the draws running on in the
match's own generator.  The share of mistakes must lie within 4 standard errors of the rate the
level gives: a guard at the wrong height (``1 - guard``), a punish let go (``1 - punish``), a
heavy walked into, not read (``1 - read``), a swing from out of reach (``whiff``).  And the
rates fall level by level.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from game.sim import Match, ai
from game.sim.ai import choices, rules
from game.sim.ai.sight import look
from game.sim.ai.situation import OPENING, read_situation
from game.sim.inputs import ATTACK_BUTTONS, DOWN, GUARD
from simhelp import to_fight

TRIALS = 2000


def _seen(op_move: str, op_mframe: int, dist: float, seed: int = 0) -> Match:
    """A match past the round's first second: P1 (a CPU) stands free, P2 ``dist`` away is on
    frame ``op_mframe`` of ``op_move``."""
    m = Match.new(seed=seed, p1_cpu="normal")
    to_fight(m)
    m.phase_frame = OPENING
    a, b = m.fighters
    a.x, a.z, b.x, b.z = -dist / 2, 0.0, dist / 2, 0.0
    a.fx, a.fz, b.fx, b.fz = 1.0, 0.0, -1.0, 0.0
    b.state, b.move, b.mframe = "attack", op_move, op_mframe
    return m


def _rate(m: Match, level: ai.CpuLevel, trial) -> float:
    """The share of ``TRIALS`` calls of ``trial(situation, plan)`` that return True, each with a
    fresh plan that has just seen P2 as it is."""
    hits = 0
    for _ in range(TRIALS):
        plan = ai.CpuPlan()
        plan.eyes = (look(m.data, m.fighters[1]),)
        hits += bool(trial(read_situation(m, 0, level, plan), plan))
    return hits / TRIALS


def _within(rate: float, expected: float) -> bool:
    err = math.sqrt(max(expected * (1 - expected), 1e-4) / TRIALS)
    return abs(rate - expected) <= 4 * err


LEVELS = list(ai.LEVELS)


@pytest.mark.parametrize("level", LEVELS)
def test_wrong_guard_height_at_the_levels_rate(level):
    """A roundhouse (a high) seen winding up, noticed every time (``notice`` 1): the guard goes
    up crouching, the wrong height, at ``1 - guard``."""
    lv = replace(ai.LEVELS[level], notice=1.0)

    def wrong(s, plan):
        rules.notice_attack(s, plan)
        assert plan.bits & GUARD
        return plan.bits & DOWN

    rate = _rate(_seen("hk", 2, 1.3), lv, wrong)
    assert _within(rate, 1 - lv.guard), (level, rate, 1 - lv.guard)


@pytest.mark.parametrize("level", LEVELS)
def test_missed_punish_at_the_levels_rate(level):
    """A roundhouse seen whiffed, in its recovery, in reach: let go unpunished at ``1 - punish``."""
    lv = ai.LEVELS[level]

    def missed(s, plan):
        bits = rules.punish_stuck(s, plan)
        return not (bits is not None and bits & ATTACK_BUTTONS)

    rate = _rate(_seen("hk", 20, 1.2), lv, missed)
    assert _within(rate, 1 - lv.punish), (level, rate, 1 - lv.punish)


@pytest.mark.parametrize("level", LEVELS)
def test_heavy_walked_into_at_the_levels_rate(level):
    """A roundhouse seen winding up in reach: not read (so nothing answers it) at ``1 - read``."""
    lv = ai.LEVELS[level]

    def unread(s, plan):
        rules.read_heavy(s, plan)
        return plan.read == 0

    rate = _rate(_seen("hk", 2, 1.3), lv, unread)
    assert _within(rate, 1 - lv.read), (level, rate, 1 - lv.read)


@pytest.mark.parametrize("level", LEVELS)
def test_swing_from_out_of_reach_at_the_levels_rate(level):
    """A new attack 1 m off, where the jab and the straight fall short: it picks among every
    attack (a swing that may whiff) at ``whiff``, else among those that reach."""
    lv = ai.LEVELS[level]
    m = _seen("", 0, 1.0)
    m.fighters[1].state = "idle"

    def swing(s, plan):
        return "lp" in choices._in_range(s, "throw")

    rate = _rate(m, lv, swing)
    assert _within(rate, lv.whiff), (level, rate, lv.whiff)


def test_mistakes_are_rarer_level_by_level():
    """Easiest first: every mistake's rate falls from one level to the next."""
    levels = [ai.LEVELS[n] for n in LEVELS]
    for name in ("guard", "punish", "read", "notice", "block"):
        rates = [getattr(lv, name) for lv in levels]
        assert rates == sorted(rates) and len(set(rates)) == len(rates), (name, rates)
    whiffs = [lv.whiff for lv in levels]
    assert whiffs == sorted(whiffs, reverse=True) and len(set(whiffs)) == len(whiffs), whiffs
    assert all(0.0 < lv.guard < 1.0 and 0.0 < lv.punish < 1.0 and 0.0 < lv.read < 1.0 for lv in levels)
