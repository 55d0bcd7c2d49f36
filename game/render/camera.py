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

FOV_Y = 38.0            # degrees
NEAR, FAR = 0.1, 120.0
EYE_HEIGHT = 1.55       # m above the floor
TARGET_HEIGHT = 0.95
MIN_DIST, MAX_DIST = 4.3, 10.0
DIST_PER_SEP = 1.05     # extra metres back per metre of separation
SMOOTH_POS = 0.12       # fraction of the remaining error closed per frame
SMOOTH_DIR = 0.08
WALL = 14.6             # keep the eye inside the arena walls


def perspective(fovy_deg: float, aspect: float, near: float = NEAR, far: float = FAR) -> np.ndarray:
    f = 1.0 / math.tan(math.radians(fovy_deg) / 2)
    m = np.zeros((4, 4))
    m[0, 0] = f / aspect
    m[1, 1] = f
    m[2, 2] = (far + near) / (near - far)
    m[2, 3] = 2 * far * near / (near - far)
    m[3, 2] = -1.0
    return m


def look_at(eye, target, up=(0.0, 1.0, 0.0)) -> np.ndarray:
    eye, target, up = (np.asarray(v, dtype=float) for v in (eye, target, up))
    f = target - eye
    f /= np.linalg.norm(f)
    s = np.cross(f, up)
    s /= np.linalg.norm(s)
    u = np.cross(s, f)
    m = np.eye(4)
    m[0, :3], m[1, :3], m[2, :3] = s, u, -f
    m[:3, 3] = -m[:3, :3] @ eye
    return m


def ortho(l, r, b, t, n, f) -> np.ndarray:
    m = np.eye(4)
    m[0, 0], m[1, 1], m[2, 2] = 2 / (r - l), 2 / (t - b), -2 / (f - n)
    m[0, 3], m[1, 3], m[2, 3] = -(r + l) / (r - l), -(t + b) / (t - b), -(f + n) / (f - n)
    return m


def project(points, view_proj: np.ndarray, width: int, height: int) -> np.ndarray:
    """World points ``(..., 3)`` -> window pixels ``(..., 2)``, origin top-left (image rows)."""
    p = np.asarray(points, dtype=float)
    h = np.concatenate([p, np.ones(p.shape[:-1] + (1,))], axis=-1) @ view_proj.T
    ndc = h[..., :3] / h[..., 3:4]
    x = (ndc[..., 0] + 1) * 0.5 * width
    y = (1 - ndc[..., 1]) * 0.5 * height
    return np.stack([x, y], axis=-1)


class FightCamera:
    """Smoothed side-on camera.  ``update(p1, p2)`` once per sim frame; ``view_proj(alpha)``."""

    def __init__(self, p1=(-1.5, 0, 0), p2=(1.5, 0, 0)):
        self.shake = 0.0
        self.shake_t = 0
        self.reset(p1, p2)

    def reset(self, p1, p2) -> None:
        self.side = None
        target, direction, dist = self._goal(np.asarray(p1, float), np.asarray(p2, float))
        self.target, self.dir, self.dist = target, direction, dist
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

    def _eye_target(self):
        n = self.dir / max(np.linalg.norm(self.dir), 1e-9)
        eye = np.array([self.target[0] + n[0] * self.dist, EYE_HEIGHT, self.target[2] + n[1] * self.dist])
        eye[0] = min(max(eye[0], -WALL), WALL)
        eye[2] = min(max(eye[2], -WALL), WALL)
        return eye, self.target.copy()

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
