"""Reference oracles for method A (``game.collision.range_box``): A2-A4 and A7 written out per
axis in plain Python, on boxes given as ``[min, max]`` lists of D = 2 or 3 floats.

The tests compare the batched functions and the match's ``PairJudge`` with them; the
``method_a`` benchmark times :func:`overlap_matrix` and :func:`collision_points` as the
references of its figures.
"""

from __future__ import annotations

import math
from typing import Sequence

__all__ = ["judgement_points", "overlap", "collision_point", "overlap_matrix", "collision_points"]

#: A box as ``[[min_0, ..., min_D-1], [max_0, ..., max_D-1]]``.
Box = Sequence[Sequence[float]]


def judgement_points(a: Box, b: Box) -> tuple[list[float], list[float]]:
    """A2/A3 written out per axis: the larger of the two min endpoints and the smaller of the
    two max endpoints, ``(j1, j2)``."""
    j1 = [a[0][k] if a[0][k] > b[0][k] else b[0][k] for k in range(len(a[0]))]
    j2 = [a[1][k] if a[1][k] < b[1][k] else b[1][k] for k in range(len(a[0]))]
    return j1, j2


def overlap(a: Box, b: Box) -> bool:
    """A4 written out per axis: collision unless some j2 coordinate < j1's."""
    j1, j2 = judgement_points(a, b)
    for k in range(len(j1)):
        if j2[k] < j1[k]:
            return False
    return True


def collision_point(a: Box, b: Box) -> list[float]:
    """A7: the centre-to-centre segment split in the ratio of the longest diagonals (the
    midpoint for two point boxes)."""
    c1 = [(a[0][k] + a[1][k]) / 2 for k in range(len(a[0]))]
    c2 = [(b[0][k] + b[1][k]) / 2 for k in range(len(a[0]))]
    d1 = math.sqrt(sum((a[1][k] - a[0][k]) ** 2 for k in range(len(a[0]))))
    d2 = math.sqrt(sum((b[1][k] - b[0][k]) ** 2 for k in range(len(a[0]))))
    t = 0.5 if d1 + d2 == 0 else d1 / (d1 + d2)
    return [c1[k] + (c2[k] - c1[k]) * t for k in range(len(a[0]))]


def overlap_matrix(a: Sequence[Box], b: Sequence[Box]) -> list[list[bool]]:
    """A4 of every pair: ``[[overlap(x, y) for y in b] for x in a]``."""
    return [[overlap(x, y) for y in b] for x in a]


def collision_points(a: Sequence[Box], b: Sequence[Box]) -> list[list[float]]:
    """A7 of every colliding pair (A4), by ``a`` then ``b``."""
    return [collision_point(x, y) for x in a for y in b if overlap(x, y)]
