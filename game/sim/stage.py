"""The arena during a match: the method-C scene, crates as method-B compounds,
projectiles, and the rays cast this frame.

Roles (patent C, "client and server"): everything the simulation decides with
a ray is an **any-hit** question (C8) — a projectile's path, line of sight —
except the ground height under a fighter, which needs a distance and asks
the nearest hit (C7).  Presentation (impact sparks, the camera) asks its own
nearest-hit questions of ``stage.scene``; it never changes the stage.

A stage belongs to one match: its scene is a private copy, because struck
crates change their collision models (``Scene.update_model``).
"""

from __future__ import annotations

import copy
import functools
import math
import struct
from dataclasses import dataclass

import numpy as np

from game.collision import CollisionModel, Compound, CompoundGroup, LEVEL_MEDIUM

from .arena import CRATE_WALL, Arena, load_arena
from .debug import RayRecord, draw_rays

#: Growth of a strike's interaction region around the fist or foot (B3).
STRIKE_MARGIN = 0.05
#: A crate breaks apart when one of its six walls keeps less than this fraction of
#: its material, or the whole shell less than BREAK_TOTAL.
BREAK_WALL = 0.6
BREAK_TOTAL = 0.8
#: Ground rays start this far above the fighter's last ground height and reach this far down.
GROUND_RAY_UP, GROUND_RAY_DOWN = 2.0, 6.0
#: Re-cast the ground ray once a fighter has moved this far (x–z) from the last cast.
GROUND_RECAST = 0.04
#: The ground ray sees only high models (floor, walls, pillars): level medium rays hit level > 1.
GROUND_LEVEL = LEVEL_MEDIUM
#: Kinds that block a fighter's pushbox (besides crates while they stand).
SOLID_KINDS = ("pillar", "wall")


@dataclass(frozen=True)
class Projectile:
    """A projectile in flight: plain values (hashable, snapshot by reference)."""

    owner: int
    x: float
    y: float
    z: float
    vx: float
    vz: float
    age: int


class Crate:
    """A breakable crate or barrel: its arena object, live compound and last strike."""

    __slots__ = ("obj", "compound", "broken", "last_strike", "_wall0")

    def __init__(self, obj, compound: Compound):
        self.obj = obj
        self.compound = compound
        self.broken = False
        self.last_strike = None  # StrikeResult of the latest strike, for the overlay only
        self._wall0 = self.wall_volumes()

    def wall_volumes(self, box_volumes: np.ndarray | None = None) -> np.ndarray:
        """Material left in each of the six walls (layers ``2 * axis + side``), ``(6,)``;
        ``box_volumes``: ``compound.box_volumes()``, if already at hand."""
        if box_volumes is None:
            box_volumes = self.compound.box_volumes()
        return np.bincount(self.compound.layers.astype(np.int64), weights=box_volumes, minlength=6)

    def too_little_left(self) -> bool:
        """True when a wall or the whole shell has lost too much to stand (the boxes'
        volumes computed once for both tests: a strike's frame runs numpy cold)."""
        vol = self.compound.box_volumes()
        left = self.wall_volumes(vol) / self._wall0
        return bool(left.min() < BREAK_WALL or float(vol.sum()) / self.compound.volume0 < BREAK_TOTAL)


@functools.lru_cache(maxsize=2)
def _cached_arena(assets_dir: str | None) -> Arena:
    """The arena every match of the process shares (``match.arena``): its arrays read-only,
    so no tool changes the bounds or start points of later matches."""
    arena = load_arena(assets_dir)
    arena.bounds.flags.writeable = False
    arena.fighter_starts.flags.writeable = False
    return arena


class Stage:
    """Live arena state for one match.  Create with :meth:`load`."""

    def __init__(self, arena: Arena):
        self.arena = arena
        self.scene = copy.deepcopy(arena.scene)
        self.bounds = np.array(arena.bounds, dtype=float)
        self.bounds.flags.writeable = False      # read once into the match's plain floats
        self.crates: list[Crate] = []
        for o in arena.by_kind("crate", "barrel"):
            if o.sphere_radius is not None:
                comp = Compound.from_sphere(o.sphere_center, o.sphere_radius, CRATE_WALL)   # B8
            else:
                comp = Compound.from_box(o.aabb, CRATE_WALL)
            self.crates.append(Crate(o, comp))
            self._sync_model(self.crates[-1])
        self._rebuild_group()
        solid = [o.aabb for o in arena.objects if o.kind in SOLID_KINDS]
        self._solid_xz = np.array([[[b[0, 0], b[0, 2]], [b[1, 0], b[1, 2]]] for b in solid]).reshape(-1, 2, 2)
        self._refresh_obstacles()
        self.projectiles: tuple[Projectile, ...] = ()
        self.rays: list[RayRecord] = []

    @classmethod
    def load(cls, assets_dir: str | None = None) -> "Stage":
        """A fresh stage on the baked arena (files read once per process)."""
        return cls(_cached_arena(None if assets_dir is None else str(assets_dir)))

    # ------------------------------------------------------------ crates
    def _sync_model(self, crate: Crate) -> None:
        """B7 -> C: the crate's collision model becomes the surfaces of its small boxes.

        Rays meet exactly the union of the small boxes (the first surface a ray
        enters is on the union's boundary); the exact boundary faces
        (``compound.faces``) are for drawing, and cost far more to build.
        """
        boxes = crate.compound.boxes
        if crate.broken or len(boxes) == 0:
            # A broken crate leaves no collision: a zero-area sliver that no ray can hit.
            self.scene.update_model(crate.obj.model, triangles=np.zeros((1, 3, 3)) + crate.obj.aabb[0],
                                    transform=np.eye(4))
            return
        level = self.scene.models[crate.obj.model].level
        self.scene.replace_model(crate.obj.model, CollisionModel.from_boxes(boxes, level))

    def _rebuild_group(self) -> None:
        """One method-A batch over the small boxes of every standing crate."""
        standing = [i for i, c in enumerate(self.crates) if not c.broken]
        self.group = CompoundGroup([self.crates[i].compound for i in standing])
        self._group_crate = np.array(standing, dtype=np.int64)

    def touch(self, limb_boxes: np.ndarray):
        """A2-A4: which standing crate do these limbs touch, one batched test.

        Parameters
        ----------
        limb_boxes : (K, 2, 3) float

        Returns
        -------
        None, or ``(k, crate, box)``: the limb and crate of the touching pair with
        the largest overlap volume, and that crate's small box ``(2, 3)``.
        """
        if not len(self._group_crate):
            return None
        best = None
        limbs = None
        for c, k, rows in self.group.touching(limb_boxes):         # per touched crate, usually one
            if limbs is None:
                limbs = limb_boxes.tolist()
            boxes = self.group.compounds[c].boxes
            # A2, A3 on each touching pair's floats (a handful of pairs, on a frame where numpy
            # runs cold): the overlap box [j1, j2] and its volume, the first of equals by limb then row
            top, at = -1.0, 0
            for i, (kk, b) in enumerate(zip(k.tolist(), boxes.take(rows, axis=0).tolist())):
                (a0, a1), (b0, b1) = limbs[kk], b
                vol = (max(min(a1[0], b1[0]) - max(a0[0], b0[0]), 0.0) * max(min(a1[1], b1[1]) - max(a0[1], b0[1]), 0.0)
                       * max(min(a1[2], b1[2]) - max(a0[2], b0[2]), 0.0))
                if vol > top:
                    top, at = vol, i
            # crates come in group order, so (limb, crate, row) order is the group's row order
            cand = (-top, int(k[at]), c, int(rows[at]))
            if best is None or cand < best:
                best = cand
        if best is None:
            return None
        return best[1], int(self._group_crate[best[2]]), self.group.compounds[best[2]].boxes[best[3]]

    def strike(self, index: int, striker_box: np.ndarray):
        """Strike crate ``index`` with a limb's range box (B1-B7); update its scene model.

        Returns ``(result, broke)``; ``result`` is None when nothing was removed.
        """
        crate = self.crates[index]
        result = crate.compound.strike(striker_box, margin=STRIKE_MARGIN)
        if result is None:
            return None, False
        crate.last_strike = result
        broke = crate.too_little_left()
        if broke:
            crate.broken = True
            self._refresh_obstacles()
            self._rebuild_group()
        self._sync_model(crate)
        return result, broke

    # ------------------------------------------------------------ fighters
    def _refresh_obstacles(self) -> None:
        """x–z rects ``(x0, z0, x1, z1)`` of pillars, walls and standing crates (plain floats)."""
        live = [c.compound.bounds for c in self.crates if not c.broken]
        self._obstacles = [tuple(r) for r in self._solid_xz.reshape(-1, 4).tolist()] + [
            (float(b[0, 0]), float(b[0, 2]), float(b[1, 0]), float(b[1, 2])) for b in live]

    def push_out(self, x: float, z: float, r: float) -> tuple[float, float]:
        """Move a pushbox circle (centre x, z, radius r) out of pillars, walls and standing crates."""
        for x0, z0, x1, z1 in self._obstacles:
            if x + r <= x0 or x - r >= x1 or z + r <= z0 or z - r >= z1:
                continue
            cx, cz = min(max(x, x0), x1), min(max(z, z0), z1)
            dx, dz = x - cx, z - cz
            d2 = dx * dx + dz * dz
            if d2 >= r * r:
                continue
            if d2 > 1e-18:
                d = math.sqrt(d2)
                x, z = cx + dx / d * r, cz + dz / d * r
            else:  # centre inside the rect: leave by the nearest side
                exits = ((x - x0 + r, -1, 0), (x1 - x + r, 1, 0), (z - z0 + r, 0, -1), (z1 - z + r, 0, 1))
                dist, sx, sz = min(exits)
                x, z = x + sx * dist, z + sz * dist
        return x, z

    def ground_height(self, x: float, z: float, y_hint: float) -> float:
        """Floor height under (x, z) by a downward nearest-hit ray (C7) against high models."""
        top = y_hint + GROUND_RAY_UP
        t = self.scene.cast_nearest_distance((x, top, z), (0.0, -1.0, 0.0), GROUND_RAY_DOWN, level=GROUND_LEVEL)
        self._record((x, top, z), (x, top - GROUND_RAY_DOWN, z), "ray_nearest", t is not None,
                     None if t is None else np.array([x, top - t, z]))
        return y_hint if t is None else top - t

    # ------------------------------------------------------------ projectiles
    def path_blocked(self, start: np.ndarray, step: np.ndarray, level: int) -> bool:
        """C8: does the segment ``start -> start + step`` hit any model above ``level``?"""
        sx, sy, sz = np.asarray(step, dtype=float).tolist()
        length = math.sqrt(sx * sx + sy * sy + sz * sz)     # not np.linalg.norm: BLAS (see DEVELOPERS.md)
        hit = self.scene.cast_any(start, step, length, level=level)
        self._record(start, start + step, "ray_any", hit, None)
        return hit

    def line_of_sight(self, a: np.ndarray, b: np.ndarray, level: int) -> bool:
        """C8, C9: is the segment ``a -> b`` clear of every model above ``level``?  An any-hit
        question of the simulation: the CPU asks it before it zones with a fireball, which
        a pillar, a wall or a crate in between would stop.  (Recorded as a ray, like a
        projectile's path, so the overlay shows it.)"""
        a = np.asarray(a, dtype=float)
        step = np.asarray(b, dtype=float) - a
        sx, sy, sz = step.tolist()
        if not math.sqrt(sx * sx + sy * sy + sz * sz) > 0.0:
            return True
        return not self.path_blocked(a, step, level)

    # ------------------------------------------------------------ rays
    def begin_frame(self) -> None:
        self.rays = []

    def _record(self, origin, end, kind, hit, point) -> None:
        st = self.scene.stats
        self.rays.append(RayRecord(np.asarray(origin, float), np.asarray(end, float), kind, bool(hit), point,
                                   int(st.nodes_visited), int(st.triangles_tested)))

    # ------------------------------------------------------------ state
    def snapshot(self) -> tuple:
        return (tuple((c.compound.snapshot(), c.broken) for c in self.crates), self.projectiles)

    def restore(self, snap: tuple) -> None:
        crates, self.projectiles = snap
        changed = False
        for c, (csnap, broken) in zip(self.crates, crates):
            if c.compound.snapshot().boxes is not csnap.boxes or c.broken != broken:   # strikes replace, never mutate
                c.compound = Compound.restore(csnap)
                c.broken = broken
                c.last_strike = None
                self._sync_model(c)
                changed = True
        if changed:
            self._rebuild_group()
            self._refresh_obstacles()
        self.rays = []

    def state_bytes(self) -> bytes:
        parts = [c.compound.state_bytes() + struct.pack("<?", c.broken) for c in self.crates]
        parts.append(repr(self.projectiles).encode())
        return b"".join(parts)

    # ------------------------------------------------------------ debug draw
    def debug_draw(self, draw) -> None:
        """Crate slabs and last strike (B2-B5), quadtree cells (C1) and this frame's rays (C6-C8)."""
        for i, c in enumerate(self.crates):
            if c.broken:
                continue
            for box in c.compound.boxes:
                draw.box(box, "crate_slab")
            s = c.last_strike
            if s is not None:
                for f in s.target_faces:
                    draw.quad(f.vertices, "crate_target_face")
                for f in s.regions:
                    draw.quad(f.vertices, "crate_region")
                for f in s.fill_faces:
                    draw.quad(f.vertices, "crate_fill_face")
        rects, depths = self.scene.quadtree_cells()
        for rect, depth in zip(rects, depths):
            draw.rect_xz(rect, 0.01 + 0.002 * float(depth), "quadtree")
        draw_rays(draw, self.rays)
