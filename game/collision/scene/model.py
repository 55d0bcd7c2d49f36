"""Method C, C2 and C9: a collision model (triangle mesh, logic level, transform, AABB, AABB tree).

Transform convention: pyrr's **row-vector** convention.  A local point ``p`` maps to
``[p, 1] @ transform``; the translation is ``transform[3, :3]`` and the last column must be
``(0, 0, 0, 1)`` (affine).  ``pyrr.Matrix44.from_translation`` and friends produce matrices
in this convention.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, Callable

import numpy as np

from ..aabb_tree import AABBTree, build_aabb_tree, pad_box_floats, pad_boxes
from ..range_box import box_triangles, range_box_of

__all__ = ["LogicLevel", "LEVEL_LOW", "LEVEL_MEDIUM", "LEVEL_HIGH", "LEVELS", "CollisionModel", "check_level",
           "finite_array"]


class LogicLevel(IntEnum):
    """C9 logic levels: a ray of one level hits only models of a higher level."""

    LOW = 0
    MEDIUM = 1
    HIGH = 2


LEVEL_LOW, LEVEL_MEDIUM, LEVEL_HIGH = LogicLevel.LOW, LogicLevel.MEDIUM, LogicLevel.HIGH
LEVELS = (0, 1, 2)
_IDENTITY = np.eye(4)


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def finite_array(make: Callable[..., np.ndarray], x: Any, name: str, n: str, tail: tuple[int, ...]) -> np.ndarray:
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


def check_level(level: Any) -> None:
    """C9: raise ValueError unless ``level`` is 0 (low), 1 (medium) or 2 (high)."""
    if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or int(level) not in LEVELS:
        raise ValueError(f"level: must be 0 (low), 1 (medium) or 2 (high), got {level!r}")


def _transform(transform: Any) -> np.ndarray:
    """The checked (4, 4) float affine row-vector matrix (identity for None), or ValueError."""
    try:
        m = np.eye(4) if transform is None else np.array(transform, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"transform: expected a (4, 4) matrix of numbers, got {transform!r:.80}") from None
    if m.shape != (4, 4) or not np.isfinite(m).all():
        raise ValueError(f"transform: expected a finite (4, 4) matrix, got shape {m.shape}")
    if not (np.array_equal(m[:3, 3], np.zeros(3)) and m[3, 3] == 1.0):
        raise ValueError("transform: must be affine in pyrr's row-vector convention "
                         "(last column 0, 0, 0, 1; translation in row 3)")
    return m


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

    def __init__(self, triangles: Any, level: int, transform: Any = None):
        tris = finite_array(np.array, triangles, "triangles", "t", (3, 3))
        check_level(level)
        m = _transform(transform)
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
    def from_boxes(cls, boxes: Any, level: int) -> CollisionModel:
        """B7 -> C2: the model of the surfaces of axis-aligned boxes ``(K, 2, 3)`` float, K >= 1,
        with the identity transform: their 12 triangles each (``range_box.box_triangles``).

        The same model as ``CollisionModel(box_triangles(boxes), level)``, attribute for
        attribute (a test holds them equal), built without what boxes make needless: every
        triangle corner is a box corner, so the AABB is the boxes' min / max, and finite boxes
        give finite triangles.  A struck crate's model is rebuilt this way on every strike.
        """
        b = finite_array(np.asarray, boxes, "boxes", "K", (2, 3))
        check_level(level)
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
