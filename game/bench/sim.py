"""The match: microseconds per step, CPU vs CPU, through Match.step."""

from __future__ import annotations

import statistics
import time

from game.sim import Match


def run(args) -> None:
    frames = 1200 if args.quick else 3000
    runs = 3 if args.quick else 7
    per_step = []
    for seed in range(runs):
        m = Match.new(seed=seed, p1_cpu="hard", p2_cpu="normal")
        while m.phase != "fight":
            m.step()
        t0 = time.perf_counter()
        for _ in range(frames):
            m.step()
        per_step.append((time.perf_counter() - t0) / frames)
    med = statistics.median(per_step) * 1e6
    print(f"  {'us per match step, CPU vs CPU (median of %d)' % runs:<46} {med:>12.1f} us        "
          f"= {1e6 / med:,.0f} steps/s  (target <= 250 us)")
    print(f"  {'  min / max over runs':<46} {min(per_step) * 1e6:>12.1f} / {max(per_step) * 1e6:.1f} us")
