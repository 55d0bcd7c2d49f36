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
