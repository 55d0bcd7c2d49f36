"""Small batched GL passes: spark billboards, overlay lines, HUD rectangles.

Each pass is one instanced (or one dynamic) draw whose per-frame data is a
numpy array uploaded with a single call.
"""

from __future__ import annotations

import numpy as np
from pyglet import gl

from .glutil import Program, VertexArray

_QUAD_STRIP = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]], dtype=np.float32)
_UNIT_STRIP = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], dtype=np.float32)


class SparkRenderer:
    """Additive, depth-test-free billboards (``Sparks.instances`` rows)."""

    def __init__(self):
        self.prog = Program("spark.vert", "spark.frag")
        self.vao = VertexArray([(0, 2)], [(1, 3), (2, 3), (3, 1), (4, 4)])
        self.vao.set_vertices(_QUAD_STRIP)

    def draw(self, view_proj, proj, viewport, rows: np.ndarray) -> None:
        if not len(rows):
            return
        self.vao.set_instances(rows)
        gl.glDisable(gl.GL_DEPTH_TEST)
        gl.glDepthMask(gl.GL_FALSE)
        gl.glEnable(gl.GL_BLEND)
        gl.glBlendFunc(gl.GL_ONE, gl.GL_ONE)
        self.prog.use()
        self.prog.mat4("u_view_proj", view_proj)
        self.prog.vec("u_viewport", (viewport[2], viewport[3]))
        self.prog.vec("u_proj11", float(proj[1, 1]))
        self.vao.draw(gl.GL_TRIANGLE_STRIP)
        gl.glBlendFunc(gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA)
        gl.glDepthMask(gl.GL_TRUE)
        gl.glUseProgram(0)


def cull_segments(segments: np.ndarray, colors: np.ndarray, view_proj: np.ndarray):
    """Drop segments entirely outside one clip plane of the view (both ends beyond it):
    crate slabs and quadtree cells behind or beside the camera cost llvmpipe triangles."""
    if not len(segments):
        return segments, colors
    h = np.concatenate([segments, np.ones(segments.shape[:-1] + (1,))], axis=-1) @ view_proj.T   # (n, 2, 4)
    x, y, w = h[..., 0], h[..., 1], h[..., 3]
    out = ((x < -w).all(axis=1) | (x > w).all(axis=1) | (y < -w).all(axis=1) | (y > w).all(axis=1)
           | (w < 0.05).all(axis=1))
    keep = ~out
    return segments[keep], colors[keep]


class LineRenderer:
    """World-space segments ``(n, 2, 3)`` with colours ``(n, 4)``: one instanced quad per
    segment, widened in screen space by the vertex shader.

    Drawn over the scene without a depth test (one pass: on llvmpipe every
    extra pass over those thin triangles costs a visible part of a frame), except a leading run of
    segments that lie in the scene (the quadtree cells on the floor), drawn
    depth-tested from their own instance buffer so a fighter or a crate in
    front hides them: the same triangles, in two draws.
    """

    def __init__(self):
        self.prog = Program("line.vert", "line.frag")
        self.vao = VertexArray([(0, 2)], [(1, 3), (2, 3), (3, 4)])
        self.vao.set_vertices(np.array([[0, -1], [1, -1], [0, 1], [1, 1]], dtype=np.float32))
        self.vao_tested = VertexArray([(0, 2)], [(1, 3), (2, 3), (3, 4)])
        self.vao_tested.set_vertices(np.array([[0, -1], [1, -1], [0, 1], [1, 1]], dtype=np.float32))

    def draw(self, view_proj, viewport, segments: np.ndarray, colors: np.ndarray, width: float = 2.0,
             depth_tested: int = 0) -> None:
        """``depth_tested``: how many of the first segments are drawn with the depth test
        (the scene's depth buffer as the world pass left it; no depth written)."""
        parts = ((self.vao_tested, segments[:depth_tested], colors[:depth_tested], True),
                 (self.vao, segments[depth_tested:], colors[depth_tested:], False))
        started = False
        for vao, segs, cols, tested in parts:
            segs, cols = cull_segments(segs, cols, view_proj)
            n = len(segs)
            if not n:
                continue
            inst = np.empty((n, 10), dtype=np.float32)
            inst[:, :3] = segs[:, 0]
            inst[:, 3:6] = segs[:, 1]
            inst[:, 6:] = cols
            vao.set_instances(inst)
            if not started:
                started = True
                self.prog.use()
                self.prog.mat4("u_view_proj", view_proj)
                self.prog.vec("u_viewport", (viewport[2], viewport[3]))
                self.prog.vec("u_width", float(width))
                self.prog.vec("u_alpha", 0.9)
                gl.glEnable(gl.GL_BLEND)
                gl.glBlendFunc(gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA)
                gl.glDepthMask(gl.GL_FALSE)
            if tested:
                gl.glEnable(gl.GL_DEPTH_TEST)
            else:
                gl.glDisable(gl.GL_DEPTH_TEST)     # on top of everything: boxes inside limbs stay visible
            vao.draw(gl.GL_TRIANGLE_STRIP)
        if started:
            gl.glDepthMask(gl.GL_TRUE)
            gl.glEnable(gl.GL_DEPTH_TEST)
            gl.glUseProgram(0)


class RectRenderer:
    """Window-pixel rectangles with a vertical gradient: rows ``(x, y, w, h, rgba bottom, rgba top)``."""

    def __init__(self):
        self.prog = Program("rect.vert", "rect.frag")
        self.vao = VertexArray([(0, 2)], [(1, 4), (2, 4), (3, 4)])
        self.vao.set_vertices(_UNIT_STRIP)

    def draw(self, size, rows: np.ndarray) -> None:
        if not len(rows):
            return
        self.vao.set_instances(rows)
        gl.glDisable(gl.GL_DEPTH_TEST)
        gl.glEnable(gl.GL_BLEND)
        gl.glBlendFunc(gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA)
        self.prog.use()
        self.prog.vec("u_viewport", (float(size[0]), float(size[1])))
        self.vao.draw(gl.GL_TRIANGLE_STRIP)
        gl.glUseProgram(0)


class Rects:
    """Collects HUD rectangles for one :class:`RectRenderer` draw."""

    def __init__(self):
        self.rows: list[tuple] = []

    def add(self, x, y, w, h, color, top=None) -> None:
        c = tuple(color) + ((1.0,) if len(color) == 3 else ())
        t = c if top is None else tuple(top) + ((1.0,) if len(top) == 3 else ())
        self.rows.append((x, y, w, h) + c + t)

    def array(self) -> np.ndarray:
        return np.array(self.rows, dtype=np.float32).reshape(-1, 12)
