"""Method C: the scene quadtree on the x–z plane (C1).

Nodes live in flat lists indexed by int (Box2D v3 style, ``-1`` for none):
``rect[i] = [[xmin, zmin], [xmax, zmax]]``, ``depth[i]``, ``children[i]`` (four
node indices or ``None`` for a leaf) and ``models[i]`` (model indices; only
leaves hold models).  :meth:`QuadTree.arrays` compiles them to numpy arrays
for the ray walkers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple, Sequence

import numpy as np

__all__ = ["QuadTree", "QuadArrays", "QuadCells", "quadrants", "Rect"]

#: An x–z rect ``(xmin, zmin, xmax, zmax)``.
Rect = tuple[float, float, float, float]


@dataclass(frozen=True, eq=False)
class QuadArrays:
    """Compiled quadtree for the ray walkers.

    rect : (q, 2, 2) float64, ``[[xmin, zmin], [xmax, zmax]]`` per node.
    depth : (q,) int32.
    child : (q, 4) int64, ``-1`` for a leaf.
    leaf_start, leaf_count : (q,) int64, slice of ``leaf_models`` held by each node.
    leaf_models : (k,) int64, model indices of all leaves back to back.
    """

    rect: np.ndarray            # (q, 2, 2) float64 [[xmin, zmin], [xmax, zmax]]
    depth: np.ndarray           # (q,) int32
    child: np.ndarray           # (q, 4) int64, -1 for a leaf
    leaf_start: np.ndarray      # (q,) int64, first entry of the node's models in leaf_models
    leaf_count: np.ndarray      # (q,) int64, how many
    leaf_models: np.ndarray     # (k,) int64, model indices of all leaves back to back


class QuadCells(NamedTuple):
    """Every node's rect and depth (the debug overlay's quadtree cells), copies."""

    rects: np.ndarray   # (k, 2, 2) float [[xmin, zmin], [xmax, zmax]]
    depth: np.ndarray   # (k,) int32


def _overlap(a: Sequence[float], b: Sequence[float]) -> bool:
    """Closed overlap of two x–z rects ``(xmin, zmin, xmax, zmax)`` (touching counts, as A4)."""
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def _rect(x: Any, name: str) -> Rect:
    """``x`` as a finite x–z rect ``(xmin, zmin, xmax, zmax)`` with min <= max, or ValueError."""
    try:
        r = tuple(float(v) for v in x)
    except (TypeError, ValueError):
        r = ()
    if len(r) != 4 or not all(math.isfinite(v) for v in r) or r[0] > r[2] or r[1] > r[3]:
        raise ValueError(f"{name}: expected 4 finite numbers (xmin, zmin, xmax, zmax) with min <= max, got {x!r:.80}")
    return r[0], r[1], r[2], r[3]


def quadrants(rect: Sequence[float]) -> tuple[Rect, Rect, Rect, Rect]:
    """The four children of x–z rect ``(xmin, zmin, xmax, zmax)``, in child order (C1, C4).

    ``(-x, -z), (+x, -z), (-x, +z), (+x, +z)``, split at the midpoints.  The scene
    file loader checks stored child rects against exactly these values.
    """
    x0, z0, x1, z1 = rect
    xm, zm = 0.5 * (x0 + x1), 0.5 * (z0 + z1)
    return (x0, z0, xm, zm), (xm, z0, x1, zm), (x0, zm, xm, z1), (xm, zm, x1, z1)


class QuadTree:
    """C1 scene quadtree: models go into every leaf whose x–z rect their AABB overlaps.

    Parameters
    ----------
    root_rect : (xmin, zmin, xmax, zmax) floats
    leaf_capacity : int
        ``N``: a leaf holds at most N models before it splits...
    max_depth : int
        ...unless it is at this depth (the root has depth 0); then it keeps them.
    """

    def __init__(self, root_rect: Sequence[float], leaf_capacity: int = 8, max_depth: int = 6):
        if not isinstance(leaf_capacity, (int, np.integer)) or leaf_capacity < 1:
            raise ValueError(f"leaf_capacity: must be an int >= 1, got {leaf_capacity!r}")
        if not isinstance(max_depth, (int, np.integer)) or not 0 <= max_depth <= 16:
            raise ValueError(f"max_depth: must be an int in 0..16, got {max_depth!r}")
        root = _rect(root_rect, "root_rect")
        self.leaf_capacity = int(leaf_capacity)
        self.max_depth = int(max_depth)
        self.rect: list[Rect] = [root]
        self.depth: list[int] = [0]
        self.children: list[list[int] | None] = [None]
        self.models: list[list[int]] = [[]]
        self._where: dict[int, set[int]] = {}  # model -> nodes holding it
        self._model_rect: dict[int, Rect] = {}
        self._arrays: QuadArrays | None = None

    # ---- building -------------------------------------------------------
    @property
    def node_count(self) -> int:
        return len(self.rect)

    def insert(self, model: int, rect_xz: Sequence[float]) -> None:
        """C1: insert ``model`` whose AABB projects to ``rect_xz`` (xmin, zmin, xmax, zmax).

        Follows the patent's steps: A1 the root exists → A2 the AABB overlaps
        the node's x–z rect → A3 a leaf holding fewer than N models, or A4 the
        deepest level → A5 store the model index; otherwise A6–A10 visit the
        four children (splitting a full leaf first and pushing its models down).
        """
        r = _rect(rect_xz, "rect_xz")
        self._model_rect[model] = r
        self._where.setdefault(model, set())
        self._insert_from(model, r, 0)
        self._arrays = None

    def _insert_from(self, model: int, r: Rect, start: int) -> None:
        if not self.rect:  # A1: no root, nothing to do
            return
        stack = [start]
        while stack:
            n = stack.pop()
            if not _overlap(r, self.rect[n]):  # A2
                continue
            kids = self.children[n]
            if kids is None and (len(self.models[n]) < self.leaf_capacity  # A3
                                 or self.depth[n] >= self.max_depth):  # A4
                self.models[n].append(model)  # A5
                self._where[model].add(n)
                continue
            if kids is None:
                kids = self._split(n)
            stack.extend(reversed(kids))  # A6/A10: each child becomes the current node

    def _split(self, n: int) -> list[int]:
        """Give leaf ``n`` four children (quadrants) and push its models down (A6–A9)."""
        kids = []
        for q in quadrants(self.rect[n]):
            kids.append(len(self.rect))
            self.rect.append(q)
            self.depth.append(self.depth[n] + 1)
            self.children.append(None)
            self.models.append([])
        self.children[n] = kids
        old = self.models[n]
        self.models[n] = []
        for m in old:
            self._where[m].discard(n)
            for k in kids:
                self._insert_from(m, self._model_rect[m], k)
        return kids

    def remove(self, model: int) -> None:
        """Take ``model`` out of every node holding it (nodes are not merged back)."""
        for n in self._where.pop(model, ()):
            self.models[n].remove(model)
        self._model_rect.pop(model, None)
        self._arrays = None

    def copy(self) -> QuadTree:
        """An independent copy (node lists copied; the compiled arrays are immutable and shared)."""
        qt = QuadTree.__new__(QuadTree)
        qt.leaf_capacity, qt.max_depth = self.leaf_capacity, self.max_depth
        qt.rect = list(self.rect)
        qt.depth = list(self.depth)
        qt.children = [None if c is None else list(c) for c in self.children]
        qt.models = [list(m) for m in self.models]
        qt._where = {k: set(v) for k, v in self._where.items()}
        qt._model_rect = dict(self._model_rect)
        qt._arrays = self._arrays
        return qt

    def contains_rect(self, rect_xz: Sequence[float]) -> bool:
        """True iff ``rect_xz`` lies inside the root rect (so an insert reaches all of it)."""
        x0, z0, x1, z1 = self.rect[0]
        return x0 <= rect_xz[0] and z0 <= rect_xz[1] and rect_xz[2] <= x1 and rect_xz[3] <= z1

    # ---- from / to plain arrays (scene file, C4) ---------------------------
    @classmethod
    def from_nodes(cls, rects: Sequence[Sequence[float]], depths: Sequence[int],
                   children: Sequence[Sequence[int] | None], models: Sequence[Sequence[int]],
                   model_rects: Sequence[Sequence[float]], leaf_capacity: int, max_depth: int) -> QuadTree:
        """Rebuild a quadtree from node lists (C5: the file's quadtree is used as is)."""
        qt = cls(rects[0], leaf_capacity, max_depth)
        qt.rect = [(float(r[0]), float(r[1]), float(r[2]), float(r[3])) for r in rects]
        qt.depth = [int(d) for d in depths]
        qt.children = [None if c is None else [int(k) for k in c] for c in children]
        qt.models = [[int(m) for m in ms] for ms in models]
        qt._model_rect = {i: (float(r[0]), float(r[1]), float(r[2]), float(r[3])) for i, r in enumerate(model_rects)}
        qt._where = {i: set() for i in range(len(model_rects))}
        for n, ms in enumerate(qt.models):
            for m in ms:
                qt._where[m].add(n)
        return qt

    def arrays(self) -> QuadArrays:
        """Compile (and cache until the next change) the flat numpy form."""
        if self._arrays is None:
            q = len(self.rect)
            rect = np.asarray(self.rect, dtype=np.float64).reshape(q, 2, 2)
            child = np.full((q, 4), -1, dtype=np.int64)
            for i, kids in enumerate(self.children):
                if kids is not None:
                    child[i] = kids
            counts = np.array([len(m) for m in self.models], dtype=np.int64)
            start = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
            flat = np.fromiter((m for ms in self.models for m in ms), dtype=np.int64, count=int(counts.sum()))
            self._arrays = QuadArrays(rect, np.asarray(self.depth, dtype=np.int32), child, start, counts, flat)
        return self._arrays

    def cells(self) -> QuadCells:
        """Debug overlay: the :class:`QuadCells` of all nodes."""
        a = self.arrays()
        return QuadCells(a.rect.copy(), a.depth.copy())
