"""Method C ray queries: their checked inputs, their results and the work they did.

Inputs are checked once, at the scene's public casts, and passed on checked: one ray as a
:class:`Ray` (unit direction), the max distance as a float, the C9 level as an int or None.
Results are small named tuples (pymunk style): :class:`RayHit` for one ray, :class:`RayHits`
for a batch; :class:`QueryStats` counts the last query's work for the debug overlay.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .model import LEVELS

__all__ = ["Ray", "RayHit", "RayHits", "QueryStats", "check_max_distance", "check_cast_level", "check_ray",
           "split_key", "NO_KEY"]

#: The hit key of no hit: a hit is keyed ``model << 32 | triangle``, so the lowest key wins ties.
NO_KEY = np.iinfo(np.int64).max


class Ray(NamedTuple):
    """One checked ray: ``origin + s * direction`` for ``0 <= s <= max_distance``."""

    ox: float   # origin x
    oy: float   # origin y
    oz: float   # origin z
    dx: float   # unit direction x
    dy: float   # unit direction y
    dz: float   # unit direction z


class RayHit(NamedTuple):
    """C7 nearest hit of one ray."""

    point: np.ndarray       # (3,) float, where the ray meets the triangle
    distance: float         # world units along the unit direction
    model: int              # the model's index in the scene
    triangle: int           # index into the model's ``triangles``
    normal: np.ndarray      # (3,) float, unit geometric normal, turned to face the ray's origin (two-sided)


class RayHits(NamedTuple):
    """Batched C7 result."""

    distance: np.ndarray    # (n,) float, inf = miss
    model: np.ndarray       # (n,) int64, -1 = miss
    triangle: np.ndarray    # (n,) int64, -1 = miss


@dataclass(frozen=True)
class QueryStats:
    """Work done by the last query (debug overlay)."""

    rays: int = 0               # rays cast
    nodes_visited: int = 0      # quadtree rects and tree boxes tested
    triangles_tested: int = 0   # ray-triangle tests


def split_key(key: int) -> tuple[int, int]:
    """A hit key ``model << 32 | triangle`` as ``(model, triangle)``."""
    return key >> 32, key & 0xFFFFFFFF


def check_max_distance(max_distance: Any) -> float:
    """A cast's max distance as a float >= 0 (inf allowed: world units along the unit
    direction), or ValueError naming the argument."""
    try:
        md = float(max_distance)
    except (TypeError, ValueError):
        md = math.nan
    if not md >= 0.0:
        raise ValueError(f"max_distance: must be a number >= 0, got {max_distance!r}")
    return md


def check_cast_level(level: Any) -> int | None:
    """A cast's C9 level: None (every model is hit) or 0, 1, 2 (only models with a level above
    it are hit), as an int; or ValueError naming the argument."""
    if level is None:
        return None
    if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or int(level) not in LEVELS:
        raise ValueError(f"level: must be None (every model) or a logic level 0 (low), 1 (medium) "
                         f"or 2 (high), got {level!r}")
    return int(level)


def check_ray(origin: Any, direction: Any) -> Ray:
    """One ray as a :class:`Ray` with a unit direction, or ValueError naming the argument.

    The direction is normalised as ``raycast.normalize_rays`` does (scaled by its largest
    |component| first), so a single cast and a batched one see the same ray.
    """
    o = origin.tolist() if isinstance(origin, np.ndarray) else origin
    d = direction.tolist() if isinstance(direction, np.ndarray) else direction
    try:
        ox, oy, oz = o
        dx, dy, dz = d
        ox, oy, oz, dx, dy, dz = float(ox), float(oy), float(oz), float(dx), float(dy), float(dz)
    except (TypeError, ValueError):
        raise ValueError(f"origin/direction: expected 3 numbers each, got {origin!r} and {direction!r}") from None
    # one addition is the fast check (NaN/inf propagate); only a non-finite sum, which may
    # also be an overflow of finite values, needs the per-value test
    if not math.isfinite(ox + oy + oz + dx + dy + dz) and not all(
            math.isfinite(v) for v in (ox, oy, oz, dx, dy, dz)):
        raise ValueError("origin/direction: contain NaN or inf")
    m = max(abs(dx), abs(dy), abs(dz))
    if m == 0.0:
        raise ValueError("direction: zero direction; a ray needs a non-zero direction")
    dx, dy, dz = dx / m, dy / m, dz / m
    n = math.sqrt(dx * dx + dy * dy + dz * dz)
    # tuple.__new__ skips the named tuple's generated Python-level __new__, whose call is a
    # noticeable share of a single cast
    return tuple.__new__(Ray, (ox, oy, oz, dx / n, dy / n, dz / n))
