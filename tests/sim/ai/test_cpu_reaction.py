"""The CPU's reaction time: it answers what it could have seen ``reaction`` frames ago.

Two matches identical but for one press of the player's (an attack started on step F in one,
nothing in the other): the CPU's every decision (its input bits, its plan and each draw from
the match's RNG) is the same in both up to step F + reaction, because its rules read the
opponent only through its looks of ``reaction`` frames ago (``game.sim.ai.sight``).  The same
twins with the reaction set to 0 part at once: the scenario does show a response, and the limit
is what holds it back.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from game.sim import FrameInput, Hit, Match, MoveStarted, ai
from game.sim.ai.situation import OPENING
from simhelp import NEUTRAL, to_fight

#: Everything a CPU decides with, but the looks it keeps (which record the press itself).
PLAN_FIELDS = [n for n in ai.CpuPlan.__dataclass_fields__ if n != "eyes"]
PRESS = {"lp": FrameInput(lp=True), "lk": FrameInput(lk=True), "hp": FrameInput(hp=True),
         "hk": FrameInput(hk=True), "hk_low": FrameInput(hk=True, down=True),
         "fireball": FrameInput(lp=True, hp=True)}


def _placed(level: str, dist: float, seed: int = 0) -> Match:
    """The CPU (P1, ``level``) and P2 ``dist`` apart, past the round's first second, the CPU
    planning to stand still for longer than any reaction (a reaction rule may cut that short)."""
    m = Match.new(seed=seed, p1_cpu=level)
    to_fight(m)
    m.phase_frame = OPENING
    a, b = m.fighters
    a.x, a.z, b.x, b.z = -dist / 2, 0.0, dist / 2, 0.0
    a.fx, a.fz, b.fx, b.fz = 1.0, 0.0, -1.0, 0.0
    m.step(NEUTRAL, NEUTRAL)
    m.ai_state[0].start(bits=0, hold=60)
    return m


def _decisions(m: Match) -> tuple:
    p = m.ai_state[0]
    return (m.last_inputs[0].bits, tuple(getattr(p, n) for n in PLAN_FIELDS), m.rng.bit_generator.state["state"])


def _first_difference(level: str, move: str, dist: float, seed: int = 0) -> tuple[int, int]:
    """``(F, first step whose CPU decisions differ between the twins)``; F is the step the
    player's move started.  Asserts the CPU is struck by nothing meanwhile (a hit is felt at
    once: no reaction time applies to it)."""
    press, still = _placed(level, dist, seed), _placed(level, dist, seed)
    start = None
    for t in range(80):
        ev = press.step(NEUTRAL, PRESS[move] if t == 0 else NEUTRAL)
        still.step(NEUTRAL, NEUTRAL)
        for e in ev:
            if isinstance(e, MoveStarted) and e.fighter == 1:
                start = e.frame
            assert not (isinstance(e, Hit) and e.defender == 0), f"the CPU was struck by {move} from {dist} m"
        if _decisions(press) != _decisions(still):
            assert start is not None
            return start, press.frame - 1
    raise AssertionError(f"{level}: no answer to {move} from {dist} m")


#: Every rule that answers what the opponent does, made sure to answer: a difference is a reaction.
EAGER = dict(notice=1.0, guard=1.0, punish=1.0, read=1.0)
CASES = [("lp", 1.75), ("lk", 1.75), ("hp", 1.75), ("hk", 1.75), ("hk_low", 1.75), ("fireball", 5.0)]


@pytest.mark.parametrize("level", list(ai.LEVELS))
@pytest.mark.parametrize("move,dist", CASES)
def test_cpu_decides_nothing_from_an_attack_before_its_reaction_time(monkeypatch, level, move, dist):
    monkeypatch.setitem(ai.LEVELS, level, replace(ai.LEVELS[level], **EAGER))
    start, first = _first_difference(level, move, dist)
    reaction = ai.LEVELS[level].reaction
    assert first >= start + 1 + reaction, (f"{level} answered {move} (started on step {start}) on step "
                                           f"{first}, {first - start} steps on: faster than its {reaction}")


@pytest.mark.parametrize("level", list(ai.LEVELS))
@pytest.mark.parametrize("move,dist", CASES[:-1])
def test_without_the_reaction_time_the_same_cpu_answers_at_once(monkeypatch, level, move, dist):
    """The control: a CPU that saw the present answers on the step after the press, so the
    test above fails without the limit."""
    monkeypatch.setitem(ai.LEVELS, level, replace(ai.LEVELS[level], reaction=0, **EAGER))
    start, first = _first_difference(level, move, dist)
    assert first == start + 1


def test_normal_cpu_guards_a_roundhouse_no_sooner_than_16_frames_after_its_startup_began(monkeypatch):
    """The brief's case: a roundhouse whiffed at the normal CPU (which notices whatever it has
    seen: ``notice`` 1).  Its guard goes up no sooner than its reaction time (15-20 frames for
    normal) after the kick's first frame, and it does go up."""
    level = ai.LEVELS["normal"]
    assert 15 <= level.reaction <= 20
    monkeypatch.setitem(ai.LEVELS, "normal", replace(level, notice=1.0, guard=1.0))
    m = _placed("normal", 1.75)
    start = guard = None
    for t in range(40):
        for e in m.step(NEUTRAL, PRESS["hk"] if t == 0 else NEUTRAL):
            if isinstance(e, MoveStarted) and e.fighter == 1:
                start = e.frame
        if guard is None and m.last_inputs[0].guard:
            guard = m.frame - 1
    assert start is not None and guard is not None
    assert guard - start >= level.reaction + 1, (start, guard)


def test_every_level_reacts_within_human_limits():
    """Normal 15-20 frames, the levels below it slower, hard faster but not frame-perfect."""
    names = list(ai.LEVELS)
    reactions = [ai.LEVELS[n].reaction for n in names]
    assert reactions == sorted(reactions, reverse=True), dict(zip(names, reactions))
    assert 15 <= ai.LEVELS["normal"].reaction <= 20
    assert all(ai.LEVELS[n].reaction > ai.LEVELS["normal"].reaction for n in names[:names.index("normal")])
    assert ai.LEVELS["hard"].reaction >= 8
