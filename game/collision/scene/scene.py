"""Method C, C1 and C6-C9: :class:`Scene`, the models in an x–z quadtree and the ray casts.

The scene owns the models, the quadtree and the walkers' cached layouts (packed trees,
per-model scalar trees, quadtree boxes), keeps them in step when a model is replaced, and
hands each cast to a walker: :mod:`.walk_single` for one ray, :mod:`.walk_batched` for many.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..quadtree import QuadCells, QuadTree
from ..raycast import normalize_rays
from .model import CollisionModel
from .packing import Box6, QuadBoxes, ScalarTree, TreePack, pack_trees, patch_pack, quad_boxes
from .queries import QueryStats, Ray, RayHit, RayHits, check_cast_level, check_max_distance, check_ray, split_key
from .walk_batched import walk_any, walk_nearest
from .walk_single import ScalarWalk, walk_one

__all__ = ["Scene"]


class Scene:
    """C1, C6–C9: collision models in an x–z quadtree, each with its own AABB tree.

    Build with :meth:`Scene.build` (or :func:`~game.collision.scene_file.load_scene`).
    """

    def __init__(self, models: Sequence[CollisionModel], quadtree: QuadTree):
        self._models = list(models)
        self._qt = quadtree
        self._pack_cache: TreePack | None = None
        self._scalar: list[ScalarTree | None] = [None] * len(self._models)
        # per model, for the scalar walker's root-box and level checks (no tree needed)
        self._roots: list[Box6] = [tuple(m.root_box.reshape(6).tolist()) for m in self._models]
        self._levels = [m.level for m in self._models]
        self._stale: set[int] = set()   # models replaced since the packed arrays were built
        self._stats = QueryStats()
        self._qcache: QuadBoxes | None = None
        self._version = 0               # model replacements so far (see version)

    # ---- construction ------------------------------------------------------
    @staticmethod
    def _root_rect(models: Sequence[CollisionModel]) -> tuple[float, float, float, float]:
        if not models:
            return (-1.0, -1.0, 1.0, 1.0)
        r = np.array([m.rect_xz() for m in models])
        return float(r[:, 0].min()), float(r[:, 1].min()), float(r[:, 2].max()), float(r[:, 3].max())

    @classmethod
    def build(cls, models: Sequence[CollisionModel], leaf_capacity: int = 8, max_depth: int = 6) -> Scene:
        """C1: put ``models`` into a new quadtree (root rect = union of their x–z boxes).

        Each model is inserted in turn by :meth:`QuadTree.insert` (patent steps A1–A10).
        """
        models = list(models)
        for i, m in enumerate(models):
            if not isinstance(m, CollisionModel):
                raise TypeError(f"models[{i}]: expected a CollisionModel, got {type(m).__name__}")
        qt = QuadTree(cls._root_rect(models), leaf_capacity, max_depth)
        for i, m in enumerate(models):
            qt.insert(i, m.rect_xz())
        return cls(models, qt)

    # ---- accessors ---------------------------------------------------------
    @property
    def models(self) -> tuple[CollisionModel, ...]:
        return tuple(self._models)

    @property
    def quadtree(self) -> QuadTree:
        return self._qt

    @property
    def version(self) -> int:
        """How many times a model has been replaced (:meth:`replace_model`): what a cache of
        something the models decide (``game.sim.ground``) checks to know it is current."""
        return self._version

    @property
    def stats(self) -> QueryStats:
        """Visit counters of the last query (nodes = quadtree rects + tree boxes tested)."""
        return self._stats

    def quadtree_cells(self) -> QuadCells:
        """Debug overlay: :class:`~game.collision.quadtree.QuadCells` ``(rects (k, 2, 2), depth (k,))``."""
        return self._qt.cells()

    def __len__(self) -> int:
        return len(self._models)

    def copy(self) -> Scene:
        """An independent scene (e.g. one per match): ``update_model`` on the copy leaves this one unchanged.

        Collision models are immutable and shared; the quadtree is copied; the
        packed arrays (patched in place by ``update_model``) are rebuilt lazily.
        ``copy.deepcopy(scene)`` does the same.
        """
        other = Scene(self._models, self._qt.copy())
        other._scalar = list(self._scalar)
        other._qcache = self._qcache
        return other

    def __deepcopy__(self, memo: dict[int, Any]) -> Scene:
        return self.copy()

    # ---- dynamic geometry ----------------------------------------------------
    def _model_index(self, index: Any) -> int:
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise TypeError(f"index: expected an int model index, got {index!r}")
        if not 0 <= index < len(self._models):
            raise IndexError(f"index: model {index} out of range 0..{len(self._models) - 1}")
        return int(index)

    def update_model(self, index: int, triangles: Any = None, transform: Any = None,
                     level: int | None = None) -> CollisionModel:
        """Replace model ``index``'s triangles and/or transform (and/or level); returns the new model.

        Cheap by design (a struck crate calls it every hit): only that model's
        AABB tree is rebuilt (C5, when a ray first needs it), and the model is
        removed from and re-inserted into the quadtree (C1), unless its padded
        box is unchanged (a hole inside a crate): quadtree membership and the
        nodes' y ranges depend on nothing else, so they stay as they are.  If its
        new x–z box leaves the quadtree's root rect the quadtree is rebuilt with a
        larger root (all models re-inserted).  The model keeps its index.
        ``None`` keeps the old value.
        """
        old = self._models[self._model_index(index)]
        return self.replace_model(index, CollisionModel(old.triangles if triangles is None else triangles,
                                                        old.level if level is None else level,
                                                        old.transform if transform is None else transform))

    def replace_model(self, index: int, new: CollisionModel) -> CollisionModel:
        """Put ``new`` in model ``index``'s place (see :meth:`update_model`, which builds the
        model from parts and then calls this); returns ``new``."""
        if not isinstance(new, CollisionModel):
            raise TypeError(f"new: expected a CollisionModel, got {type(new).__name__}")
        i = self._model_index(index)
        old = self._models[i]
        self._models[i] = new
        self._version += 1
        self._scalar[i] = None
        self._roots[i] = tuple(new.root_box.reshape(6).tolist())
        self._levels[i] = new.level
        if np.array_equal(new.root_box, old.root_box):
            pass                        # same cells (C1), same node y ranges: nothing to move
        elif self._qt.contains_rect(rect := new.rect_xz()):
            self._qt.remove(i)
            self._qt.insert(i, rect)
        else:
            qt = QuadTree(self._root_rect(self._models), self._qt.leaf_capacity, self._qt.max_depth)
            for j, m in enumerate(self._models):
                qt.insert(j, m.rect_xz())
            self._qt = qt
        if self._pack_cache is not None:
            self._stale.add(i)   # patched by the next batched cast, which builds the new tree
        return new

    def _quad_boxes(self) -> QuadBoxes:
        """The quadtree's nodes as 3D boxes (``packing.quad_boxes``), cached per compiled quadtree."""
        qa = self._qt.arrays()
        c = self._qcache
        if c is not None and c.arrays is qa:
            return c
        self._qcache = quad_boxes(qa, self._models)
        return self._qcache

    def _get_pack(self) -> TreePack:
        if self._stale:
            stale, self._stale = sorted(self._stale), set()
            for index in stale:
                if self._pack_cache is not None and not patch_pack(self._pack_cache, index, self._models[index]):
                    self._pack_cache = None  # shape changed: repacked below
        if self._pack_cache is None:
            self._pack_cache = pack_trees(self._models)
        return self._pack_cache

    def _get_scalar(self, m: int) -> ScalarTree:
        s = self._scalar[m]
        if s is None:
            s = self._scalar[m] = ScalarTree(self._models[m])
        return s

    # ---- single ray (scalar walker) --------------------------------------------
    def _walk(self, ray: Ray, md: float, lv: int | None, nearest: bool) -> ScalarWalk:
        w = walk_one(self._quad_boxes(), self._qt.models, self._scalar, self._get_scalar, self._roots, self._levels,
                     ray, md, lv, nearest)
        self._stats = w.stats
        return w

    def cast_nearest(self, origin: Any, direction: Any, max_distance: float,
                     level: int | None = None) -> RayHit | None:
        """C6, C7 (client): nearest hit of one ray within ``max_distance``, or None.

        Only models with ``level is None or model.level > level`` are hit (C9).  ``level``
        is None or a logic level 0, 1 or 2 (every cast checks it; anything else is a ValueError).
        """
        md, lv = check_max_distance(max_distance), check_cast_level(level)
        ray = check_ray(origin, direction)
        w = self._walk(ray, md, lv, nearest=True)
        if w.key < 0:
            return None
        t = w.distance
        m, tri = split_key(w.key)
        ox, oy, oz, dx, dy, dz = ray
        (ax, ay, az), (bx, by, bz), (cx, cy, cz) = self._models[m].world_triangles[tri].tolist()
        ux, uy, uz = bx - ax, by - ay, bz - az
        vx, vy, vz = cx - ax, cy - ay, cz - az
        nx, ny, nz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
        k = math.sqrt(nx * nx + ny * ny + nz * nz)
        if nx * dx + ny * dy + nz * dz > 0.0:
            k = -k
        return RayHit(np.array([ox + t * dx, oy + t * dy, oz + t * dz]), t, m, tri,
                      np.array([nx / k, ny / k, nz / k]))

    def cast_nearest_distance(self, origin: Any, direction: Any, max_distance: float,
                              level: int | None = None) -> float | None:
        """C6, C7: only the distance of :meth:`cast_nearest`'s hit along the unit direction, or None.

        For callers that need no more (a ground probe, the camera), it skips building the
        :class:`RayHit` (its point, model, triangle and normal).
        """
        md, lv = check_max_distance(max_distance), check_cast_level(level)
        w = self._walk(check_ray(origin, direction), md, lv, nearest=True)
        return None if w.key < 0 else w.distance

    def cast_any(self, origin: Any, direction: Any, max_distance: float, level: int | None = None) -> bool:
        """C6, C8 (server): True as soon as one triangle is hit within ``max_distance`` (C9 levels apply)."""
        md, lv = check_max_distance(max_distance), check_cast_level(level)
        ray = check_ray(origin, direction)
        return self._walk(ray, md, lv, nearest=False).key >= 0

    # ---- batched rays (frontier walker) ----------------------------------------------
    def cast_nearest_many(self, origins: Any, directions: Any, max_distance: float,
                          level: int | None = None) -> RayHits:
        """C6, C7 for many rays at once, vectorised across rays.

        origins, directions : (n, 3) float.  Returns :class:`RayHits` with
        ``distance`` (n,) float (inf = miss), ``model`` (n,) int64 and
        ``triangle`` (n,) int64 (-1 = miss).  Same answers as :meth:`cast_nearest`.
        """
        md, lv = check_max_distance(max_distance), check_cast_level(level)
        o, d = normalize_rays(origins, directions)
        pack = self._get_pack()
        w = walk_nearest(pack, self._quad_boxes(), len(self._models), o, d, md, lv)
        self._stats = w.stats
        return w.hits

    def cast_any_many(self, origins: Any, directions: Any, max_distance: float,
                      level: int | None = None) -> np.ndarray:
        """C6, C8 for many rays at once: (n,) bool, a ray leaves the walk at its first hit."""
        md, lv = check_max_distance(max_distance), check_cast_level(level)
        o, d = normalize_rays(origins, directions)
        pack = self._get_pack()
        w = walk_any(pack, self._quad_boxes(), len(self._models), o, d, md, lv)
        self._stats = w.stats
        return w.hit
