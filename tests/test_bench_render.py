"""Pieces of ``python -m game.bench render`` that run without GL."""

import time

from game.bench.render import _PartTimers


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
