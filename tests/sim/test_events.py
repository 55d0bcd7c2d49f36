"""The match's events: each carries the frame of the step that returned it, events of a rerun
compare equal and hash, and a projectile's Hit names the projectile as its attacking limb."""

from __future__ import annotations

import dataclasses

import pytest

from game.sim import FrameInput, Hit, Match
from simhelp import FIREBALL, placed

#: every test here runs for more than about half a second
pytestmark = pytest.mark.slow


def test_every_event_carries_the_frame_of_the_step_that_returned_it():
    """docs/replay-format.md: frame i is the i-th step (0-based).  A whole CPU match (round
    starts, hits, KOs or time-overs, the match's end): every event of step i says frame i."""
    m = Match.new(seed=2, p1_cpu="hard", p2_cpu="hard")
    kinds, i = set(), 0
    while not m.over:
        for e in m.step():
            assert e.frame == i, (type(e).__name__, e.frame, i)
            kinds.add(type(e).__name__)
        i += 1
        assert i < 20_000
    assert {"RoundStart", "Fight", "Hit", "RoundEnd", "MatchOver"} <= kinds, kinds


def test_projectile_hit_names_the_projectile_as_its_attacking_limb():
    """As Hit's docstring says: limb names, except a projectile's attack_limb (its name)."""
    m = placed(3.0)                          # P2 stands still: a fireball, then jabs walking in
    names = m.fighters[0].limb_names
    seen = set()
    for t in range(300):
        press = FIREBALL if t == 0 else FrameInput(forward=t > 60, lp=t > 60 and t % 20 == 0)
        for e in m.step(press, FrameInput()):
            if isinstance(e, Hit):
                assert e.struck_limb in names
                projectile = m.data.moves.get(e.move) is None or m.data.moves[e.move].projectile is not None
                assert e.attack_limb == (e.move if projectile else e.attack_limb)
                assert projectile or e.attack_limb in names
                seen.add(projectile)
    assert seen == {True, False}
    assert "projectile" in Hit.__doc__ and "limb_names" in Hit.__doc__


# ================================================================ 3. what a tool writer meets next
def test_events_of_a_rerun_compare_equal_and_hash():
    """Hit and the other events holding arrays compare with == and hash (not ValueError on ==
    for an array's truth value, nor TypeError on hash()), so a rollback check can compare runs."""
    m = Match.new(seed=0, p1_cpu="hard", p2_cpu="hard")
    snap = m.snapshot()
    first = [e for _ in range(1200) for e in m.step()]
    m.restore(snap)
    again = [e for _ in range(1200) for e in m.step()]
    hits = [e for e in first if isinstance(e, Hit)]
    assert hits and first == again and len(set(first)) == len(first)
    h = hits[0]
    moved = dataclasses.replace(h, point=h.point + 1e-9)
    assert moved != h and dataclasses.replace(h, point=h.point.copy()) == h
    assert dataclasses.replace(h, damage=h.damage + 1) != h
