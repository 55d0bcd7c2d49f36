"""The fight camera: pure numpy, advanced once per simulation frame.

It looks across the fighters' line from the side (perpendicular to the line
joining them, on the same side as the frame before, so a sidestep swings it
around the arena), backs off with their separation, and is smoothed
exponentially.  Heavy hits add a short decaying shake.  The renderer
interpolates between the last two camera states by the loop's alpha, exactly
like the fighters.  Matrices are column-vector convention (OpenGL).
"""

from __future__ import annotations

import math

import numpy as np
from pyrr import matrix44

FOV_Y = 38.0            # degrees
NEAR, FAR = 0.1, 120.0
EYE_HEIGHT = 1.55       # m above the floor
TARGET_HEIGHT = 0.95
MIN_DIST, MAX_DIST = 4.3, 10.0
DIST_PER_SEP = 1.05     # extra metres back per metre of separation
SMOOTH_POS = 0.12       # fraction of the remaining error closed per frame
SMOOTH_DIR = 0.08
WALL = 14.6             # keep the eye inside the arena walls
OBSTACLE_MARGIN = 0.35  # metres kept between the eye and an obstacle
TALL = 2.0              # obstacles higher than this pull the eye in; lower ones lift it
LIFT_REACH = 1.4        # a low obstacle this close (x-z) to the eye lifts it ...
LIFT_CLEAR = 1.15       # ... to this height above the obstacle's top


def perspective(fovy_deg: float, aspect: float, near: float = NEAR, far: float = FAR) -> np.ndarray:
    """OpenGL's (column-vector) projection ``(4, 4)`` float: pyrr's row-vector matrix, transposed."""
    return np.ascontiguousarray(matrix44.create_perspective_projection(fovy_deg, aspect, near, far, dtype=float).T)


def look_at(eye, target, up=(0.0, 1.0, 0.0)) -> np.ndarray:
    """OpenGL's (column-vector) view matrix ``(4, 4)`` float from ``eye`` towards ``target``:
    pyrr's ``matrix44.create_look_at``, transposed (a test holds the two equal).

    Rows: the side axis ``s = f x up``, the true up ``u = s x f`` and ``-f`` (``f`` the unit
    view direction), each with its translation ``-row . eye``.  Written on Python floats: it
    runs every frame, and pyrr's ``np.cross`` and ``normalise`` calls on 3-vectors cost ~90 µs.
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


def first_blocker(origin, end, boxes: np.ndarray) -> float:
    """Smallest t in (0, 1] where the segment ``origin + t (end - origin)`` enters one of
    ``boxes (N, 2, 3)``; 1.0 if none does (boxes containing the origin are ignored)."""
    if boxes is None or not len(boxes):
        return 1.0
    o = np.asarray(origin, dtype=float)
    d = np.asarray(end, dtype=float) - o
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = np.where(np.abs(d) > 1e-12, 1.0 / np.where(np.abs(d) > 1e-12, d, 1.0), np.inf)
        t1 = (boxes[:, 0] - o) * inv
        t2 = (boxes[:, 1] - o) * inv
    # an axis with d == 0: inside the slab -> (-inf, inf), outside -> empty
    flat = np.abs(d) <= 1e-12
    inside = (boxes[:, 0] <= o) & (o <= boxes[:, 1])
    lo = np.where(flat, np.where(inside, -np.inf, np.inf), np.minimum(t1, t2))
    hi = np.where(flat, np.where(inside, np.inf, -np.inf), np.maximum(t1, t2))
    tmin, tmax = lo.max(axis=1), hi.min(axis=1)
    hit = (tmin > 0.0) & (tmin <= 1.0) & (tmax >= tmin)
    return float(tmin[hit].min()) if hit.any() else 1.0


class FightCamera:
    """Smoothed side-on camera.  ``update(p1, p2)`` once per sim frame; ``matrices(aspect, alpha)``.

    ``obstacles`` ``(N, 2, 3)``: world boxes the eye must not be behind or inside (the
    tall ones are used only without ``ray``).  ``ray``: optional
    ``(origin (3,), unit direction (3,), max_distance) -> distance | None``, the
    scene's nearest hit (C7) for camera collision.
    """

    def __init__(self, p1=(-1.5, 0, 0), p2=(1.5, 0, 0), obstacles=None, ray=None):
        self.ray = ray
        boxes = np.zeros((0, 2, 3)) if obstacles is None else np.asarray(obstacles, dtype=float).reshape(-1, 2, 3)
        tall = boxes[:, 1, 1] > TALL
        self.obstacles = boxes[tall] + np.array([[-OBSTACLE_MARGIN] * 3, [OBSTACLE_MARGIN] * 3])
        self.low = boxes[~tall]
        self.eye_y = EYE_HEIGHT
        self.shake = 0.0
        self.shake_t = 0
        self.reset(p1, p2)

    def reset(self, p1, p2) -> None:
        self.side = None
        target, direction, dist = self._goal(np.asarray(p1, float), np.asarray(p2, float))
        self.target, self.dir, self.dist = target, direction, dist
        self.eye_y = EYE_HEIGHT
        self.eye_y = self._wanted_eye_y()
        self.prev = self.current = self._eye_target()

    def _goal(self, p1, p2):
        mid = (p1 + p2) / 2
        d = np.array([p2[0] - p1[0], p2[2] - p1[2]])
        sep = float(np.hypot(*d))
        d = d / sep if sep > 1e-6 else np.array([1.0, 0.0])
        n = np.array([-d[1], d[0]])                      # perpendicular on x-z
        if self.side is not None and n @ self.side < 0:
            n = -n
        self.side = n
        target = np.array([mid[0], TARGET_HEIGHT, mid[2]])
        dist = min(max(2.4 + DIST_PER_SEP * sep, MIN_DIST), MAX_DIST)
        return target, n, dist

    def _wanted_eye_y(self) -> float:
        """Eye height that looks over every low obstacle near the eye (or under the line of sight)."""
        if not len(self.low):
            return EYE_HEIGHT
        n = self.dir / max(np.linalg.norm(self.dir), 1e-9)
        ex, ez = self.target[0] + n[0] * self.dist, self.target[2] + n[1] * self.dist
        lo, hi = self.low[:, 0], self.low[:, 1]
        dx = np.maximum(np.maximum(lo[:, 0] - ex, ex - hi[:, 0]), 0.0)
        dz = np.maximum(np.maximum(lo[:, 2] - ez, ez - hi[:, 2]), 0.0)
        near = np.hypot(dx, dz) < LIFT_REACH
        return float(max(EYE_HEIGHT, (hi[near, 1] + LIFT_CLEAR).max())) if near.any() else EYE_HEIGHT

    def _collide(self, eye: np.ndarray) -> np.ndarray:
        """Pull the eye toward the target, in front of the first tall obstacle between them."""
        d = eye - self.target
        length = float(np.linalg.norm(d))
        if length < 1e-9:
            return eye
        if self.ray is not None:
            hit = self.ray(self.target, d / length, length + OBSTACLE_MARGIN)
            if hit is None:
                return eye
            return self.target + d / length * min(length, max(hit - OBSTACLE_MARGIN, 0.3 * length))
        t = first_blocker(self.target, eye, self.obstacles)
        return eye if t >= 1.0 else self.target + d * max(t - 0.02, 0.3)

    def _eye_target(self):
        n = self.dir / max(np.linalg.norm(self.dir), 1e-9)
        eye = np.array([self.target[0] + n[0] * self.dist, self.eye_y, self.target[2] + n[1] * self.dist])
        eye[0] = min(max(eye[0], -WALL), WALL)
        eye[2] = min(max(eye[2], -WALL), WALL)
        eye = self._collide(eye)
        tgt = self.target.copy()
        tgt[1] += 0.35 * (self.eye_y - EYE_HEIGHT)     # a lifted eye also looks a little higher
        return eye, tgt

    def kick(self, strength: float, frames: int = 12) -> None:
        """Start a camera shake (heavy hits)."""
        self.shake = max(self.shake, strength)
        self.shake_t = frames

    def update(self, p1, p2, frame: int = 0) -> None:
        target, direction, dist = self._goal(np.asarray(p1, float), np.asarray(p2, float))
        self.target = self.target + (target - self.target) * SMOOTH_POS
        self.dir = self.dir + (direction - self.dir) * SMOOTH_DIR
        self.dir /= max(np.linalg.norm(self.dir), 1e-9)
        self.dist += (dist - self.dist) * SMOOTH_POS
        self.eye_y += (self._wanted_eye_y() - self.eye_y) * SMOOTH_POS
        eye, tgt = self._eye_target()
        if self.shake_t > 0:
            k = self.shake * (self.shake_t / 12.0)
            off = np.array([math.sin(frame * 2.7), math.sin(frame * 3.9 + 1.0), math.cos(frame * 3.3)]) * k
            eye, tgt = eye + off, tgt + off * 0.6
            self.shake_t -= 1
        self.prev, self.current = self.current, (eye, tgt)

    def eye_target(self, alpha: float = 1.0):
        (e0, t0), (e1, t1) = self.prev, self.current
        return e0 + (e1 - e0) * alpha, t0 + (t1 - t0) * alpha

    def matrices(self, aspect: float, alpha: float = 1.0):
        """``(view, proj, eye)`` for this render frame."""
        eye, tgt = self.eye_target(alpha)
        return look_at(eye, tgt), perspective(FOV_Y, aspect), eye

    def screen_axes(self, alpha: float = 1.0):
        """Unit x–z vectors: the camera's screen-right and its into-the-screen direction."""
        eye, tgt = self.eye_target(alpha)
        fwd = np.array([tgt[0] - eye[0], tgt[2] - eye[2]])
        fwd /= max(np.linalg.norm(fwd), 1e-9)
        right = np.array([-fwd[1], fwd[0]])
        return right, fwd
