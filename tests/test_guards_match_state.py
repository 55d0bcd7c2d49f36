"""Guards for ``Match.snapshot`` / ``restore`` / ``state_hash`` found missing by mutation
testing: every piece of state the snapshot holds, changed on its own, changes the hash (a
hash that skipped one would let a replay or a rollback drift unseen), and ``restore`` puts
each one back.  The pieces are enumerated from the match itself (``Fighter`` ``SCALARS``,
the match's scalars), not from a list kept here."""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest

from game.sim import FrameInput, Match
from game.sim.ai import CpuPlan
from game.sim.fighter import SCALARS
from game.sim.state import MATCH_SCALARS

#: the CPU plan's fields (each hashed and restored)
PLAN_FIELDS = tuple(f.name for f in fields(CpuPlan))


def other(v):
    """A different value of the same kind."""
    if isinstance(v, bool):
        return not v
    if v is None:
        return 1
    if isinstance(v, (int, np.integer)):
        return v + 1
    if isinstance(v, float):
        return v + 0.5
    if isinstance(v, str):
        return v + "_x"
    if isinstance(v, tuple):        # the CPU's looks at its opponent (CpuPlan.eyes)
        return v[:-1] + (other(v[-1]),) if v else (0,)
    raise TypeError(f"no other value for {v!r}")


@pytest.fixture(scope="module")
def mid_fight():
    m = Match.new(seed=4, p1_cpu="hard", p2_cpu="normal")
    for _ in range(420):
        m.step()
    assert m.phase == "fight" and not m.over
    return m


def perturbations(m):
    """(name, function changing one piece of state in place)."""
    out = [(f"match.{n}", (lambda n=n: setattr(m, n, other(getattr(m, n))))) for n in MATCH_SCALARS]
    out.append(("match.round_winner", lambda: setattr(m, "round_winner", other(m.round_winner))))
    for f in m.fighters:
        for n in SCALARS:
            out.append((f"p{f.index + 1}.{n}", (lambda f=f, n=n: setattr(f, n, other(getattr(f, n))))))
        # read-only values: a tool sets them by assignment (Fighter.pose's setter)
        out.append((f"p{f.index + 1}.pose", lambda f=f: setattr(f, "pose", f.pose + np.eye(*f.pose.shape) * 0.01)))
        out.append((f"p{f.index + 1}.pose_from",
                    lambda f=f: setattr(f, "pose_from", f.pose_from + np.eye(*f.pose_from.shape, k=-1) * 0.01)))
    out.append(("rng", lambda: m.rng.random()))
    for i in (0, 1):
        for n in PLAN_FIELDS:
            out.append((f"ai_state[{i}].{n}",
                        lambda i=i, n=n: setattr(m.ai_state[i], n, other(getattr(m.ai_state[i], n)))))
    # the range boxes are read-only values: a tool replaces them
    out.append(("range boxes", lambda: setattr(m.limbs, "boxes", m.limbs.boxes + np.eye(3)[2] * 0.01)))
    out.append(("crate broken", lambda: setattr(m.stage.crates[0], "broken", not m.stage.crates[0].broken)))
    return out


def test_every_piece_of_snapshot_state_changes_the_hash_and_restore_puts_it_back(mid_fight):
    m = mid_fight
    snap = m.snapshot()
    h0 = m.state_hash()
    names = []
    for name, change in perturbations(m):
        change()
        assert m.state_hash() != h0, f"{name} is not covered by state_hash()"
        m.restore(snap)
        assert m.state_hash() == h0, f"restore() does not put {name} back"
        names.append(name)
    assert len(names) == len(MATCH_SCALARS) + 1 + 2 * (len(SCALARS) + 2) + 1 + 2 + 2 * len(PLAN_FIELDS)


def test_restore_puts_back_every_scalar_value_not_only_the_hash(mid_fight):
    m = mid_fight
    snap = m.snapshot()
    before = (tuple(getattr(m, n) for n in MATCH_SCALARS), m.round_winner, [f.scalars() for f in m.fighters],
              [s.copy() for s in m.ai_state], m.rng.bit_generator.state, m.last_inputs)
    for _ in range(30):
        m.step(FrameInput(forward=True), FrameInput(lp=True))
    m.restore(snap)
    after = (tuple(getattr(m, n) for n in MATCH_SCALARS), m.round_winner, [f.scalars() for f in m.fighters],
             [s.copy() for s in m.ai_state], m.rng.bit_generator.state, m.last_inputs)
    assert after == before


def test_restore_brings_back_events_pending_for_the_next_frame():
    """A snapshot taken while the next round's RoundStart waits to be returned: after a
    restore the re-run returns it again, on the same frame."""
    m = Match.new(seed=1)
    while not m.pending:
        m.step(FrameInput(), FrameInput())
        assert m.frame < 20_000
    snap = m.snapshot()
    first = [type(e).__name__ for _ in range(200) for e in m.step()]
    m.restore(snap)
    again = [type(e).__name__ for _ in range(200) for e in m.step()]
    assert "RoundStart" in first and again == first


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
