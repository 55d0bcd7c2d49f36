"""Pure-numpy collision: method A (range boxes), B (compounds), C (scene rays).

Knows no game rules and never imports pyglet.
"""

from .range_box import (
    box_centers,
    box_diagonals,
    box_from_center_half,
    box_from_sphere,
    collision_point,
    endpoints_by_coordinate_sum,
    judgement_points,
    overlaps,
    range_box_of,
    verdict,
)

__all__ = [
    "overlaps",
    "judgement_points",
    "verdict",
    "collision_point",
    "range_box_of",
    "endpoints_by_coordinate_sum",
    "box_from_center_half",
    "box_from_sphere",
    "box_centers",
    "box_diagonals",
]
