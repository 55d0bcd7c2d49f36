"""Reference oracles for method A (``game.collision.range_box``): A2-A4 and A7 written out per
axis in plain Python, on boxes given as ``[min, max]`` lists of D = 2 or 3 floats.

The tests compare the batched functions and the match's ``PairJudge`` with them; the
``method_a`` benchmark times :func:`overlap_matrix` and :func:`collision_points` as the
references of its figures, so they are plain loops without calls per pair where the answer
needs none.
"""

from __future__ import annotations

import math
from typing import Sequence

__all__ = ["judgement_points", "overlap", "overlap_matrix", "collision_point", "collision_points"]

#: A box as ``[[min_0, ..., min_D-1], [max_0, ..., max_D-1]]``.
Box = Sequence[Sequence[float]]


def judgement_points(a: Box, b: Box) -> tuple[list[float], list[float]]:
    """A2/A3 written out per axis: the larger of the two min endpoints and the smaller of the
    two max endpoints, ``(j1, j2)``."""
    j1 = [a[0][k] if a[0][k] > b[0][k] else b[0][k] for k in range(len(a[0]))]
    j2 = [a[1][k] if a[1][k] < b[1][k] else b[1][k] for k in range(len(a[0]))]
    return j1, j2


def overlap_matrix(a: Sequence[Box], b: Sequence[Box]) -> list[list[bool]]:
    """A2-A4 of every pair (``a`` by rows, ``b`` by columns), per pair and per axis: collision
    unless on some axis the smaller max endpoint (A3) is below the larger min endpoint (A2)."""
    out = []
    for amin, amax in a:
        row = []
        for bmin, bmax in b:
            hit = True
            for k in range(len(amin)):
                j1 = amin[k] if amin[k] > bmin[k] else bmin[k]
                j2 = amax[k] if amax[k] < bmax[k] else bmax[k]
                if j2 < j1:
                    hit = False
                    break
            row.append(hit)
        out.append(row)
    return out


def overlap(a: Box, b: Box) -> bool:
    """A4 of one pair (:func:`overlap_matrix`)."""
    return overlap_matrix([a], [b])[0][0]


def collision_point(a: Box, b: Box) -> list[float]:
    """A7: the centre-to-centre segment split in the ratio of the longest diagonals (the
    midpoint for two point boxes)."""
    c1 = [(a[0][k] + a[1][k]) / 2 for k in range(len(a[0]))]
    c2 = [(b[0][k] + b[1][k]) / 2 for k in range(len(a[0]))]
    d1 = math.sqrt(sum((a[1][k] - a[0][k]) ** 2 for k in range(len(a[0]))))
    d2 = math.sqrt(sum((b[1][k] - b[0][k]) ** 2 for k in range(len(a[0]))))
    t = 0.5 if d1 + d2 == 0 else d1 / (d1 + d2)
    return [c1[k] + (c2[k] - c1[k]) * t for k in range(len(a[0]))]


def collision_points(a: Sequence[Box], b: Sequence[Box]) -> list[list[float]]:
    """A7 of every colliding pair (A4), by ``a`` then ``b``."""
    hits = overlap_matrix(a, b)
    return [collision_point(x, y) for x, row in zip(a, hits) for y, hit in zip(b, row) if hit]
