"""The 3D scene: arena, fighters drawn limb by limb, their shadows, and the sky.

Both fighters are one static indexed mesh (every limb a rounded box in its
own frame); each frame only the limb matrices ``(2 L, 4, 4)`` are uploaded and
the fighters cost one draw call, plus one for their shadows.

Crates and the barrel are not part of the arena mesh: each is drawn from its
method-B compound's faces (:class:`CrateMeshes`, rebuilt only for the crate a
strike changed), so the arena mesh is built once and never changes.  Crate
debris (:class:`DebrisRenderer`) is one instanced draw of lit boxes.

Shadows are planar projections of the limbs along the sun onto the floor,
drawn with a stencil test so overlapping limbs darken once.  (Not a shadow
map: on llvmpipe its depth pass and per-pixel lookups cost far more than a
frame's budget at 1280x720.)
"""

from __future__ import annotations

import ctypes

import numpy as np
from pyglet import gl

from .crates import MAT_INTERIOR, MAT_SPLINTER, by_material, crate_mesh
from .geometry import (
    KIND_STYLE,
    MAT_BARREL,
    MAT_CRATE,
    MAT_PILLAR,
    MAT_PLAIN,
    arena_parts,
    box_triangles,
    fighter_mesh,
    material_ranges,
    world_mesh,
)
from .glutil import Program, VertexArray

SUN_DIR = np.array([0.42, 0.80, 0.43])
SUN_DIR = SUN_DIR / np.linalg.norm(SUN_DIR)
SHADOW_STRENGTH = 0.55
#: stencil bit set where a fighter was drawn, while an obstacle fades: a fading obstacle is drawn
#: see-through only over those pixels (what truly hides a fighter), solid everywhere else
FIGHTER_STENCIL = 0x80
#: m: how far a fighter's limbs reach past the box of their joints (the see-through pass is
#: drawn only inside the screen rectangle of that box grown by this, and of the fading boxes)
LIMB_REACH = 0.5
_CORNERS = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)])
#: kinds drawn from their compounds (:class:`CrateMeshes`), not in the static arena mesh
CRATE_KINDS = ("crate", "barrel")

def unit_cube() -> np.ndarray:
    """36 vertices ``(36, 6)`` (position in -1..1, flat normal) of a cube, outward wound."""
    tris = box_triangles([(-1.0, -1.0, -1.0), (1.0, 1.0, 1.0)])                  # (12, 3, 3)
    n = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    return np.concatenate([tris, np.repeat(n[:, None], 3, axis=1)], axis=2).reshape(-1, 6).astype(np.float32)


class CrateMeshes:
    """Render meshes of the stage's crates and barrel, each built from its compound's
    boundary faces (B4/B5: outer, fill and inner faces), intact or struck (what is drawn is
    what collides), and rebuilt only when that compound's box array was replaced (a strike)
    or the crate broke.  All crates share
    one vertex buffer (re-concatenated from cached per-crate arrays on a change) drawn
    in one range per material."""

    def __init__(self):
        self.vao = VertexArray([(0, 3), (1, 3), (2, 3), (3, 1)])
        self.ranges: list[tuple[int, int, int]] = []
        self._stage = None
        self._keys: list = []
        self._verts: list[np.ndarray] = []
        self._runs: list[list] = []      # material_ranges of each crate's vertices
        self._intact: dict = {}     # (arena id, crate name) -> mesh of the intact crate
        self.builds = 0            # per-crate mesh builds so far (tests, benchmarks)

    def _crate_mesh(self, stage, crate) -> tuple[np.ndarray, list]:
        """The crate's vertices and their draw ranges (``material_ranges``)."""
        if crate.broken or len(crate.compound.boxes) == 0:
            return np.zeros((0, 10), np.float32), []
        # (not ``version == 0``: a compound restored by a rollback starts again at version 0)
        intact = len(crate.compound.boxes) == 6 and crate.compound.solid_fraction() > 1.0 - 1e-9
        key = (id(stage.arena), crate.obj.name)
        if intact and key in self._intact:      # every match starts with the same crates
            return self._intact[key]
        mesh = crate_mesh(crate.compound.faces, crate.obj.kind)
        if intact:
            self._intact[key] = mesh
        return mesh

    def sync(self, stage, defer: bool = False) -> bool:
        """Bring the meshes up to date with ``stage.crates`` (reads only); True if rebuilt.

        ``defer``: leave a crate that already has a mesh (struck, not broken) for the next
        call.  The game passes it on the frame of a strike, which already pays for the
        compound's strike in the simulation: building the faces then moves to the next
        frame, and the hole shows one frame late, under the strike's flash."""
        crates = stage.crates if stage is not None else []
        if stage is not self._stage or len(self._keys) != len(crates):
            self._stage = stage
            self._keys = [None] * len(crates)
            self._verts = [np.zeros((0, 10), np.float32)] * len(crates)
            self._runs = [[] for _ in crates]
        changed = False
        for i, c in enumerate(crates):
            key = self._keys[i]
            if key is None or key[0] is not c.compound.boxes or key[1] != c.broken:
                if defer and key is not None and not c.broken and not key[1]:
                    continue
                self._keys[i] = (c.compound.boxes, c.broken)
                self._verts[i], self._runs[i] = self._crate_mesh(stage, c)
                self.builds += 1
                changed = True
        if changed:
            verts, self.ranges = by_material(self._verts, self._runs)
            self.vao.set_vertices(verts)
        return changed


class DebrisRenderer:
    """Crate chips and chunks (``crates.Debris.instances`` rows): one instanced draw of a
    lit unit cube, alpha-blended (their fade) without touching the framebuffer's alpha."""

    def __init__(self):
        self.prog = Program("debris.vert", "debris.frag")
        self.vao = VertexArray([(0, 3), (1, 3)], [(2, 3), (3, 3), (4, 3), (5, 3), (6, 3), (7, 4)])
        self.vao.set_vertices(unit_cube())
        _set_constants(self.prog, u_sun_dir=SUN_DIR)

    def draw(self, view_proj, eye, rows: np.ndarray) -> None:
        if rows is None or not len(rows):
            return
        self.vao.set_instances(rows)
        gl.glEnable(gl.GL_DEPTH_TEST)
        gl.glDepthMask(gl.GL_TRUE)
        gl.glEnable(gl.GL_BLEND)
        gl.glBlendFuncSeparate(gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA, gl.GL_ZERO, gl.GL_ONE)
        self.prog.use()
        self.prog.mat4("u_view_proj", view_proj)
        self.prog.vec("u_eye", eye)
        self.vao.draw()
        gl.glBlendFunc(gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA)
        gl.glDisable(gl.GL_BLEND)


def _set_constants(prog, **uniforms) -> None:
    """Uniforms that never change, set once: a program keeps its uniform values."""
    prog.use()
    for name, value in uniforms.items():
        prog.vec(name, value)
    gl.glUseProgram(0)


def limb_matrices(rot: np.ndarray, origin: np.ndarray) -> np.ndarray:
    """World matrices ``(..., 4, 4)`` from limb frames ``rot (..., 3, 3)``, ``origin (..., 3)``."""
    m = np.zeros(rot.shape[:-2] + (4, 4), dtype=np.float32)
    m[..., :3, :3] = rot
    m[..., :3, 3] = origin
    m[..., 3, 3] = 1.0
    return m


def fade_materials(kind: str) -> tuple[int, ...]:
    """The shader materials an arena object of ``kind`` is drawn with (a crate's or the
    barrel's hole walls are splintered wood, and its inside shaded planks)."""
    mat = int(KIND_STYLE.get(kind, (None, MAT_PLAIN))[1])
    return (mat, int(MAT_SPLINTER), int(MAT_INTERIOR)) if kind in CRATE_KINDS else (mat,)


def fade_rect(view_proj: np.ndarray, limbs: np.ndarray, fade, viewport) -> tuple[int, int, int, int] | None:
    """``(x, y, width, height)`` in window pixels (GL's, origin bottom-left) where a fading
    obstacle can cover a fighter: the screen rectangle of the box of both fighters' limb
    origins (``limbs`` ``(2 L, 4, 4)`` world matrices) grown by :data:`LIMB_REACH`, cut to the
    rectangle of the fading boxes (``fade``: ``Occluders.uniforms()``); None when that is empty."""
    o = limbs[:, :3, 3].astype(float)
    boxes = [(o.min(axis=0) - LIMB_REACH, o.max(axis=0) + LIMB_REACH)]
    boxes += list(zip(np.asarray(fade[0], float), np.asarray(fade[1], float)))
    pts = np.concatenate([lo + (hi - lo) * _CORNERS for lo, hi in boxes])          # (8 n, 3)
    h = np.concatenate([pts, np.ones((len(pts), 1))], axis=1) @ np.asarray(view_proj, float).T
    x0, y0, w, hgt = viewport
    ndc = h[:, :2] / np.where(h[:, 3:4] > 1e-6, h[:, 3:4], 1.0)
    rects = []
    for k in range(len(boxes)):
        part, front = ndc[8 * k:8 * k + 8], h[8 * k:8 * k + 8, 3] > 1e-6
        # a box reaching behind the eye can cover any part of the screen
        rects.append((-1.0, -1.0, 1.0, 1.0) if not front.all() else (*part.min(axis=0), *part.max(axis=0)))
    fx0, fy0, fx1, fy1 = rects[0]
    bx0, by0 = min(r[0] for r in rects[1:]), min(r[1] for r in rects[1:])
    bx1, by1 = max(r[2] for r in rects[1:]), max(r[3] for r in rects[1:])
    lo_ndc = np.clip([max(fx0, bx0), max(fy0, by0)], -1.0, 1.0)
    hi_ndc = np.clip([min(fx1, bx1), min(fy1, by1)], -1.0, 1.0)
    a = np.floor((lo_ndc + 1.0) * 0.5 * (w, hgt)).astype(int)
    b = np.ceil((hi_ndc + 1.0) * 0.5 * (w, hgt)).astype(int)
    if (b <= a).any():
        return None
    return int(x0 + a[0]), int(y0 + a[1]), int(b[0] - a[0]), int(b[1] - a[1])


def _set_fade(prog, fade) -> None:
    """Upload ``Occluders.uniforms()`` ``(lo (k, 3), hi (k, 3), amount (k,), _)`` to a FADE program."""
    lo, hi, amount = (np.ascontiguousarray(a, dtype=np.float32) for a in fade[:3])
    f = ctypes.POINTER(gl.GLfloat)
    gl.glUniform3fv(prog.loc("u_fade_lo"), len(lo), lo.ctypes.data_as(f))
    gl.glUniform3fv(prog.loc("u_fade_hi"), len(hi), hi.ctypes.data_as(f))
    gl.glUniform1fv(prog.loc("u_fade"), len(amount), amount.ctypes.data_as(f))
    gl.glUniform1i(prog.loc("u_n_fade"), len(amount))


class WorldRenderer:
    """Owns the GL objects of the 3D scene.  ``draw`` reads arrays only."""

    def __init__(self, skeleton, fighters: list[dict], arena=None):
        self.n_limbs = len(skeleton.names)
        self.lit_fighter = Program("fighter.vert", "lit.frag", defines={"MATERIAL": 10})  # no pattern
        mats = sorted({int(m) for _, m in KIND_STYLE.values()} | {0, int(MAT_SPLINTER), int(MAT_INTERIOR)})
        self.lit_world = {m: Program("world.vert", "lit.frag", defines={"MATERIAL": m}) for m in mats}
        # the same with screen-door fading (occluders.py), used only while an obstacle fades:
        # a discard costs llvmpipe its early depth test, so ordinary frames keep the plain ones
        self.lit_fade = {m: Program("world.vert", "lit.frag", defines={"MATERIAL": m, "FADE": 1})
                         for m in (int(MAT_PLAIN), int(MAT_CRATE), int(MAT_BARREL), int(MAT_PILLAR), int(MAT_SPLINTER),
                                   int(MAT_INTERIOR))}
        self.shadow = Program("planar_shadow.vert", "planar_shadow.frag")
        self.sky = Program("sky.vert", "sky.frag")
        _set_constants(self.lit_fighter, u_sun_dir=SUN_DIR, u_n_limbs=float(self.n_limbs))
        for prog in (*self.lit_world.values(), *self.lit_fade.values(), self.sky):
            _set_constants(prog, u_sun_dir=SUN_DIR)
        _set_constants(self.shadow, u_sun_dir=SUN_DIR, u_strength=SHADOW_STRENGTH)
        layout = [(0, 3), (1, 3), (2, 3), (3, 1)]
        verts, idx = fighter_mesh(skeleton, fighters)
        self.fighters = VertexArray(layout, indexed=True)
        self.fighters.set_vertices(verts)
        self.fighters.set_indices(idx)
        self.world = VertexArray(layout)
        self.crates = CrateMeshes()
        self.debris = DebrisRenderer()
        self._arena_version: int | None = None        # id() of the arena the static mesh was built for
        self._rim: np.ndarray | None = None           # (n, 4) float: wall-top points, homogeneous
        self.sync_arena(arena)
        # a coarser copy of the fighters for their shadows (the outline is all that shows)
        sverts, sidx = fighter_mesh(skeleton, fighters, detail=1)
        self.shadow_mesh = VertexArray(layout, indexed=True)
        self.shadow_mesh.set_vertices(sverts)
        self.shadow_mesh.set_indices(sidx)
        self.sky_vao = VertexArray([(0, 1)])
        self.sky_vao.count = 4
        #: False draws every shadow triangle (the reference the culled pass is tested against)
        self.cull_shadow_back_faces = True

    def sync_arena(self, arena) -> None:
        """Build the static arena mesh once per arena (``None``: the built-in arena).  With a
        baked arena, crates and the barrel are left out: :meth:`sync_crates` draws them from
        their compounds, so a strike never rebuilds the arena."""
        version = id(arena)
        if version != self._arena_version:
            self._arena_version = version
            parts = arena_parts(arena)
            if arena is not None:
                parts = [p for p in parts if p[1] not in CRATE_KINDS]
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
                rim = np.concatenate(edges)
                self._rim = np.concatenate([rim, np.ones((len(rim), 1))], axis=1)     # homogeneous
            verts = world_mesh(parts)
            self.world.set_vertices(verts)
            self.ranges = material_ranges(verts)

    def sync_crates(self, stage, defer: bool = False) -> bool:
        """Crate meshes from ``stage.crates``' compounds (only changed crates rebuilt;
        ``defer``: see :meth:`CrateMeshes.sync`)."""
        return self.crates.sync(stage, defer)

    def sky_bottom(self, view_proj) -> float:
        """NDC y below which no sky can show: the lowest projected point of the arena's
        wall tops in front of the camera (-1: the whole screen when there are none)."""
        if self._rim is None:
            return -1.0
        h = self._rim @ view_proj.T
        front = h[:, 3] > 0.1        # wall tops (above the eye) only rise on screen toward the eye
        if not front.any():
            return -1.0
        y = h[front, 1] / h[front, 3]
        return float(max(min(y.min(), 1.0) - 0.02, -1.0))

    def draw(self, view, proj, eye, limbs: np.ndarray, feet: np.ndarray, viewport, flash=None,
             debris=None, fade=None) -> None:
        """``limbs`` ``(2 L, 4, 4)`` world matrices; ``feet`` ``(2, 3)`` ground points;
        ``flash`` ``(2, 4)`` per-fighter additive tint (rgb, amount); ``debris`` rows of
        ``crates.Debris.instances``; ``fade`` ``Occluders.uniforms()`` (boxes drawn
        see-through: the draws of their materials use the FADE programs) or None."""
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
        self._draw_lit(view_proj, proj, eye, limbs, viewport, flash, fade)
        self._draw_shadows(view_proj, limbs, feet)
        self._draw_sky(view, proj, view_proj)
        # 4. crate debris after the sky, so a fading chip in front of the sky blends over it
        self.debris.draw(view_proj, eye, debris)

    def _draw_lit(self, view_proj, proj, eye, limbs: np.ndarray, viewport, flash: np.ndarray, fade) -> None:
        """1. the fighters, then the arena (early depth test skips the floor behind them), one
        program per material.  While something fades (``fade``), the fighters also mark their
        pixels in the stencil (:data:`FIGHTER_STENCIL`), and each draw of a material ``fade``
        names is made twice: the plain program where no fighter was drawn, the FADE variant
        (screen-door, occluders.py) where one was.  So an obstacle goes see-through only where
        it stands in front of a fighter; the rest of it (a struck crate's hole beside the
        fighter) stays solid."""
        fading = fade[3] if fade is not None else frozenset()
        rect = fade_rect(view_proj, limbs, fade, viewport) if fading else None
        flash32 = np.ascontiguousarray(flash, dtype=np.float32)
        draws: list[tuple[int, VertexArray | None, tuple[int, int] | None]] = [(-1, None, None)]
        draws += [(m, self.crates.vao, (first, count)) for m, first, count in self.crates.ranges]
        draws += [(m, self.world, (first, count)) for m, first, count in self.ranges]
        pixel_angle = 2.0 / (proj[1, 1] * viewport[3])
        for m, vao, rng in draws:
            if vao is None or rng is None:
                prog = self.lit_fighter
                prog.use()
                prog.mat4("u_view_proj", view_proj)
                prog.vec("u_eye", eye)
                gl.glUniform4fv(prog.loc("u_flash"), 2, flash32.ctypes.data_as(ctypes.POINTER(gl.GLfloat)))
                prog.mat4("u_limb", limbs)
                if fading:
                    gl.glEnable(gl.GL_STENCIL_TEST)
                    gl.glStencilFunc(gl.GL_ALWAYS, FIGHTER_STENCIL, FIGHTER_STENCIL)
                    gl.glStencilOp(gl.GL_KEEP, gl.GL_KEEP, gl.GL_REPLACE)
                    gl.glStencilMask(FIGHTER_STENCIL)
                # The limbs are closed, outward-wound solids: their back faces are always hidden,
                # and skipping them spares llvmpipe their triangle setup (same pixels).
                gl.glEnable(gl.GL_CULL_FACE)
                gl.glCullFace(gl.GL_BACK)
                self.fighters.draw()
                gl.glDisable(gl.GL_CULL_FACE)
                if fading:
                    gl.glStencilMask(0)
                    gl.glStencilOp(gl.GL_KEEP, gl.GL_KEEP, gl.GL_KEEP)
                continue
            plain = self.lit_world.get(m, self.lit_world[0])
            faded = self.lit_fade.get(m) if m in fading else None
            if faded is None:               # (the stencil test off: the state of a frame with no fade)
                gl.glDisable(gl.GL_STENCIL_TEST)
                self._draw_range(plain, vao, rng, view_proj, eye, pixel_angle)
                continue
            gl.glEnable(gl.GL_STENCIL_TEST)
            gl.glStencilFunc(gl.GL_NOTEQUAL, FIGHTER_STENCIL, FIGHTER_STENCIL)
            self._draw_range(plain, vao, rng, view_proj, eye, pixel_angle)
            gl.glStencilFunc(gl.GL_EQUAL, FIGHTER_STENCIL, FIGHTER_STENCIL)
            if rect is not None:            # the see-through pass shades only near the fighters
                gl.glEnable(gl.GL_SCISSOR_TEST)
                gl.glScissor(*rect)
                self._draw_range(faded, vao, rng, view_proj, eye, pixel_angle, fade)
                gl.glDisable(gl.GL_SCISSOR_TEST)
        if fading:
            gl.glDisable(gl.GL_STENCIL_TEST)
            gl.glStencilMask(0xFF)

    @staticmethod
    def _draw_range(prog, vao, rng, view_proj, eye, pixel_angle: float, fade=None) -> None:
        """One range of an arena mesh with ``prog`` (a FADE program gets ``fade``'s boxes)."""
        prog.use()
        prog.mat4("u_view_proj", view_proj)
        prog.vec("u_eye", eye)
        prog.vec("u_pixel_angle", pixel_angle)
        if fade is not None:
            _set_fade(prog, fade)
        vao.draw_range(*rng)

    def _draw_shadows(self, view_proj, limbs: np.ndarray, feet: np.ndarray) -> None:
        """2. the fighters' shadows on the floor: blended once per pixel (stencil), depth-tested;
        the framebuffer's alpha stays 1 (a saved frame's shadows are as dark as on screen)."""
        gl.glEnable(gl.GL_BLEND)
        gl.glBlendFuncSeparate(gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA, gl.GL_ZERO, gl.GL_ONE)
        gl.glDepthMask(gl.GL_FALSE)
        gl.glEnable(gl.GL_STENCIL_TEST)
        gl.glStencilFunc(gl.GL_EQUAL, 0, 0xFF)
        gl.glStencilOp(gl.GL_KEEP, gl.GL_KEEP, gl.GL_INCR)
        self.shadow.use()
        self.shadow.mat4("u_view_proj", view_proj)
        self.shadow.vec("u_floor_y", float(feet[:, 1].min()))
        self.shadow.mat4("u_limb", limbs)
        # Projected along the sun onto the floor, a closed outward-wound limb covers its shadow
        # twice: its sun-facing triangles keep their winding seen from above, the others flip.
        # Culling the flipped half leaves the same shadow (the stencil lets one layer through
        # anyway) for half of llvmpipe's shadow work.
        if self.cull_shadow_back_faces:
            gl.glEnable(gl.GL_CULL_FACE)
            gl.glCullFace(gl.GL_BACK)
        self.shadow_mesh.draw()
        gl.glDisable(gl.GL_CULL_FACE)
        gl.glDisable(gl.GL_STENCIL_TEST)
        gl.glBlendFunc(gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA)
        gl.glDisable(gl.GL_BLEND)

    def _draw_sky(self, view, proj, view_proj) -> None:
        """3. the sky last, only where nothing was drawn (depth still at the clear value)."""
        gl.glDepthFunc(gl.GL_LEQUAL)
        self.sky.use()
        self.sky.mat4("u_inv_view", np.linalg.inv(view))
        self.sky.vec("u_proj_scale", (1.0 / proj[0, 0], 1.0 / proj[1, 1]))
        self.sky.vec("u_y0", self.sky_bottom(view_proj))
        self.sky_vao.draw(gl.GL_TRIANGLE_STRIP)
        gl.glDepthMask(gl.GL_TRUE)
        gl.glDepthFunc(gl.GL_LESS)
