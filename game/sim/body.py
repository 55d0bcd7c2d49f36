"""The fighter's body and its pose tables: ``fighters.json`` and the keyframes of ``moves.json``.

``fighters.json`` gives the skeleton (limbs, joints, solids), health, pushbox and colours.  A
pose (a name, or ``{base, limb: [ax, ay, az]}`` in degrees) compiles to ``(L, 3)`` radians, and
a keyframed animation (``keys: [[frame, pose], ...]``) to a dense eased ``(frames, L, 3)`` table,
so posing a fighter during play is an index, not an interpolation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .fields import MISSING, Fields, Key, fields_of, read_json
from .limits import BODY_SIZE, MAX_ANGLE, MAX_HEALTH, MAX_LIMBS, MAX_PUSHBOX
from .skeleton import Skeleton, SkeletonError


def ease(t: np.ndarray) -> np.ndarray:
    """Smoothstep ``3t^2 - 2t^3`` of ``t`` in [0, 1] (any shape): the keyframes' easing."""
    return t * t * (3.0 - 2.0 * t)


def read_fighters(path: Path) -> tuple[Skeleton, int, float, tuple[dict, ...]]:
    """``fighters.json`` -> (skeleton, max_health, pushbox_radius, fighters), every field checked."""
    f = fields_of(path)
    doc = f.root(read_json(path))
    max_health = f.whole(doc, "max_health", "", 1, MAX_HEALTH,
                         f"a whole number of health points from 1 to {MAX_HEALTH}")
    radius = f.num(doc, "pushbox_radius", "", hi=MAX_PUSHBOX, above=0.0)
    src = f.items(doc, "limbs", "", "limb objects", lo=1, hi=MAX_LIMBS)
    limbs = []
    for i in range(len(src)):
        w = f"limbs[{i}]"
        limb = f.obj(src, i, "limbs")
        limbs.append({
            "name": f.text(limb, "name", w),
            "parent": f.text(limb, "parent", w, nullable=True),
            "joint": f.vec(limb, "joint", w, 3, -BODY_SIZE, BODY_SIZE),
            "center": f.vec(limb, "center", w, 3, -BODY_SIZE, BODY_SIZE),
            "half": f.vec(limb, "half", w, 3, hi=BODY_SIZE, above=0.0),
        })
    try:
        skeleton = Skeleton(limbs)
    except SkeletonError as exc:
        f.fail(exc.field, exc.expected, exc.got, exc.fix)
    fighters = f.items(doc, "fighters", "", "fighter objects (the two players)", n=2)
    for i in range(len(fighters)):
        w = f"fighters[{i}]"
        fd = f.obj(fighters, i, "fighters")
        f.text(fd, "name", w, default=None)
        colors = f.obj(fd, "colors", w)
        for c in f.entries(colors):
            f.vec(colors, c, f"{w}.colors", 3, 0.0, 1.0)
        limb_colors = f.obj(fd, "limb_colors", w)
        for name in skeleton.names:
            f.choice(limb_colors, name, f"{w}.limb_colors", f.entries(colors), "a colour name:")
        for name in f.entries(limb_colors):
            if name not in skeleton.names:
                f.unknown(f"{w}.limb_colors", name, skeleton.names)
    f.reject_unknown(doc)
    return skeleton, max_health, radius, tuple(fighters)


def compile_pose(f: Fields, parent: Any, key: Key, where: str, poses_src: dict, names: tuple[str, ...],
                  seen: tuple[str, ...] = ()) -> np.ndarray:
    """The pose at ``parent[key]`` (a pose name or ``{base, limb: [ax, ay, az]}``) -> ``(L, 3)`` radians.

    ``seen``: the poses being compiled that led here, so a pose cannot be its own base."""
    field = f.at(where, key)
    spec = f.raw(parent, key, where, "a pose name or an object {base, limb: [ax, ay, az]}")
    if isinstance(spec, str):
        if spec not in poses_src or f.is_comment(spec):
            f.fail(field, f"a pose name (one of {', '.join(f.entries(poses_src))})", spec)
        if spec in seen:
            f.fail(field, "a pose that is not based on itself", spec,
                   f"break the chain of 'base' poses {' -> '.join(seen + (spec,))}")
        return compile_pose(f, poses_src, spec, "poses", poses_src, names, seen + (spec,))
    if not isinstance(spec, dict):
        f.fail(field, "a pose name or an object {base, limb: [ax, ay, az]}", spec)
    base = f.raw(spec, "base", field, "a pose name or null", default=None)
    out = (
        compile_pose(f, spec, "base", field, poses_src, names, seen) if base not in (None, MISSING)
        else np.zeros((len(names), 3))
    ).copy()
    for limb in f.entries(spec):
        if limb == "base":
            continue
        if limb not in names:
            f.unknown(field, limb, ("base", *names))
        angles = f.vec(spec, limb, field, 3, -MAX_ANGLE, MAX_ANGLE)   # [ax, ay, az] degrees
        out[names.index(limb)] = np.radians(np.asarray(angles, dtype=float))
    return out


def compile_keys(f: Fields, parent: dict, where: str, frames: int, poses_src: dict,
                 names: tuple[str, ...]) -> np.ndarray:
    """``parent["keys"]``, keyframes ``[[frame, pose], ...]`` -> dense eased table ``(frames, L, 3)``."""
    field = f.at(where, "keys")
    keys = f.items(parent, "keys", where, "[frame, pose] pairs", lo=1, hi=frames + 1)
    kf, kp = [], []
    for i in range(len(keys)):
        kw = f.at(field, i)
        f.items(keys, i, field, "items: [frame, pose]", n=2)
        if i == 0:
            kf.append(f.whole(keys[0], 0, kw, 0, 0, "frame 0 (the first key starts the animation)"))
        elif kf[-1] >= frames:
            f.fail(kw, f"no key after frame {frames}, the last one", keys[i], "remove this key")
        else:
            kf.append(f.whole(keys[i], 0, kw, kf[-1] + 1, frames,
                              f"a key frame from {kf[-1] + 1} to {frames} (after the previous key)"))
        kp.append(compile_pose(f, keys[i], 1, kw, poses_src, names))
    table = np.empty((frames, len(names), 3))
    for fr in range(frames):
        j = max(i for i, k in enumerate(kf) if k <= fr)
        if j == len(kf) - 1:
            table[fr] = kp[j]
        else:
            t = ease(np.array((fr - kf[j]) / (kf[j + 1] - kf[j])))
            table[fr] = kp[j] + (kp[j + 1] - kp[j]) * t
    return table

