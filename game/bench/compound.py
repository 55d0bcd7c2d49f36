"""Method B benchmark: ``python3 -m game.bench compound [--quick]``.

Figures (median of several runs, each with its reference measured round-robin in the same rounds):

* one strike on a crate (B1-B9), vs :func:`reference_strike` (per-box Python
  loops, pairwise merging);
* the per-frame method-A test of the 22 limb boxes (two fighters, one of them
  punching crate 0) against every small box of 4 crates + 1 barrel after 50
  strikes each: :meth:`CompoundGroup.touching`, the test ``Stage.touch`` makes
  every active frame (the limbs' union box, then each limb, against the
  compounds' bounds; then the near limbs against the small boxes), vs a per-box
  Python loop, and for scale the same as group-wide pairs, as a matrix, one
  ``range_box.overlaps`` call on the concatenated boxes and one per compound;
  and the match's own case, a punch's hitting limbs;
* the face set of a struck crate (``compound.faces``, re-read by the renderer
  and the scene model after a strike), vs :func:`reference_faces`.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from game.collision.compound import Compound, CompoundGroup
from game.collision.compound.boundary import compound_faces
from game.collision.range_box import overlaps
from game.reference.compound import reference_faces, reference_strike

from .common import gauge_workload, interleaved_medians, median_seconds, report

CRATE_SIZE = 1.0
THICKNESS = 0.08
MARGIN = 0.03
LIMBS = 22


def _arena() -> list[Compound]:
    crates = [Compound.from_box([[x, 0.0, z], [x + CRATE_SIZE, CRATE_SIZE, z + CRATE_SIZE]], THICKNESS)
              for x, z in ((-4.0, -3.0), (3.0, -3.0), (-4.0, 2.0), (3.0, 2.0))]
    crates.append(Compound.from_sphere([0.0, 0.5, 4.0], 0.5, 0.06))
    return crates


def _strikers(c: Compound, n: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Limb-sized boxes (5-25 cm) driven into a random face of ``c`` by 2-15 cm."""
    lo, hi = c.bounds
    out = []
    for _ in range(n):
        axis = int(rng.integers(3))
        side = int(rng.integers(2))
        centre = rng.uniform(lo, hi)
        half = rng.uniform(0.025, 0.125, 3)
        depth = rng.uniform(0.02, 0.15)
        centre[axis] = (hi[axis] - depth + half[axis]) if side else (lo[axis] + depth - half[axis])
        out.append(np.array([centre - half, centre + half]))
    return out


def _strike_times(strikers, repeat: int, skip: int = 0, gap: float = 0.0) -> tuple[float, float]:
    """Median seconds per effective strike, fast path and reference, on the same states.

    Each run starts from a fresh crate and applies ``strikers``; the first
    ``skip`` strikes are not timed.  Before every timed fast strike the
    reference strikes the same state (its result is discarded).  ``gap`` > 0: a sleep
    of that many seconds before each timed call, as in a game frame (see
    :func:`~game.bench.common.cold_medians`).
    """
    fast, ref = [], []
    for _ in range(repeat):
        c = _arena()[0]
        for s in strikers[:skip]:
            c.strike(s, MARGIN)
        for s in strikers[skip:]:
            if gap:
                time.sleep(gap)
            t0 = time.perf_counter()
            r_ref = reference_strike(c, s, MARGIN)
            t_ref = time.perf_counter() - t0
            if gap:
                time.sleep(gap)
            t1 = time.perf_counter()
            r = c.strike(s, MARGIN)
            t2 = time.perf_counter()
            assert (r is None) == (r_ref is None)
            if r is not None:
                ref.append(t_ref)
                fast.append(t2 - t1)
    return statistics.median(fast), statistics.median(ref)


def _one_strike_figures(quick: bool, n_strikes: int) -> None:
    """One strike against :func:`reference_strike`: strikes 1 to ``n_strikes`` on a fresh
    crate, the same after a frame's wait each, and ``4 n + 1`` to ``5 n`` on a crate struck
    ``4 n`` times already."""
    rng = np.random.default_rng(1)
    strikers = _strikers(_arena()[0], n_strikes, rng)
    fast, ref = _strike_times(strikers, 3 if quick else 11)
    report(f"strike, strikes 1-{n_strikes} on a fresh crate", fast * 1e3, "ms", target="<= 1 ms", ref=ref * 1e3)
    fast, ref = _strike_times(strikers, 1 if quick else 3, gap=0.008)
    report("  the same, each strike after a frame's wait (caches cold)", fast * 1e3, "ms",
           target="<= 1 ms", ref=ref * 1e3)
    many = strikers + _strikers(_arena()[0], 4 * n_strikes, rng)
    c = _arena()[0]
    for st in many[: 4 * n_strikes]:
        c.strike(st, MARGIN)
    fast, ref = _strike_times(many, 1 if quick else 3, skip=4 * n_strikes)
    report(f"strike, strikes {4 * n_strikes + 1}-{5 * n_strikes} ({len(c)} boxes before)", fast * 1e3, "ms",
           target="<= 1 ms", ref=ref * 1e3)


def _struck_arena(n_strikes: int) -> tuple[list[Compound], CompoundGroup, np.ndarray]:
    """The arena after ``n_strikes`` random strikes per compound (printed), its group, and
    the ``(LIMBS, 2, 3)`` limb boxes of two fighters, fighter 1 standing at crate 0 and
    punching it."""
    rng = np.random.default_rng(2)
    arena = _arena()
    hits = 0
    for c in arena:
        for s in _strikers(c, n_strikes, rng):
            hits += c.strike(s, MARGIN) is not None
    group = CompoundGroup(arena)
    print(f"  arena: {len(arena)} compounds, {hits} effective strikes, {group.boxes.shape[0]} small boxes "
          f"({', '.join(str(len(c)) for c in arena)})")
    # two fighters of 11 limb boxes each; fighter 1 stands at crate 0 and punches it
    target = arena[0].bounds
    f1 = np.array([target[1, 0] + 0.35, 0.9, 0.5 * (target[0, 2] + target[1, 2])])
    f2 = f1 + [1.2, 0.0, 0.3]
    centres = np.concatenate((f1 + rng.uniform(-0.4, 0.4, (11, 3)) * [1, 2, 1],
                              f2 + rng.uniform(-0.4, 0.4, (11, 3)) * [1, 2, 1]))
    centres[0] = [target[1, 0] - 0.05, 0.6, f1[2]]  # the fist, in the crate's +x wall
    half = rng.uniform(0.03, 0.12, (LIMBS, 3))
    return arena, group, np.ascontiguousarray(np.stack((centres - half, centres + half), axis=1))


def _per_box_loop(limb_list: list, box_list: list) -> list[bool]:
    """The reference: every limb box against every small box, per axis, in plain Python."""
    out = []
    for lo, hi in limb_list:
        for blo, bhi in box_list:
            out.append(all(max(lo[a], blo[a]) <= min(hi[a], bhi[a]) for a in range(3)))
    return out


def _check_group(group: CompoundGroup, limbs: np.ndarray, ref_pairs: np.ndarray) -> None:
    """One ``overlaps`` call and the group's three answers (matrix, pairs, per-compound
    touches) agree with the per-box loop's ``ref_pairs`` ``(LIMBS, N)``."""
    assert np.array_equal(overlaps(limbs[:, None], group.boxes[None]), ref_pairs)
    assert np.array_equal(group.overlaps(limbs), ref_pairs)
    assert all(np.array_equal(x, y) for x, y in zip(group.pairs(limbs), np.nonzero(ref_pairs)))
    rk, rn = np.nonzero(ref_pairs)
    assert [(t.compound, t.limbs.tolist(), t.rows.tolist()) for t in group.touching(limbs)] == [
        (c, rk[group.owner[rn] == c].tolist(), (rn[group.owner[rn] == c] - group.offsets[c]).tolist())
        for c in sorted(set(group.owner[rn].tolist()))]


def run(args) -> None:
    quick = bool(getattr(args, "quick", False))
    n_strikes = 50
    _one_strike_figures(quick, n_strikes)
    arena, group, limbs = _struck_arena(n_strikes)
    n_boxes = group.boxes.shape[0]

    def one_call():
        return overlaps(limbs[:, None], group.boxes[None])

    def per_compound():
        return [overlaps(limbs[:, None], c.boxes[None]) for c in arena]

    box_list = group.boxes.tolist()
    limb_list = limbs.tolist()

    def per_box_loop():
        return _per_box_loop(limb_list, box_list)

    def grouped():
        return group.touching(limbs)

    ref_pairs = np.array(per_box_loop()).reshape(LIMBS, n_boxes)
    _check_group(group, limbs, ref_pairs)
    print(f"  {int(ref_pairs.sum())} limb-box contacts, {int(ref_pairs.any(axis=1).sum())} limbs touching")
    number = 200 if quick else 2000
    rep = 5 if quick else 9
    # the match's own case: Stage.touch with the two hitting limbs of a punch at the crate
    fists = np.ascontiguousarray(limbs[:2])
    apart = np.ascontiguousarray(limbs + [0.0, 0.0, 10.0])  # fighters away from every crate
    assert not group.touching(apart)
    # the gauge's workload in the same rounds: this VM's speed drifts within a run, so
    # the header's gauge (taken before) can belong to another spell than these figures
    # the per-box loop (the reference) and the plain overlaps() calls run in the same rounds
    t_group, t_pairs, t_dense, t_fists, t_apart, t_gauge, t_one, t_per, t_loop = interleaved_medians(
        [grouped, lambda: group.pairs(limbs), lambda: group.overlaps(limbs), lambda: group.touching(fists),
         lambda: group.touching(apart), gauge_workload, one_call, per_compound, per_box_loop],
        numbers=[number] * 6 + [number // 10] * 2 + [3 if quick else 10], repeat=rep)
    report(f"{LIMBS} limbs x {n_boxes} boxes, CompoundGroup.touching", t_group * 1e6, "us", target="<= 20 us",
           ref=t_loop * 1e6)
    report("  same, as group-wide (limb, row) pairs: CompoundGroup.pairs", t_pairs * 1e6, "us", ref=t_loop * 1e6)
    report("  same, as the (L, N) matrix: CompoundGroup.overlaps", t_dense * 1e6, "us", ref=t_loop * 1e6)
    report("  same, one range_box.overlaps() call", t_one * 1e6, "us", ref=t_loop * 1e6)
    report("  same, fighters away from the crates", t_apart * 1e6, "us", target="<= 20 us", ref=t_loop * 1e6)
    report("  same, one range_box.overlaps() per compound", t_per * 1e6, "us", ref=t_loop * 1e6)
    report("  the match's case: a punch's 2 hitting limbs at the crate", t_fists * 1e6, "us")
    report("  machine gauge, sum(range(1000)), in the same rounds", t_gauge * 1e6, "us")

    # the renderer and the scene model re-read the faces after every strike
    big = max(arena, key=len)

    def faces():
        return compound_faces(big.boxes, big.layers, big.bounds, big.core)  # what big.faces caches per version

    t_faces, t_faces_ref = interleaved_medians([faces, lambda: reference_faces(big)],
                                               numbers=[20 if quick else 100, 3 if quick else 10], repeat=rep)
    report(f"faces of a struck crate ({len(big)} boxes, {big.faces.count} quads)", t_faces * 1e3, "ms",
           ref=t_faces_ref * 1e3)

    # the first overlap test after a strike: the struck crate's boxes repacked (a strike
    # installs a new boxes array; two twins of crate 0, each with its own array, take turns)
    # (the group's concatenated arrays and row offsets are not built on that path)
    c0 = arena[0]
    twins = [c0, Compound(c0.bounds, c0.thickness, c0.boxes.copy(), c0.layers, c0.volume0)]
    turn = [0]

    def after_strike():
        turn[0] ^= 1
        group.compounds[0] = twins[turn[0]]
        return group.touching(limbs)

    t_after = median_seconds(after_strike, number=number, repeat=rep)
    report("CompoundGroup.touching, the first test after a strike on crate 0", t_after * 1e6, "us")
