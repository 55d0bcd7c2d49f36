"""The 3D scene: arena, fighters drawn limb by limb, their shadows, and the sky.

Both fighters are one static indexed mesh (every limb a rounded box in its
own frame); each frame only the limb matrices ``(2 L, 4, 4)`` are uploaded and
the fighters cost one draw call, plus one for their shadows.

Shadows are planar projections of the limbs along the sun onto the floor,
drawn with a stencil test so overlapping limbs darken once.  (A shadow map
was measured first: on llvmpipe its depth pass and per-pixel lookups cost
~25-40 ms a frame at 1280x720, far over the frame budget.)
"""

from __future__ import annotations

import ctypes

import numpy as np
from pyglet import gl

from .geometry import KIND_STYLE, arena_parts, arena_version, fighter_mesh, material_ranges, world_mesh
from .glutil import Program, VertexArray

SUN_DIR = np.array([0.42, 0.80, 0.43])
SUN_DIR = SUN_DIR / np.linalg.norm(SUN_DIR)
SHADOW_STRENGTH = 0.55


def limb_matrices(rot: np.ndarray, origin: np.ndarray) -> np.ndarray:
    """World matrices ``(..., 4, 4)`` from limb frames ``rot (..., 3, 3)``, ``origin (..., 3)``."""
    m = np.zeros(rot.shape[:-2] + (4, 4), dtype=np.float32)
    m[..., :3, :3] = rot
    m[..., :3, 3] = origin
    m[..., 3, 3] = 1.0
    return m


class WorldRenderer:
    """Owns the GL objects of the 3D scene.  ``draw`` reads arrays only."""

    def __init__(self, skeleton, fighters: list[dict], arena=None):
        self.n_limbs = len(skeleton.names)
        self.lit_fighter = Program("fighter.vert", "lit.frag", defines={"MATERIAL": 10})  # no pattern
        mats = sorted({int(m) for _, m in KIND_STYLE.values()} | {0})
        self.lit_world = {m: Program("world.vert", "lit.frag", defines={"MATERIAL": m}) for m in mats}
        self.shadow = Program("planar_shadow.vert", "planar_shadow.frag")
        self.sky = Program("sky.vert", "sky.frag")
        layout = [(0, 3), (1, 3), (2, 3), (3, 1)]
        verts, idx = fighter_mesh(skeleton, fighters)
        self.fighters = VertexArray(layout, indexed=True)
        self.fighters.set_vertices(verts)
        self.fighters.set_indices(idx)
        self.world = VertexArray(layout)
        self._arena_version = None
        self._rim = None
        self.sync_arena(arena)
        # a coarser copy of the fighters for their shadows (the outline is all that shows)
        sverts, sidx = fighter_mesh(skeleton, fighters, detail=1)
        self.shadow_mesh = VertexArray(layout, indexed=True)
        self.shadow_mesh.set_vertices(sverts)
        self.shadow_mesh.set_indices(sidx)
        self.sky_vao = VertexArray([(0, 1)])
        self.sky_vao.count = 4

    def sync_arena(self, arena, scene=None) -> None:
        """Rebuild the arena mesh when the live ``scene``'s models changed (a crate struck
        or broken); ``arena`` None: the built-in arena."""
        version = (id(arena), arena_version(scene if scene is not None else getattr(arena, "scene", None)))
        if version != self._arena_version:
            self._arena_version = version
            parts = arena_parts(arena, scene)
            walls = [np.asarray(t).reshape(-1, 3) for _n, kind, t in parts if kind == "wall"]
            self._rim = None
            if walls:            # points along the wall tops, for the sky band
                pts = np.concatenate(walls)
                lo, hi = pts.min(axis=0), pts.max(axis=0)
                s = np.linspace(0.0, 1.0, 33)
                top = hi[1]
                edges = [np.stack([lo[0] + (hi[0] - lo[0]) * s, np.full_like(s, top), np.full_like(s, z)], axis=1)
                         for z in (lo[2], hi[2])]
                edges += [np.stack([np.full_like(s, x), np.full_like(s, top), lo[2] + (hi[2] - lo[2]) * s], axis=1)
                          for x in (lo[0], hi[0])]
                self._rim = np.concatenate(edges)
            verts = world_mesh(parts)
            self.world.set_vertices(verts)
            self.ranges = material_ranges(verts)

    def sky_bottom(self, view_proj) -> float:
        """NDC y below which no sky can show: the lowest projected point of the arena's
        wall tops in front of the camera (-1: the whole screen when there are none)."""
        if self._rim is None:
            return -1.0
        h = np.concatenate([self._rim, np.ones((len(self._rim), 1))], axis=1) @ view_proj.T
        front = h[:, 3] > 0.1        # wall tops (above the eye) only rise on screen toward the eye
        if not front.any():
            return -1.0
        y = h[front, 1] / h[front, 3]
        return float(max(min(y.min(), 1.0) - 0.02, -1.0))

    def draw(self, view, proj, eye, limbs: np.ndarray, feet: np.ndarray, viewport, flash=None,
             framebuffer=0) -> None:
        """``limbs`` ``(2 L, 4, 4)`` world matrices; ``feet`` ``(2, 3)`` ground points;
        ``flash`` ``(2, 4)`` per-fighter additive tint (rgb, amount)."""
        view_proj = proj @ view
        if flash is None:
            flash = np.zeros((2, 4))
        gl.glEnable(gl.GL_DEPTH_TEST)
        gl.glDepthMask(gl.GL_TRUE)
        gl.glDepthFunc(gl.GL_LESS)
        gl.glDisable(gl.GL_BLEND)
        gl.glDisable(gl.GL_CULL_FACE)
        gl.glClearStencil(0)
        gl.glClearColor(0.0, 0.0, 0.0, 1.0)
        gl.glColorMask(gl.GL_TRUE, gl.GL_TRUE, gl.GL_TRUE, gl.GL_TRUE)
        gl.glClear(gl.GL_DEPTH_BUFFER_BIT | gl.GL_STENCIL_BUFFER_BIT)   # colour: every pixel is drawn
        # 1. fighters, then the arena (early depth test skips the floor behind them), one program per material
        flash32 = np.ascontiguousarray(flash, dtype=np.float32)
        draws = [(self.lit_fighter, None)] + [(self.lit_world.get(m, self.lit_world[0]), (first, count))
                                               for m, first, count in self.ranges]
        for prog, rng in draws:
            prog.use()
            prog.mat4("u_view_proj", view_proj)
            prog.vec("u_eye", eye)
            prog.vec("u_sun_dir", SUN_DIR)
            prog.vec("u_pixel_angle", 2.0 / (proj[1, 1] * viewport[3]))
            if rng is None:
                gl.glUniform4fv(prog.loc("u_flash"), 2, flash32.ctypes.data_as(ctypes.POINTER(gl.GLfloat)))
                prog.vec("u_n_limbs", float(self.n_limbs))
                prog.mat4("u_limb", limbs)
                self.fighters.draw()
            else:
                self.world.draw_range(*rng)
        # 2. the fighters' shadows on the floor: blended once per pixel (stencil), depth-tested
        gl.glEnable(gl.GL_BLEND)
        gl.glBlendFunc(gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA)
        gl.glDepthMask(gl.GL_FALSE)
        gl.glEnable(gl.GL_STENCIL_TEST)
        gl.glStencilFunc(gl.GL_EQUAL, 0, 0xFF)
        gl.glStencilOp(gl.GL_KEEP, gl.GL_KEEP, gl.GL_INCR)
        self.shadow.use()
        self.shadow.mat4("u_view_proj", view_proj)
        self.shadow.vec("u_sun_dir", SUN_DIR)
        self.shadow.vec("u_floor_y", float(feet[:, 1].min()))
        self.shadow.vec("u_strength", SHADOW_STRENGTH)
        self.shadow.mat4("u_limb", limbs)
        self.shadow_mesh.draw()
        gl.glDisable(gl.GL_STENCIL_TEST)
        gl.glDisable(gl.GL_BLEND)
        # 3. sky last, only where nothing was drawn (depth still at the clear value)
        gl.glDepthFunc(gl.GL_LEQUAL)
        self.sky.use()
        self.sky.mat4("u_inv_view", np.linalg.inv(view))
        self.sky.vec("u_proj_scale", (1.0 / proj[0, 0], 1.0 / proj[1, 1]))
        self.sky.vec("u_sun_dir", SUN_DIR)
        self.sky.vec("u_y0", self.sky_bottom(view_proj))
        self.sky_vao.draw(gl.GL_TRIANGLE_STRIP)
        gl.glDepthMask(gl.GL_TRUE)
        gl.glDepthFunc(gl.GL_LESS)
        gl.glUseProgram(0)
