"""Method C: collision models, the scene (quadtree + AABB trees) and its ray casts.

* :class:`CollisionModel` (C2, :mod:`.model`): a triangle mesh, a logic level, a 4x4
  transform (pyrr's row-vector convention), its world AABB and its AABB tree (C5).
* :class:`Scene` (C1, C6–C9, :mod:`.scene`): the models, the x–z quadtree that holds them
  and the ray queries.  ``cast_nearest``/``cast_nearest_many`` are the client query (C7),
  ``cast_any``/``cast_any_many`` the server query (C8).
* :mod:`.queries`: the queries' checked inputs and their results (:class:`RayHit`,
  :class:`RayHits`, :class:`QueryStats`).
* :mod:`.packing`: the trees laid out for the walkers; :mod:`.walk_single` and
  :mod:`.walk_batched`: the walkers.

Ray conventions (distances, two-sided triangles, edges): see :mod:`game.collision.raycast`.

One walker, two policies (Jolt QuadTree style): each query walks quadtree → leaves → model
AABB trees → triangles; the *nearest* policy prunes every box whose entry distance is beyond
the best hit so far and keeps going, the *any* policy stops a ray at its first triangle hit.
Two implementations of that walker exist and are tested against each other and against
brute force (:mod:`game.reference.scene`): a batched one (frontiers of ``(ray, node)``
pairs, whole tree levels per numpy call) for the ``*_many`` casts, and a scalar one for
single rays.
"""

from .model import LEVEL_HIGH, LEVEL_LOW, LEVEL_MEDIUM, CollisionModel, LogicLevel
from .queries import QueryStats, RayHit, RayHits
from .scene import Scene

__all__ = [
    "LEVEL_LOW",
    "LEVEL_MEDIUM",
    "LEVEL_HIGH",
    "LogicLevel",
    "CollisionModel",
    "RayHit",
    "RayHits",
    "QueryStats",
    "Scene",
]
