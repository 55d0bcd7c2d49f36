"""View and projection matrices in OpenGL's column-vector convention, and projecting world
points to window pixels: the camera, the HUD (labels at world points) and the title screen's
view use them.  Pure numpy (pyrr's row-vector matrices, transposed), no GL.
"""

from __future__ import annotations

import math

import numpy as np
from pyrr import matrix44

NEAR, FAR = 0.1, 120.0   # m: the depth range every view draws


def perspective(fovy_deg: float, aspect: float, near: float = NEAR, far: float = FAR) -> np.ndarray:
    """OpenGL's (column-vector) projection ``(4, 4)`` float: pyrr's row-vector matrix, transposed."""
    return np.ascontiguousarray(matrix44.create_perspective_projection(fovy_deg, aspect, near, far, dtype=float).T)


def look_at(eye, target, up=(0.0, 1.0, 0.0)) -> np.ndarray:
    """OpenGL's (column-vector) view matrix ``(4, 4)`` float from ``eye`` towards ``target``:
    pyrr's ``matrix44.create_look_at``, transposed (a test holds the two equal).

    Rows: the side axis ``s = f x up``, the true up ``u = s x f`` and ``-f`` (``f`` the unit
    view direction), each with its translation ``-row . eye``.  Written on Python floats: it
    runs every frame, and on 3-vectors pyrr's ``np.cross`` and ``normalise`` calls cost many
    times the arithmetic they do.
    """
    ex, ey, ez = (float(c) for c in eye)
    tx, ty, tz = (float(c) for c in target)
    ux, uy, uz = (float(c) for c in up)
    fx, fy, fz = tx - ex, ty - ey, tz - ez
    n = math.sqrt(fx * fx + fy * fy + fz * fz)
    sx, sy, sz = fy * uz - fz * uy, fz * ux - fx * uz, fx * uy - fy * ux
    m = math.sqrt(sx * sx + sy * sy + sz * sz)
    if not (n > 0.0 and m > 0.0):
        raise ValueError(f"look_at: no view direction (eye {tuple(eye)} and target {tuple(target)} coincide) "
                         f"or it is parallel to up {tuple(up)}: move the target or pick another up")
    fx, fy, fz = fx / n, fy / n, fz / n
    sx, sy, sz = sx / m, sy / m, sz / m          # |f x up| / |f| = m / n: the same unit side axis
    ux, uy, uz = sy * fz - sz * fy, sz * fx - sx * fz, sx * fy - sy * fx
    n = math.sqrt(ux * ux + uy * uy + uz * uz)
    ux, uy, uz = ux / n, uy / n, uz / n
    return np.array([[sx, sy, sz, -(sx * ex + sy * ey + sz * ez)],
                     [ux, uy, uz, -(ux * ex + uy * ey + uz * ez)],
                     [-fx, -fy, -fz, fx * ex + fy * ey + fz * ez],
                     [0.0, 0.0, 0.0, 1.0]])


def project(points, view_proj: np.ndarray, width: int, height: int) -> np.ndarray:
    """World points ``(..., 3)`` -> window pixels ``(..., 2)``, origin top-left (image rows)."""
    p = np.asarray(points, dtype=float)
    h = np.concatenate([p, np.ones(p.shape[:-1] + (1,))], axis=-1) @ view_proj.T
    ndc = h[..., :3] / h[..., 3:4]
    x = (ndc[..., 0] + 1) * 0.5 * width
    y = (1 - ndc[..., 1]) * 0.5 * height
    return np.stack([x, y], axis=-1)
