"""Rollback benchmark: ``python3 -m game.bench rollback [--quick]``.

Figures (median of several runs; the reference is measured in the same run):

* ``Match.snapshot()`` vs ``copy.deepcopy`` of the match (static game data shared);
* ``Match.restore(snap)`` vs taking a fresh deep copy of a saved match;
* a rollback of 8 frames: restore + 8 ``step`` calls with held inputs, vs
  deep-copy restore + the same 8 steps;
* ``state_hash()`` (a rollback checks it once per re-simulated frame in tests).

Targets: snapshot and restore <= 50 us each, restore + 8 frames <= 2 ms.
"""

from __future__ import annotations

import copy

import numpy as np

from game.sim import FrameInput, Match

from .common import median_seconds, report


def _mid_fight_match() -> tuple[Match, list]:
    """A match 400 frames into a CPU-vs-player fight, and 8 frames of held inputs."""
    m = Match.new(seed=5, p2_cpu="hard")
    rng = np.random.default_rng(5)
    held = FrameInput.from_bits(int(rng.integers(0, 1 << FrameInput.BITS)))
    for i in range(400):
        if i % 7 == 0:
            held = FrameInput.from_bits(int(rng.integers(0, 1 << FrameInput.BITS)) & 0b111_1100_1111)
        m.step(held, FrameInput())
    inputs = [(FrameInput(forward=True), FrameInput())] * 4 + [(FrameInput(hp=True), FrameInput())] * 4
    return m, inputs


def run(args) -> None:
    number = 200 if args.quick else 2000
    repeat = 3 if args.quick else 7
    m, inputs = _mid_fight_match()
    memo_base = {id(m.data): m.data}

    def deep():
        return copy.deepcopy(m, dict(memo_base))

    snap = m.snapshot()
    t_snap = median_seconds(m.snapshot, number=number, repeat=repeat)
    t_deep = median_seconds(deep, number=max(number // 10, 20), repeat=repeat)
    report("snapshot()", t_snap * 1e6, "us", ref=t_deep * 1e6, target="<= 50 us")

    saved = deep()
    t_restore = median_seconds(lambda: m.restore(snap), number=number, repeat=repeat)
    t_deep_restore = median_seconds(lambda: copy.deepcopy(saved, dict(memo_base)), number=max(number // 10, 20),
                                    repeat=repeat)
    report("restore(snap)", t_restore * 1e6, "us", ref=t_deep_restore * 1e6, target="<= 50 us")

    def resim():
        m.restore(snap)
        for p1, p2 in inputs:
            m.step(p1, p2)

    def resim_ref():
        mm = copy.deepcopy(saved, dict(memo_base))
        for p1, p2 in inputs:
            mm.step(p1, p2)

    # both paths must land on the same state
    resim()
    h = m.state_hash()
    mm = copy.deepcopy(saved, dict(memo_base))
    for p1, p2 in inputs:
        mm.step(p1, p2)
    assert mm.state_hash() == h, "deep-copy reference and snapshot/restore disagree"

    n8 = max(number // 20, 10)
    t_resim = median_seconds(resim, number=n8, repeat=repeat)
    t_resim_ref = median_seconds(resim_ref, number=max(n8 // 2, 5), repeat=repeat)
    report("restore + 8 frames", t_resim * 1e3, "ms", ref=t_resim_ref * 1e3, target="<= 2 ms")
    t_step = (t_resim - t_restore) / len(inputs)
    report("  of which one step (derived)", t_step * 1e6, "us")
    m.restore(snap)
    t_hash = median_seconds(m.state_hash, number=number, repeat=repeat)
    report("state_hash()", t_hash * 1e6, "us")
