"""Method B faces: axis-aligned quads as :class:`Face` and :class:`FaceSet`, and how they are built.

A compound's faces are quads on axis planes ``x[axis] = plane`` (B6: each keeps its vertex
data).  :class:`Quads` is their compact form (axis, sign, plane, extent on the two other
axes), what the strike and the boundary extraction produce; :func:`quads` turns it into
vertex data wound counter-clockwise seen from the side the normal points to.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .layout import CYCLIC, OUTER, readonly

__all__ = ["Face", "FaceSet", "Triangles", "Quads", "quads", "axis_normals", "face_tuple", "outer_quads", "face_set",
           "empty_face_set"]


class Face(NamedTuple):
    """One axis-aligned quad."""

    vertices: np.ndarray    # (4, 3) float, counter-clockwise seen from the side the normal points to
    normal: np.ndarray      # (3,) float, unit, along an axis
    kind: int               # FaceKind: OUTER, FILL or INNER

    @property
    def area(self) -> float:
        v = self.vertices
        return float(np.linalg.norm(np.cross(v[1] - v[0], v[3] - v[0])))

    @property
    def center(self) -> np.ndarray:
        """(3,) float, the mean of the four vertices."""
        return self.vertices.mean(axis=0)


class Triangles(NamedTuple):
    """Faces as two triangles per quad, same winding (for the renderer and method C)."""

    triangles: np.ndarray   # (2F, 3, 3) float
    normals: np.ndarray     # (2F, 3) float, unit
    kinds: np.ndarray       # (2F,) int8, FaceKind


class FaceSet(NamedTuple):
    """All faces of a compound as parallel arrays (read-only)."""

    vertices: np.ndarray    # (F, 4, 3) float, each quad counter-clockwise seen from outside
    normals: np.ndarray     # (F, 3) float, unit outward normals
    kinds: np.ndarray       # (F,) int8, FaceKind: OUTER / FILL / INNER
    box_index: np.ndarray   # (F,) int64, the small box whose side the face is

    @property
    def count(self) -> int:  # type: ignore[override]  # tuple.count(value) is shadowed: F, the number of faces
        return int(self.kinds.shape[0])

    def face(self, i: int) -> Face:
        return Face(self.vertices[i], self.normals[i], int(self.kinds[i]))

    def areas(self) -> np.ndarray:
        """(F,) float areas."""
        v = self.vertices
        return np.linalg.norm(np.cross(v[:, 1] - v[:, 0], v[:, 3] - v[:, 0]), axis=-1)

    def triangles(self) -> Triangles:
        """Two triangles per quad, same winding as the quads (:class:`Triangles`)."""
        v = self.vertices
        tri = np.stack((v[:, [0, 1, 2]], v[:, [0, 2, 3]]), axis=1).reshape(-1, 3, 3)
        return Triangles(tri, np.repeat(self.normals, 2, axis=0), np.repeat(self.kinds, 2))


def quads(axis: np.ndarray, sign: np.ndarray, plane: np.ndarray, rect: np.ndarray) -> np.ndarray:
    """Quads on planes ``x[axis] = plane`` covering ``rect``.

    axis : (n,) int, sign : (n,) float (+1 / -1 = normal along +axis / -axis), plane : (n,) float.
    rect : (n, 2, 3) float box whose extent on the two other axes is the quad
        (its extent on ``axis`` is ignored).
    Returns (n, 4, 3) float vertices, counter-clockwise seen from the normal.
    """
    n = axis.shape[0]
    out = np.empty((n, 4, 3))
    if n == 0:
        return out
    cyc = np.asarray(CYCLIC)[axis]  # (n, 2): v, w
    rows = np.arange(n)
    v0 = rect[rows, 0, cyc[:, 0]]
    v1 = rect[rows, 1, cyc[:, 0]]
    w0 = rect[rows, 0, cyc[:, 1]]
    w1 = rect[rows, 1, cyc[:, 1]]
    pos = sign > 0
    # + normal: (v0,w0) (v1,w0) (v1,w1) (v0,w1); - normal: reversed order.
    vs = np.where(pos[:, None], np.stack((v0, v1, v1, v0), 1), np.stack((v0, v0, v1, v1), 1))
    ws = np.where(pos[:, None], np.stack((w0, w0, w1, w1), 1), np.stack((w0, w1, w1, w0), 1))
    out[rows[:, None], np.arange(4)[None, :], axis[:, None]] = plane[:, None]
    out[rows[:, None], np.arange(4)[None, :], cyc[:, 0][:, None]] = vs
    out[rows[:, None], np.arange(4)[None, :], cyc[:, 1][:, None]] = ws
    return out


def axis_normals(axis: np.ndarray, sign: np.ndarray) -> np.ndarray:
    """(n, 3) float unit normals along ``axis`` (n,) int with ``sign`` (n,) float +1 / -1."""
    nrm = np.zeros((axis.shape[0], 3))
    nrm[np.arange(axis.shape[0]), axis] = sign
    return nrm


def face_tuple(axis: np.ndarray, sign: np.ndarray, plane: np.ndarray, rect: np.ndarray,
               kind: int) -> tuple[Face, ...]:
    """:class:`Face` s of one kind from quad parameters (see :func:`quads`), read-only."""
    axis = np.asarray(axis, dtype=np.int64)
    sign = np.asarray(sign, dtype=float)
    verts = quads(axis, sign, np.asarray(plane, dtype=float), np.asarray(rect, dtype=float).reshape(-1, 2, 3))
    nrm = axis_normals(axis, sign)
    for arr in (verts, nrm):
        arr.flags.writeable = False
    return tuple(Face(verts[i], nrm[i], kind) for i in range(axis.shape[0]))


class Quads(NamedTuple):
    """Compact face data: quads on planes ``x[axis] = plane``, extent ``rect`` on the other axes."""

    axis: np.ndarray    # (n,) int64, the plane's axis
    sign: np.ndarray    # (n,) float, +1 / -1: the normal along +axis / -axis
    plane: np.ndarray   # (n,) float, the plane's coordinate
    rect: np.ndarray    # (n, 2, 3) float, the quad's extent on the two other axes
    kind: int           # FaceKind of every quad

    def faces(self) -> tuple[Face, ...]:
        return face_tuple(self.axis, self.sign, self.plane, self.rect, self.kind)


def outer_quads(slabs: np.ndarray, lay: np.ndarray, rect: np.ndarray) -> Quads:
    """Quads of ``rect`` (n, 2, 3) float on the outer plane of their layers ``lay`` (n,) int64,
    with ``slabs`` (6, 2, 3) float the compound's wall slabs."""
    axis = lay // 2
    side = lay % 2
    return Quads(axis, np.where(side == 1, 1.0, -1.0), slabs[lay, side, axis], rect, OUTER)


def empty_face_set() -> FaceSet:
    """A read-only :class:`FaceSet` with no faces."""
    return FaceSet(readonly(np.zeros((0, 4, 3))), readonly(np.zeros((0, 3))),
                   readonly(np.zeros(0, np.int8)), readonly(np.zeros(0, np.int64)))


def face_set(axes: list[np.ndarray], signs: list[np.ndarray], planes: list[np.ndarray], rects: list[np.ndarray],
             kinds: list[np.ndarray], owners: list[np.ndarray]) -> FaceSet:
    """A read-only :class:`FaceSet` from per-batch lists of face parameters (see :func:`quads`):
    each list holds one array per batch, the batches in order."""
    if not axes:
        return empty_face_set()
    axis = np.concatenate(axes).astype(np.int64)
    sign = np.concatenate(signs)
    verts = quads(axis, sign, np.concatenate(planes), np.concatenate(rects))
    return FaceSet(readonly(verts), readonly(axis_normals(axis, sign)),
                   readonly(np.concatenate(kinds).astype(np.int8)),
                   readonly(np.concatenate(owners).astype(np.int64)))
