"""The 3D scene: sky, arena, fighters drawn limb by limb, and a sun shadow map.

Both fighters are one static indexed mesh (every limb a rounded box in its
own frame); each frame only the limb matrices ``(2 L, 4, 4)`` are uploaded and
the fighters cost one draw call (plus one in the shadow pass).
"""

from __future__ import annotations

import ctypes

import numpy as np
from pyglet import gl

from .camera import look_at, ortho
from .geometry import arena_parts, arena_version, fighter_mesh, world_mesh
from .glutil import Program, ShadowMap, VertexArray

SUN_DIR = np.array([0.42, 0.80, 0.43])
SUN_DIR = SUN_DIR / np.linalg.norm(SUN_DIR)
SHADOW_SIZE = 1024
SHADOW_HALF = 4.5          # metres covered either side of the fighters' midpoint


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
        self.lit_fighter = Program("fighter.vert", "lit.frag")
        self.lit_world = Program("world.vert", "lit.frag")
        self.shadow_fighter = Program("fighter.vert", "shadow.frag")
        self.shadow_world = Program("world.vert", "shadow.frag")
        self.sky = Program("sky.vert", "sky.frag")
        layout = [(0, 3), (1, 3), (2, 3), (3, 1)]
        verts, idx = fighter_mesh(skeleton, fighters)
        self.fighters = VertexArray(layout, indexed=True)
        self.fighters.set_vertices(verts)
        self.fighters.set_indices(idx)
        self.world = VertexArray(layout)
        self._arena_version = None
        self.sync_arena(arena)
        self.sky_vao = VertexArray([(0, 1)])
        self.sky_vao.count = 3
        self.shadow = ShadowMap(SHADOW_SIZE)

    def sync_arena(self, arena) -> None:
        """Rebuild the arena mesh if ``arena``'s models changed (a struck crate); None: built-in arena."""
        version = (id(arena), arena_version(arena))
        if version != self._arena_version:
            self._arena_version = version
            self.world.set_vertices(world_mesh(arena_parts(arena)))

    def light_matrix(self, centre) -> np.ndarray:
        c = np.array([centre[0], 0.8, centre[2]])
        view = look_at(c + SUN_DIR * 20.0, c, up=(0.0, 0.0, -1.0) if abs(SUN_DIR[1]) > 0.99 else (0.0, 1.0, 0.0))
        # snap to whole shadow texels so the shadow edges do not crawl as the camera follows
        texel = 2 * SHADOW_HALF / SHADOW_SIZE
        view[0, 3] = np.round(view[0, 3] / texel) * texel
        view[1, 3] = np.round(view[1, 3] / texel) * texel
        return ortho(-SHADOW_HALF, SHADOW_HALF, -SHADOW_HALF, SHADOW_HALF, 1.0, 45.0) @ view

    def draw(self, view_proj, eye, limbs: np.ndarray, feet: np.ndarray, viewport, flash=None) -> None:
        """``limbs`` ``(2 L, 4, 4)`` world matrices; ``feet`` ``(2, 3)`` ground points."""
        if flash is None:
            flash = np.zeros((2, 4))
        light_vp = self.light_matrix(feet.mean(axis=0))
        # 1. shadow pass
        gl.glEnable(gl.GL_DEPTH_TEST)
        gl.glDepthMask(gl.GL_TRUE)
        gl.glDisable(gl.GL_BLEND)
        gl.glDisable(gl.GL_CULL_FACE)
        self.shadow.begin()
        gl.glEnable(gl.GL_POLYGON_OFFSET_FILL)
        gl.glPolygonOffset(1.5, 2.0)
        for prog, vao in ((self.shadow_fighter, self.fighters), (self.shadow_world, self.world)):
            prog.use()
            prog.mat4("u_view_proj", light_vp)
            prog.mat4("u_light_vp", light_vp)
            if vao is self.fighters:
                prog.vec("u_n_limbs", float(self.n_limbs))
                prog.mat4("u_limb", limbs)
            vao.draw()
        gl.glDisable(gl.GL_POLYGON_OFFSET_FILL)
        self.shadow.end(viewport)
        # 2. sky
        gl.glClear(gl.GL_COLOR_BUFFER_BIT | gl.GL_DEPTH_BUFFER_BIT)
        gl.glDepthMask(gl.GL_FALSE)
        self.sky.use()
        self.sky.mat4("u_inv_view_proj", np.linalg.inv(view_proj))
        self.sky.vec("u_sun_dir", SUN_DIR)
        self.sky_vao.draw()
        gl.glDepthMask(gl.GL_TRUE)
        # 3. lit arena and fighters
        gl.glActiveTexture(gl.GL_TEXTURE0)
        gl.glBindTexture(gl.GL_TEXTURE_2D, self.shadow.tex)
        for prog, vao in ((self.lit_world, self.world), (self.lit_fighter, self.fighters)):
            prog.use()
            prog.mat4("u_view_proj", view_proj)
            prog.mat4("u_light_vp", light_vp)
            prog.vec("u_eye", eye)
            prog.vec("u_sun_dir", SUN_DIR)
            prog.int("u_shadow", 0)
            prog.vec("u_shadow_texel", 1.0 / SHADOW_SIZE)
            prog.vec3_array("u_feet", feet)
            gl.glUniform4fv(prog.loc("u_flash"), 2, np.ascontiguousarray(flash, dtype=np.float32).ctypes.data_as(
                ctypes.POINTER(gl.GLfloat)))
            if vao is self.fighters:
                prog.vec("u_n_limbs", float(self.n_limbs))
                prog.mat4("u_limb", limbs)
            vao.draw()
        gl.glBindTexture(gl.GL_TEXTURE_2D, 0)
        gl.glUseProgram(0)
