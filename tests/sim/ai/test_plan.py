"""The CPU's plan (game/sim/ai/plan.py): the text the match's state_hash reads of it."""

from __future__ import annotations

from dataclasses import fields

from hypothesis import given
from hypothesis import strategies as st

from game.sim.ai.plan import CpuPlan, hash_text

_INT_FIELDS = [f.name for f in fields(CpuPlan) if f.name != "eyes"]


@st.composite
def plans(draw):
    p = CpuPlan()
    for name in _INT_FIELDS:
        setattr(p, name, draw(st.integers(-2**40, 2**40)))
    p.eyes = tuple(draw(st.lists(st.integers(0, 2**33), max_size=20)))
    return p


@given(st.lists(plans(), max_size=3))
def test_hash_text_is_the_repr_of_the_plans_hash_items(ps):
    assert hash_text(ps) == repr([p.hash_items() for p in ps])


def test_hash_text_is_the_same_whether_remembered_or_not_and_a_numpy_int_reads_as_its_int():
    import numpy as np

    from game.sim.ai import plan

    p = CpuPlan(bits=3, hold=np.int64(4), eyes=(np.int64(5), 6))
    plain = CpuPlan(bits=3, hold=4, eyes=(5, 6))
    plan._TEXTS.clear()
    first = hash_text([p])
    assert first == repr([plain.hash_items()])                  # numpy ints read as the ints they equal
    assert hash_text([plain]) == first and hash_text([p]) == first   # from the memo now
    plan._TEXTS.clear()
    assert hash_text([plain]) == first
    for k in range(plan.MEMO_SIZE + 10):                        # the memo stays bounded
        hash_text([CpuPlan(bits=k)])
    assert len(plan._TEXTS) <= plan.MEMO_SIZE
