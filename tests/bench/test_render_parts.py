"""Pieces of ``python3 -m game.bench render`` that run without GL: the part timers, the cold
medians and the count of frames over budget."""

from __future__ import annotations

import time

import pytest

from game.bench.render import _over_budget, _PartTimers


class _Work:
    def outer(self, n):
        time.sleep(0.002)
        return self.inner(n) + 1

    def inner(self, n):
        time.sleep(0.001)
        return n * 2


def test_part_timers_time_nested_methods_per_take_and_restore_them():
    outer, inner = _Work.__dict__["outer"], _Work.__dict__["inner"]
    w = _Work()
    with _PartTimers([("outer", _Work, "outer"), ("inner", _Work, "inner")]) as timers:
        assert w.outer(3) == 7                      # results pass through
        first = timers.take()
        second = timers.take()                      # take() starts the next frame at zero
        w.inner(1)
        third = timers.take()
    assert first["outer"] >= 0.003 and 0.001 <= first["inner"] < first["outer"]   # nested: outer holds inner
    assert second == {"outer": 0.0, "inner": 0.0}
    assert third["outer"] == 0.0 and third["inner"] >= 0.001
    assert _Work.__dict__["outer"] is outer and _Work.__dict__["inner"] is inner  # restored
    assert w.outer(1) == 3


def test_part_timers_restore_the_methods_when_the_block_raises():
    outer = _Work.__dict__["outer"]
    try:
        with _PartTimers([("outer", _Work, "outer")]):
            raise RuntimeError("stop")
    except RuntimeError:
        pass
    assert _Work.__dict__["outer"] is outer


@pytest.mark.slow
def test_cold_medians_time_one_call_after_each_wait_round_robin():
    """``cold_medians``: every call follows a sleep of at least ``gap`` (the wait is not timed),
    the functions take turns, and each gets the median of its own single calls."""
    from game.bench.common import cold_medians

    calls, last = [], [time.perf_counter()]

    def make(name, work):
        def fn():
            now = time.perf_counter()
            calls.append((name, now - last[0]))
            time.sleep(work)
            last[0] = time.perf_counter()
        return fn

    fast, slow = cold_medians([make("a", 0.0), make("b", 0.004)], gap=0.03, repeat=5)
    assert [n for n, _ in calls] == ["a", "b"] * 5
    assert min(waited for _, waited in calls) >= 0.03
    assert fast < 0.02 and 0.004 <= slow < 0.02     # the 30 ms sleep before a call is not counted


def test_over_budget_counts_frames_over_and_those_in_a_rasteriser_spell():
    """A frame is over when its three parts sum past the budget; it counts as a rasteriser
    spell when its glFinish alone is >= 1.6x the ordinary frames' median glFinish."""
    def frame(step, draw, finish):
        return {"game.step": step / 1e3, "game.draw": draw / 1e3, "glFinish": finish / 1e3}

    parts = {"other": [frame(1, 2, 5)] * 9 + [frame(1, 2, 14)],          # one ordinary frame in a spell
             "strike": [frame(2, 3, 5), frame(9, 3, 5), frame(2, 3, 12)],  # its own work vs a spell
             "after": [frame(1, 3, 6)]}
    got = _over_budget(parts)
    assert got == {"other": (10, 1, 1), "strike": (3, 2, 1), "after": (1, 0, 0)}
    assert _over_budget(parts, budget=0.0095)["strike"] == (3, 3, 1)
