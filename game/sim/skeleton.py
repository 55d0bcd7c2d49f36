"""Forward kinematics of the fighters' bodies, batched over fighters.

Pure functions of plain arrays.  Frames follow ``assets/fighters.json``:
x forward, y up, z to the fighter's right; a pose is an ``(L, 3)`` array of
joint angles ``[ax, ay, az]`` in radians with ``R = Ry(ay) @ Rz(az) @ Rx(ax)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import numpy as np

from .trig import sin_cos, sin_cos_floats

#: The eight corner signs of a box, ``(8, 3)``.
CORNER_SIGNS = np.array(
    [[sx, sy, sz] for sx in (-1.0, 1.0) for sy in (-1.0, 1.0) for sz in (-1.0, 1.0)]
)


#: no angle's sine and cosine known beforehand
NONE_KNOWN: Mapping[float, tuple[float, float]] = MappingProxyType({})


def euler_matrices(angles: np.ndarray, known: Mapping[float, tuple[float, float]] = NONE_KNOWN) -> np.ndarray:
    """``Ry(ay) @ Rz(az) @ Rx(ax)`` for angles ``(..., 3)`` radians -> ``(..., 3, 3)``.

    Sines and cosines are :mod:`game.sim.trig`'s (the same bits on every machine).  One pose
    ``(L, 3)`` (a blend frame's, ``posing.pose``) takes :func:`_euler_one`, the same products
    and sums on Python floats: the same bits, cheaper than these two dozen numpy calls on
    11-element columns; its angles found in ``known`` (``GameData.table_sin_cos``) are looked
    up there."""
    if angles.ndim == 2 and angles.shape[1] == 3:
        return _euler_one(angles, known)
    s, c = sin_cos(angles)
    cx, cy, cz = c[..., 0], c[..., 1], c[..., 2]
    sx, sy, sz = s[..., 0], s[..., 1], s[..., 2]
    cysz = cy * sz
    sysz = sy * sz
    out = np.empty(angles.shape[:-1] + (3, 3))    # each entry written in place: no np.stack
    np.multiply(cy, cz, out=out[..., 0, 0])
    np.subtract(sy * sx, cysz * cx, out=out[..., 0, 1])
    np.add(cysz * sx, sy * cx, out=out[..., 0, 2])
    out[..., 1, 0] = sz
    np.multiply(cz, cx, out=out[..., 1, 1])
    np.multiply(-cz, sx, out=out[..., 1, 2])
    np.multiply(-sy, cz, out=out[..., 2, 0])
    np.add(sysz * cx, cy * sx, out=out[..., 2, 1])
    np.subtract(cy * cx, sysz * sx, out=out[..., 2, 2])
    return out


def _euler_one(angles: np.ndarray, known: Mapping[float, tuple[float, float]]) -> np.ndarray:
    """:func:`euler_matrices` of one pose ``(L, 3)``: the sines and cosines of
    :func:`~game.sim.trig.sin_cos_floats` (the same bits as ``sin_cos``), then each entry's
    products and sums in the same order on Python floats (IEEE double, each rounded on its own
    as numpy's elementwise ufuncs round it: the same bits, signed zeros included;
    ``tests/sim/test_skeleton.py`` holds the two paths equal)."""
    out: list[float] = []
    it = iter(sin_cos_floats(angles.ravel().tolist(), known))
    for (sx, cx), (sy, cy), (sz, cz) in zip(it, it, it):
        cysz = cy * sz
        sysz = sy * sz
        out += (cy * cz, sy * sx - cysz * cx, cysz * sx + sy * cx,
                sz, cz * cx, -cz * sx,
                -sy * cz, sysz * cx + cy * sx, cy * cx - sysz * sx)
    return np.array(out).reshape(angles.shape[0], 3, 3)


def _products(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``sum_k a[..., k, :] * b[..., k, :]`` over a leading axis of 4 (``(..., 4, m)`` ->
    ``(..., m)``): the entries of matrix products laid out k-major, summed
    ``((p0 + p1) + p2) + p3`` with every product and sum rounded on its own, so the same
    bits on every machine.

    ``np.matmul`` hands float64 stacks to BLAS, whose kernel is chosen at run time by the
    CPU (with or without FMA, other summation orders): its results, and so the range boxes
    and ``Match.state_hash()``, differed between machines (``OPENBLAS_CORETYPE=Sandybridge``
    shows it on this one), and a replay or a rollback peer on another CPU diverged at once.
    """
    p = a * b
    s = np.add(p[..., 0, :], p[..., 1, :], out=out)     # ``out``: where the sums go (no copy after)
    s += p[..., 2, :]
    s += p[..., 3, :]
    return s


class SkeletonError(ValueError):
    """A limb list that is not a tree listed root first and by depth.

    ``field`` (``"limbs[3].parent"``), ``expected``, ``got`` and ``fix`` say where and how;
    the data loader reports them as an ``AssetError`` of ``fighters.json``."""

    def __init__(self, field: str, expected: str, got: object, fix: str) -> None:
        super().__init__(f"{field}: expected {expected}, got {got!r}; {fix}")
        self.field, self.expected, self.got, self.fix = field, expected, got, fix


class Skeleton:
    """The static body description: limb hierarchy and solids (no per-frame state).

    Attributes
    ----------
    names : tuple[str, ...]
    parent : (L,) int, -1 for the root
    levels : list of ((k,) int limb indices, (k,) int parent indices), root level first
    joint : (L, 3) float, joint position in the parent frame
    corners : (L, 8, 3) float, the limb solid's corners in the limb frame
    center, half : (L, 3) float, the limb solid in the limb frame
    """

    def __init__(self, limbs: list[dict]):
        """``limbs``: dicts with ``name``, ``parent`` (a name, None for the root), ``joint``,
        ``center`` and ``half`` (3 numbers each), as in ``fighters.json`` (whose fields
        :func:`game.sim.data.load_game_data` checks first).  A list that is not a tree
        listed root first and by depth raises :class:`SkeletonError` naming the limb."""
        if not limbs:
            raise SkeletonError("limbs", "at least one limb", limbs, "list the root limb first")
        index: dict[str, int] = {}
        parent = []
        for i, spec in enumerate(limbs):
            name, p = spec["name"], spec["parent"]
            if name in index:
                raise SkeletonError(f"limbs[{i}].name", "a name no other limb has", name,
                                    "rename one of the two limbs")
            if i == 0 and p is not None:
                raise SkeletonError("limbs[0].parent", "null (the first limb is the root)", p,
                                    "list the root limb first, with parent null")
            if i > 0 and p not in index:
                raise SkeletonError(f"limbs[{i}].parent", f"the name of a limb listed before it ({', '.join(index)})",
                                    p, "only the first limb is the root; list every limb after its parent")
            index[name] = i
            parent.append(-1 if p is None else index[p])
        self.names = tuple(index)
        self.parent = np.array(parent)
        depth = np.zeros(len(limbs), dtype=int)
        for i, p in enumerate(self.parent):
            depth[i] = 0 if p < 0 else depth[p] + 1
            if i and depth[i] < depth[i - 1]:
                raise SkeletonError(f"limbs[{i}]", f"a limb of depth {depth[i - 1]} or more after "
                                    f"{self.names[i - 1]!r}", self.names[i],
                                    "list limbs by depth (the root, then its children, then theirs ...)")
        # Each depth level is a contiguous slice, so FK writes it in place.
        self.levels = [
            (slice(int(np.flatnonzero(depth == d)[0]), int(np.flatnonzero(depth == d)[-1]) + 1),
             self.parent[depth == d])
            for d in range(1, depth.max() + 1)
        ]
        self.joint = np.array([spec["joint"] for spec in limbs], dtype=float)
        self.center = np.array([spec["center"] for spec in limbs], dtype=float)
        self.half = np.array([spec["half"] for spec in limbs], dtype=float)
        self.corners = self.center[:, None, :] + self.half[:, None, :] * CORNER_SIGNS[None]
        n = len(limbs)
        # Each limb's local transform [R | joint; 0 0 0 1]: R is set per pose (body).
        self._local_h = np.zeros((n, 4, 4))
        self._local_h[:, :3, 3] = self.joint
        self._local_h[:, 3, 3] = 1.0
        # The twelve homogeneous vectors of a limb in its own frame, as columns: its three
        # axes (w = 0), its joint (the frame's origin) and the eight corners of its solid (w = 1).
        self._limb_vectors = np.zeros((n, 4, self.BODY_COLS))
        self._limb_vectors[:, :3, :3] = np.eye(3)
        self._limb_vectors[:, 3, 3:] = 1.0
        self._limb_vectors[:, :3, 4:] = self.corners.transpose(0, 2, 1)
        # Forward kinematics as gathers, products and sums (see _products): per depth level,
        # where each child's entries go in the flat (N, L * 16) transforms, and the index of
        # every parent entry a[i, k] and child entry b[k, j] of each product, k-major
        # (2, 4, l * 16); then the index of every t[l, i, k] and the matching vector entry
        # v[l, k, r] for the twelve vectors of every limb, k-major (4, 12 * L * 4).
        e = np.arange(4)
        self._fk_levels: list[tuple[slice, np.ndarray]] = []
        for sl, par in self.levels:
            kids = np.arange(sl.start, sl.stop)
            ia = par[None, :, None, None] * 16 + e[None, None, :, None] * 4 + e[:, None, None, None]
            ib = kids[None, :, None, None] * 16 + e[:, None, None, None] * 4 + e[None, None, None, :]
            ia, ib = np.broadcast_arrays(ia, ib)                   # (4k, l, 4i, 4j) each
            self._fk_levels.append((slice(sl.start * 16, sl.stop * 16), np.stack([ia, ib]).reshape(2, 4, -1)))
        limb = np.arange(n)
        ti = limb[None, None, :, None] * 16 + e[None, None, None, :] * 4 + e[:, None, None, None]   # (4k, 1, L, 4i)
        self._fk_take = np.broadcast_to(ti, (4, self.BODY_COLS, n, 4)).reshape(4, -1)
        vc = self._limb_vectors.transpose(1, 2, 0)[:, :, :, None]                                  # (4k, 12, L, 1)
        self._fk_vectors = np.broadcast_to(vc, (4, self.BODY_COLS, n, 4)).reshape(4, -1).copy()

    #: Vectors per limb in a body-frame FK row (:meth:`body`): 3 axes, 1 joint origin, 8 corners.
    BODY_COLS = 12

    def freeze(self) -> None:
        """Make every array of the skeleton read-only: it is shared by every match of the
        process (``load_game_data`` caches it), so no tool may write into one."""
        arrays = [v for v in vars(self).values() if isinstance(v, np.ndarray)]
        arrays += [a for lv in (self.levels, self._fk_levels) for _, a in lv]
        for a in arrays:
            a.flags.writeable = False

    def body(self, local: np.ndarray) -> np.ndarray:
        """Forward kinematics in the body's own frame (facing +x, root joint at its rest place).

        Parameters
        ----------
        local : (..., L, 3, 3) float
            Joint rotations in the parent frame, ``euler_matrices(angles)``.

        Returns
        -------
        (..., 12, L, 4) float
            Twelve homogeneous vectors per limb: its frame's three axes (w = 0), its
            joint origin and the eight corners of its solid (w = 1), all in the body
            frame, vector-major (row ``r`` of every limb together).  Turning and setting
            down the whole body (:meth:`place`) is then one product per fighter, so the
            match stores this for every animation table row and only places it per frame.

        No BLAS: the products and their sums are numpy's elementwise ``multiply`` and
        ``add`` (:func:`_products`), so the bits are the same on every CPU.
        """
        lead = local.shape[:-3]
        loc = local.reshape((-1,) + local.shape[-3:])
        n, nl = loc.shape[:2]
        t = np.empty((n, nl, 4, 4))                   # (N, L, 4, 4): local, then body-frame transforms
        t[:] = self._local_h
        t[..., :3, :3] = loc
        flat = t.reshape(n, nl * 16)
        for dst, idx in self._fk_levels:              # parents first: world = parent's @ local
            g = flat.take(idx, axis=1)                # (N, 2, 4, l * 16): both operands in one gather
            _products(g[:, 0], g[:, 1], out=flat[:, dst])     # (take: a third of flat[:, idx]'s time)
        # every vector of every limb: t @ v, vector-major (N, 12, L, 4)
        rows = _products(flat.take(self._fk_take, axis=1), self._fk_vectors)   # take: a gather, cheaper than [:, idx]
        return rows.reshape(lead + (self.BODY_COLS, nl, 4))

    def place(self, body: np.ndarray, ground: np.ndarray, facing: np.ndarray, lift: np.ndarray, *,
              padded: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Turn and set down ``F`` posed bodies, and rebuild every limb's range box (A6).

        Parameters
        ----------
        body : (F, 12, L, 4) float
            Body-frame FK rows from :meth:`body`.
        ground : (F, 3) float
            Each fighter's ground point (x, floor height, z).
        facing : (F, 2) float
            Unit x–z forward vectors.
        lift : (F,) float
            Height of the body's lowest point above the ground (0 when standing,
            > 0 in the air): the body is placed so that its lowest corner is there.

        Returns
        -------
        rot : (F, L, 3, 3) float   limb frames in world space (columns = limb axes)
        origin : (F, L, 3) float   joint positions in world space
        boxes : (F, L, 2, 3) float range boxes of the rotated limb solids: the min and
            max over each solid's eight world corners (A6); with ``padded=True``, the
            same boxes as A1 rows ``(F, L, 2, 4)`` (:func:`~game.collision.padded_boxes`
            layout, the match's operand of ``PairJudge``), whose pad lane is 0 in
            both endpoints and so passes every A4 test.  The turn writes that lane, so
            the rows need no packing step.
        """
        places = [(fx, fz, gx, gy, gz, up) for (fx, fz), (gx, gy, gz), up in
                  zip(np.asarray(facing, dtype=float).tolist(), np.asarray(ground, dtype=float).tolist(),
                      np.asarray(lift, dtype=float).tolist())]
        rot, origin, rows = self.place_rows(body, places)
        return rot, origin, (rows if padded else rows[..., :3])

    def place_rows(self, body: np.ndarray, places: list[tuple[float, float, float, float, float, float]]
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`place` with ``padded=True``, for the match's per-frame call: ``places`` holds
        each fighter's ``(fx, fz, gx, gy, gz, lift)`` as Python floats (no arrays to build
        from the fighters' floats and take apart again)."""
        # The lowest point of the body goes to ground height + lift.  A turn about y keeps
        # every height, so the lowest corner is known before turning.
        f = body.shape[0]
        # the ufunc's own reduce: np.min's wrapper costs more
        low = np.minimum.reduce(body[:, 4:, :, 1], axis=(1, 2)).tolist()
        # Per fighter the turn to its facing about y, [[fx, 0, -fz], [0, 1, 0], [fz, 0, fx]], then the
        # shift to its place (points only: the axes have w = 0), as one product with a (12, 4)
        # matrix whose every output row takes exactly one lane (x fx, y, x fz, 0 | -z fz, 0, z fx,
        # 0 | w sx, w sy, w sz, 0) and two sums of its thirds, lane-major.  A sum in which all but
        # one product is exactly 0 is that product, rounded once, however BLAS orders or fuses it
        # (FMA): the same bits on every CPU, where a full (4, 4) turn product differed between BLAS
        # kernels.  Lane 3 comes out 0, so every box is a padded row.
        k = np.zeros((f, 12, 4))
        for i, ((fx, fz, gx, gy, gz, up), lo) in enumerate(zip(places, low)):
            ki = k[i]
            ki[0, 0], ki[1, 1], ki[2, 0], ki[4, 2], ki[6, 2] = fx, 1.0, fz, -fz, fx
            ki[8, 3], ki[9, 3], ki[10, 3] = gx, gy + up - lo, gz
        part = np.matmul(k, body.reshape(f, -1, 4).transpose(0, 2, 1))     # (F, 12, 12 L)
        w = part[:, :4] + part[:, 4:8]                                       # (x fx - z fz, y, ...)
        w += part[:, 8:]                                                     # + the shift
        w = w.reshape(f, 4, body.shape[1], body.shape[2])                    # (F, 4 lanes, 12, L)
        rows = np.empty((f, body.shape[2], 2, 4))
        np.minimum.reduce(w[:, :, 4:], axis=2, out=rows[:, :, 0].transpose(0, 2, 1))   # A6: min / max
        np.maximum.reduce(w[:, :, 4:], axis=2, out=rows[:, :, 1].transpose(0, 2, 1))   # of the corners
        rot = w[:, :3, :3].transpose(0, 3, 1, 2)                   # rot[f, l, :, k] = axis k
        origin = w[:, :3, 3].transpose(0, 2, 1)
        return rot, origin, rows

    def pose(self, ground: np.ndarray, facing: np.ndarray, local: np.ndarray,
             lift: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Pose ``F`` fighters from joint rotations: :meth:`place` of :meth:`body`.

        ``local`` : (F, L, 3, 3) float joint rotations in the parent frame; the other
        arguments and the results are those of :meth:`place`.
        """
        return self.place(self.body(local), ground, facing, lift)
