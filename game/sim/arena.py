"""The arena as data: the scene description, its meshes, and loading the baked method-C scene.

The arena is authored as a readable JSON description (``assets/arena.scene.json``,
meshes as ``.obj`` where useful), baked by ``python3 -m game.tools.bake`` into
the two binary files of method C (``assets/arena.models.bin``, C3, and
``assets/arena.quadtree.bin``, C4), and loaded at start with :func:`load_arena`.

Coordinates: y up, floor at y = 0, metres.  Object ``i`` of the description is
collision model ``i`` of the baked scene.

For the game
------------
* ``arena.scene`` is a :class:`game.collision.Scene`: ``cast_any`` for the
  authoritative sim (C8), ``cast_nearest`` for presentation and the sim's ground
  height (C7); a ray at ``level=k`` only hits models of level > k (C9).
* ``arena.objects`` are :class:`ArenaObject` records (name, kind, level, model
  index, world AABB at load time, bounding sphere for barrels).
* A struck crate changes only its match's copy of the scene (``match.stage.scene``,
  :mod:`game.sim.stage`), where model ``obj.model`` is replaced; the live AABB is
  then ``stage.scene.models[obj.model].aabb``, and ``arena.scene`` stays as loaded.

Staleness: the bake writes the digest of its inputs (:func:`bake_digest`) into the model data
file, and :func:`load_arena` refuses a pair whose digest is not the description's
(:class:`StaleBakeError`), so a description edited without a re-bake never plays with meshes
from the old one.

This module never imports pyglet.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from game import files
from game.collision import CollisionModel, Scene, SceneFileError, SceneFileUnusable, load_baked
from game.collision.scene_file import REBAKE
from game.collision.scene_format import MAX_MODELS, MAX_TRIANGLES, NO_DIGEST
from game.collision.tolerances import MIN_BOX_EXTENT

from .arena_shapes import (
    MAX_COORD,
    ArenaDescriptionError,
    ArenaDescriptionFileError,
    read_length,
    read_point,
    shape_mesh,
)
from .body import read_fighters
from .fields import ASSETS, Fields, read_json, restore_hint

__all__ = [
    "DESCRIPTION_NAME",
    "KINDS",
    "MODELS_NAME",
    "QUADTREE_NAME",
    "Arena",
    "ArenaAssetError",
    "ArenaDescriptionError",
    "ArenaDescriptionFileError",
    "ArenaFileError",
    "ArenaObject",
    "StaleBakeError",
    "bake_digest",
    "build_arena_scene",
    "default_assets_dir",
    "load_arena",
    "read_description",
]

KINDS = ("floor", "wall", "pillar", "crate", "barrel", "banner", "grass", "railing")
DESCRIPTION_NAME = "arena.scene.json"
MODELS_NAME = "arena.models.bin"
QUADTREE_NAME = "arena.quadtree.bin"
BAKE_FIX = REBAKE                 # the one wording of the re-bake command
#: Kinds a fighter cannot walk through (``game.sim.stage``'s obstacles): no start may be in one.
START_BLOCKERS = ("pillar", "wall", "crate", "barrel")
#: Thickness (m) of a crate's or barrel's walls: the slabs of its method-B compound (B6, B8),
#: built by ``game.sim.stage``.  A crate must be more than twice this across to be hollow.
CRATE_WALL = 0.08


class ArenaAssetError(ValueError):
    """A baked arena file is missing, corrupt or stale; the message names the file and the fix."""


class ArenaFileError(ArenaAssetError):
    """A baked arena file's path cannot be read as a file (missing, a directory, a FIFO, ...,
    unreadable, too large); ``reason`` is :attr:`game.files.FileUnusable.reason`."""

    def __init__(self, message: str, reason: str):
        super().__init__(message)
        self.reason = reason


class StaleBakeError(ArenaAssetError):
    """The baked files were made from another description (or none): their digest is not the
    description's (:func:`bake_digest`)."""


def default_assets_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "assets"


# ---- reading the description ------------------------------------------------------
def _fields(path: Path) -> Fields:
    """The description's field reader (:class:`game.sim.fields.Fields`): errors are
    :class:`ArenaDescriptionError` naming file, field path and fix."""
    return Fields(path, ArenaDescriptionError, restore_hint(path))


@dataclass(frozen=True)
class _ObjectSpec:
    """One object of the description, before baking."""

    name: str                       # unique name
    kind: str                       # one of KINDS (floor, wall, pillar, crate, barrel, prop ...)
    level: int                      # C9 logic level of its model
    triangles: np.ndarray           # (n, 3, 3) float, local triangles
    transform: np.ndarray           # (4, 4) float, row-vector (pyrr) local-to-world transform
    sphere_center: tuple[float, float, float] | None   # a barrel's bounding sphere, else None
    sphere_radius: float | None


@dataclass(frozen=True)
class Description:
    """A parsed, validated arena description."""

    path: Path                      # the description file
    objects: tuple[_ObjectSpec, ...]   # its objects, in model order
    fighter_starts: np.ndarray      # (2, 3) float, where the two fighters start a round
    clear_radius: float             # m around each start kept free of obstacles
    leaf_capacity: int              # quadtree (C1) leaf capacity for the bake
    max_depth: int                  # quadtree maximum depth for the bake
    #: :func:`bake_digest` of the bake's inputs: what the baked files must carry to match
    digest: bytes = NO_DIGEST


def _without_comments(node: Any) -> Any:
    """``node`` (parsed JSON) with every ``_`` comment key left out, at every depth."""
    if isinstance(node, dict):
        return {k: _without_comments(v) for k, v in node.items() if not Fields.is_comment(k)}
    if isinstance(node, list):
        return [_without_comments(v) for v in node]
    return node


def bake_digest(leaf_capacity: int, max_depth: int, objects: Sequence[tuple[int, Any]],
                meshes: Sequence[bytes]) -> bytes:
    """SHA-256 of everything the bake reads: the quadtree settings, each object's ``level`` and
    ``shape`` (as parsed, ``_`` comments left out) in model order, then the bytes of each
    ``.obj`` mesh the shapes name, in the same order (each behind its length).

    A canonical form, not the description's bytes: the parsed values are written back as JSON
    with sorted keys and no spaces, and Python writes a float back exactly as parsed (the
    shortest repr that round-trips), so reformatting the file, reordering its keys or
    editing a comment leaves the digest as it is, while any value the bake reads changes it.
    What the bake does not read (names, kinds, fighter starts, ``clear_radius``, a barrel's
    ``bounding_sphere``) is read from the description at start and needs no re-bake.  The
    meshes built from the values are not digested: a sine computed on another machine may
    differ in its last bit, and that must not make a good bake stale.
    """
    canon = json.dumps({"leaf_capacity": leaf_capacity, "max_depth": max_depth,
                        "objects": [{"level": lv, "shape": _without_comments(sh)} for lv, sh in objects]},
                       sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    h = hashlib.sha256(b"rangebox-arena-bake\n")
    h.update(canon.encode("ascii"))
    for data in meshes:
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.digest()


def _pushbox_radius(folder: Path) -> tuple[float, Path]:
    """The fighters' pushbox radius the starts are checked with, and the file it is from:
    ``fighters.json`` beside the description (where ``Match.new(assets_dir=...)`` reads both),
    else the shipped one."""
    path = folder / "fighters.json"
    if not os.path.lexists(path):
        path = ASSETS / "fighters.json"
    return read_fighters(path)[2], path


def read_description(path: Path | str | None = None, pushbox_radius: float | None = None) -> Description:
    """Parse and validate the arena description; raises :class:`ArenaDescriptionError` naming file and field.

    The fighter starts are checked against the fighters' pushbox radius: ``pushbox_radius``,
    or by default ``fighters.json``'s beside the description (the shipped one if there is
    none), so a bad ``fighters.json`` there raises its ``AssetError``."""
    path = Path(path) if path is not None else default_assets_dir() / DESCRIPTION_NAME
    f = _fields(path)
    raw = read_json(path, ArenaDescriptionError, ArenaDescriptionFileError)
    raw = f.root(raw)
    if f.raw(raw, "format", "", '"rangebox-arena"') != "rangebox-arena":
        f.fail("format", '"rangebox-arena"', raw["format"])
    version = f.raw(raw, "version", "", "1")
    if type(version) is not int or version != 1:
        f.fail("version", "1 (the version this game reads)", version)
    f.items(raw, "fighter_starts", "", "points [x, y, z]", n=2)
    starts = np.array([read_point(f, raw["fighter_starts"], i, "fighter_starts") for i in range(2)])
    f.choice(raw, "units", "", ("m",), "the unit of every length:", default="m")     # declared, as read
    f.choice(raw, "up", "", ("y",), "the up axis:", default="y")
    f.text(raw, "comment", "", default=None)                                          # free text
    clear = f.num(raw, "clear_radius", "", 0.0, MAX_COORD, default=3.0)
    qt = f.obj(raw, "quadtree", "", default={})
    cap = f.whole(qt, "leaf_capacity", "quadtree", 1, 1024, default=8)
    depth = f.whole(qt, "max_depth", "quadtree", 0, 16, default=6)
    objs = f.items(raw, "objects", "", "objects {...}", lo=1, hi=MAX_MODELS)
    out, names = [], set()
    baked: list[tuple[int, Any]] = []           # each object's level and shape: the bake's inputs
    meshes: list[bytes] = []                    # the .obj files they name
    triangles = 0
    for i in range(len(objs)):
        where = f"objects[{i}]"
        o = f.obj(objs, i, "objects")
        name = f.text(o, "name", where)
        if name in names:
            f.fail(f"{where}.name", "a name no other object has", name, "rename one of the two objects")
        names.add(name)
        kind = f.choice(o, "kind", where, KINDS, "a kind:")
        level = f.whole(o, "level", where, 0, 2, "a level: 0 (low), 1 (medium) or 2 (high)")
        tris, m = shape_mesh(f, o, where, path.parent, meshes)
        baked.append((level, o["shape"]))
        triangles += tris.shape[0]
        if triangles > MAX_TRIANGLES:
            f.fail(f"{where}.shape", f"objects of at most {MAX_TRIANGLES:,} triangles in all (what the scene files "
                   f"hold)", shown=f"{triangles:,} triangles up to this object",
                   fix="use fewer grid cells, prism sides or mesh faces")
        c: tuple[float, float, float] | None = None
        r: float | None = None
        if kind == "barrel":
            sw = f"{where}.bounding_sphere"
            sph = f.obj(o, "bounding_sphere", where)
            centre = read_point(f, sph, "center", sw)
            r = read_length(f, sph, "radius", sw)
            world = tris @ m[:3, :3] + m[3, :3]
            far = float(np.linalg.norm(world.reshape(-1, 3) - centre, axis=1).max())
            if far > r * (1 + 1e-9):
                f.fail(f"{sw}.radius", f"a sphere holding the whole mesh (farthest vertex {far:.4f} from the centre)",
                       r, "raise the radius or move the centre")
            cx, cy, cz = (float(v) for v in centre)
            c = (cx, cy, cz)
        out.append(_ObjectSpec(name, kind, level, tris, m, c, r))
    f.reject_unknown(raw)           # a misspelt optional key would silently read as its default
    desc = Description(path, tuple(out), starts, clear, cap, depth, bake_digest(cap, depth, baked, meshes))
    if pushbox_radius is None:
        radius, radius_from = _pushbox_radius(path.parent)
    else:
        radius, radius_from = pushbox_radius, None
    _check_clear_area(desc, f)
    _check_starts(desc, f, radius, radius_from)
    _check_crate_sizes(desc, f)
    return desc


def _world_box(o: _ObjectSpec) -> np.ndarray:
    """``(2, 3)`` the world AABB of a described object's mesh."""
    w = (o.triangles @ o.transform[:3, :3] + o.transform[3, :3]).reshape(-1, 3)
    return np.array([w.min(axis=0), w.max(axis=0)])


def _check_starts(desc: Description, f: Fields, radius: float, radius_from: Path | None) -> None:
    """Layout rule: each fighter's pushbox (``radius``, x–z) at its start lies inside the arena
    and clear of every solid (pillar, wall, crate, barrel: ``game.sim.stage``'s obstacles), and
    the two starts are at least two radii apart: a round would start with the pushboxes
    overlapping, or (equal starts) with no direction to face."""
    of = f"pushbox_radius {radius:g} m" + (f" of {radius_from}" if radius_from else "")
    (x1, _, z1), (x2, _, z2) = desc.fighter_starts.tolist()
    apart = math.hypot(x2 - x1, z2 - z1)
    if apart < 2 * radius:
        shown = "two starts at the same x-z point" if apart == 0 else f"starts {apart:.4g} m apart"
        f.fail("fighter_starts", f"two starts at least {2 * radius:g} m apart in x-z (twice the {of})", shown=shown,
               fix="move them apart")
    boxes = [(i, o, _world_box(o)) for i, o in enumerate(desc.objects)]
    (lo_x, lo_z), (hi_x, hi_z) = _playable_rect([(o.kind, b) for _, o, b in boxes]).tolist()
    for k, (x, y, z) in enumerate(desc.fighter_starts.tolist()):
        if not (lo_x + radius <= x <= hi_x - radius and lo_z + radius <= z <= hi_z - radius):
            f.fail(f"fighter_starts[{k}]", f"a start inside the walls with room for the pushbox ({of}): x from "
                   f"{lo_x + radius:g} to {hi_x - radius:g}, z from {lo_z + radius:g} to {hi_z - radius:g}",
                   [x, y, z], "move it inside the walls")
        for i, o, b in boxes:
            if o.kind not in START_BLOCKERS:
                continue
            if o.sphere_center is not None and o.sphere_radius is not None:     # a barrel: its sphere's cube (B8)
                cx, cz = o.sphere_center[0], o.sphere_center[2]
                r = o.sphere_radius
                x0, z0, x1_, z1_ = cx - r, cz - r, cx + r, cz + r
            else:
                x0, z0, x1_, z1_ = float(b[0, 0]), float(b[0, 2]), float(b[1, 0]), float(b[1, 2])
            gap = math.hypot(x - min(max(x, x0), x1_), z - min(max(z, z0), z1_))
            if gap < radius:
                f.fail(f"fighter_starts[{k}]", f"a start whose pushbox ({of}) is clear of every pillar, wall, "
                       "crate and barrel", shown=f"{[x, y, z]}, {gap:.3g} m from objects[{i}] ({o.name})",
                       fix="move the start or the object")


def _check_crate_sizes(desc: Description, f: Fields) -> None:
    """Layout rule: a crate (its box) or a barrel (its bounding sphere's cube, B8) is more than
    ``2 * CRATE_WALL`` across on every axis, as ``Compound.from_box`` needs for a hollow inside."""
    for i, o in enumerate(desc.objects):
        if o.kind not in ("crate", "barrel"):
            continue
        if o.sphere_radius is not None:
            smallest = 2.0 * o.sphere_radius
        else:
            w = (o.triangles @ o.transform[:3, :3] + o.transform[3, :3]).reshape(-1, 3)
            smallest = float((w.max(axis=0) - w.min(axis=0)).min())
        if smallest - 2.0 * CRATE_WALL < MIN_BOX_EXTENT:
            f.fail(f"objects[{i}] ({o.name})", f"a {o.kind} more than {2 * CRATE_WALL:g} m across on every axis "
                   f"(its walls are {CRATE_WALL:g} m thick)", shown=f"{smallest:.4g} m across",
                   fix="make it larger")


def _check_clear_area(desc: Description, f: Fields) -> None:
    """Layout rule: nothing but the floor within ``clear_radius`` (x–z) of a fighter's start."""
    for i, o in enumerate(desc.objects):
        if o.kind == "floor":
            continue
        w = (o.triangles @ o.transform[:3, :3] + o.transform[3, :3]).reshape(-1, 3)
        lo, hi = w.min(axis=0), w.max(axis=0)
        for s in desc.fighter_starts:
            q = np.clip(s, lo, hi)
            gap = math.hypot(q[0] - s[0], q[2] - s[2])
            if gap < desc.clear_radius:
                f.fail(f"objects[{i}] ({o.name})", f"nothing but the floor within clear_radius {desc.clear_radius} m "
                       f"of a fighter start", shown=f"an object {gap:.3f} m from the start {s.tolist()}",
                       fix="keep that area clear: move the object, or lower clear_radius")


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

    name: str                       # unique name
    kind: str                       # floor, wall, pillar, crate, barrel, prop ...
    level: int                      # C9 logic level of its model
    model: int                      # index into ``arena.scene.models``
    aabb: np.ndarray                # (2, 3) float, world AABB at load
    sphere_center: tuple[float, float, float] | None = None   # a barrel's bounding sphere, else None
    sphere_radius: float | None = None


@dataclass(frozen=True, eq=False)
class Arena:
    """The loaded arena: ``scene`` (method C), ``objects`` (tuple of :class:`ArenaObject`),
    ``bounds`` (2, 2) ``[[xmin, zmin], [xmax, zmax]]`` playable rect inside the walls,
    ``fighter_starts`` (2, 3)."""

    scene: Scene                        # the baked scene as loaded (method C)
    objects: tuple[ArenaObject, ...]    # in model order
    bounds: np.ndarray                  # (2, 2) float, the playable rect inside the walls
    fighter_starts: np.ndarray          # (2, 3) float, where the fighters start a round

    def by_kind(self, *kinds: str) -> tuple[ArenaObject, ...]:
        """Objects of the given kinds, e.g. ``arena.by_kind("crate", "barrel")``."""
        return tuple(o for o in self.objects if o.kind in kinds)

    def object(self, name: str) -> ArenaObject:
        """The object named ``name`` (KeyError if none)."""
        for o in self.objects:
            if o.name == name:
                return o
        raise KeyError(f"no arena object named {name!r}")


def _playable_rect(boxes: Sequence[tuple[str, np.ndarray]]) -> np.ndarray:
    """The playable x-z rect ``(2, 2)`` of objects given as ``(kind, world AABB (2, 3))`` in
    model order: the floor's (the first object's without a floor), narrowed to the inner
    faces of the walls."""
    floor = [b for kind, b in boxes if kind == "floor"]
    ref = floor[0] if floor else boxes[0][1]
    lo = [float(ref[0, 0]), float(ref[0, 2])]
    hi = [float(ref[1, 0]), float(ref[1, 2])]
    for kind, b in boxes:
        if kind != "wall":
            continue
        ext = b[1] - b[0]
        axis = 0 if ext[0] < ext[2] else 2  # the thin axis is the one the wall closes
        k = 0 if axis == 0 else 1
        centre = (b[0, axis] + b[1, axis]) / 2
        if centre > 0:
            hi[k] = min(hi[k], float(b[0, axis]))
        else:
            lo[k] = max(lo[k], float(b[1, axis]))
    return np.array([lo, hi])


def _bounds(objects: Sequence[ArenaObject], scene: Scene) -> np.ndarray:
    """The playable x-z rect ``(2, 2)`` of the loaded arena (:func:`_playable_rect`)."""
    return _playable_rect([(o.kind, o.aabb) for o in objects] if objects else [("", scene.models[0].aabb)])


def _bin_unusable(exc: SceneFileUnusable) -> ArenaFileError:
    """The error for a baked file's path that cannot be read, with the fix for its reason."""
    if exc.reason == files.MISSING:
        return ArenaFileError(f"{exc.path}: missing baked arena file; {BAKE_FIX}", exc.reason)
    return ArenaFileError(str(exc), exc.reason)     # its own fix: permissions, or remove it and re-bake


def load_arena(assets_dir: Path | str | None = None) -> Arena:
    """Load the baked arena (``arena.models.bin`` + ``arena.quadtree.bin``) and the description's metadata.

    Raises :class:`ArenaAssetError` naming the file and the fix (``python3 -m game.tools.bake``)
    when a baked file is missing, corrupt or does not match the description
    (:class:`ArenaFileError` for a path that cannot be read, :class:`StaleBakeError` for a bake
    of another description), and :class:`ArenaDescriptionError` when the description itself is
    invalid.
    """
    base = Path(assets_dir) if assets_dir is not None else default_assets_dir()
    desc = read_description(base / DESCRIPTION_NAME)
    mp, qp = base / MODELS_NAME, base / QUADTREE_NAME
    try:
        scene, digest = load_baked(mp, qp)
    except SceneFileUnusable as exc:
        raise _bin_unusable(exc) from None
    except SceneFileError as exc:          # most damage is reported with the re-bake command already
        raise ArenaAssetError(str(exc) if exc.names_fix else f"{exc}; {BAKE_FIX}") from None
    if digest != desc.digest:
        made = "from no description (saved without a source digest)" if digest == NO_DIGEST else \
            f"from another version of {desc.path} (source digest {digest[:6].hex()}..., the description's " \
            f"is {desc.digest[:6].hex()}...)"
        raise StaleBakeError(f"{mp}: stale bake: made {made}; {BAKE_FIX}")
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
