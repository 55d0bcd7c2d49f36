"""The CPU opponent judged as a player would: it must not lose to one scripted input loop,
must keep its guard up until a fireball has landed, get out of a fireball's path when there
is time, punish a whiffed heavy, not throw highs over a crouching opponent, and read only the
match's own RNG.  (Win rates over many seeds are measured outside the suite; these are a few
seeded matches and placed exchanges.)"""

import math
import random
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from game.sim import FrameInput, Hit, Match, MoveStarted, ProjectileLaunched, Whiff
from game.sim import ai

from simhelp import NEUTRAL, to_fight

FIREBALL = FrameInput(lp=True, hp=True)


def _placed(dist: float, seed: int = 0, p1_cpu: str | None = "hard") -> Match:
    """A match in its FIGHT phase, P1 (the CPU) at (-dist/2, 0) and P2 at (dist/2, 0)."""
    m = Match.new(seed=seed, p1_cpu=p1_cpu)
    to_fight(m)
    a, b = m.fighters
    a.x, a.z, b.x, b.z = -dist / 2, 0.0, dist / 2, 0.0
    m.step(NEUTRAL, NEUTRAL)
    return m


def _fireball_spam(m: Match) -> FrameInput:
    """The scripted loop: stand and press lp + hp every 20 frames (one fireball at a time,
    so it comes out as often as the move allows)."""
    return FIREBALL if m.frame % 20 == 0 else NEUTRAL


def test_hard_cpu_is_not_beaten_by_standing_fireball_spam():
    """Old code: this loop beat the hard CPU in 40 of 40 matches (seeds 1000-1039): it raised a
    guard against the wind-up, dropped it on the launch frame (before the fireball arrived),
    walked into the next one, and had no way to get past a fireball but to block it."""
    wins = 0
    for seed in (1, 2, 3):
        m = Match.new(seed=seed, p1_cpu="hard")
        while not m.over:
            m.step(NEUTRAL, _fireball_spam(m))
        wins += m.winner == 0
    assert wins >= 2, f"the hard CPU won {wins} of 3 matches against fireball spam"


def test_cpu_keeps_its_guard_up_until_the_fireball_lands(monkeypatch):
    """A guard raised against a fireball (noticed once, then never again: notice drops to 0)
    must stay up until the fireball has landed, not drop when it leaves the hand.  (No jump:
    since the hard CPU may jump over a fireball, ``jump=0`` keeps this about the guard.)"""
    monkeypatch.setitem(ai.LEVELS, "hard", replace(ai.LEVELS["hard"], notice=1.0, guard=1.0, dodge=0.0, jump=0.0))
    m = _placed(2.1)
    cpu = m.fighters[0]
    hits = []
    for t in range(90):
        if cpu.guard == 1:      # noticed: from now on it notices nothing new
            ai.LEVELS["hard"] = replace(ai.LEVELS["hard"], notice=0.0)
        hits += [e for e in m.step(NEUTRAL, FIREBALL if t == 0 else NEUTRAL) if isinstance(e, Hit) and e.attacker == 1]
    assert ai.LEVELS["hard"].notice == 0.0, "the CPU never raised its guard"
    assert [(e.move, e.blocked) for e in hits] == [("fireball", True)]


@pytest.mark.parametrize("dist", [2.5, 4.0])
def test_hard_cpu_sidesteps_out_of_a_fireball_path(dist):
    """A fireball thrown from afar: the hard CPU steps out of its path (it flies past, no
    blockstun, no pushback), in most seeds; old code only ever blocked it."""
    dodged = 0
    seeds = range(6)
    for seed in seeds:
        m = _placed(dist, seed)
        cpu = m.fighters[0]
        hits, launched, stunned = [], False, False
        for t in range(100):
            ev = m.step(NEUTRAL, FIREBALL if t == 0 else NEUTRAL)
            launched = launched or any(isinstance(e, ProjectileLaunched) for e in ev)
            hits += [e for e in ev if isinstance(e, Hit) and e.attacker == 1]
            stunned = stunned or cpu.state in ("blockstun", "hitstun")
        assert launched
        dodged += not hits and not stunned
    assert dodged >= 4, f"dodged {dodged} of {len(seeds)}"


def test_hard_cpu_punishes_a_whiffed_roundhouse():
    """P2 whiffs a roundhouse (14 / 3 / 22) just out of reach: the hard CPU hits it in its
    recovery, before it can guard again, in most seeds."""
    punished = 0
    seeds = range(6)
    for seed in seeds:
        m = _placed(1.12, seed)
        op = m.fighters[1]
        landed = False
        for t in range(60):
            ev = m.step(NEUTRAL, FrameInput(hk=True) if t == 0 else NEUTRAL)
            if t < 5:
                assert op.move == "hk" or t == 0
            if any(isinstance(e, Whiff) and e.fighter == 1 for e in ev):
                assert not any(isinstance(e, Hit) for e in ev)
            if any(isinstance(e, Hit) and e.attacker == 0 and not e.blocked for e in ev):
                landed = op.move == "" and op.state == "hitstun"
                break
            if op.move == "" and op.state != "hitstun" and t > 20:
                break           # recovered unpunished
        punished += landed
    assert punished >= 4, f"punished {punished} of {len(seeds)}"


def test_hard_cpu_does_not_throw_highs_over_a_crouching_opponent():
    """Highs (jab, roundhouse) pass over a crouch by geometry: against an opponent who only
    crouches, the hard CPU picks mids and lows (old code: a high in 40 % of its attacks, and
    9 whiffs a match over the crouch)."""
    highs = total = 0
    for seed in (1, 2):
        m = Match.new(seed=seed, p1_cpu="hard")
        while not m.over:
            # an attack thrown at the crouch, not a cancel into a heavy once a hit has it reeling
            crouching = m.fighters[1].state in ("crouch", "block_crouch")
            for e in m.step(NEUTRAL, FrameInput(down=True)):
                if isinstance(e, MoveStarted) and e.fighter == 0 and e.move in ai.move_reach(m.data) and crouching:
                    total += 1
                    highs += m.data.moves[e.move].height == "high"
    assert total >= 10
    assert highs / total < 0.2, f"{highs} highs of {total} attacks"


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


def test_projectile_lanes_match_what_a_sidestep_needs():
    """The CPU's dodge arithmetic (``ai.projectile_lanes``) against the match itself: a fighter
    sidestepping from when it decides the fireball strikes in the frames it needs gets out of
    its path; starting later by several frames, it is struck."""
    m = _placed(3.0, p1_cpu=None)
    ahead, front, clear = ai.projectile_lanes(m.data)
    spec = m.data.moves["fireball"]
    need = int(clear / 0.040) + 1
    flight = int(max(0.0, 3.0 - ahead - front) / spec.projectile.speed)
    arrive = spec.startup + flight                       # frames after the press, as the CPU counts
    for start, struck in ((arrive - need, False), (arrive - need + 4, True)):
        m = _placed(3.0, p1_cpu=None)
        hit = False
        for t in range(90):
            ev = m.step(FrameInput(side_l=True) if t >= start else NEUTRAL, FIREBALL if t == 0 else NEUTRAL)
            hit = hit or any(isinstance(e, Hit) for e in ev)
        assert hit == struck, (start, arrive, need)
    assert 0.0 < front < ahead and 0.0 < clear < 1.0 and math.isfinite(ahead)
