"""Pure-numpy collision: method A (range boxes), B (compounds), C (scene rays).

* Method A, :mod:`.range_box`: range boxes, judgement points, the overlap verdict, the
  collision point.
* Method B, :mod:`.compound`: compounds of small boxes, re-split by strikes.
* Method C, :mod:`.scene` (models, quadtree + AABB trees, ray casts; its parts
  :mod:`.quadtree`, :mod:`.aabb_tree`, :mod:`.raycast`) and :mod:`.scene_file` (the baked files).

Every tolerance is in :mod:`.tolerances`.  Knows no game rules and never imports pyglet or pyrr.
"""

from .compound import (
    FILL,
    INNER,
    OUTER,
    Compound,
    CompoundError,
    CompoundGroup,
    CompoundSnapshot,
    Face,
    FaceKind,
    FaceSet,
    GroupTouch,
    InvalidCompound,
    StrikeResult,
)
from .range_box import (
    PAD_LANES,
    PairJudge,
    all_pairs_index,
    box_centers,
    box_diagonals,
    box_from_center_half,
    box_from_sphere,
    box_triangles,
    collision_point,
    collision_point_pair,
    endpoints_by_coordinate_sum,
    judgement_points,
    overlaps,
    overlaps_pairs,
    padded_boxes,
    pair_index,
    range_box_of,
    verdict,
)
from .scene import (
    LEVEL_HIGH,
    LEVEL_LOW,
    LEVEL_MEDIUM,
    CollisionModel,
    LogicLevel,
    QueryStats,
    RayHit,
    RayHits,
    Scene,
)
from .scene_file import SceneFileError, SceneFileUnusable, SceneTooLargeError, load_baked, load_scene, save_scene

__all__ = [
    # --- Method A: range boxes ---
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
    # --- Method B: compounds of small boxes, re-split by strikes ---
    "Compound",
    "CompoundGroup",
    "GroupTouch",
    "CompoundSnapshot",
    "CompoundError",
    "InvalidCompound",
    "StrikeResult",
    "Face",
    "FaceSet",
    "FaceKind",
    "OUTER",
    "FILL",
    "INNER",
    # --- Method C: scene quadtree, AABB trees, ray casts, scene files ---
    "CollisionModel",
    "Scene",
    "RayHit",
    "RayHits",
    "QueryStats",
    "LogicLevel",
    "LEVEL_LOW",
    "LEVEL_MEDIUM",
    "LEVEL_HIGH",
    "SceneFileError",
    "SceneFileUnusable",
    "SceneTooLargeError",
    "save_scene",
    "load_scene",
    "load_baked",
]
