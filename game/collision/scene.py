"""Method C: collision models, the scene (quadtree + AABB trees) and its ray casts.

* :class:`CollisionModel` (C2): a triangle mesh, a logic level, a 4x4 transform,
  its world AABB and its AABB tree (C5).
* :class:`Scene` (C1, C6–C9): the models, the x–z quadtree that holds them and
  the ray queries.  ``cast_nearest``/``cast_nearest_many`` are the client query
  (C7), ``cast_any``/``cast_any_many`` the server query (C8).

Transform convention: pyrr's **row-vector** convention.  A local point ``p``
maps to ``[p, 1] @ transform``; the translation is ``transform[3, :3]`` and the
last column must be ``(0, 0, 0, 1)`` (affine).  ``pyrr.Matrix44.from_translation``
and friends produce matrices in this convention.

Ray conventions (distances, two-sided triangles, edges): see
:mod:`game.collision.raycast`.

One walker, two policies (Jolt QuadTree style): each query walks
quadtree → leaves → model AABB trees → triangles; the *nearest* policy prunes
every box whose entry distance is beyond the best hit so far and keeps going,
the *any* policy stops a ray at its first triangle hit.  Two implementations
of that walker exist and are tested against each other and against brute force:
a batched one (frontiers of ``(ray, node)`` pairs, whole tree levels per numpy
call) for the ``*_many`` casts, and a scalar one for single rays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple, Sequence

import numpy as np

from .aabb_tree import LEAF_SIZE, AABBTree, build_aabb_tree, pad_box_floats, pad_boxes
from .quadtree import QuadTree
from .range_box import box_triangles, range_box_of
from .raycast import (
    inverse_directions,
    normalize_rays,
    ray_boxes_cm,
    ray_triangle_scalar,
    ray_triangles_cm,
)
from .tolerances import INV_DIR_HUGE

__all__ = [
    "LEVEL_LOW",
    "LEVEL_MEDIUM",
    "LEVEL_HIGH",
    "CollisionModel",
    "RayHit",
    "RayHits",
    "QueryStats",
    "Scene",
]

#: C9 logic levels.
LEVEL_LOW, LEVEL_MEDIUM, LEVEL_HIGH = 0, 1, 2
_LEVELS = (LEVEL_LOW, LEVEL_MEDIUM, LEVEL_HIGH)
_NO_KEY = np.iinfo(np.int64).max
_IDENTITY = np.eye(4)


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def _finite_array(make, x, name: str, n: str, tail: tuple) -> np.ndarray:
    """``make(x, dtype=float64)`` (``np.array`` copies, ``np.asarray`` may not) shaped
    ``(n, *tail)`` with n >= 1 and every value finite, or a ValueError naming ``name``."""
    shape = f"({n}, {', '.join(map(str, tail))})"
    try:
        a = make(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected a {shape} array of numbers, got {x!r:.80}") from None
    if a.ndim != 1 + len(tail) or a.shape[1:] != tail or a.shape[0] < 1:
        raise ValueError(f"{name}: expected shape {shape} with {n} >= 1, got {a.shape}")
    if not np.isfinite(a).all():
        raise ValueError(f"{name}: contain NaN or inf")
    return a


def _check_level(level) -> None:
    """C9: raise ValueError unless ``level`` is 0 (low), 1 (medium) or 2 (high)."""
    if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or int(level) not in _LEVELS:
        raise ValueError(f"level: must be 0 (low), 1 (medium) or 2 (high), got {level!r}")


class CollisionModel:
    """C2: a collision model — simplified triangle mesh, logic level, transform, AABB.

    Parameters
    ----------
    triangles : (t, 3, 3) float
        Local-space triangles, ``t >= 1``; finite.
    level : int
        C9 logic level: 0 low, 1 medium, 2 high.
    transform : (4, 4) float, optional
        Row-vector affine matrix (pyrr convention, see the module docstring);
        identity by default.  World triangles = transform applied to ``triangles``.

    Attributes (read-only arrays)
    -----------------------------
    triangles, transform, level
    world_triangles : (t, 3, 3) float64
    aabb : (2, 3) float64, exact ``[min, max]`` of the world triangles.
    root_box : (2, 3) float64, ``aabb`` with the method-C box padding: the root box of ``tree``.
    tree : :class:`~game.collision.aabb_tree.AABBTree` over the world triangles (C5), built
        on first use: a struck crate replaces its model every hit, and a ray that never
        reaches the model's root box never needs its tree.
    """

    __slots__ = ("triangles", "level", "transform", "world_triangles", "aabb", "root_box", "_tree")

    def __init__(self, triangles, level: int, transform=None):
        tris = _finite_array(np.array, triangles, "triangles", "t", (3, 3))
        _check_level(level)
        try:
            m = np.eye(4) if transform is None else np.array(transform, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"transform: expected a (4, 4) matrix of numbers, got {transform!r:.80}") from None
        if m.shape != (4, 4) or not np.isfinite(m).all():
            raise ValueError(f"transform: expected a finite (4, 4) matrix, got shape {m.shape}")
        if not (np.array_equal(m[:3, 3], np.zeros(3)) and m[3, 3] == 1.0):
            raise ValueError("transform: must be affine in pyrr's row-vector convention "
                             "(last column 0, 0, 0, 1; translation in row 3)")
        if np.array_equal(m, _IDENTITY):
            world = tris + 0.0          # the product with I, bit for bit (-0.0 becomes 0.0 as there)
        else:
            world = tris @ m[:3, :3] + m[3, :3]
            if not np.isfinite(world).all():
                raise ValueError("transform: world triangles overflow to inf")
        self.triangles = _readonly(tris)
        self.level = int(level)
        self.transform = _readonly(m)
        self.world_triangles = _readonly(world)
        self.aabb = _readonly(range_box_of(world.reshape(-1, 3)))
        self.root_box = _readonly(pad_boxes(self.aabb))
        self._tree: AABBTree | None = None

    @classmethod
    def from_boxes(cls, boxes, level: int) -> "CollisionModel":
        """B7 -> C2: the model of the surfaces of axis-aligned boxes ``(K, 2, 3)`` float, K >= 1,
        with the identity transform: their 12 triangles each (``range_box.box_triangles``).

        The same model as ``CollisionModel(box_triangles(boxes), level)``, attribute for
        attribute (a test holds them equal), built without what boxes make needless: every
        triangle corner is a box corner, so the AABB is the boxes' min / max, and finite boxes
        give finite triangles.  A struck crate's model is rebuilt this way on every strike.
        """
        b = _finite_array(np.asarray, boxes, "boxes", "K", (2, 3))
        _check_level(level)
        tris = box_triangles(b)
        model = cls.__new__(cls)
        model.triangles = _readonly(tris)
        model.level = int(level)
        model.transform = _readonly(_IDENTITY.copy())
        model.world_triangles = _readonly(tris + 0.0)      # as __init__ makes it (-0.0 becomes 0.0)
        # one box: its min / max, then padded on six floats (a strike's frame runs numpy cold)
        flat = b.reshape(-1, 3)
        lo = [x + 0.0 for x in flat.min(axis=0).tolist()]          # + 0.0: -0.0 becomes 0.0, as in __init__
        hi = [x + 0.0 for x in flat.max(axis=0).tolist()]
        model.aabb = _readonly(np.array([lo, hi]))
        model.root_box = _readonly(np.array(pad_box_floats(lo, hi)))
        model._tree = None
        return model

    @property
    def tree(self) -> AABBTree:
        """C5: the model's AABB tree (built once, on first use)."""
        if self._tree is None:
            self._tree = build_aabb_tree(self.world_triangles)
        return self._tree

    @property
    def triangle_count(self) -> int:
        return int(self.triangles.shape[0])

    def rect_xz(self) -> tuple[float, float, float, float]:
        """The padded root box projected on x–z: ``(xmin, zmin, xmax, zmax)`` (C1 membership)."""
        b = self.root_box
        return float(b[0, 0]), float(b[0, 2]), float(b[1, 0]), float(b[1, 2])

    def __repr__(self) -> str:
        return f"CollisionModel(triangles={self.triangle_count}, level={self.level}, aabb={self.aabb.tolist()})"


class RayHit(NamedTuple):
    """C7 nearest hit of one ray.

    point : (3,) float, distance : float (world units), model : int (scene index),
    triangle : int (index into the model's ``triangles``), normal : (3,) float unit
    geometric normal, turned to face the ray's origin (triangles are two-sided).
    """

    point: np.ndarray
    distance: float
    model: int
    triangle: int
    normal: np.ndarray


class RayHits(NamedTuple):
    """Batched C7 result: ``distance`` (n,) float (inf = miss), ``model`` and ``triangle`` (n,) int64 (-1 = miss)."""

    distance: np.ndarray
    model: np.ndarray
    triangle: np.ndarray


@dataclass(frozen=True)
class QueryStats:
    """Work done by the last query (debug overlay): boxes/rects tested and triangles tested."""

    rays: int = 0
    nodes_visited: int = 0
    triangles_tested: int = 0


@dataclass(frozen=True, eq=False)
class _Pack:
    """All models' AABB trees packed into global flat arrays for the batched walker.

    Component-major (one row per coordinate) so numpy runs long inner loops.
    """

    node_off: np.ndarray      # (m+1,) first global node of each model
    slot_off: np.ndarray      # (m+1,) first global slot of each model
    box: np.ndarray           # (6, g) rows xmin, ymin, zmin, xmax, ymax, zmax
    child: np.ndarray         # (g, 2) global child index, -1 for a leaf
    leaf: np.ndarray          # (g,) global leaf block, -1 for an inner node
    tri: np.ndarray           # (9, s) rows v0xyz, e1xyz, e2xyz of every slot
    key: np.ndarray           # (s,) int64 model << 32 | triangle, _NO_KEY for empty slots
    level: np.ndarray         # (m,) int64
    cbox: np.ndarray          # (6, 2, g) boxes of each node's two children (garbage for leaves)
    cidx: np.ndarray          # (2, g) child indices (= child.T)


def _child_blocks(box: np.ndarray, child: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per node, its children's boxes side by side: ``box`` (6, g), ``child`` (g, c) int
    -> ``(6, c, g)`` float and ``child.T`` ``(c, g)`` (c = 2 for AABB trees, 4 for the quadtree).

    One gather per (ray, node) pair then fetches both children, and the ray's
    data is gathered once and broadcast over the two (Jolt-style node step).
    """
    safe = np.where(child >= 0, child, 0)
    return np.ascontiguousarray(box[:, safe.T]), np.ascontiguousarray(child.T)


def _tree_parts(t: AABBTree, index: int, node0: int, slot0: int):
    """One model's tree in the packed layout, offset to global node ``node0`` and slot ``slot0``.

    Returns ``box`` (6, n) float, ``child`` (n, 2) int64, ``leaf`` (n,) int64,
    ``tri`` (9, s) float and ``key`` (s,) int64 (see :class:`_Pack`).
    """
    child = np.where(t.child >= 0, t.child.astype(np.int64) + node0, -1)
    leaf = np.where(t.leaf >= 0, t.leaf.astype(np.int64) + slot0 // LEAF_SIZE, -1)
    key = np.where(t.slot_tri >= 0, (np.int64(index) << 32) | t.slot_tri.astype(np.int64), _NO_KEY)
    tri = np.concatenate([t.v0, t.e1, t.e2], axis=1).T
    return t.box.reshape(-1, 6).T, child, leaf, tri, key


def _pack(models: Sequence[CollisionModel]) -> _Pack:
    """C5, C6: every model's AABB tree concatenated into one :class:`_Pack` for the batched walker."""
    trees = [m.tree for m in models]
    ncount = np.array([t.node_count for t in trees], dtype=np.int64)
    scount = np.array([t.slot_tri.size for t in trees], dtype=np.int64)
    node_off = np.concatenate(([0], np.cumsum(ncount))).astype(np.int64)
    slot_off = np.concatenate(([0], np.cumsum(scount))).astype(np.int64)
    if not trees:
        return _Pack(node_off, slot_off, np.zeros((6, 0)), np.zeros((0, 2), np.int64), np.zeros(0, np.int64),
                     np.zeros((9, 0)), np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((6, 2, 0)),
                     np.zeros((2, 0), np.int64))
    parts = [_tree_parts(t, i, int(node_off[i]), int(slot_off[i])) for i, t in enumerate(trees)]
    box = np.concatenate([q[0] for q in parts], axis=1)
    child = np.concatenate([q[1] for q in parts])
    leaf = np.concatenate([q[2] for q in parts])
    tri = np.concatenate([q[3] for q in parts], axis=1)
    key = np.concatenate([q[4] for q in parts])
    box = np.ascontiguousarray(box)
    cbox, cidx = _child_blocks(box, child)
    return _Pack(node_off, slot_off, box, child, leaf, np.ascontiguousarray(tri), key,
                 np.array([m.level for m in models], dtype=np.int64), cbox, cidx)


class _ScalarModel:
    """Python-list copy of one model's tree for the scalar single-ray walker."""

    __slots__ = ("box", "child", "leaf", "tris", "ids")

    def __init__(self, model: CollisionModel):
        t = model.tree
        self.box = [tuple(r) for r in t.box.reshape(-1, 6).tolist()]
        self.child = [tuple(c) for c in t.child.tolist()]
        self.leaf = t.leaf.tolist()
        ids = t.slot_tri.tolist()
        tris = list(map(tuple, np.concatenate([t.v0, t.e1, t.e2], axis=1).tolist()))
        for s in np.flatnonzero(t.slot_tri < 0).tolist():
            tris[s] = None
        self.tris = tris
        self.ids = ids


def _box_scalar(b, ox, oy, oz, ix, iy, iz, limit):
    """Slab test of one ray against one box ``(x0, y0, z0, x1, y1, z1)``; entry distance or -1.

    Deliberately unrolled per axis on Python floats: the single-ray walker calls
    it for every box it visits, and a loop or a numpy call per box costs several
    times more.  Its batched twin is ``raycast.ray_boxes_cm``; the single and the
    batched casts are tested against each other and against brute force.
    """
    t1 = (b[0] - ox) * ix
    t2 = (b[3] - ox) * ix
    if t1 > t2:
        t1, t2 = t2, t1
    s1 = (b[1] - oy) * iy
    s2 = (b[4] - oy) * iy
    if s1 > s2:
        s1, s2 = s2, s1
    if s1 > t1:
        t1 = s1
    if s2 < t2:
        t2 = s2
    s1 = (b[2] - oz) * iz
    s2 = (b[5] - oz) * iz
    if s1 > s2:
        s1, s2 = s2, s1
    if s1 > t1:
        t1 = s1
    if s2 < t2:
        t2 = s2
    if t1 < 0.0:
        t1 = 0.0
    if t2 > limit:
        t2 = limit
    return t1 if t1 <= t2 else -1.0


def _inv(c: float) -> float:
    """Scalar twin of :func:`raycast.inverse_directions` for one direction component."""
    return 1.0 / c if abs(c) >= 1.0 / INV_DIR_HUGE else math.copysign(INV_DIR_HUGE, c)


class Scene:
    """C1, C6–C9: collision models in an x–z quadtree, each with its own AABB tree.

    Build with :meth:`Scene.build` (or :func:`~game.collision.scene_file.load_scene`).
    """

    def __init__(self, models: Sequence[CollisionModel], quadtree: QuadTree):
        self._models = list(models)
        self._qt = quadtree
        self._pack_cache: _Pack | None = None
        self._scalar: list[_ScalarModel | None] = [None] * len(self._models)
        # per model, for the scalar walker's root-box and level checks (no tree needed)
        self._roots = [tuple(m.root_box.reshape(6).tolist()) for m in self._models]
        self._levels = [m.level for m in self._models]
        self._stale: set[int] = set()   # models replaced since the packed arrays were built
        self._stats = QueryStats()
        self._qcache = None  # (QuadArrays, (6, q) node boxes, python list of node boxes)

    # ---- construction ------------------------------------------------------
    @staticmethod
    def _root_rect(models: Sequence[CollisionModel]):
        if not models:
            return (-1.0, -1.0, 1.0, 1.0)
        r = np.array([m.rect_xz() for m in models])
        return float(r[:, 0].min()), float(r[:, 1].min()), float(r[:, 2].max()), float(r[:, 3].max())

    @classmethod
    def build(cls, models: Sequence[CollisionModel], leaf_capacity: int = 8, max_depth: int = 6) -> "Scene":
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
    def stats(self) -> QueryStats:
        """Visit counters of the last query (nodes = quadtree rects + tree boxes tested)."""
        return self._stats

    def quadtree_cells(self) -> tuple[np.ndarray, np.ndarray]:
        """Debug overlay: ``(rects (k, 2, 2) [[xmin, zmin], [xmax, zmax]] float, depth (k,) int)``."""
        return self._qt.cells()

    def __len__(self) -> int:
        return len(self._models)

    def copy(self) -> "Scene":
        """An independent scene (e.g. one per match): ``update_model`` on the copy leaves this one unchanged.

        Collision models are immutable and shared; the quadtree is copied; the
        packed arrays (patched in place by ``update_model``) are rebuilt lazily.
        ``copy.deepcopy(scene)`` does the same.
        """
        other = Scene(self._models, self._qt.copy())
        other._scalar = list(self._scalar)
        other._qcache = self._qcache
        return other

    def __deepcopy__(self, memo) -> "Scene":
        return self.copy()

    # ---- dynamic geometry ----------------------------------------------------
    def _model_index(self, index) -> int:
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise TypeError(f"index: expected an int model index, got {index!r}")
        if not 0 <= index < len(self._models):
            raise IndexError(f"index: model {index} out of range 0..{len(self._models) - 1}")
        return int(index)

    def update_model(self, index: int, triangles=None, transform=None, level=None) -> CollisionModel:
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

    def _patch_pack(self, index: int, new: CollisionModel) -> None:
        """Overwrite model ``index``'s slice of the packed arrays if its tree kept its shape."""
        p = self._pack_cache
        if p is None:
            return
        a, b = int(p.node_off[index]), int(p.node_off[index + 1])
        sa, sb = int(p.slot_off[index]), int(p.slot_off[index + 1])
        t = new.tree
        if t.node_count != b - a or t.slot_tri.size != sb - sa:
            self._pack_cache = None  # shape changed: repack lazily on the next batched cast
            return
        box, child, leaf, tri, key = _tree_parts(t, index, a, sa)
        p.box[:, a:b] = box
        p.child[a:b] = child
        cb, ci = _child_blocks(p.box, child)
        p.cbox[:, :, a:b] = cb
        p.cidx[:, a:b] = ci
        p.leaf[a:b] = leaf
        p.tri[:, sa:sb] = tri
        p.key[sa:sb] = key
        p.level[index] = new.level

    def _quad_boxes(self):
        """Quadtree nodes as 3D boxes: the node's x–z rect times the y range of the models under it.

        C1 places models by their x–z rect only; the y range is derived data that
        lets a walker skip a node a ray passes above or below.  Empty nodes get
        an unreachable box.  Returns ``(QuadArrays, box, boxes, fast, cbox, cidx)``:

        * ``box`` : (6, q) float rows ``xmin, ymin, zmin, xmax, ymax, zmax``;
          ``boxes`` the same as a list of 6-tuples (scalar walker);
        * ``fast[n]`` (inner nodes, None for leaves) is ``(x0, xm, x1, z0, zm, z1,
          k0, y0, y1, ... k3, y0, y1)``: the split lines shared by the four quadrant
          children, so the scalar walker tests all four with 6 + 8 products instead of 24;
        * ``cbox`` : (6, 4, q) float and ``cidx`` : (4, q) int64, each node's four
          children side by side (:func:`_child_blocks`, batched walker).
        """
        qa = self._qt.arrays()
        c = self._qcache
        if c is not None and c[0] is qa:
            return c
        q = qa.rect.shape[0]
        y0 = np.full(q, np.inf)
        y1 = np.full(q, -np.inf)
        if self._models and qa.leaf_models.size:
            my = np.array([m.root_box[:, 1] for m in self._models])
            nz = np.flatnonzero(qa.leaf_count > 0)
            y0[nz] = np.minimum.reduceat(my[qa.leaf_models, 0], qa.leaf_start[nz])
            y1[nz] = np.maximum.reduceat(my[qa.leaf_models, 1], qa.leaf_start[nz])
        inner = qa.child[:, 0] >= 0
        for depth in range(int(qa.depth.max()) - 1, -1, -1):
            nodes = np.flatnonzero(inner & (qa.depth == depth))
            if nodes.size:
                y0[nodes] = y0[qa.child[nodes]].min(axis=1)
                y1[nodes] = y1[qa.child[nodes]].max(axis=1)
        empty = y0 > y1
        y0[empty] = INV_DIR_HUGE  # unreachable: entry distance beyond any finite ray
        y1[empty] = INV_DIR_HUGE
        r = qa.rect.reshape(q, 4)
        box = np.stack([r[:, 0], y0, r[:, 1], r[:, 2], y1, r[:, 3]])
        rl = r.tolist()
        yl0, yl1 = y0.tolist(), y1.tolist()
        fast = []
        for n, kids in enumerate(qa.child.tolist()):
            if kids[0] < 0:
                fast.append(None)
                continue
            x0, z0, x1, z1 = rl[n]
            xm, zm = rl[kids[0]][2], rl[kids[0]][3]
            f = [x0, xm, x1, z0, zm, z1]
            for k in kids:
                f += [k, yl0[k], yl1[k]]
            fast.append(tuple(f))
        cbox, cidx = _child_blocks(box, qa.child)  # (6, 4, q) the four children's boxes per node, (4, q)
        self._qcache = (qa, box, [tuple(b) for b in box.T.tolist()], fast, cbox, cidx)
        return self._qcache

    def _get_pack(self) -> _Pack:
        if self._stale:
            stale, self._stale = sorted(self._stale), set()
            for index in stale:
                self._patch_pack(index, self._models[index])
        if self._pack_cache is None:
            self._pack_cache = _pack(self._models)
        return self._pack_cache

    def _get_scalar(self, m: int) -> _ScalarModel:
        s = self._scalar[m]
        if s is None:
            s = self._scalar[m] = _ScalarModel(self._models[m])
        return s

    # ---- argument checks -----------------------------------------------------
    @staticmethod
    def _check_common(max_distance, level):
        try:
            md = float(max_distance)
        except (TypeError, ValueError):
            md = math.nan
        if not md >= 0.0:
            raise ValueError(f"max_distance: must be a number >= 0, got {max_distance!r}")
        if level is not None and (isinstance(level, bool) or not isinstance(level, (int, np.integer))
                                  or int(level) not in _LEVELS):
            raise ValueError(f"level: must be None (every model) or a logic level 0 (low), 1 (medium) "
                             f"or 2 (high), got {level!r}")
        return md, (None if level is None else int(level))

    @staticmethod
    def _one_ray(origin, direction):
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
        dx, dy, dz = dx / m, dy / m, dz / m  # same normalisation as raycast.normalize_rays
        n = math.sqrt(dx * dx + dy * dy + dz * dz)
        return ox, oy, oz, dx / n, dy / n, dz / n

    # ---- single ray (scalar walker) --------------------------------------------
    def cast_nearest(self, origin, direction, max_distance: float, level: int | None = None) -> RayHit | None:
        """C6, C7 (client): nearest hit of one ray within ``max_distance``, or None.

        Only models with ``level is None or model.level > level`` are hit (C9).  ``level``
        is None or a logic level 0, 1 or 2 (every cast checks it; anything else is a ValueError).
        """
        md, lv = self._check_common(max_distance, level)
        ray = self._one_ray(origin, direction)
        found = self._walk_one(ray, md, lv, nearest=True)
        if found is None:
            return None
        t, key = found
        m, tri = key >> 32, key & 0xFFFFFFFF
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

    def cast_nearest_distance(self, origin, direction, max_distance: float, level: int | None = None) -> float | None:
        """C6, C7: only the distance of :meth:`cast_nearest`'s hit along the unit direction, or None.

        For callers that need no more (a ground probe, the camera), it skips building the
        :class:`RayHit` (its point, model, triangle and normal).
        """
        md, lv = self._check_common(max_distance, level)
        found = self._walk_one(self._one_ray(origin, direction), md, lv, nearest=True)
        return None if found is None else found[0]

    def cast_any(self, origin, direction, max_distance: float, level: int | None = None) -> bool:
        """C6, C8 (server): True as soon as one triangle is hit within ``max_distance`` (C9 levels apply)."""
        md, lv = self._check_common(max_distance, level)
        ray = self._one_ray(origin, direction)
        return self._walk_one(ray, md, lv, nearest=False) is not None

    def _walk_one(self, ray, md: float, lv, nearest: bool):
        """Scalar walker, front to back (C6): quadtree nodes → leaves → models' root boxes → AABB trees → triangles.

        Quadtree children are visited nearest entry first; a leaf's models are
        walked as soon as the leaf is reached, so the nearest policy stops as soon
        as the next node starts beyond the best hit, and the any policy at the
        first hit.  Returns ``(distance, model << 32 | triangle)`` or None.
        """
        ox, oy, oz, dx, dy, dz = ray
        ix, iy, iz = _inv(dx), _inv(dy), _inv(dz)
        _, _, qboxes, qfast, _, _ = self._quad_boxes()
        models_of = self._qt.models
        scal = self._scalar
        roots, levels = self._roots, self._levels
        box_test = _box_scalar
        tri_test = ray_triangle_scalar
        nodes = 1
        tris_tested = 0
        best = md
        best_key = -1
        seen: set[int] = set()
        t0 = box_test(qboxes[0], ox, oy, oz, ix, iy, iz, md)
        qstack = [(t0, 0)] if t0 >= 0.0 else []
        while qstack:
            tq, n = qstack.pop()
            if tq > best:
                continue
            f = qfast[n]
            if f is not None:
                # four quadrant children at once: shared x and z split lines (Jolt-style node step)
                nodes += 4
                x0, xm, x1, z0, zm, z1, k0, a0, b0, k1, a1, b1, k2, a2, b2, k3, a3, b3 = f
                p = (x0 - ox) * ix
                q = (xm - ox) * ix
                w = (x1 - ox) * ix
                lxa, lxb = (p, q) if p < q else (q, p)
                hxa, hxb = (q, w) if q < w else (w, q)
                p = (z0 - oz) * iz
                q = (zm - oz) * iz
                w = (z1 - oz) * iz
                lza, lzb = (p, q) if p < q else (q, p)
                hza, hzb = (q, w) if q < w else (w, q)
                lo_l = lxa if lxa > 0.0 else 0.0
                lo_h = hxa if hxa > 0.0 else 0.0
                hi_l = lxb if lxb < best else best
                hi_h = hxb if hxb < best else best
                hits = []
                for k, ya, yb, lo, hi, za, zb in ((k0, a0, b0, lo_l, hi_l, lza, lzb), (k1, a1, b1, lo_h, hi_h, lza, lzb),
                                                  (k2, a2, b2, lo_l, hi_l, hza, hzb), (k3, a3, b3, lo_h, hi_h, hza, hzb)):
                    if za > lo:
                        lo = za
                    if zb < hi:
                        hi = zb
                    if lo > hi:
                        continue
                    p = (ya - oy) * iy
                    q = (yb - oy) * iy
                    if p > q:
                        p, q = q, p
                    if p > lo:
                        lo = p
                    if q < hi:
                        hi = q
                    if lo <= hi:
                        hits.append((lo, k))
                if hits:
                    if len(hits) > 1:
                        hits.sort(reverse=True)  # nearest child on top of the stack
                    qstack.extend(hits)
                continue
            order = []
            for m in models_of[n]:
                if m in seen:
                    continue
                seen.add(m)
                if lv is not None and levels[m] <= lv:
                    continue
                nodes += 1
                tn = box_test(roots[m], ox, oy, oz, ix, iy, iz, best)
                if tn >= 0.0:
                    order.append((tn, m))
            if nearest and len(order) > 1:
                order.sort()
            for tn, m in order:
                if tn > best:
                    break
                sm = scal[m] or self._get_scalar(m)
                box, child, leaf, tris, ids = sm.box, sm.child, sm.leaf, sm.tris, sm.ids
                stack = [(tn, 0)]
                while stack:
                    tn, n = stack.pop()
                    if tn > best:
                        continue
                    lf = leaf[n]
                    if lf >= 0:
                        base = lf * LEAF_SIZE
                        for s in range(base, base + LEAF_SIZE):
                            tri = tris[s]
                            if tri is None:
                                break
                            tris_tested += 1
                            t = tri_test(ox, oy, oz, dx, dy, dz, tri, best)
                            if t != math.inf:
                                key = (m << 32) | ids[s]
                                if not nearest:
                                    self._stats = QueryStats(1, nodes, tris_tested)
                                    return t, key
                                if t < best or best_key < 0 or key < best_key:
                                    best, best_key = t, key
                        continue
                    a, b = child[n]
                    nodes += 2
                    ta = box_test(box[a], ox, oy, oz, ix, iy, iz, best)
                    tb = box_test(box[b], ox, oy, oz, ix, iy, iz, best)
                    if ta >= 0.0:
                        if tb >= 0.0:
                            if ta <= tb:  # near child on top of the stack
                                stack.append((tb, b))
                                stack.append((ta, a))
                            else:
                                stack.append((ta, a))
                                stack.append((tb, b))
                        else:
                            stack.append((ta, a))
                    elif tb >= 0.0:
                        stack.append((tb, b))
        self._stats = QueryStats(1, nodes, tris_tested)
        return (best, best_key) if best_key >= 0 else None

    # ---- batched rays (frontier walker) ----------------------------------------------
    def cast_nearest_many(self, origins, directions, max_distance: float, level: int | None = None) -> RayHits:
        """C6, C7 for many rays at once, vectorised across rays.

        origins, directions : (n, 3) float.  Returns :class:`RayHits` with
        ``distance`` (n,) float (inf = miss), ``model`` (n,) int64 and
        ``triangle`` (n,) int64 (-1 = miss).  Same answers as :meth:`cast_nearest`.
        """
        md, lv = self._check_common(max_distance, level)
        o, d = normalize_rays(origins, directions)
        return self._walk_many(o, d, md, lv, nearest=True)

    def cast_any_many(self, origins, directions, max_distance: float, level: int | None = None) -> np.ndarray:
        """C6, C8 for many rays at once: (n,) bool, a ray leaves the walk at its first hit."""
        md, lv = self._check_common(max_distance, level)
        o, d = normalize_rays(origins, directions)
        return self._walk_many(o, d, md, lv, nearest=False)

    def _candidates(self, RAY, md, lv):
        """Quadtree stage (C1, C6): unique (ray, model) pairs whose leaf nodes the ray reaches.

        ``RAY`` : (6, n) rows ``o.xyz, inv.xyz``.  A frontier of (ray, node)
        pairs; each inner node tests its four children in one step (Jolt style).
        Gathers use ``np.take`` / ``np.compress`` (several times faster than
        fancy indexing on these shapes).
        """
        qa, qbox, _, _, qcbox, qcidx = self._quad_boxes()
        qleaf = qa.child[:, 0] < 0
        n_models = len(self._models)
        n_rays = RAY.shape[1]
        r = np.flatnonzero(ray_boxes_cm(RAY[:3], RAY[3:], qbox[:, :1], md)[0])
        nd = np.zeros(r.size, dtype=np.int64)
        tested = n_rays
        out_r, out_m = [], []
        while r.size:
            leafm = np.take(qleaf, nd)
            if leafm.any():
                lr, ln = np.compress(leafm, r), np.compress(leafm, nd)
                cnt = np.take(qa.leaf_count, ln)
                tot = int(cnt.sum())
                if tot:
                    ends = np.cumsum(cnt)
                    idx = np.arange(tot) + np.repeat(np.take(qa.leaf_start, ln) - (ends - cnt), cnt)
                    out_r.append(np.repeat(lr, cnt))
                    out_m.append(np.take(qa.leaf_models, idx))
                inner = ~leafm
                r, nd = np.compress(inner, r), np.compress(inner, nd)
            if not r.size:
                break
            g = np.take(RAY, r, axis=1)[:, None, :]  # (6, 1, p): broadcast over the four children
            hit = ray_boxes_cm(g[:3], g[3:], np.take(qcbox, nd, axis=2), md)[0].ravel()  # (4 * p,)
            tested += hit.size
            nd = np.compress(hit, np.take(qcidx, nd, axis=1).ravel())
            r = np.compress(hit, np.tile(r, 4))
        if not out_r:
            e = np.zeros(0, dtype=np.int64)
            return e, e, tested
        key = np.concatenate(out_r) * n_models + np.concatenate(out_m)
        space = n_rays * n_models
        if space <= 64 * key.size + (1 << 16):  # dense: a bitmap is cheaper than sorting
            mark = np.zeros(space, dtype=bool)
            mark[key] = True
            key = np.flatnonzero(mark)
        else:
            key = np.sort(key)
            key = key[np.concatenate(([True], key[1:] != key[:-1]))]
        cr, cm = np.divmod(key, n_models)
        if lv is not None:
            ok = np.take(self._get_pack().level, cm) > lv  # C9
            cr, cm = np.compress(ok, cr), np.compress(ok, cm)
        return cr, cm, tested

    def _walk_many(self, o, d, md, lv, nearest: bool):
        """Batched walker: frontier of (ray, node) pairs over all models' packed trees.

        Policy nearest: a pair survives only if its box entry distance is within
        the ray's best hit so far (updated with ``np.minimum.at``); ties keep the
        lowest (model, triangle).  Policy any: a ray leaves the frontier at its
        first triangle hit.
        """
        n_rays = o.shape[0]
        p = self._get_pack()
        if nearest:
            best = np.full(n_rays, md)
            best_key = np.full(n_rays, _NO_KEY, dtype=np.int64)
        else:
            done = np.zeros(n_rays, dtype=bool)
        if not self._models or n_rays == 0:
            self._stats = QueryStats(n_rays, 0, 0)
            if nearest:
                return RayHits(np.full(n_rays, np.inf), np.full(n_rays, -1, np.int64), np.full(n_rays, -1, np.int64))
            return done
        RAY = np.ascontiguousarray(np.concatenate([o, inverse_directions(d)], axis=1).T)  # o, inv
        RAYD = np.ascontiguousarray(np.concatenate([o, d], axis=1).T)  # o, d
        r, m, tested = self._candidates(RAY, md, lv)
        nd = np.take(p.node_off, m)
        g = np.take(RAY, r, axis=1)
        hit, tn = ray_boxes_cm(g[:3], g[3:], np.take(p.box, nd, axis=1), md)
        tested += hit.size
        r, nd, tn = np.compress(hit, r), np.compress(hit, nd), np.compress(hit, tn)
        tri_tested = 0
        hits_r, hits_t, hits_k = [], [], []
        lanes = np.arange(LEAF_SIZE)
        while r.size:
            if nearest:
                keep = tn <= np.take(best, r)
                if not keep.all():
                    r, nd = np.compress(keep, r), np.compress(keep, nd)
            lf = np.take(p.leaf, nd)
            isleaf = lf >= 0
            if isleaf.any():
                slots = (np.compress(isleaf, lf)[:, None] * LEAF_SIZE + lanes).ravel()
                rr = np.repeat(np.compress(isleaf, r), LEAF_SIZE)
                g = np.take(RAYD, rr, axis=1)
                t = ray_triangles_cm(g[:3], g[3:], np.take(p.tri, slots, axis=1),
                                     np.take(best, rr) if nearest else md)
                tri_tested += slots.size
                h = np.flatnonzero(t != np.inf)
                if h.size:
                    hr = np.take(rr, h)
                    if nearest:
                        ht = np.take(t, h)
                        np.minimum.at(best, hr, ht)
                        hits_r.append(hr)
                        hits_t.append(ht)
                        hits_k.append(np.take(p.key, np.take(slots, h)))
                    else:
                        done[hr] = True
                inner = ~isleaf
                if not nearest and h.size:
                    inner &= ~np.take(done, r)
                r, nd = np.compress(inner, r), np.compress(inner, nd)
                if not r.size:
                    break
            g = np.take(RAY, r, axis=1)[:, None, :]  # (6, 1, p): broadcast over both children
            hit, tnk = ray_boxes_cm(g[:3], g[3:], np.take(p.cbox, nd, axis=2),
                                    np.take(best, r) if nearest else md)  # (2, p)
            tested += hit.size
            hit = hit.ravel()
            nd = np.compress(hit, np.take(p.cidx, nd, axis=1).ravel())
            r = np.compress(hit, np.tile(r, 2))
            tn = np.compress(hit, tnk.ravel())
        self._stats = QueryStats(n_rays, int(tested), int(tri_tested))
        if not nearest:
            return done
        if hits_r:
            hr = np.concatenate(hits_r)
            ht = np.concatenate(hits_t)
            hk = np.concatenate(hits_k)
            sel = ht == np.take(best, hr)
            np.minimum.at(best_key, np.compress(sel, hr), np.compress(sel, hk))
        miss = best_key == _NO_KEY
        dist = np.where(miss, np.inf, best)
        model = np.where(miss, -1, best_key >> 32)
        tri = np.where(miss, -1, best_key & 0xFFFFFFFF)
        return RayHits(dist, model, tri)
