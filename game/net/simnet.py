"""A simulated network for tests: datagrams between addresses, delivered by simulated time.

Deterministic from its seed: each datagram draws its fate (lost, duplicated, its delay) from
the network's own generator in the order datagrams are sent.  Delay is ``latency`` plus a
uniform jitter in ``[-jitter, +jitter]`` (never below zero), so datagrams overtake each other
whenever the jitter exceeds the gap between sends; ``reorder`` is the chance of an extra delay
of up to ``2 * latency`` on top, which reorders even without jitter.
"""

from __future__ import annotations

import heapq
from typing import NamedTuple

import numpy as np


class Conditions(NamedTuple):
    """One network's behaviour, each direction alike (times in seconds, chances 0..1)."""

    latency: float = 0.001      # one-way delay (a round trip is twice this)
    jitter: float = 0.0         # +- this, uniform, added to each datagram's delay
    loss: float = 0.0           # chance a datagram is lost
    duplicate: float = 0.0      # chance a datagram arrives twice (each copy its own delay)
    reorder: float = 0.0        # chance of an extra delay of up to 2 * latency


class SimNet:
    """Datagrams in flight between addresses (any hashable), with :class:`Conditions`."""

    def __init__(self, seed: int, conditions: Conditions) -> None:
        self.conditions = conditions
        self._rng = np.random.Generator(np.random.PCG64(seed))
        self._flight: list[tuple[float, int, object, object, bytes]] = []
        self._n = 0
        #: Datagrams sent, lost and duplicated so far.
        self.sent = self.lost = self.duplicated = 0

    def send(self, src: object, dst: object, data: bytes, now: float) -> None:
        """Put ``data`` from ``src`` to ``dst`` on the wire at time ``now``."""
        c, rng = self.conditions, self._rng
        self.sent += 1
        if rng.random() < c.loss:
            self.lost += 1
            return
        copies = 2 if rng.random() < c.duplicate else 1
        self.duplicated += copies - 1
        for _ in range(copies):
            delay = c.latency + (rng.uniform(-c.jitter, c.jitter) if c.jitter else 0.0)
            if c.reorder and rng.random() < c.reorder:
                delay += rng.uniform(0.0, 2.0 * c.latency)
            heapq.heappush(self._flight, (now + max(delay, 0.0), self._n, dst, src, bytes(data)))
            self._n += 1

    def deliver(self, dst: object, now: float) -> list[tuple[bytes, object]]:
        """``(data, src)`` of every datagram for ``dst`` that has arrived by ``now``, in arrival order."""
        out, keep = [], []
        while self._flight and self._flight[0][0] <= now:
            item = heapq.heappop(self._flight)
            if item[2] == dst:
                out.append((item[4], item[3]))
            else:
                keep.append(item)
        for item in keep:
            heapq.heappush(self._flight, item)
        return out

    def in_flight(self) -> int:
        """Datagrams not yet delivered."""
        return len(self._flight)
