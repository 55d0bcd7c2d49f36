"""The shapes an arena description names, as triangle meshes: a grid, a box, a prism or
cylinder, a quad, a railing, or a Wavefront ``.obj`` file next to the description; and the
description's error types, which every reader of it raises.

Each shape is read through the description's field reader (:class:`game.sim.fields.Fields`),
so a bad value is reported by file, field path and fix.  This module never imports pyglet.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pyrr import matrix44

from game import files
from game.collision.scene_format import MAX_TRIANGLES

from .fields import REQUIRED, Fields, Key
from .trig import sin_cos

#: The shape types a description's object may have.
SHAPES = ("grid", "box", "prism", "cylinder", "quad", "railing", "obj")
#: Every coordinate and size in the description (m): the arena is 30 m across.
MAX_COORD = 1000.0
#: The most bytes an ``.obj`` mesh may have: a mesh of all the triangles the scene files hold
#: (``MAX_TRIANGLES``) takes about 10 MB of ``v`` and ``f`` lines.
MAX_OBJ_BYTES = 16 << 20


class ArenaDescriptionError(ValueError):
    """The arena description (or a mesh it names) is invalid; the message names file and field."""


class ArenaDescriptionFileError(ArenaDescriptionError):
    """The description, or an ``.obj`` mesh it names, cannot be read as a file (missing, a
    directory, a FIFO, a device, a socket, a symbolic-link loop, unreadable, too large);
    ``reason`` is :attr:`game.files.FileUnusable.reason`."""

    reason = ""


def read_point(f: Fields, parent: Any, key: Key, where: str) -> np.ndarray:
    """A point ``[x, y, z]`` (3,) float of the description, each within :data:`MAX_COORD`."""
    return np.array(f.vec(parent, key, where, 3, -MAX_COORD, MAX_COORD))


def read_length(f: Fields, parent: Any, key: Key, where: str, default: Any = REQUIRED) -> float:
    """A positive length (m) of the description, at most :data:`MAX_COORD`."""
    return f.num(parent, key, where, hi=MAX_COORD, above=0.0, default=default)


def _translate(p: Sequence[float] | np.ndarray) -> np.ndarray:
    """The row-vector (pyrr) affine matrix ``(4, 4)`` float that moves by ``p``."""
    return matrix44.create_from_translation(np.asarray(p, dtype=float), dtype=float)


def _box_tris(size: Sequence[float] | np.ndarray) -> np.ndarray:
    h = np.asarray(size, dtype=float) / 2
    c = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float) * h
    # corner index = 4*ix + 2*iy + iz
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    return np.array([[c[a], c[b], c[cc]] for q in quads for a, b, cc in ((q[0], q[1], q[2]), (q[0], q[2], q[3]))])


def _prism_tris(radius: float, height: float, sides: int) -> np.ndarray:
    k = np.arange(sides + 1) % sides
    ang = 2 * np.pi * k / sides
    sin, cos = sin_cos(ang)                 # not np.sin / np.cos: other CPUs round those otherwise
    x, z = radius * cos, radius * sin
    tris = []
    for s in range(sides):
        b0, b1 = (x[s], 0.0, z[s]), (x[s + 1], 0.0, z[s + 1])
        t0, t1 = (x[s], height, z[s]), (x[s + 1], height, z[s + 1])
        tris += [(b0, b1, t1), (b0, t1, t0), ((0.0, height, 0.0), t1, t0), ((0.0, 0.0, 0.0), b0, b1)]
    return np.array(tris, dtype=float)


def _grid_tris(size: Sequence[float] | np.ndarray, cells: Sequence[int]) -> np.ndarray:
    xs = np.linspace(-size[0] / 2, size[0] / 2, cells[0] + 1)
    zs = np.linspace(-size[1] / 2, size[1] / 2, cells[1] + 1)
    gx, gz = np.meshgrid(xs, zs, indexing="ij")
    p = np.stack([gx, np.zeros_like(gx), gz], axis=-1)
    a, b, c, d = p[:-1, :-1], p[1:, :-1], p[1:, 1:], p[:-1, 1:]
    return np.concatenate([np.stack([a, b, c], -2).reshape(-1, 3, 3), np.stack([a, c, d], -2).reshape(-1, 3, 3)])


def _obj_unusable(exc: files.FileUnusable, f: Fields, field: str) -> ArenaDescriptionFileError:
    """The error for an ``.obj`` path that cannot be read, with the fix for its reason."""
    fix = {files.MISSING: "name an existing .obj mesh",
           files.PERMISSION: f"make it readable (chmod u+r {exc.path}) or run as its owner",
           files.NOT_REGULAR: "name an .obj mesh file",
           files.TOO_LARGE: "simplify the mesh"}.get(exc.reason, "check the path and its permissions")
    hint = f", or restore the shipped file with {f.restore}" if f.restore else ""
    err = ArenaDescriptionFileError(f"{f.path}: {field}: {exc}; {fix}{hint}")
    err.reason = exc.reason
    return err


def _read_obj(path: Path, f: Fields, field: str, sources: list[bytes]) -> np.ndarray:
    """The triangles ``(n, 3, 3)`` float of a Wavefront ``.obj`` mesh (``v`` and ``f`` lines);
    its bytes are appended to ``sources`` (the bake's inputs, :func:`bake_digest`)."""
    try:
        data = files.read_bounded(path, "an .obj mesh", MAX_OBJ_BYTES)
    except files.FileUnusable as exc:
        raise _obj_unusable(exc, f, field) from None
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        f.fail(field, "the name of a readable .obj text file next to the description", path.name,
               f"cannot read {path} (not UTF-8 text, byte {exc.start}): name an .obj mesh")
    sources.append(data)
    verts, tris = [], []
    for no, line in enumerate(lines, 1):
        parts = line.split("#", 1)[0].split()
        if not parts:
            continue
        try:
            if parts[0] == "v":
                v = [float(t) for t in parts[1:4]]
                if len(v) != 3 or not all(math.isfinite(t) and abs(t) <= MAX_COORD for t in v):
                    raise ValueError(f"a vertex needs 3 finite coordinates within +-{MAX_COORD:g}")
                verts.append(v)
            elif parts[0] == "f":
                idx = [int(t.split("/")[0]) for t in parts[1:]]
                if len(idx) < 3:
                    raise ValueError("a face needs at least 3 vertices")
                idx = [i - 1 if i > 0 else len(verts) + i for i in idx]
                if any(not 0 <= i < len(verts) for i in idx):
                    raise ValueError("face refers to a vertex that does not exist")
                tris += [(idx[0], idx[k], idx[k + 1]) for k in range(1, len(idx) - 1)]
                if len(tris) > MAX_TRIANGLES:
                    raise ValueError(f"more than {MAX_TRIANGLES:,} triangles, all the scene files hold")
        except ValueError as exc:
            raise ArenaDescriptionError(f"{path}: line {no}: {exc}; "
                                        f"fix the mesh (named by {f.path}: {field})") from None
    if not tris:
        raise ArenaDescriptionError(f"{path}: no faces (mesh named by {f.path}: {field}); "
                                    "give it 'f' lines or name another mesh")
    return np.asarray(verts, dtype=float)[np.asarray(tris)]


def shape_mesh(f: Fields, obj: dict, where: str, base_dir: Path,
                sources: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
    """Local triangles and row-vector transform of ``obj["shape"]``; ``where`` is the object's
    path; an ``.obj`` mesh's bytes are appended to ``sources``."""
    sw = f.at(where, "shape")
    shape = f.obj(obj, "shape", where)
    kind = f.choice(shape, "type", sw, SHAPES, "a shape type:")
    if kind == "grid":
        size = np.array(f.vec(shape, "size", sw, 2, hi=MAX_COORD, above=0.0))
        f.items(shape, "cells", sw, "whole numbers", n=2)
        cells = [f.whole(shape["cells"], i, f"{sw}.cells", 1, 512) for i in range(2)]
        return _grid_tris(size, cells), _translate(read_point(f, shape, "center", sw))
    if kind == "box":
        size = np.array(f.vec(shape, "size", sw, 3, hi=MAX_COORD, above=0.0))
        return _box_tris(size), _translate(read_point(f, shape, "center", sw))
    if kind in ("prism", "cylinder"):
        r = read_length(f, shape, "radius", sw)
        h = read_length(f, shape, "height", sw)
        n = f.whole(shape, "sides", sw, 3, 256)
        return _prism_tris(r, h, n), _translate(read_point(f, shape, "base", sw))
    if kind == "quad":
        f.items(shape, "corners", sw, "points [x, y, z]", n=4)
        p = [read_point(f, shape["corners"], i, f"{sw}.corners") for i in range(4)]
        tris = np.array([[p[0], p[1], p[2]], [p[0], p[2], p[3]]])
        area = np.linalg.norm(np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]), axis=1)
        if (area <= 0).any():
            f.fail(f"{sw}.corners", "the 4 corners of a quad with non-zero area", shape["corners"],
                   "move the corners apart (in order around the quad)")
        return tris, np.eye(4)
    if kind == "railing":
        a = read_point(f, shape, "start", sw)
        b = read_point(f, shape, "end", sw)
        h = read_length(f, shape, "height", sw)
        th = read_length(f, shape, "thickness", sw)
        posts = f.whole(shape, "posts", sw, 2, 64)
        if a[1] != b[1] or (a[0] != b[0] and a[2] != b[2]) or np.array_equal(a, b):
            f.fail(f"{sw}.end", "a point other than start, at its height and along x or z from it",
                   shape["end"], "a railing runs along x or along z at one height")
        length = float(np.abs(b - a).max())
        along_x = a[0] != b[0]
        rail = _box_tris((length + th, th, th) if along_x else (th, th, length + th)) + [0, h - th / 2, 0]
        parts = [rail]
        for k in range(posts):
            off = -length / 2 + length * k / (posts - 1)
            parts.append(_box_tris((th, h, th)) + ([off, h / 2, 0] if along_x else [0, h / 2, off]))
        return np.concatenate(parts), _translate((a + b) / 2)
    # kind == "obj"
    rel = f.text(shape, "path", sw)
    tris = _read_obj(base_dir / rel, f, f"{sw}.path", sources)
    scale = read_length(f, shape, "scale", sw, default=1.0)
    return tris * scale, _translate(read_point(f, shape, "position", sw))
