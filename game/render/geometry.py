"""Pure numpy mesh building: rounded limb boxes, arena meshes from triangles.

Vertex layouts (float32, interleaved):

* fighters: position (3, limb-local), normal (3), colour (3), limb slot (1)
* world:    position (3, world), normal (3), colour (3), material (1)

The arena is built from ``(T, 3, 3)`` triangles plus a per-triangle colour
and material, so switching from the built-in constants to the baked arena
scene (``game.sim.arena.load_arena()``) only changes where the triangles come
from.
"""

from __future__ import annotations

import numpy as np

from game.sim.debug import RayRecord

# Materials understood by shaders/lit.frag.
MAT_PLAIN, MAT_FLOOR, MAT_WALL, MAT_CRATE, MAT_PILLAR, MAT_BANNER, MAT_GRASS = 0.0, 1.0, 2.0, 3.0, 4.0, 6.0, 7.0
MAT_BARREL = 5.0
# (fighters use 10 + fighter index, set in shaders/fighter.vert)

ARENA_HALF = 15.0
FLOOR_CELL = 3.0             # metres: the drawn floor's grid (its 1 m tiles are per pixel)
#: metres: a limb whose rounded edge is at least this wide (hips, torso, head) gets the rim
#: segments ``fighter_mesh`` is asked for; a thinner one (arms, legs: 3.8-5.6 cm) one fewer.
#: Lit per vertex, a 4-6 cm rim in one segment shades as a smooth gradient at any distance the
#: camera frames the fight from (the frames differ by a few pixel values along the thin limbs'
#: edges), and the fighters cost 4,176 triangles instead of 7,248 (llvmpipe sets up each one).
FINE_RIM = 0.06
WALL_HEIGHT = 4.0

KIND_STYLE = {  # kind -> (colour, material)
    "floor": ((0.40, 0.40, 0.43), MAT_FLOOR),
    "wall": ((0.52, 0.47, 0.42), MAT_WALL),
    "pillar": ((0.70, 0.66, 0.60), MAT_PILLAR),
    "crate": ((0.66, 0.46, 0.26), MAT_CRATE),
    "barrel": ((0.55, 0.18, 0.14), MAT_BARREL),
    "banner": ((0.62, 0.10, 0.10), MAT_BANNER),
    "grass": ((0.30, 0.52, 0.18), MAT_GRASS),
    "railing": ((0.22, 0.23, 0.26), MAT_PLAIN),
    "prop": ((0.36, 0.40, 0.44), MAT_PLAIN),
}
DEFAULT_STYLE = ((0.6, 0.6, 0.6), MAT_PLAIN)


def to_linear(srgb: np.ndarray) -> np.ndarray:
    """sRGB-ish authored colours -> linear (gamma 2.2); the shaders light in linear space."""
    return np.power(np.clip(srgb, 0.0, None), 2.2)


def _edge_coords(h: float, r: float, m: int = 3) -> np.ndarray:
    """Grid coordinates along one axis of a rounded box: dense in the rounded rims."""
    t = np.linspace(0.0, np.pi / 2, m + 1)
    neg = -(h - r) - r * np.cos(t)            # -h ... -(h - r)
    return np.concatenate([neg, -neg[::-1]])


def rounded_box(half, radius: float, m: int = 3):
    """A box of half extents ``half (3,)`` with edges rounded by ``radius``.

    Returns ``(positions (V, 3), normals (V, 3), indices (I,) uint32)`` centred
    at the origin.  Each face is a grid whose lines crowd into the rims; every
    grid point is pushed out from the shrunken inner box, which makes the rims
    quarter-cylinders and the corners eighth-spheres.
    """
    half = np.asarray(half, dtype=float)
    r = float(min(radius, half.min() * 0.98))
    inner = half - r
    pos, nrm, idx = [], [], []
    base = 0
    for axis in range(3):
        for sign in (-1.0, 1.0):
            u, v = [a for a in range(3) if a != axis]
            cu, cv = _edge_coords(half[u], r, m), _edge_coords(half[v], r, m)
            gu, gv = np.meshgrid(cu, cv, indexing="ij")
            p = np.zeros(gu.shape + (3,))
            p[..., axis] = sign * half[axis]
            p[..., u], p[..., v] = gu, gv
            q = np.clip(p, -inner, inner)
            d = p - q
            n = d / np.linalg.norm(d, axis=-1, keepdims=True)
            pos.append((q + n * r).reshape(-1, 3))
            nrm.append(n.reshape(-1, 3))
            nu, nv = gu.shape
            i = np.arange(nu * nv).reshape(nu, nv)
            a, b, c, e = i[:-1, :-1], i[1:, :-1], i[1:, 1:], i[:-1, 1:]
            quads = np.stack([a, b, c, a, c, e], axis=-1).reshape(-1, 3)
            # wind counter-clockwise seen from outside
            flat = p.reshape(-1, 3)
            t0 = quads[len(quads) // 2]
            if np.cross(flat[t0[1]] - flat[t0[0]], flat[t0[2]] - flat[t0[0]])[axis] * sign < 0:
                quads = quads[:, ::-1]
            idx.append(quads.ravel() + base)
            base += nu * nv
    return np.concatenate(pos), np.concatenate(nrm), np.concatenate(idx).astype(np.uint32)


def fighter_mesh(skeleton, fighters: list[dict], detail: int = 2, fine_rim: float = FINE_RIM):
    """One static mesh holding every limb of every fighter, ``(vertices (V, 10), indices)``.

    Limb slot ``s = fighter * L + limb`` selects the limb's world matrix in the
    vertex shader; colours come from ``fighters[i]['colors'][limb_colors[name]]``.
    ``detail``: segments per rounded edge of a limb whose rim is ``fine_rim`` wide or more
    (see ``FINE_RIM``); the thinner limbs get one fewer, at least one (``fine_rim=0``: every
    limb ``detail``, the reference the benchmark and tests compare with).
    """
    verts, inds = [], []
    base = 0
    n_limbs = len(skeleton.names)
    for fi, fdata in enumerate(fighters):
        colors, limb_colors = fdata["colors"], fdata["limb_colors"]
        for li, name in enumerate(skeleton.names):
            half = skeleton.half[li]
            radius = min(0.065, 0.75 * half.min())
            p, n, idx = rounded_box(half, radius, m=detail if radius >= fine_rim else max(detail - 1, 1))
            p = p + skeleton.center[li]
            col = np.tile(np.asarray(colors[limb_colors[name]], dtype=float), (len(p), 1))
            if name == "head":     # dark hair cap
                local = p - skeleton.center[li]
                col[local[:, 1] > 0.55 * half[1]] = np.asarray(colors.get("secondary", (0.1, 0.1, 0.1))) * 0.35
            if name.startswith("forearm"):   # gloves
                local = p - skeleton.center[li]
                col[local[:, 1] < -0.45 * half[1]] = np.asarray(colors.get("accent", col[0])) * 0.9
            if name.startswith("shin"):      # boots
                local = p - skeleton.center[li]
                col[local[:, 1] < -0.55 * half[1]] = (0.12, 0.11, 0.12)
            slot = np.full((len(p), 1), fi * n_limbs + li, dtype=float)
            verts.append(np.hstack([p, n, to_linear(col), slot]))
            inds.append(idx + base)
            base += len(p)
            if name == "head":     # two eyes and a headband in the accent colour, riding on the head's frame
                c, h = skeleton.center[li], half
                extras = [((c[0] + h[0] * 0.93, c[1] + h[1] * 0.12, c[2] + s * h[2] * 0.42), (0.012, 0.02, 0.014),
                           (0.05, 0.05, 0.07)) for s in (-1.0, 1.0)]
                extras.append(((c[0], c[1] + h[1] * 0.42, c[2]), (h[0] * 1.04, h[1] * 0.12, h[2] * 1.05),
                               colors.get("accent", (0.9, 0.9, 0.9))))
                for centre, ext, colour in extras:
                    ep, en, eidx = rounded_box(ext, min(ext) * 0.6, m=1)
                    ep = ep + np.asarray(centre)
                    ecol = np.tile(to_linear(np.asarray(colour, dtype=float)), (len(ep), 1))
                    verts.append(np.hstack([ep, en, ecol, np.full((len(ep), 1), fi * n_limbs + li, dtype=float)]))
                    inds.append(eidx + base)
                    base += len(ep)
    return np.vstack(verts).astype(np.float32), np.concatenate(inds).astype(np.uint32)


def box_triangles(box) -> np.ndarray:
    """An axis-aligned box ``(2, 3)`` as 12 outward-wound triangles ``(12, 3, 3)``."""
    (x0, y0, z0), (x1, y1, z1) = np.asarray(box, dtype=float)
    c = np.array([[x, y, z] for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)])
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    tris = []
    for a, b, cc, d in faces:
        tris += [(c[a], c[b], c[cc]), (c[a], c[cc], c[d])]
    return np.array(tris)


def cylinder_triangles(center, radius: float, height: float, segments: int = 16) -> np.ndarray:
    """A closed upright cylinder standing on ``center (3,)``: ``(4 * segments, 3, 3)``."""
    cx, cy, cz = center
    a = np.linspace(0, 2 * np.pi, segments + 1)
    ring = np.stack([cx + radius * np.cos(a), np.zeros_like(a), cz + radius * np.sin(a)], axis=-1)
    lo, hi = ring + [0, cy, 0], ring + [0, cy + height, 0]
    tris = []
    top, bot = np.array([cx, cy + height, cz]), np.array([cx, cy, cz])
    for i in range(segments):
        tris += [(lo[i], hi[i + 1], lo[i + 1]), (lo[i], hi[i], hi[i + 1]),
                 (top, hi[i + 1], hi[i]), (bot, lo[i], lo[i + 1])]
    return np.array(tris)


def default_arena() -> list[tuple[str, str, np.ndarray]]:
    """The built-in arena, from constants (drawn when no baked scene loads):
    ``[(name, kind, triangles (T, 3, 3)), ...]``.

    30 x 30 floor, 4 m walls at |x|, |z| = 15, pillars at (+-7, +-7), crates near
    (0, +-5) and (+-5, -5), a barrel and a few low props.
    """
    h, t = ARENA_HALF, 0.6
    out = [("floor", "floor", np.array([[(-h, 0, -h), (h, 0, h), (h, 0, -h)], [(-h, 0, -h), (-h, 0, h), (h, 0, h)]],
                                       dtype=float))]
    for name, box in (("wall_n", [(-h - t, 0, -h - t), (h + t, WALL_HEIGHT, -h)]),
                      ("wall_s", [(-h - t, 0, h), (h + t, WALL_HEIGHT, h + t)]),
                      ("wall_w", [(-h - t, 0, -h), (-h, WALL_HEIGHT, h)]),
                      ("wall_e", [(h, 0, -h), (h + t, WALL_HEIGHT, h)])):
        out.append((name, "wall", box_triangles(box)))
    for sx in (-7, 7):
        for sz in (-7, 7):
            pillar = [(sx - 0.6, 0, sz - 0.6), (sx + 0.6, 5.5, sz + 0.6)]
            out.append((f"pillar_{sx}_{sz}", "pillar", box_triangles(pillar)))
    for name, (x, z), s in (("crate_n", (0, -5), 0.5), ("crate_s", (0, 5), 0.5), ("crate_w", (-5, -5), 0.45),
                            ("crate_e", (5, -5), 0.45), ("crate_e2", (5.3, -4.2), 0.3)):
        out.append((name, "crate", box_triangles([(x - s, 0, z - s), (x + s, 2 * s, z + s)])))
    out.append(("barrel", "barrel", cylinder_triangles((4.5, 0, 4.5), 0.38, 1.0)))
    for name, prop in (("bench_w", [(-11, 0, 3), (-9, 0.45, 3.6)]), ("bench_e", [(9, 0, -3.6), (11, 0.45, -3)]),
                       ("step_n", [(-2, 0, -12.5), (2, 0.25, -11.5)])):
        out.append((name, "prop", box_triangles(prop)))
    return out


def load_scene_arena():
    """The baked arena (``game.sim.arena.load_arena()``), or None if it cannot be loaded."""
    try:
        from game.sim.arena import load_arena
        return load_arena()
    except Exception:  # a missing or half-finished arena must not stop the game
        return None


def arena_parts(arena=None):
    """Arena geometry ``[(name, kind, triangles (T, 3, 3)), ...]``: each object of
    ``arena`` (a :class:`game.sim.arena.Arena`) with the triangles of the arena's own
    scene; the built-in constants when ``arena`` is None."""
    if arena is None:
        return default_arena()
    scene = arena.scene
    parts = []
    has_floor = False
    for obj in arena.objects:
        tris = np.asarray(scene.models[obj.model].world_triangles, dtype=float)
        area = np.linalg.norm(np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]), axis=-1).sum()
        if area < 1e-9:          # a broken crate is left as a zero-area sliver: nothing to draw
            continue
        parts.append((obj.name, obj.kind, tris))
        has_floor |= obj.kind == "floor"
    if not has_floor:
        parts.insert(0, default_arena()[0])
    return parts


def camera_ray(scene, level: int = 1, record: list | None = None):
    """Camera collision through the method C scene: ``(origin, unit dir, max_distance) ->
    distance | None``, a nearest-hit cast (C7) that sees only models above ``level`` (C9;
    1: floor, walls and pillars, not crates, barrels or props).  ``record``: a list each
    cast is appended to as a :class:`~game.sim.debug.RayRecord`, for the overlay."""
    def cast(origin, direction, max_distance):
        t = scene.cast_nearest_distance(origin, direction, max_distance, level=level)
        if record is not None:
            record.append(ray_record(scene, origin, direction, max_distance, t))
        return t
    return cast


def ray_record(scene, origin, direction, max_distance: float, t: float | None):
    """The :class:`~game.sim.debug.RayRecord` of the nearest-hit cast (C7) ``scene`` just
    made from ``origin`` along the unit ``direction`` (hit at distance ``t``, or None)."""
    o = np.asarray(origin, dtype=float)
    d = np.asarray(direction, dtype=float)
    st = scene.stats
    return RayRecord(o, o + d * max_distance, "ray_nearest", t is not None, None if t is None else o + d * t,
                     int(st.nodes_visited), int(st.triangles_tested))


def camera_obstacles(arena) -> np.ndarray:
    """World boxes ``(N, 2, 3)`` the camera must keep clear of: every arena object taller
    than 0.3 m except the floor (the built-in arena's boxes when ``arena`` is None)."""
    parts = arena_parts(arena)
    boxes = []
    for _name, kind, tris in parts:
        pts = np.asarray(tris, dtype=float).reshape(-1, 3)
        box = np.stack([pts.min(axis=0), pts.max(axis=0)])
        if kind != "floor" and box[1, 1] - box[0, 1] > 0.3:
            boxes.append(box)
    return np.array(boxes).reshape(-1, 2, 3)


def coarse_floor(tris: np.ndarray, cell: float = FLOOR_CELL) -> np.ndarray:
    """A flat, axis-aligned rectangular floor ``(T, 3, 3)`` re-cut into a grid of squares of
    about ``cell`` metres, two upward-facing triangles each; any other floor unchanged.

    The scene's floor model is a grid of 1 m tiles (1,800 triangles for the arena), but its
    tiles, grout and tints are drawn per pixel (shaders/lit.frag), so the picture only needs
    vertices often enough for the per-vertex light and fog: on llvmpipe every triangle
    costs set-up and binning (200 triangles instead of 1,800).
    """
    tris = np.asarray(tris, dtype=float).reshape(-1, 3, 3)
    p = tris.reshape(-1, 3)
    lo, hi = p.min(axis=0), p.max(axis=0)
    size = hi[[0, 2]] - lo[[0, 2]]
    rect = float(size[0] * size[1])
    area = 0.5 * np.abs(np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])[:, 1]).sum()
    if hi[1] - lo[1] > 1e-9 or rect <= 0.0 or abs(area - rect) > 1e-6 * rect:
        return tris
    nx, nz = (max(1, int(np.ceil(s / cell - 1e-9))) for s in size)
    x, z = np.linspace(lo[0], hi[0], nx + 1), np.linspace(lo[2], hi[2], nz + 1)
    x0, z0 = (a.ravel() for a in np.meshgrid(x[:-1], z[:-1], indexing="ij"))
    x1, z1 = (a.ravel() for a in np.meshgrid(x[1:], z[1:], indexing="ij"))
    y = np.full_like(x0, lo[1])

    def corner(a, b):
        return np.stack([a, y, b], axis=-1)

    first = np.stack([corner(x0, z0), corner(x1, z1), corner(x1, z0)], axis=1)
    second = np.stack([corner(x0, z0), corner(x0, z1), corner(x1, z1)], axis=1)
    return np.concatenate([first, second])


def world_mesh(parts) -> np.ndarray:
    """Flat-shaded vertices ``(V, 10)`` for ``[(name, kind, triangles (T, 3, 3)), ...]``,
    grouped by material (column 9, ascending) so each material is one contiguous range."""
    chunks = []
    for _name, kind, tris in parts:
        tris = np.asarray(tris, dtype=float).reshape(-1, 3, 3)
        if kind == "floor":          # its 1 m tiles (and their tints) are drawn by lit.frag
            tris = coarse_floor(tris)
        colour, mat = KIND_STYLE.get(kind, DEFAULT_STYLE)
        n = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
        n /= np.maximum(np.linalg.norm(n, axis=-1, keepdims=True), 1e-12)
        v = np.zeros((len(tris), 3, 10))
        v[..., :3] = tris
        v[..., 3:6] = n[:, None, :]
        v[..., 6:9] = to_linear(np.asarray(colour, dtype=float))
        v[..., 9] = mat
        chunks.append(v.reshape(-1, 10))
    out = np.vstack(chunks).astype(np.float32)
    return out[np.argsort(out[:, 9], kind="stable")]


def material_ranges(vertices: np.ndarray) -> list[tuple[int, int, int]]:
    """``[(material, first, count), ...]`` of a :func:`world_mesh`."""
    mats = vertices[:, 9].astype(int)
    change = np.flatnonzero(np.diff(mats)) + 1
    starts = np.concatenate([[0], change])
    ends = np.concatenate([change, [len(mats)]])
    return [(int(mats[a]), int(a), int(b - a)) for a, b in zip(starts, ends) if b > a]
