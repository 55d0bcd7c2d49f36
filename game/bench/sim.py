"""The match: microseconds per step through Match.step, CPU vs CPU, and the same fights
replayed from their inputs on a match with no CPU side (what a server re-simulating an
online match from its players' inputs steps)."""

from __future__ import annotations

import statistics
import time

from game.sim import FrameInput, Match


def _fighting(seed: int, cpu: bool) -> Match:
    """Match ``seed`` (CPU hard against CPU normal, or two players) at its first fight frame."""
    m = Match.new(seed=seed, p1_cpu="hard" if cpu else None, p2_cpu="normal" if cpu else None)
    while m.phase != "fight":
        m.step()
    return m


def run(args) -> None:
    frames = 1200 if args.quick else 3000
    runs = 3 if args.quick else 7
    per_step, replayed = [], []
    for seed in range(runs):
        m = _fighting(seed, cpu=True)
        inputs: list[tuple[FrameInput, FrameInput]] = []
        t0 = time.perf_counter()
        for _ in range(frames):
            m.step()
            inputs.append(m.last_inputs)
        per_step.append((time.perf_counter() - t0) / frames)
        p = _fighting(seed, cpu=False)
        t0 = time.perf_counter()
        for p1, p2 in inputs:
            p.step(p1, p2)
        replayed.append((time.perf_counter() - t0) / frames)
    med = statistics.median(per_step) * 1e6
    print(f"  {'us per match step, CPU vs CPU (median of %d)' % runs:<46} {med:>12.1f} us        "
          f"= {1e6 / med:,.0f} steps/s  (target <= 250 us)")
    print(f"  {'  min / max over runs':<46} {min(per_step) * 1e6:>12.1f} / {max(per_step) * 1e6:.1f} us")
    rep = statistics.median(replayed) * 1e6
    print(f"  {'  the same fights replayed, no CPU side':<46} {rep:>12.1f} us        "
          f"= {1e6 / rep:,.0f} steps/s  (target <= 110 us)")
