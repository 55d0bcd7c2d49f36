"""Destructible crates as players see them (pure numpy, no GL; see ``world.CrateMeshes``
and ``passes.DebrisRenderer``).

* :func:`crate_mesh`: a crate's render mesh from its method-B compound's
  boundary faces (``compound.faces``, B4/B5 face data): ``OUTER`` faces in the
  crate's planked wood, ``FILL`` faces (the hole's walls, B5) as raw, lighter
  splintered wood, ``INNER`` faces (the shell's inside seen through a hole)
  darker.  Built once per strike (the compound's box array is replaced by every
  strike; the faces are cached per version), never per frame.
* :class:`Debris`: wood chips thrown out of the struck face on every
  :class:`~game.sim.CrateStruck`, and the crate's remaining small boxes as
  tumbling chunks when it breaks.  Advanced once per simulation frame, drawn
  interpolated by alpha as instanced lit boxes.  Random spread comes from a
  window of :data:`~game.render.noise.EFFECTS` keyed by the event, so a given match
  always looks the same.

Crates and the barrel alike are drawn from their compounds, intact or struck: what is
drawn is what the fighters, fireballs and rays meet (the barrel's compound is its own box,
``game/sim/stage.py``).  The barrel has its own outer material (staves and iron hoops).
"""

from __future__ import annotations

import numpy as np

from game.collision.compound import FILL, INNER, OUTER

from .geometry import KIND_STYLE, MAT_CRATE, to_linear
from .noise import EFFECTS

#: per crate kind: (outer, fill, inner) colours (sRGB-ish, authored)
WOOD = {
    "crate": ((0.66, 0.46, 0.26), (0.93, 0.78, 0.52), (0.30, 0.19, 0.10)),
    "barrel": ((0.55, 0.18, 0.14), (0.90, 0.74, 0.50), (0.24, 0.10, 0.07)),
}
#: shaders/lit.frag material of a hole's walls: raw wood with fine streaks of grain
MAT_SPLINTER = 8.0
#: shaders/lit.frag material of a crate's inside seen through a hole: planks in the crate's own
#: shade (shaders/world.vert gives it no sunlight and little sky), so a hole reads as a dark
#: opening in any light, framed by its splintered walls
MAT_INTERIOR = 9.0
#: materials per face kind: planks outside, splintered grain on the hole's walls, shaded planks
#: inside (a kind's outer material is its arena style's: the barrel's staves, ``MAT_BARREL``)
KIND_MATERIAL = {OUTER: MAT_CRATE, FILL: MAT_SPLINTER, INNER: MAT_INTERIOR}

SEAM = 0.001                  # metres each face is grown in its plane (no pinholes at T-junctions)
GRAVITY = -9.81 / 3600.0      # m / frame^2 at 60 Hz
_SIGNS = np.array([-1.0, 1.0])
_PICK = np.array([0, 1, 1, 2])


def _tangents(normal) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors ``t1, t2`` perpendicular to the unit ``normal`` (3,) and to each other."""
    nx, ny, nz = (float(v) for v in normal)
    ux, uy, uz = (0.0, 1.0, 0.0) if abs(ny) < 0.9 else (1.0, 0.0, 0.0)
    ax, ay, az = ny * uz - nz * uy, nz * ux - nx * uz, nx * uy - ny * ux       # normal x up
    k = (ax * ax + ay * ay + az * az) ** 0.5
    ax, ay, az = ax / k, ay / k, az / k
    return np.array([ax, ay, az]), np.array([ny * az - nz * ay, nz * ax - nx * az, nx * ay - ny * ax])


CHIPS_PER_STRIKE = 22
CHIPS_PER_BREAK = 36
CHIP_LIFE = (40, 62)          # frames; all gone well before 2 s
CHUNK_LIFE = (80, 96)
FADE_FRAMES = 24              # the last frames of a piece's life: it shrinks and fades
RESTITUTION = 0.28
FRICTION = 0.55               # horizontal speed kept per floor contact
MAX_PIECES = 600
#: a chip's uniform columns as ``low + span * u``: speed (m/frame), upward speed, angle, spin
#: rate, spin sign (u < 0.5: -1), half extents (3), colour pick (u * 4 -> _PICK), brightness, life
_CHIP_LO = np.array([0.025, 0.01, 0.0, 0.15, 0.0, 0.018, 0.006, 0.01, 0.0, 0.8, CHIP_LIFE[0]])
_CHIP_SPAN = np.array([0.05, 0.035, 2 * np.pi, 0.35, 1.0, 0.032, 0.006, 0.014, 1.0, 0.35,
                       CHIP_LIFE[1] - CHIP_LIFE[0]])
#: a chunk's uniform columns likewise: outward speed, upward speed, spin rate, spin sign
#: (u < 0.5: -1), brightness, life
_CHUNK_LO = np.array([0.006, 0.0, 0.03, 0.0, 0.85, CHUNK_LIFE[0]])
_CHUNK_SPAN = np.array([0.016, 0.03, 0.05, 1.0, 0.25, CHUNK_LIFE[1] - CHUNK_LIFE[0]])
#: noise-table keys of debris (apart from the sparks' keys)
_KEY_DEBRIS = 3 << 48


def wood(kind: str) -> np.ndarray:
    """``(3, 3)`` linear colours (outer, fill, inner) of a crate kind (read-only, shared)."""
    kind = kind if kind in WOOD else "crate"
    cols = _WOOD_LINEAR.get(kind)
    if cols is None:        # converted once per kind: every strike reads it
        cols = _WOOD_LINEAR[kind] = to_linear(np.asarray(WOOD[kind], dtype=float))
        cols.flags.writeable = False
    return cols


_WOOD_LINEAR: dict[str, np.ndarray] = {}


#: draw order of the face kinds, by material: every kind's outer material (crate planks,
#: barrel staves) sorts before the splinters (FILL) and the inside (INNER)
_KIND_ORDER = (OUTER, FILL, INNER)
_KIND_RANK = np.argsort(np.array(_KIND_ORDER))           # kind -> its place in _KIND_ORDER
_QUAD_TRIS = np.array([0, 1, 2, 0, 2, 3])
_TINT_DIR = np.array([127.1, 311.7, 74.7])


def crate_mesh(faces, kind: str = "crate") -> tuple[np.ndarray, list]:
    """Flat-shaded world-layout vertices ``(6 F, 10)`` float32 of a compound's face set, and
    their draw ranges ``[(material, first, count), ...]`` (what ``geometry.material_ranges``
    finds in them).

    ``faces``: a :class:`~game.collision.compound.FaceSet` (``vertices (F, 4, 3)`` CCW
    from outside, ``normals (F, 3)``, ``kinds (F,)``).  Two triangles per quad, colour
    by kind (:data:`WOOD`), material per kind; sorted by material (column 9) with
    outer faces first within a material, so the inside is mostly depth-rejected.
    Fill faces get a per-face tint so the splinters do not read as one flat slab.  Every
    quad is grown by :data:`SEAM` in its plane (see there).

    Built with few numpy calls (a strike's mesh is built on the frame after it, with numpy
    cold): the faces are put in draw order first (by kind), so the ranges come from the
    per-kind counts and the fill faces follow the outer ones."""
    kinds = np.asarray(faces.kinds, dtype=np.int64)
    order = np.argsort(_KIND_RANK[kinds], kind="stable")
    q = np.asarray(faces.vertices, dtype=float)[order]
    # grow every quad by SEAM in its plane: faces split at T-junctions then overlap instead
    # of leaving pinholes where the rasteriser rounds the shared edge differently
    q = q + np.sign(q - q.mean(axis=1, keepdims=True)) * SEAM
    kinds = kinds[order]
    counts = np.bincount(kinds, minlength=3).tolist()
    n = len(q)
    out = np.empty((n, 6, 10), dtype=np.float32)
    out[:, :, :3] = q[:, _QUAD_TRIS]
    out[:, :, 3:6] = np.asarray(faces.normals, dtype=float)[order][:, None, :]
    table = _kind_rows(kind)
    rows = table[kinds]                                             # (F, 4): colour, material
    fill = slice(counts[OUTER], counts[OUTER] + counts[FILL])
    if counts[FILL]:                                                # splinters: a tint per face
        h = np.abs(np.sin(q[fill].mean(axis=1) @ _TINT_DIR)) % 1.0
        rows[fill, :3] *= (0.82 + 0.3 * h)[:, None]
    out[:, :, 6:] = rows[:, None, :]
    runs: list = []
    first = 0
    for k in _KIND_ORDER:
        count, mat = 6 * counts[k], int(table[k, 3])
        if count and runs and runs[-1][0] == mat:
            runs[-1] = (mat, runs[-1][1], runs[-1][2] + count)
        elif count:
            runs.append((mat, first, count))
        first += count
    return out.reshape(-1, 10), runs


def _kind_rows(kind: str) -> np.ndarray:
    """``(3, 4)`` per face kind: linear colour (:func:`wood`) and material (read-only, shared)."""
    rows = _KIND_ROWS.get(kind)
    if rows is None:
        mats = {**KIND_MATERIAL, OUTER: outer_material(kind)}
        rows = np.concatenate((wood(kind), np.array([[mats[k]] for k in (OUTER, FILL, INNER)])), axis=1)
        rows.flags.writeable = False
        _KIND_ROWS[kind] = rows
    return rows


_KIND_ROWS: dict[str, np.ndarray] = {}


def outer_material(kind: str) -> float:
    """The shaders/lit.frag material of a crate kind's outer faces: its arena style's (crate
    planks for a kind the arena does not know)."""
    return float(KIND_STYLE.get(kind, KIND_STYLE["crate"])[1])


def by_material(parts: list[np.ndarray], runs: list[list[tuple[int, int, int]]]) -> tuple[np.ndarray, list]:
    """One vertex array of several meshes grouped by material, and its draw ranges.

    Parameters
    ----------
    parts : list of (V_i, 10) float32
        Meshes; column 9 holds the material.
    runs : list of [(material, first, count), ...]
        ``geometry.material_ranges`` of each part (its maximal runs of one material).

    Returns
    -------
    ``(vertices (sum V_i, 10), [(material, first, count), ...])``: the same as a stable
    sort of the concatenated parts by material, built from slices (no sort: a strike
    rebuilds one crate, and re-sorting every crate's vertices cost more than that crate).
    """
    mats = sorted({m for r in runs for m, _, _ in r})
    pieces, ranges, first = [], [], 0
    for m in mats:
        start = first
        for v, r in zip(parts, runs):
            for mm, a, k in r:
                if mm == m:
                    pieces.append(v[a:a + k])
                    first += k
        ranges.append((m, start, first - start))
    verts = np.concatenate(pieces) if pieces else np.zeros((0, 10), np.float32)
    return verts, ranges


#: entries of the cross-product matrix K of a unit axis (x, y, z): rows, columns, the axis
#: component in each and its sign (K = [[0, -z, y], [z, 0, -x], [-y, x, 0]])
_K_ROW, _K_COL = np.array([0, 0, 1, 1, 2, 2]), np.array([1, 2, 0, 2, 0, 1])
_K_AXIS, _K_SIGN = np.array([2, 1, 2, 0, 1, 0]), np.array([-1.0, 1.0, 1.0, -1.0, -1.0, 1.0])
_DIAG = np.arange(3)


def rotations(axis: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """Rodrigues: ``(n, 3, 3)`` rotations ``cos I + sin K + (1 - cos) a a^T`` about unit
    ``axis (n, 3)`` by ``angle (n,)``; the outer product first, then the diagonal and K's
    six entries added in place (half the numpy calls of stacking K; the same bits)."""
    c, s = np.cos(angle), np.sin(angle)
    out = ((1.0 - c)[:, None] * axis)[:, :, None] * axis[:, None, :]
    out[:, _DIAG, _DIAG] += c[:, None]
    out[:, _K_ROW, _K_COL] += (s[:, None] * axis)[:, _K_AXIS] * _K_SIGN
    return out


# columns of the piece table
_P, _V, _AX, _ANG, _OM, _HALF, _COL, _AGE, _LIFE = (slice(0, 3), slice(3, 6), slice(6, 9), 9, 10, slice(11, 14),
                                                    slice(14, 17), 17, 18)
_WIDTH = 19


class Debris:
    """Wood chips and break chunks: rows ``(n, 19)`` of pos, vel, spin axis, angle,
    spin rate, half extents, linear rgb, age, life (frames).  Presentation state only."""

    def __init__(self, floor_y: float = 0.0):
        self.floor_y = float(floor_y)
        self.clear()

    def __len__(self) -> int:
        return len(self.p)

    def clear(self) -> None:
        """No pieces."""
        self.p = np.zeros((0, _WIDTH))
        self.prev_pos = np.zeros((0, 3))
        self.prev_angle = np.zeros(0)
        #: ``(n,)`` int: each piece's effect tag (:attr:`tag` when it was added; 0 none)
        self.tags = np.zeros(0, np.int64)
        #: the tag the next strike's pieces get (a rollback's effect key id); 0: none
        self.tag = 0

    def positions(self) -> np.ndarray:
        """``(n, 3)`` centres of the pieces now."""
        return self.p[:, _P].copy()

    def hold(self) -> None:
        """No simulation step this tick: draw the pieces still (no interpolation drift)."""
        self.prev_pos = self.p[:, _P].copy()
        self.prev_angle = self.p[:, _ANG].copy()

    def _add(self, rows: np.ndarray) -> None:
        self.p = np.vstack([self.p, rows])[-MAX_PIECES:]
        self.prev_pos = np.vstack([self.prev_pos, rows[:, _P]])[-MAX_PIECES:]
        self.prev_angle = np.concatenate([self.prev_angle, rows[:, _ANG]])[-MAX_PIECES:]
        self.tags = np.concatenate([self.tags, np.full(len(rows), self.tag, np.int64)])[-MAX_PIECES:]

    def take_back(self, tags) -> None:
        """Remove at once the pieces of the strikes tagged ``tags`` (ints: a strike that a
        rollback took back)."""
        keep = ~np.isin(self.tags, np.asarray(list(tags), np.int64))
        if not keep.all():
            self.p, self.prev_pos = self.p[keep], self.prev_pos[keep]
            self.prev_angle, self.tags = self.prev_angle[keep], self.tags[keep]

    def strike(self, event, crate, attacker_pos=None) -> None:
        """Chips for one ``CrateStruck`` on ``crate`` (a ``game.sim.stage.Crate``, read only):
        thrown from the collision point out of the struck face (the event's outward normal,
        else the horizontal direction from the point to ``attacker_pos``: the struck face faces
        the attacker), and the crate's remaining boxes as chunks when it broke."""
        key = _KEY_DEBRIS + int(event.frame) * 7877 + int(event.crate) * 31 + int(event.fighter)
        point = np.asarray(event.point, dtype=float)
        normal = getattr(event, "normal", None)
        if normal is not None:
            normal = np.asarray(normal, dtype=float)
        elif attacker_pos is not None:
            d = np.asarray(attacker_pos, dtype=float) - point
            d[1] = 0.0
            normal = d / max(np.linalg.norm(d), 1e-9)
        if normal is None:
            normal = np.array([0.0, 1.0, 0.0])
        cols = wood(crate.obj.kind)
        self._add(self._chips(*EFFECTS.window(key, CHIPS_PER_BREAK if event.broke else CHIPS_PER_STRIKE),
                              point, normal, cols))
        if event.broke:
            self._add(self._chunks(key + (1 << 47), crate, normal, cols))

    @staticmethod
    def _chips(g, u, point, normal, cols) -> np.ndarray:
        """Rows of ``n`` chips from their randoms: ``g (n, >= 8)`` standard normals (fan 2,
        position jitter 3, spin axis 3), ``u (n, >= 11)`` uniforms on [0, 1) mapped by one
        affine map to the columns of :data:`_CHIP_LO`."""
        n = len(g)
        r = _CHIP_LO + _CHIP_SPAN * u[:, :len(_CHIP_LO)]
        rows = np.zeros((n, _WIDTH))
        # a tangent frame of the face; chips fan out of it, biased up (3-vectors as floats:
        # np.cross costs more than the rest of this function)
        t1, t2 = _tangents(normal)
        d = normal + g[:, :1] * (0.45 * t1) + g[:, 1:2] * (0.45 * t2)
        d /= np.linalg.norm(d, axis=1, keepdims=True)
        rows[:, _P] = point + g[:, 2:5] * 0.02
        rows[:, _V] = d * r[:, :1]                               # 1.5 - 4.5 m/s
        rows[:, 4] += r[:, 1]                                    # and a little up
        ax = g[:, 5:8]
        rows[:, _AX] = ax / np.linalg.norm(ax, axis=1, keepdims=True)
        rows[:, _ANG] = r[:, 2]
        rows[:, _OM] = r[:, 3] * _SIGNS[(u[:, 4] * 2).astype(np.intp)]
        rows[:, _HALF] = r[:, 5:8]                               # splinters: long, narrow and thin
        rows[:, _COL] = cols[_PICK[(u[:, 8] * 4).astype(np.intp)]] * r[:, 9:10]   # mostly fresh splinter colour
        rows[:, _LIFE] = r[:, 10]
        return rows

    @staticmethod
    def _chunks(key, crate, normal, cols) -> np.ndarray:
        boxes = np.asarray(crate.compound.boxes, dtype=float)                    # (K, 2, 3)
        k = len(boxes)
        rows = np.zeros((k, _WIDTH))
        if not k:
            return rows
        g, u = EFFECTS.window(key, k)
        r = _CHUNK_LO + _CHUNK_SPAN * u[:, :len(_CHUNK_LO)]
        b = np.asarray(crate.obj.aabb, dtype=float)
        centre = b.mean(axis=0)
        c = boxes.mean(axis=1)
        out = c - centre
        out[:, 1] = 0.0
        out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-6)
        rows[:, _P] = c
        rows[:, _V] = out * r[:, :1] - normal * 0.012                  # outward, off the struck face
        rows[:, 4] += r[:, 1]                                           # and a little up
        ax = g[:, :3] * [1.0, 0.3, 1.0]                    # mostly tipping over, little spinning
        rows[:, _AX] = ax / np.linalg.norm(ax, axis=1, keepdims=True)
        rows[:, _OM] = r[:, 2] * _SIGNS[(u[:, 3] * 2).astype(np.intp)]
        rows[:, _HALF] = (boxes[:, 1] - boxes[:, 0]) * 0.5
        rows[:, _COL] = cols[0] * r[:, 4:5]
        rows[:, _LIFE] = r[:, 5]
        return rows

    def step(self) -> None:
        """Advance one simulation frame: gravity, spin, floor bounce and friction, ageing."""
        if not len(self.p):
            return
        p = self.p
        self.prev_pos = p[:, _P].copy()
        self.prev_angle = p[:, _ANG].copy()
        p[:, 4] += GRAVITY
        p[:, _P] += p[:, _V]
        p[:, _ANG] += p[:, _OM]
        # lowest point of each rotated box above the floor: sum_j |R[1, j]| half_j
        r = rotations(p[:, _AX], p[:, _ANG])
        low = p[:, 1] - (np.abs(r[:, 1, :]) * p[:, _HALF]).sum(axis=1)
        hit = low < self.floor_y
        if hit.any():
            p[hit, 1] += self.floor_y - low[hit]
            vy = p[hit, 4]
            p[hit, 4] = np.where(vy < -0.01, -vy * RESTITUTION, 0.0)
            p[hit, 3] *= FRICTION
            p[hit, 5] *= FRICTION
            # a piece standing on the floor keeps tipping over; once it lies flat it stops turning
            lying = p[hit, 1] - self.floor_y < 1.5 * p[hit, _HALF].min(axis=1)
            p[hit, _OM] *= np.where(lying, 0.5, 1.0)
        p[:, _AGE] += 1
        alive = p[:, _AGE] < p[:, _LIFE]
        self.p = p[alive]
        self.prev_pos = self.prev_pos[alive]
        self.prev_angle = self.prev_angle[alive]
        self.tags = self.tags[alive]

    def instances(self, alpha: float = 1.0) -> np.ndarray:
        """Per-instance rows for ``shaders/debris.vert`` ``(n, 19)`` float32: centre, the
        rotation's three columns, half extents, rgb, opacity."""
        p = self.p
        n = len(p)
        out = np.zeros((n, 19), dtype=np.float32)
        if not n:
            return out
        pos = self.prev_pos + (p[:, _P] - self.prev_pos) * alpha
        ang = self.prev_angle + (p[:, _ANG] - self.prev_angle) * alpha
        left = p[:, _LIFE] - p[:, _AGE] - alpha
        fade = np.clip(left / FADE_FRAMES, 0.0, 1.0)
        r = rotations(p[:, _AX], ang)
        out[:, 0:3] = pos
        out[:, 3:12] = r.transpose(0, 2, 1).reshape(n, 9)          # columns
        out[:, 12:15] = p[:, _HALF] * (0.55 + 0.45 * fade)[:, None]
        out[:, 15:18] = p[:, _COL]
        out[:, 18] = fade
        return out
