"""The arena as data: the scene description, its meshes, and loading the baked method-C scene.

The arena is authored as a readable JSON description (``assets/arena.scene.json``,
meshes as ``.obj`` where useful), baked by ``python -m game.tools.bake`` into
the two binary files of method C (``assets/arena.models.bin``, C3, and
``assets/arena.quadtree.bin``, C4), and loaded at start with :func:`load_arena`.

Coordinates: y up, floor at y = 0, metres.  Object ``i`` of the description is
collision model ``i`` of the baked scene.

For the game
------------
* ``arena.scene`` is a :class:`game.collision.Scene`: ``cast_any`` for the
  authoritative sim (C8), ``cast_nearest`` for presentation (C7); a ray at
  ``level=k`` only hits models of level > k (C9).
* ``arena.objects`` are :class:`ArenaObject` records (name, kind, level, model
  index, world AABB at load time, bounding sphere for barrels).
* A struck crate: ``arena.scene.update_model(obj.model, triangles=world_tris,
  transform=np.eye(4))`` (or local triangles with its current transform);
  the live AABB is then ``arena.scene.models[obj.model].aabb``.

This module never imports pyglet.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pyrr import matrix44

from game.collision import CollisionModel, Scene, SceneFileError, load_scene

__all__ = [
    "KINDS",
    "ArenaDescriptionError",
    "ArenaAssetError",
    "ArenaObject",
    "Arena",
    "default_assets_dir",
    "read_description",
    "build_arena_scene",
    "load_arena",
    "DESCRIPTION_NAME",
    "MODELS_NAME",
    "QUADTREE_NAME",
]

KINDS = ("floor", "wall", "pillar", "crate", "barrel", "banner", "grass", "railing")
DESCRIPTION_NAME = "arena.scene.json"
MODELS_NAME = "arena.models.bin"
QUADTREE_NAME = "arena.quadtree.bin"
BAKE_FIX = "rebuild it with `python -m game.tools.bake`"


class ArenaDescriptionError(ValueError):
    """The arena description (or a mesh it names) is invalid; the message names file and field."""


class ArenaAssetError(ValueError):
    """A baked arena file is missing, corrupt or stale; the message names the file and the fix."""


def default_assets_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "assets"


# ---- reading the description ------------------------------------------------------
class _Ctx:
    def __init__(self, path: Path):
        self.path = path

    def fail(self, field: str, problem: str):
        raise ArenaDescriptionError(f"{self.path}: {field}: {problem}")

    def get(self, obj: dict, key: str, where: str):
        if not isinstance(obj, dict) or key not in obj:
            self.fail(f"{where}.{key}" if where else key, "missing")
        return obj[key]

    def num(self, v, field: str, positive=False, nonneg=False) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            self.fail(field, f"must be a finite number, got {v!r}")
        if positive and not v > 0:
            self.fail(field, f"must be > 0, got {v!r}")
        if nonneg and v < 0:
            self.fail(field, f"must be >= 0, got {v!r}")
        return float(v)

    def integer(self, v, field: str, lo: int, hi: int) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            self.fail(field, f"must be an integer in {lo}..{hi}, got {v!r}")
        return int(v)

    def vec(self, v, field: str, n: int = 3, positive=False) -> np.ndarray:
        if not isinstance(v, list) or len(v) != n:
            self.fail(field, f"must be a list of {n} numbers, got {v!r}")
        return np.array([self.num(x, f"{field}[{i}]", positive=positive) for i, x in enumerate(v)])


def _translate(p) -> np.ndarray:
    """The row-vector (pyrr) affine matrix ``(4, 4)`` float that moves by ``p``."""
    return matrix44.create_from_translation(np.asarray(p, dtype=float), dtype=float)


def _box_tris(size) -> np.ndarray:
    h = np.asarray(size, dtype=float) / 2
    c = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float) * h
    # corner index = 4*ix + 2*iy + iz
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    return np.array([[c[a], c[b], c[cc]] for q in quads for a, b, cc in ((q[0], q[1], q[2]), (q[0], q[2], q[3]))])


def _prism_tris(radius, height, sides) -> np.ndarray:
    k = np.arange(sides + 1) % sides
    ang = 2 * np.pi * k / sides
    x, z = radius * np.cos(ang), radius * np.sin(ang)
    tris = []
    for s in range(sides):
        b0, b1 = (x[s], 0.0, z[s]), (x[s + 1], 0.0, z[s + 1])
        t0, t1 = (x[s], height, z[s]), (x[s + 1], height, z[s + 1])
        tris += [(b0, b1, t1), (b0, t1, t0), ((0.0, height, 0.0), t1, t0), ((0.0, 0.0, 0.0), b0, b1)]
    return np.array(tris, dtype=float)


def _grid_tris(size, cells) -> np.ndarray:
    xs = np.linspace(-size[0] / 2, size[0] / 2, cells[0] + 1)
    zs = np.linspace(-size[1] / 2, size[1] / 2, cells[1] + 1)
    gx, gz = np.meshgrid(xs, zs, indexing="ij")
    p = np.stack([gx, np.zeros_like(gx), gz], axis=-1)
    a, b, c, d = p[:-1, :-1], p[1:, :-1], p[1:, 1:], p[:-1, 1:]
    return np.concatenate([np.stack([a, b, c], -2).reshape(-1, 3, 3), np.stack([a, c, d], -2).reshape(-1, 3, 3)])


def _read_obj(path: Path, ctx: _Ctx, field: str) -> np.ndarray:
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        ctx.fail(field, f"cannot read mesh {path}: {exc.strerror or exc}")
    verts, tris = [], []
    for no, line in enumerate(lines, 1):
        parts = line.split("#", 1)[0].split()
        if not parts:
            continue
        try:
            if parts[0] == "v":
                v = [float(t) for t in parts[1:4]]
                if len(v) != 3 or not all(math.isfinite(t) for t in v):
                    raise ValueError("a vertex needs 3 finite coordinates")
                verts.append(v)
            elif parts[0] == "f":
                idx = [int(t.split("/")[0]) for t in parts[1:]]
                if len(idx) < 3:
                    raise ValueError("a face needs at least 3 vertices")
                idx = [i - 1 if i > 0 else len(verts) + i for i in idx]
                if any(not 0 <= i < len(verts) for i in idx):
                    raise ValueError("face refers to a vertex that does not exist")
                tris += [(idx[0], idx[k], idx[k + 1]) for k in range(1, len(idx) - 1)]
        except ValueError as exc:
            raise ArenaDescriptionError(f"{path}: line {no}: {exc}") from None
    if not tris:
        raise ArenaDescriptionError(f"{path}: no faces (mesh named by {ctx.path}: {field})")
    return np.asarray(verts, dtype=float)[np.asarray(tris)]


def _shape_mesh(shape: dict, ctx: _Ctx, where: str, base_dir: Path):
    """Local triangles and row-vector transform of one object's shape."""
    kind = ctx.get(shape, "type", where)
    if kind == "grid":
        size = ctx.vec(ctx.get(shape, "size", where), f"{where}.size", 2, positive=True)
        raw = ctx.get(shape, "cells", where)
        if not isinstance(raw, list) or len(raw) != 2:
            ctx.fail(f"{where}.cells", f"must be a list of 2 integers, got {raw!r}")
        cells = [ctx.integer(c, f"{where}.cells[{i}]", 1, 512) for i, c in enumerate(raw)]
        return _grid_tris(size, cells), _translate(ctx.vec(ctx.get(shape, "center", where), f"{where}.center"))
    if kind == "box":
        size = ctx.vec(ctx.get(shape, "size", where), f"{where}.size", positive=True)
        return _box_tris(size), _translate(ctx.vec(ctx.get(shape, "center", where), f"{where}.center"))
    if kind in ("prism", "cylinder"):
        r = ctx.num(ctx.get(shape, "radius", where), f"{where}.radius", positive=True)
        h = ctx.num(ctx.get(shape, "height", where), f"{where}.height", positive=True)
        n = ctx.integer(ctx.get(shape, "sides", where), f"{where}.sides", 3, 256)
        return _prism_tris(r, h, n), _translate(ctx.vec(ctx.get(shape, "base", where), f"{where}.base"))
    if kind == "quad":
        c = ctx.get(shape, "corners", where)
        if not isinstance(c, list) or len(c) != 4:
            ctx.fail(f"{where}.corners", "must be a list of 4 points")
        p = [ctx.vec(v, f"{where}.corners[{i}]") for i, v in enumerate(c)]
        tris = np.array([[p[0], p[1], p[2]], [p[0], p[2], p[3]]])
        area = np.linalg.norm(np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]), axis=1)
        if (area <= 0).any():
            ctx.fail(f"{where}.corners", "degenerate quad (zero area)")
        return tris, np.eye(4)
    if kind == "railing":
        a = ctx.vec(ctx.get(shape, "start", where), f"{where}.start")
        b = ctx.vec(ctx.get(shape, "end", where), f"{where}.end")
        h = ctx.num(ctx.get(shape, "height", where), f"{where}.height", positive=True)
        th = ctx.num(ctx.get(shape, "thickness", where), f"{where}.thickness", positive=True)
        posts = ctx.integer(ctx.get(shape, "posts", where), f"{where}.posts", 2, 64)
        if a[1] != b[1] or (a[0] != b[0] and a[2] != b[2]) or np.array_equal(a, b):
            ctx.fail(f"{where}.end", "a railing runs along x or along z at one height")
        length = float(np.abs(b - a).max())
        along_x = a[0] != b[0]
        rail = _box_tris((length + th, th, th) if along_x else (th, th, length + th)) + [0, h - th / 2, 0]
        parts = [rail]
        for k in range(posts):
            off = -length / 2 + length * k / (posts - 1)
            parts.append(_box_tris((th, h, th)) + ([off, h / 2, 0] if along_x else [0, h / 2, off]))
        return np.concatenate(parts), _translate((a + b) / 2)
    if kind == "obj":
        rel = ctx.get(shape, "path", where)
        if not isinstance(rel, str) or not rel:
            ctx.fail(f"{where}.path", "must be a file name next to the description")
        tris = _read_obj(base_dir / rel, ctx, f"{where}.path")
        scale = ctx.num(shape.get("scale", 1.0), f"{where}.scale", positive=True)
        return tris * scale, _translate(ctx.vec(ctx.get(shape, "position", where), f"{where}.position"))
    ctx.fail(f"{where}.type", f"unknown shape {kind!r}; use grid, box, prism, cylinder, quad, railing or obj")


@dataclass(frozen=True)
class _ObjectSpec:
    name: str
    kind: str
    level: int
    triangles: np.ndarray
    transform: np.ndarray
    sphere_center: tuple | None
    sphere_radius: float | None


@dataclass(frozen=True)
class Description:
    """A parsed, validated arena description."""

    path: Path
    objects: tuple
    fighter_starts: np.ndarray
    clear_radius: float
    leaf_capacity: int
    max_depth: int


def read_description(path=None) -> Description:
    """Parse and validate the arena description; raises :class:`ArenaDescriptionError` naming file and field."""
    path = Path(path) if path is not None else default_assets_dir() / DESCRIPTION_NAME
    ctx = _Ctx(path)
    try:
        raw = json.loads(path.read_text())
    except OSError as exc:
        ctx.fail("file", f"cannot read ({exc.strerror or exc}); restore the assets/ folder from the "
                         "repository (git checkout -- assets)")
    except json.JSONDecodeError as exc:
        ctx.fail(f"line {exc.lineno} column {exc.colno}", f"invalid JSON ({exc.msg})")
    if not isinstance(raw, dict):
        ctx.fail("top level", "must be a JSON object")
    if raw.get("format") != "rangebox-arena" or raw.get("version") != 1:
        ctx.fail("format/version", 'must be "rangebox-arena" version 1')
    starts = ctx.get(raw, "fighter_starts", "")
    if not isinstance(starts, list) or len(starts) != 2:
        ctx.fail("fighter_starts", "must be a list of 2 points")
    starts = np.array([ctx.vec(s, f"fighter_starts[{i}]") for i, s in enumerate(starts)])
    clear = ctx.num(raw.get("clear_radius", 3.0), "clear_radius", nonneg=True)
    qt = raw.get("quadtree", {})
    cap = ctx.integer(qt.get("leaf_capacity", 8), "quadtree.leaf_capacity", 1, 1024)
    depth = ctx.integer(qt.get("max_depth", 6), "quadtree.max_depth", 0, 16)
    objs = ctx.get(raw, "objects", "")
    if not isinstance(objs, list) or not objs:
        ctx.fail("objects", "must be a non-empty list")
    out, names = [], set()
    for i, o in enumerate(objs):
        where = f"objects[{i}]"
        if not isinstance(o, dict):
            ctx.fail(where, "must be an object")
        name = ctx.get(o, "name", where)
        if not isinstance(name, str) or not name or name in names:
            ctx.fail(f"{where}.name", f"must be a unique non-empty string, got {name!r}")
        names.add(name)
        kind = ctx.get(o, "kind", where)
        if kind not in KINDS:
            ctx.fail(f"{where}.kind", f"unknown kind {kind!r}; use one of {', '.join(KINDS)}")
        level = ctx.integer(ctx.get(o, "level", where), f"{where}.level", 0, 2)
        tris, m = _shape_mesh(ctx.get(o, "shape", where), ctx, f"{where}.shape", path.parent)
        c = r = None
        if kind == "barrel":
            sph = ctx.get(o, "bounding_sphere", where)
            c = ctx.vec(ctx.get(sph, "center", f"{where}.bounding_sphere"), f"{where}.bounding_sphere.center")
            r = ctx.num(ctx.get(sph, "radius", f"{where}.bounding_sphere"), f"{where}.bounding_sphere.radius",
                        positive=True)
            world = tris @ m[:3, :3] + m[3, :3]
            far = float(np.linalg.norm(world.reshape(-1, 3) - c, axis=1).max())
            if far > r * (1 + 1e-9):
                ctx.fail(f"{where}.bounding_sphere", f"does not contain the mesh (farthest vertex {far:.4f} > {r})")
            c = tuple(float(v) for v in c)
        out.append(_ObjectSpec(name, kind, level, tris, m, c, r))
    desc = Description(path, tuple(out), starts, clear, cap, depth)
    _check_clear_area(desc, ctx)
    return desc


def _check_clear_area(desc: Description, ctx: _Ctx) -> None:
    """Layout rule: nothing but the floor within ``clear_radius`` (x–z) of a fighter's start."""
    for i, o in enumerate(desc.objects):
        if o.kind == "floor":
            continue
        w = (o.triangles @ o.transform[:3, :3] + o.transform[3, :3]).reshape(-1, 3)
        lo, hi = w.min(axis=0), w.max(axis=0)
        for s in desc.fighter_starts:
            q = np.clip(s, lo, hi)
            if math.hypot(q[0] - s[0], q[2] - s[2]) < desc.clear_radius:
                ctx.fail(f"objects[{i}] ({o.name})", f"within {desc.clear_radius} m of the fighter start "
                         f"{s.tolist()}; keep that area clear")


def build_arena_scene(desc: Description) -> Scene:
    """C1/C2/C5: collision models of the description (object i = model i) in a new scene."""
    models = [CollisionModel(o.triangles, o.level, o.transform) for o in desc.objects]
    return Scene.build(models, leaf_capacity=desc.leaf_capacity, max_depth=desc.max_depth)


# ---- the loaded arena --------------------------------------------------------------
@dataclass(frozen=True)
class ArenaObject:
    """One arena object: ``model`` indexes ``arena.scene.models``; ``aabb`` (2, 3) is its world AABB at load.

    ``sphere_center`` / ``sphere_radius`` are set for barrels (bounded by a sphere), else None.
    """

    name: str
    kind: str
    level: int
    model: int
    aabb: np.ndarray
    sphere_center: tuple | None = None
    sphere_radius: float | None = None


@dataclass(frozen=True, eq=False)
class Arena:
    """The loaded arena: ``scene`` (method C), ``objects`` (tuple of :class:`ArenaObject`),
    ``bounds`` (2, 2) ``[[xmin, zmin], [xmax, zmax]]`` playable rect inside the walls,
    ``fighter_starts`` (2, 3)."""

    scene: Scene
    objects: tuple
    bounds: np.ndarray
    fighter_starts: np.ndarray

    def by_kind(self, *kinds: str) -> tuple:
        """Objects of the given kinds, e.g. ``arena.by_kind("crate", "barrel")``."""
        return tuple(o for o in self.objects if o.kind in kinds)

    def object(self, name: str) -> ArenaObject:
        for o in self.objects:
            if o.name == name:
                return o
        raise KeyError(f"no arena object named {name!r}")


def _bounds(objects, scene: Scene) -> np.ndarray:
    floor = [o for o in objects if o.kind == "floor"]
    ref = floor[0].aabb if floor else scene.models[0].aabb
    lo = [float(ref[0, 0]), float(ref[0, 2])]
    hi = [float(ref[1, 0]), float(ref[1, 2])]
    for o in objects:
        if o.kind != "wall":
            continue
        b = o.aabb
        ext = b[1] - b[0]
        axis = 0 if ext[0] < ext[2] else 2  # the thin axis is the one the wall closes
        k = 0 if axis == 0 else 1
        centre = (b[0, axis] + b[1, axis]) / 2
        if centre > 0:
            hi[k] = min(hi[k], float(b[0, axis]))
        else:
            lo[k] = max(lo[k], float(b[1, axis]))
    return np.array([lo, hi])


def load_arena(assets_dir=None) -> Arena:
    """Load the baked arena (``arena.models.bin`` + ``arena.quadtree.bin``) and the description's metadata.

    Raises :class:`ArenaAssetError` naming the file and the fix (``python -m game.tools.bake``)
    when a baked file is missing, corrupt or does not match the description, and
    :class:`ArenaDescriptionError` when the description itself is invalid.
    """
    base = Path(assets_dir) if assets_dir is not None else default_assets_dir()
    desc = read_description(base / DESCRIPTION_NAME)
    mp, qp = base / MODELS_NAME, base / QUADTREE_NAME
    for p in (mp, qp):
        if not p.is_file():
            raise ArenaAssetError(f"{p}: missing baked arena file; {BAKE_FIX}")
    try:
        scene = load_scene(mp, qp)
    except SceneFileError as exc:
        raise ArenaAssetError(f"{exc}; {BAKE_FIX}") from None
    if len(scene) != len(desc.objects):
        raise ArenaAssetError(f"{mp}: holds {len(scene)} models but {desc.path} describes "
                              f"{len(desc.objects)} objects (stale bake); {BAKE_FIX}")
    objects = []
    for i, (o, m) in enumerate(zip(desc.objects, scene.models)):
        if m.level != o.level or m.triangle_count != o.triangles.shape[0]:
            raise ArenaAssetError(f"{mp}: model {i} does not match object {o.name!r} of {desc.path} "
                                  f"(stale bake); {BAKE_FIX}")
        objects.append(ArenaObject(o.name, o.kind, o.level, i, m.aabb, o.sphere_center, o.sphere_radius))
    return Arena(scene, tuple(objects), _bounds(objects, scene), desc.fighter_starts.copy())
