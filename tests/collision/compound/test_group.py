"""Method B with method A: a ``CompoundGroup`` (every crate's small boxes as one array) judges
limbs against the compounds as one brute-force A2-A4 matrix would (B7), after every strike,
pair for pair and in order; non-finite limbs are refused as method A refuses them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compoundhelp import (
    CRATE,
    T,
    fresh,
    front_punch,
)
from game.collision.compound import (
    Compound,
    CompoundError,
    CompoundGroup,
)
from game.collision.range_box import overlaps


def test_B7_group_of_non_compounds_names_the_entry():
    with pytest.raises(CompoundError, match=r"compounds\[1\]: expected a Compound, got int"):
        CompoundGroup([fresh(), 1])


def test_B7_group_concatenates_and_caches_until_a_strike():
    crates = [Compound.from_box(CRATE + [i * 2.0, 0, 0], T) for i in range(3)]
    g = CompoundGroup(crates)
    first = g.boxes
    assert np.array_equal(first, np.concatenate([c.boxes for c in crates]))
    assert g.boxes is first  # cached
    assert g.owner.tolist() == [0] * 6 + [1] * 6 + [2] * 6
    crates[1].strike(front_punch() + [2.0, 0, 0], margin=0.02)
    assert g.boxes is not first
    assert np.array_equal(g.boxes, np.concatenate([c.boxes for c in crates]))
    assert g.offsets.tolist() == [0, 6, 6 + len(crates[1]), 12 + len(crates[1])]
    # one method A call finds the same pairs as a per-compound loop
    limbs = np.array([[[2.3, 0.2, -0.1], [2.6, 0.5, 0.02]], [[9, 9, 9], [10, 10, 10]]])
    hits = overlaps(limbs[:, None], g.boxes[None])
    ref = np.zeros_like(hits)
    for li, limb in enumerate(limbs):
        for bi, box in enumerate(g.boxes):
            ref[li, bi] = bool(overlaps(limb, box))
    assert np.array_equal(hits, ref)


def test_B7_group_touching_and_overlaps_follow_strikes_without_the_concatenated_arrays():
    """After every strike, ``touching`` names each touched compound's own box rows (the
    struck compound's new boxes), and ``overlaps`` equals one method-A call on the
    concatenated arrays."""
    rng = np.random.default_rng(11)
    contacts = 0
    crates = [Compound.from_box(CRATE + [i * 2.0, 0, 0], T) for i in range(4)]
    g = CompoundGroup(crates)
    for _ in range(40):
        i = int(rng.integers(0, 4))
        c = rng.uniform(CRATE[0], CRATE[1]) + [i * 2.0, 0, 0]
        crates[i].strike(np.stack((c - 0.08, c + 0.08)), margin=0.01)
        limbs = rng.uniform(-0.2, 7.2, (5, 2, 3)) * [1, 0.15, 0.2]
        limbs = np.stack((limbs.min(axis=1), limbs.min(axis=1) + rng.uniform(0.05, 0.6, (5, 3))), axis=1)
        ok = g.overlaps(limbs)
        cat = np.concatenate([x.boxes for x in crates])
        assert np.array_equal(ok, overlaps(limbs[:, None], cat[None]))
        contacts += int(ok.sum())
        seen = set()
        for t in g.touching(limbs):
            ref = overlaps(limbs[:, None], crates[t.compound].boxes[None])
            assert list(zip(t.limbs.tolist(), t.rows.tolist())) == list(zip(*(x.tolist() for x in np.nonzero(ref))))
            seen.add(t.compound)
        assert seen == {j for j in range(4) if overlaps(limbs[:, None], crates[j].boxes[None]).any()}
    assert contacts > 20


def _struck_arena(seed: int) -> CompoundGroup:
    """4 crates and a barrel, 20 random strikes each (hits and misses), as one group."""
    rng = np.random.default_rng(seed)
    crates = [Compound.from_box(CRATE + [i * 1.5, 0, 0], T) for i in range(4)]
    crates.append(Compound.from_sphere([0.5, 0.4, 3.0], 0.5, 0.06))
    for c in crates:
        for _ in range(20):
            p = rng.uniform(c.bounds[0] - 0.1, c.bounds[1] + 0.1)
            h = rng.uniform(0.01, 0.15, 3)
            c.strike([p - h, p + h], margin=0.02)
    return CompoundGroup(crates)


_PAIRS_ARENA = _struck_arena(12)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(0, 24), st.floats(0.0, 1.0), st.booleans())
def test_B7_group_pairs_equal_nonzero_of_method_A(seed, n_limbs, spread, snap):
    """``pairs`` lists exactly the (limb, row) pairs of the brute-force A2-A4 matrix, in
    ``np.nonzero`` order, whether the limbs are at no crate, at one, or spread over
    several (``spread`` from a fist's reach to the whole arena); touching counts."""
    g = _PAIRS_ARENA
    rng = np.random.default_rng(seed)
    lo_c, hi_c = np.array([-0.5, -0.2, -0.5]), np.array([6.5, 1.0, 3.6])
    centre = rng.uniform(lo_c, hi_c)
    centres = centre + (rng.uniform(lo_c, hi_c, (n_limbs, 3)) - centre) * spread
    half = rng.uniform(0.0, 0.3, (n_limbs, 3))
    limbs = np.stack((centres - half, centres + half), axis=1)
    if snap and n_limbs:                      # a limb face exactly on a small box's face
        k = int(rng.integers(len(g.boxes)))
        limbs[0, 0, 0] = g.boxes[k, 1, 0]
        limbs[0, 1, 0] = g.boxes[k, 1, 0] + 0.1
        limbs[0, :, 1:] = g.boxes[k, :, 1:]
    ref = overlaps(limbs[:, None], g.boxes[None]).reshape(n_limbs, len(g.boxes))
    k, n = g.pairs(limbs)
    rk, rn = np.nonzero(ref)
    assert k.tolist() == rk.tolist() and n.tolist() == rn.tolist()
    assert np.array_equal(g.overlaps(limbs), ref)
    touch = g.touching(limbs)                 # the same pairs, compound by compound, own rows
    assert [t.compound for t in touch] == sorted(set(g.owner[rn].tolist()))
    for t in touch:
        mine = g.owner[rn] == t.compound
        assert t.limbs.tolist() == rk[mine].tolist()
        assert t.rows.tolist() == (rn[mine] - g.offsets[t.compound]).tolist()


def test_B7_group_pairs_spanning_two_crates_keep_limb_then_row_order():
    """Limbs at two crates at once: the pairs of both, merged in limb-then-row order."""
    g = _PAIRS_ARENA
    b0 = g.compounds[0].bounds
    b1 = g.compounds[1].bounds
    # limb 0 and 2 in crate 1's -x wall, limb 1 in crate 0's +x wall
    # (each across a whole wall, so that the arena's holes cannot leave it untouched)
    limbs = np.array([[[b1[0, 0] - 0.05, 0.0, 0.0], [b1[0, 0] + 0.05, 0.8, 0.6]],
                      [[b0[1, 0] - 0.05, 0.0, 0.0], [b0[1, 0] + 0.05, 0.8, 1.2]],
                      [[b1[0, 0] - 0.05, 0.0, 0.6], [b1[0, 0] + 0.05, 0.8, 1.2]]])
    k, n = g.pairs(limbs)
    owner = g.owner[n]
    assert set(owner.tolist()) == {0, 1}
    assert set(k[owner == 0].tolist()) == {1} and set(k[owner == 1].tolist()) == {0, 2}
    rk, rn = np.nonzero(overlaps(limbs[:, None], g.boxes[None]))
    assert k.tolist() == rk.tolist() and n.tolist() == rn.tolist()
    k, n = g.pairs(np.zeros((0, 2, 3)))
    assert k.shape == n.shape == (0,)
    with pytest.raises(CompoundError, match="limbs"):
        g.pairs(np.zeros((2, 3)))
    with pytest.raises(CompoundError, match="limbs"):
        g.overlaps(np.zeros((3, 3)))


def _group() -> CompoundGroup:
    rng = np.random.default_rng(5)
    crates = [Compound.from_box([[2.0 * i, 0.0, 0.0], [2.0 * i + 1.0, 1.0, 1.0]], 0.1) for i in range(3)]
    for c in crates:
        for _ in range(8):
            p = rng.uniform(c.bounds[0] - 0.1, c.bounds[1] + 0.1)
            h = rng.uniform(0.02, 0.15, 3)
            c.strike([p - h, p + h], 0.02)
    return CompoundGroup(crates)


_GROUP = _group()


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 24), st.integers(0, 3))
def test_A4_B7_group_touching_refuses_non_finite_limbs_as_method_A_does(seed, n_limbs, n_bad):
    """``CompoundGroup.touching`` / ``pairs`` / ``overlaps`` against the brute-force A2-A4 matrix:
    the same pairs for finite limb boxes; a limb box with a NaN coordinate (a limb whose pose
    went bad) is refused by both, with a ValueError naming the argument, instead of touching
    nothing on one path and hiding nothing on the other."""
    g = _GROUP
    rng = np.random.default_rng(seed)
    centres = rng.uniform([-0.3, -0.2, -0.3], [5.3, 1.2, 1.3], (n_limbs, 3))
    half = rng.uniform(0.01, 0.4, (n_limbs, 3))
    limbs = np.stack((centres - half, centres + half), axis=1)
    bad = rng.choice(n_limbs, min(n_bad, n_limbs), replace=False)
    limbs[bad, rng.integers(2, size=bad.size), rng.integers(3, size=bad.size)] = np.nan
    if bad.size:
        with pytest.raises(ValueError, match="^a: .*finite"):
            overlaps(limbs[:, None], g.boxes[None])
        for call in (g.touching, g.pairs, g.overlaps):
            with pytest.raises(ValueError, match="^limbs: .*finite"):
                call(limbs)
        return
    ref = overlaps(limbs[:, None], g.boxes[None])
    k, n = g.pairs(limbs)
    rk, rn = np.nonzero(ref)
    assert k.tolist() == rk.tolist() and n.tolist() == rn.tolist()
    assert np.array_equal(g.overlaps(limbs), ref)
