"""Per-event random numbers for presentation effects, read from one fixed table.

Sparks, wood chips and break chunks want a random spread that is the same every time
a given event is shown (a replayed match looks the same).  A generator per event
(``np.random.default_rng(key)``) would give that, but an effect runs on a rare frame (a
hit, a crate strike), with numpy's code and data cold: in the render loop the main
thread has just waited in ``glFinish`` while llvmpipe's threads ran on both cores, and
building a generator then (seeding goes through ``SeedSequence``) costs many times what
it does in a warm loop, once per effect of the frame.

:class:`NoiseTable` draws its numbers once, at import: ``ROWS`` rows of standard normals
and of uniforms on [0, 1).  An event reads a window of consecutive rows at an offset
hashed from its key (splitmix64 on Python ints): the same key always gives the same
rows; different keys give unrelated windows.  Reading a window is a slice.
"""

from __future__ import annotations

import numpy as np

ROWS = 8192                #: rows in the table
NORMAL_COLS = 8            #: standard-normal columns per row
UNIFORM_COLS = 12          #: uniform [0, 1) columns per row
_M64 = (1 << 64) - 1


def splitmix64(key: int) -> int:
    """A well-mixed 64-bit hash of an int (splitmix64's output function; Python ints)."""
    z = (int(key) + 0x9E3779B97F4A7C15) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


class NoiseTable:
    """Fixed random draws, read by key.

    Parameters
    ----------
    seed : int
        Seeds the one generator that fills the table.
    rows : int
        Number of rows (the largest window a caller may ask for).
    """

    def __init__(self, seed: int = 0x5EED, rows: int = ROWS):
        rng = np.random.default_rng(seed)
        self.rows = int(rows)
        self.normal = rng.standard_normal((self.rows, NORMAL_COLS))
        self.uniform = rng.random((self.rows, UNIFORM_COLS))
        self.normal.flags.writeable = False
        self.uniform.flags.writeable = False

    def offset(self, key: int, n: int) -> int:
        """First row of the ``n``-row window of ``key`` (0 when ``n`` >= ``rows``)."""
        if n < 0:
            raise ValueError(f"n: a window holds n >= 0 rows, got {n}")
        return splitmix64(key) % (max(self.rows - n, 0) + 1)

    def window(self, key: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        """``(normal (n, NORMAL_COLS), uniform (n, UNIFORM_COLS))`` float64, read-only:
        the same rows for the same ``key``.  Views into the table; a window longer than the
        table repeats it (rows ``i % rows``)."""
        i = self.offset(key, n)
        if n > self.rows:
            idx = np.arange(n) % self.rows
            return self.normal[idx], self.uniform[idx]
        return self.normal[i:i + n], self.uniform[i:i + n]


#: the table every effect reads (sparks, chips, chunks); keys differ per kind of effect
EFFECTS = NoiseTable()
