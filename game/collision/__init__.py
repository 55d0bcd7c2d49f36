"""Pure-numpy collision: method A (range boxes), B (compounds), C (scene rays).

Knows no game rules and never imports pyglet.
"""

from .range_box import (
    box_centers,
    box_diagonals,
    box_from_center_half,
    box_from_sphere,
    box_triangles,
    collision_point,
    collision_point_pair,
    endpoints_by_coordinate_sum,
    judgement_points,
    all_pairs_index,
    overlaps,
    overlaps_pairs,
    padded_boxes,
    PairJudge,
    pair_index,
    PAD_LANES,
    range_box_of,
    verdict,
)

__all__ = [
    "overlaps",
    "padded_boxes",
    "pair_index",
    "all_pairs_index",
    "overlaps_pairs",
    "PairJudge",
    "PAD_LANES",
    "judgement_points",
    "verdict",
    "collision_point",
    "collision_point_pair",
    "range_box_of",
    "endpoints_by_coordinate_sum",
    "box_from_center_half",
    "box_from_sphere",
    "box_centers",
    "box_diagonals",
    "box_triangles",
]

# --- Method B: compounds of small boxes, re-split by strikes ---
from .compound import (  # noqa: E402
    FILL,
    INNER,
    OUTER,
    Compound,
    CompoundError,
    CompoundGroup,
    CompoundSnapshot,
    Face,
    FaceSet,
    GroupTouch,
    InvalidCompound,
    StrikeResult,
)

__all__ += [
    "Compound",
    "CompoundGroup",
    "GroupTouch",
    "CompoundSnapshot",
    "CompoundError",
    "InvalidCompound",
    "StrikeResult",
    "Face",
    "FaceSet",
    "OUTER",
    "FILL",
    "INNER",
]

# --- Method C: scene quadtree, AABB trees, ray casts, scene files ---
from .scene import (  # noqa: E402
    LEVEL_HIGH,
    LEVEL_LOW,
    LEVEL_MEDIUM,
    CollisionModel,
    QueryStats,
    RayHit,
    RayHits,
    Scene,
)
from .scene_file import SceneFileError, load_scene, save_scene  # noqa: E402

__all__ += [
    "CollisionModel",
    "Scene",
    "RayHit",
    "RayHits",
    "QueryStats",
    "LEVEL_LOW",
    "LEVEL_MEDIUM",
    "LEVEL_HIGH",
    "SceneFileError",
    "save_scene",
    "load_scene",
]
# --- end of Method C exports ---
