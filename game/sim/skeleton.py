"""Forward kinematics of the fighters' bodies, batched over fighters.

Pure functions of plain arrays.  Frames follow ``assets/fighters.json``:
x forward, y up, z to the fighter's right; a pose is an ``(L, 3)`` array of
joint angles ``[ax, ay, az]`` in radians with ``R = Ry(ay) @ Rz(az) @ Rx(ax)``.
"""

from __future__ import annotations

import numpy as np

#: The eight corner signs of a box, ``(8, 3)``.
CORNER_SIGNS = np.array(
    [[sx, sy, sz] for sx in (-1.0, 1.0) for sy in (-1.0, 1.0) for sz in (-1.0, 1.0)]
)


def euler_matrices(angles: np.ndarray) -> np.ndarray:
    """``Ry(ay) @ Rz(az) @ Rx(ax)`` for angles ``(..., 3)`` radians -> ``(..., 3, 3)``."""
    c = np.cos(angles)
    s = np.sin(angles)
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


class SkeletonError(ValueError):
    """A limb list that is not a tree listed root first and by depth.

    ``field`` (``"limbs[3].parent"``), ``expected``, ``got`` and ``fix`` say where and how;
    the data loader reports them as an ``AssetError`` of ``fighters.json``."""

    def __init__(self, field: str, expected: str, got, fix: str):
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
        for i, l in enumerate(limbs):
            name, p = l["name"], l["parent"]
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
        self.joint = np.array([l["joint"] for l in limbs], dtype=float)
        self.center = np.array([l["center"] for l in limbs], dtype=float)
        self.half = np.array([l["half"] for l in limbs], dtype=float)
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

    #: Vectors per limb in a body-frame FK row (:meth:`body`): 3 axes, 1 joint origin, 8 corners.
    BODY_COLS = 12

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
            down the whole body (:meth:`place`) is then one product with a (4, 3)
            matrix per fighter, and the corner rows reduce with contiguous operands, so
            the match stores this for every animation table row and only places it per
            frame.
        """
        lead = local.shape[:-3]
        loc = local.reshape((-1,) + local.shape[-3:])
        t = np.empty(loc.shape[:2] + (4, 4))          # (N, L, 4, 4): local, then body-frame transforms
        t[:] = self._local_h
        t[..., :3, :3] = loc
        for sl, par in self.levels:                   # parents first: world = parent's @ local
            np.matmul(t[:, par], t[:, sl], out=t[:, sl])
        vec = np.matmul(t, self._limb_vectors)        # (N, L, 4, 12): every vector, w in row 3
        rows = np.ascontiguousarray(vec.transpose(0, 3, 1, 2))                   # (N, 12, L, 4)
        return rows.reshape(lead + rows.shape[1:])

    def place(self, body: np.ndarray, ground: np.ndarray, facing: np.ndarray, lift: np.ndarray, *,
              padded: bool = False):
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
            both endpoints and so passes every A4 test.  The turn matrix's zero fourth
            column writes that lane, so the rows need no packing step.
        """
        # The lowest point of the body goes to ground height + lift.  A turn about y keeps
        # every height, so the lowest corner is known before turning.
        f = body.shape[0]
        low = np.minimum.reduce(body[:, 4:, :, 1], axis=(1, 2)).tolist()   # the ufunc's own reduce: np.min's wrapper costs more
        # Per fighter one (4, 4) matrix: the transposed turn to its facing,
        # [[fx, 0, -fz], [0, 1, 0], [fz, 0, fx]]^T, then the shift to its place (points only),
        # and a fourth, zero column that makes every result a padded row: lane 3 is 0 (an
        # exact product with 0, so lanes 0-2 are the same bits as with a (4, 3) matrix).
        to_world = np.array([[[fx, 0.0, fz, 0.0], [0.0, 1.0, 0.0, 0.0], [-fz, 0.0, fx, 0.0], [gx, gy + up - lo, gz, 0.0]]
                             for (fx, fz), (gx, gy, gz), up, lo in
                             zip(np.asarray(facing).tolist(), np.asarray(ground).tolist(), np.asarray(lift).tolist(), low)])
        w = np.matmul(body.reshape(f, -1, 4), to_world).reshape(body.shape)   # (F, 12, L, 4)
        corners = w[:, 4:]                                                   # (F, 8, L, 4)
        rows = np.empty((f, body.shape[2], 2, 4))
        np.minimum.reduce(corners, axis=1, out=rows[:, :, 0])      # A6: min / max endpoints
        np.maximum.reduce(corners, axis=1, out=rows[:, :, 1])
        rot = w[:, :3, :, :3].transpose(0, 2, 3, 1)                # rot[f, l, :, k] = axis k
        return rot, w[:, 3, :, :3], (rows if padded else rows[..., :3])

    def pose(self, ground: np.ndarray, facing: np.ndarray, local: np.ndarray, lift: np.ndarray):
        """Pose ``F`` fighters from joint rotations: :meth:`place` of :meth:`body`.

        ``local`` : (F, L, 3, 3) float joint rotations in the parent frame; the other
        arguments and the results are those of :meth:`place`.
        """
        return self.place(self.body(local), ground, facing, lift)
