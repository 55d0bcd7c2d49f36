"""Collision review: fast paths against simple references on edge cases, scene-file fuzzing,
and the fairness of the collision benchmarks' references.

Each test names the requirement it guards (``docs/spec.md``).
"""

from __future__ import annotations

import struct
import sys
import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.collision import SceneFileError
from game.collision.compound import Compound, CompoundGroup
from game.collision.range_box import overlaps
from game.collision.scene_file import scene_from_bytes, scene_to_bytes
from game.reference.compound import reference_strike
from game.reference.scene import brute_nearest
from scenehelp import random_scene, rays, reseal, scenes

# ---------------------------------------------------------------- method B: strike vs reference


def _cells_covered(boxes: np.ndarray, xs: list) -> np.ndarray:
    """(cells,) bool: the centre of each cell of the grid ``xs`` (3 sorted coordinate lists) lies in
    the open interior of some box.  Per-box loop; with every box edge on the grid this compares
    two unions of boxes exactly."""
    cs = [0.5 * (x[1:] + x[:-1]) for x in xs]
    pts = np.stack(np.meshgrid(*cs, indexing="ij"), -1).reshape(-1, 3)
    out = np.zeros(len(pts), dtype=bool)
    for b in boxes:
        out |= ((pts > b[0]) & (pts < b[1])).all(axis=1)
    return out


def _same_union(a: np.ndarray, b: np.ndarray) -> bool:
    xs = [np.unique(np.concatenate((a[:, :, k].ravel(), b[:, :, k].ravel()))) for k in range(3)]
    if any(len(x) < 2 for x in xs):
        return len(a) == len(b) == 0
    return np.array_equal(_cells_covered(a, xs), _cells_covered(b, xs))


@st.composite
def _struck_crates(draw):
    """A crate (thickness down to 2e-6) and strikes whose coordinates are often exactly on the
    crate's faces, its walls' inner planes or its middle: edge, corner, face-covering, touching
    and zero-volume strikers, margins from 0 to 2 cm."""
    ext = [draw(st.sampled_from([0.5, 1.0, 1.2])) for _ in range(3)]
    t = draw(st.sampled_from([2e-6, 1e-5, 0.01, 0.1, 0.2]))
    crate = Compound.from_box([[0.0, 0.0, 0.0], ext], t)
    strikes = []
    for _ in range(draw(st.integers(1, 6))):
        lo, hi = [], []
        for e in ext:
            near = st.sampled_from([0.0, t, e - t, e, e / 2, -0.1, e + 0.1])
            a = draw(st.one_of(near, st.floats(-0.2, e + 0.2)))
            b = draw(st.one_of(near, st.floats(-0.2, e + 0.2)))
            lo.append(min(a, b))
            hi.append(max(a, b))
        strikes.append((np.array([lo, hi]), draw(st.sampled_from([0.0, 1e-6, 5e-6, 0.02]))))
    return crate, strikes


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_struck_crates())
def test_B1_B4_B9_strike_equals_reference_strike_on_edges_corners_whole_faces_and_thin_walls(case):
    """The fast strike (float layer cuts, row merging) against ``reference_strike`` (per-box
    loops, pairwise merging): the same miss / hit verdict, the same union of small boxes
    (compared exactly on the grid of all their edges), the same volume, B9 invariants."""
    crate, strikes = case
    for s, m in strikes:
        ref = reference_strike(crate, s, m)
        before = crate.boxes
        r = crate.strike(s, m)
        assert (ref is None) == (r is None), (s.tolist(), m)
        if r is None:
            assert crate.boxes is before
            continue
        crate.validate()
        assert _same_union(ref[0], crate.boxes), (s.tolist(), m)
        assert np.prod(ref[0][:, 1] - ref[0][:, 0], axis=1).sum() == pytest.approx(crate.volume(), abs=1e-12)


# ---------------------------------------------------------------- method A on compounds: group fast path


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


# ---------------------------------------------------------------- method C: casts vs brute force


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_C6_C7_C8_C9_single_casts_with_unbounded_or_zero_max_distance_match_brute_force(data):
    """The scalar walker with ``max_distance`` inf, 1e300 and 0 (the existing single-ray test
    stops at 50), rays through vertices, along edges and axis-parallel, with levels."""
    scene = data.draw(scenes())
    o, d = data.draw(rays(scene))
    md = data.draw(st.sampled_from([float("inf"), 1e300, 0.0]))
    level = data.draw(st.sampled_from([None, 0, 1, 2]))
    ref_d, ref_m, ref_t = brute_nearest(scene.models, o, d, md, level)
    for k in range(len(o)):
        h = scene.cast_nearest(o[k], d[k], md, level)
        assert scene.cast_any(o[k], d[k], md, level) == bool(np.isfinite(ref_d[k]))
        if np.isinf(ref_d[k]):
            assert h is None
        else:
            assert (h.model, h.triangle) == (ref_m[k], ref_t[k])
            assert h.distance == pytest.approx(ref_d[k], rel=1e-9, abs=0)


# ---------------------------------------------------------------- C3/C4 files: truncation and flips


def _only_scene_file_error(mb: bytes, qb: bytes) -> str | None:
    """Load; the SceneFileError's message, or None if the pair loads.  Any other exception or a
    numpy warning fails the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            scene_from_bytes(mb, qb, models_name="M.bin", quadtree_name="Q.bin")
        except SceneFileError as exc:
            return str(exc)
    return None


def _fix_size(data: bytes, at: int) -> bytes:
    """``data`` with its header's u64 file_size (at byte ``at``) set to its real length."""
    data = bytearray(data)
    if len(data) >= at + 8:
        struct.pack_into("<Q", data, at, len(data))
    return bytes(data)


_SMALL_PAIR = scene_to_bytes(random_scene(seed=5, n=4))
_SIZE_AT = (20, 28)                                     # file_size in the models / quadtree header


@pytest.mark.parametrize("which", [0, 1], ids=["models", "quadtree"])
def test_C3_C4_C5_truncation_at_every_offset_names_the_file_and_field(which):
    """Every prefix of either file, as is and with its size and checksums made consistent again
    (so the structural decoder, not only the size check, meets the cut): a SceneFileError whose
    message starts with that file's name and a field, never struct.error/IndexError/ValueError."""
    name = ("M.bin", "Q.bin")[which]
    orig = _SMALL_PAIR[which]
    for cut in range(len(orig)):
        part = orig[:cut]
        pair = [*_SMALL_PAIR]
        pair[which] = part
        msg = _only_scene_file_error(*pair)
        assert msg is not None and msg.startswith(f"{name}: field "), (cut, msg)
        if cut < 32:                                    # too short to hold a checksum to reseal
            continue
        pair[which] = _fix_size(part, _SIZE_AT[which])
        msg = _only_scene_file_error(*reseal(*pair))
        assert msg is not None and msg.startswith(f"{name}: field "), (cut, msg)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 1), st.data())
def test_C3_C4_C5_resealed_byte_flips_raise_only_scene_file_error(which, data):
    """Random byte flips (1-3 bytes, any mask) with the checksums and pairing recomputed, so that
    every field's own check is reached: either the pair loads or a SceneFileError names the file."""
    orig = bytearray(_SMALL_PAIR[which])
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(orig) - 1))
        orig[i] ^= data.draw(st.integers(1, 255))
    pair = [*_SMALL_PAIR]
    pair[which] = bytes(orig)
    msg = _only_scene_file_error(*reseal(*pair))
    assert msg is None or msg.startswith(("M.bin: field ", "Q.bin: field ")), msg


# ---------------------------------------------------------------- benchmarks: references measured fairly


def _callee_names(fn) -> set:
    """The global names a timed callable (or the function it wraps in a lambda) refers to."""
    code = fn.__code__
    names = set(code.co_names) | {code.co_name}
    return names


def test_bench_compound_references_are_timed_round_robin_with_their_fast_paths(monkeypatch, capsys):
    """DEVELOPERS.md: each figure's reference is measured round-robin with the fast path
    (``interleaved_medians``), in the same rounds: the per-box loop with ``touching`` and
    ``reference_faces`` with ``compound.faces``."""
    import game.bench.compound as bench

    calls = []

    def interleaved(fns, *, numbers, repeat=9):
        calls.append(("interleaved", [_callee_names(f) for f in fns]))
        for f in fns:
            f()
        return [1e-6] * len(fns)

    def median(fn, *, number, repeat=7):
        calls.append(("median", [_callee_names(fn)]))
        fn()
        return 1e-6

    monkeypatch.setattr(bench, "interleaved_medians", interleaved)
    monkeypatch.setattr(bench, "median_seconds", median)
    bench.run(SimpleNamespace(quick=True))
    out = capsys.readouterr().out
    assert "CompoundGroup.touching" in out and "faces of a struck crate" in out

    def rounds_of(name):
        return [(kind, group) for kind, group in calls if any(name in names for names in group)]

    for ref, fast in (("per_box_loop", "grouped"), ("reference_faces", "faces")):
        where = rounds_of(ref)
        assert where, f"{ref} is not timed"
        for kind, group in where:
            assert kind == "interleaved" and any(fast in names for names in group), \
                f"{ref} is timed apart from {fast}: {kind}"


def test_bench_scene_reference_rate_is_a_median_of_several_runs(monkeypatch, capsys):
    """The scene section's brute-force reference (every ray against every triangle) is timed as
    a median of several runs, like the figures it is compared with, not once."""
    import game.bench.scene as bench

    models = bench.make_bench_models()[::20]               # a small scene: the test times nothing
    monkeypatch.setattr(bench, "make_bench_models", lambda seed=2026: models)
    monkeypatch.setattr(bench, "N_RAYS", 300)
    state = {"inside": 0, "ref_calls": 0}
    real_ref = bench.brute_nearest

    def counted_ref(*args, **kw):
        state["ref_calls"] += 1
        return real_ref(*args, **kw)

    monkeypatch.setattr(bench, "brute_nearest", counted_ref)
    timed_repeats = []
    real_median = bench.median_seconds

    def median(fn, *, number, repeat=7):
        before = state["ref_calls"]
        value = real_median(fn, number=1, repeat=1)
        if state["ref_calls"] > before:
            timed_repeats.append(repeat)
        return value

    monkeypatch.setattr(bench, "median_seconds", median)
    if hasattr(bench, "interleaved_medians"):
        real_inter = bench.interleaved_medians

        def inter(fns, *, numbers, repeat=9):
            before = state["ref_calls"]
            value = real_inter(fns, numbers=[1] * len(fns), repeat=1)
            if state["ref_calls"] > before:
                timed_repeats.append(repeat)
            return value

        monkeypatch.setattr(bench, "interleaved_medians", inter)
    bench.run(SimpleNamespace(quick=True))
    assert "rays/s" in capsys.readouterr().out
    assert timed_repeats and min(timed_repeats) >= 3, \
        f"brute-force reference timed {'once' if not timed_repeats else timed_repeats}"


if __name__ == "__main__":                               # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
