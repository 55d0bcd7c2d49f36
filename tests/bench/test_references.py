"""The benchmarks measure their references fairly: the collision sections time each reference
round-robin with its fast path, and the scene section's brute force as a median of several runs
(DEVELOPERS.md)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

#: every test here runs for more than about half a second
pytestmark = pytest.mark.slow


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
