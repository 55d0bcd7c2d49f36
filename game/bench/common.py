"""Timing helpers shared by every benchmark section."""

from __future__ import annotations

import statistics
import time
from typing import Callable


def median_seconds(fn: Callable[[], object], *, number: int, repeat: int = 7) -> float:
    """Median over ``repeat`` runs of the mean time of one call of ``fn``.

    Each run calls ``fn`` ``number`` times back to back; returns seconds per call.
    """
    fn()  # warm-up: imports, caches, first allocation
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        runs.append((time.perf_counter() - t0) / number)
    return statistics.median(runs)


def interleaved_medians(fns: list[Callable[[], object]], *, numbers: list[int], repeat: int = 9) -> list[float]:
    """Median seconds per call of each of ``fns``, measured round-robin.

    Each round runs every function ``numbers[i]`` times back to back, so a fast
    path and its reference see the same machine noise (this VM's speed drifts
    over minutes); returns one median per function.
    """
    for fn in fns:
        fn()
    runs: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            for _ in range(numbers[i]):
                fn()
            runs[i].append((time.perf_counter() - t0) / numbers[i])
    return [statistics.median(r) for r in runs]


def cold_medians(fns: list[Callable[[], object]], *, gap: float = 0.008, repeat: int = 60) -> list[float]:
    """Median seconds of one call of each of ``fns`` made after a ``gap``-second sleep, round-robin.

    A game frame runs the strike's or a hit's code once, after the main thread has waited
    in ``glFinish`` while llvmpipe's threads ran (``gap``: about half a frame): numpy's code
    and data are then cold, and a numpy call's first use after such a wait costs many times
    its cost in a loop.  This times that case.
    """
    runs: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            time.sleep(gap)
            t0 = time.perf_counter()
            fn()
            runs[i].append(time.perf_counter() - t0)
    return [statistics.median(r) for r in runs]


def gauge_workload() -> int:
    """The machine gauge's fixed pure-Python workload; a benchmark may also time it in its own
    interleaved rounds, so that a figure carries the machine's speed at the moment it was taken."""
    return sum(range(1000))


def machine_gauge_us() -> float:
    """Median µs of :func:`gauge_workload`, printed with every benchmark run so that figures
    from machines of different speed compare."""
    return median_seconds(gauge_workload, number=2000, repeat=9) * 1e6


def median_ms(xs: list[float]) -> float:
    """The median of ``xs`` seconds, in ms."""
    return statistics.median(xs) * 1e3


def report(label: str, value: float, unit: str, *, target: str = "", ref: float | None = None) -> None:
    """Print one figure as an aligned line: label, value, unit, ratio to reference, target."""
    line = f"  {label:<46} {value:>12.3f} {unit:<8}"
    if ref is not None and value > 0:
        line += f"  ref {ref:>10.3f} {unit:<8} speed-up x{ref / value:,.1f}" if unit in ("us", "ms", "s") \
            else f"  ref {ref:>10.3f} {unit:<8} x{value / ref:,.1f}"
    if target:
        line += f"  (target {target})"
    print(line)
