"""The arena during a match: the method-C scene, crates as method-B compounds,
projectiles in flight, and the rays cast this frame.

Roles (patent C, "client and server"): everything the simulation decides with
a ray is an **any-hit** question (C8) — a projectile's path, line of sight —
except the ground height under a fighter, which needs a distance and asks
the nearest hit (C7).  Presentation (impact sparks, the camera) asks its own
nearest-hit questions of ``stage.scene``; it never changes the stage.

A stage belongs to one match: its scene is a private copy, because struck
crates change their collision models (``Scene.update_model``).  It owns the projectiles in
flight: ``projectiles`` is a tuple of values, replaced only by the named operations
(:meth:`Stage.launch`, :meth:`~Stage.advance_projectiles`, :meth:`~Stage.remove_projectiles`,
:meth:`~Stage.clear_projectiles`); a tool may set it to place projectiles.
"""

from __future__ import annotations

import copy
import functools
import math
import struct
from collections.abc import Collection, Sequence
from typing import Any, NamedTuple

import numpy as np

from game.collision import LEVEL_MEDIUM, CollisionModel, Compound, CompoundGroup
from game.collision.compound import StrikeResult

from .arena import CRATE_WALL, Arena, ArenaObject, load_arena
from .debug import DebugDraw, RayRecord, draw_rays
from .ground import GroundGrid, ground_grid
from .moves import ProjectileSpec
from .projectiles import Projectile, Stopped, flight_blocked
from .reach import reach_box, tear_box

#: Three numbers: an array ``(3,)`` or a plain sequence.
Vec3 = Sequence[float] | np.ndarray

#: Growth of a strike's interaction region around the fist or foot (B3): a light blow's (jab,
#: front kick) and a heavy one's (``Move.heavy``: straight, roundhouse, sweep).  A heavy blow
#: tears a hole larger than a fireball's 0.28 m cube (the straight's, grown by the heavy margin,
#: is about 0.5 x 0.55 m); a light one's is smaller (the front kick's, about 0.25 x 0.33 m).
STRIKE_MARGIN = 0.06
HEAVY_STRIKE_MARGIN = 0.15
#: A crate breaks apart when one of its six walls keeps less than this fraction of
#: its material, or the whole shell less than BREAK_TOTAL: five to seven blows of mixed
#: punches and kicks at one spot of its face (a blow through a hole tears its rim,
#: ``reach.tear_box``), two straights at the least (docs/game-rules.md).
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


def _floats3(v: Vec3) -> tuple[float, float, float]:
    """Three numbers (an array or a plain sequence) as Python floats."""
    x, y, z = v.tolist() if isinstance(v, np.ndarray) else v
    return float(x), float(y), float(z)


def _largest_overlap(judged: list, limbs: list[int], rows: np.ndarray, boxes: np.ndarray,
                     crate: int) -> tuple[float, int, int, int]:
    """A2, A3 on the touching pairs of one crate, on Python floats (a handful of pairs, on a
    frame where numpy runs cold): ``(-volume, limb, crate, row)`` of the pair whose overlap box
    ``[j1, j2]`` is largest, the first of equals by limb then row.

    ``judged``: the boxes judged ``(K, 2, 3)`` as lists; ``limbs``, ``rows``: each touching
    pair's index into them and into ``boxes`` (the crate's small boxes ``(n, 2, 3)``)."""
    top, at = -1.0, 0
    for i, (kk, b) in enumerate(zip(limbs, boxes.take(rows, axis=0).tolist())):
        (a0, a1), (b0, b1) = judged[kk], b
        vol = (max(min(a1[0], b1[0]) - max(a0[0], b0[0]), 0.0) * max(min(a1[1], b1[1]) - max(a0[1], b0[1]), 0.0)
               * max(min(a1[2], b1[2]) - max(a0[2], b0[2]), 0.0))
        if vol > top:
            top, at = vol, i
    return -top, limbs[at], crate, int(rows[at])


class CrateOverlap(NamedTuple):
    """:meth:`Stage.touch`'s answer: the touching (limb, small box) pair of largest overlap."""

    limb: int            # index into the limb boxes asked about
    crate: int           # index into ``Stage.crates``
    box: np.ndarray      # (2, 3) float, the crate's small box
    reach: np.ndarray    # (2, 3) float, the box judged: the limb's reach box with an origin, else the limb's box


class Crate:
    """A breakable crate or barrel: its arena object, live compound and last strike."""

    __slots__ = ("obj", "compound", "broken", "last_strike", "_wall0")

    def __init__(self, obj: ArenaObject, compound: Compound) -> None:
        self.obj = obj
        self.compound = compound
        self.broken = False
        self.last_strike: StrikeResult | None = None  # the latest strike, for the overlay only
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

    def __init__(self, arena: Arena) -> None:
        self.arena = arena
        self.scene = copy.deepcopy(arena.scene)
        #: The ground ray's triangles by x–z cell, for the scene's models as of ``_ground_version``
        self._ground: GroundGrid | None = None
        self._ground_version = -1
        #: This step's ray casts, as :meth:`_record` logged them (``rays`` makes the records).
        self._rays: list[tuple] = []
        self.bounds = np.array(arena.bounds, dtype=float)
        self.bounds.flags.writeable = False      # read once into the match's plain floats
        self.crates: list[Crate] = []
        for o in arena.by_kind("crate", "barrel"):
            # B6 from the model's own box, the barrel's too: the cube around its bounding sphere
            # (B8) would stand a third of a metre outside the barrel the players see
            self.crates.append(Crate(o, Compound.from_box(o.aabb, CRATE_WALL)))
            self.sync_model(self.crates[-1])
        self._rebuild_group()
        solid = [o.aabb for o in arena.objects if o.kind in SOLID_KINDS]
        self._solid_xz = np.array([[[b[0, 0], b[0, 2]], [b[1, 0], b[1, 2]]] for b in solid]).reshape(-1, 2, 2)
        self._refresh_obstacles()
        self.projectiles: tuple[Projectile, ...] = ()

    @classmethod
    def load(cls, assets_dir: str | None = None) -> "Stage":
        """A fresh stage on the baked arena (files read once per process)."""
        return cls(_cached_arena(None if assets_dir is None else str(assets_dir)))

    # ------------------------------------------------------------ crates
    def sync_model(self, crate: Crate) -> None:
        """B7 -> C: the crate's collision model becomes the surfaces of its small boxes.

        Rays meet exactly the union of the small boxes (the first surface a ray
        enters is on the union's boundary); the exact boundary faces
        (``compound.faces``) are for drawing, and cost far more to build.
        """
        self._settle_rays()
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
        # their x-z rects (x0, z0, x1, z1) as floats: touch() skips numpy when no limb is near one
        self._crate_bounds = [self.crates[i].compound.bounds.tolist() for i in standing]
        self._crate_xz = [(b[0][0], b[0][2], b[1][0], b[1][2]) for b in self._crate_bounds]

    def touch(self, limb_boxes: np.ndarray, origin: tuple[float, float] | None = None) -> CrateOverlap | None:
        """A2-A4: which standing crate do these limbs touch, one batched test.

        Parameters
        ----------
        limb_boxes : (K, 2, 3) float
        origin : None, or the attacker's body centre ``(x, z)``: then each limb is tested as
            its :func:`reach_box` against each crate (B1: the wall the limb came through, also
            when its box on the first active frame is already past that wall); where no limb's
            reach box touches a crate, as its :func:`tear_box` (B3: through a hole, tearing
            the rim) where it has one.

        Returns
        -------
        None, or a :class:`CrateOverlap`: the limb and crate of the touching pair with the
        largest overlap volume, that crate's small box ``(2, 3)``, and the box judged (the
        limb's reach or tear box: what a strike from that origin cuts with, :meth:`strike`).
        """
        if not self._crate_xz:
            return None
        limbs = limb_boxes.tolist()
        ox, oz = (float(origin[0]), float(origin[1])) if origin is not None else (0.0, 0.0)
        # the x-z rect of the limbs (and the origin): most active frames it is near no crate,
        # and then no numpy runs at all (a NaN coordinate fails every test here: no skip)
        if len(limbs) == 1:
            (hx0, _, hz0), (hx1, _, hz1) = limbs[0]
        else:
            hx0, hx1 = min(a[0][0] for a in limbs), max(a[1][0] for a in limbs)
            hz0, hz1 = min(a[0][2] for a in limbs), max(a[1][2] for a in limbs)
        if origin is not None:
            hx0, hx1, hz0, hz1 = min(hx0, ox), max(hx1, ox), min(hz0, oz), max(hz1, oz)
        near = [c for c, (x0, z0, x1, z1) in enumerate(self._crate_xz)
                if not (hx1 < x0 or hx0 > x1 or hz1 < z0 or hz0 > z1)]
        if not near:
            return None
        if origin is None:
            found = self.group.touching(limb_boxes)
            tested = [limbs] * len(found)
        else:
            # each limb's reach box against each crate near it (inside the rect above, so it
            # can touch no other crate), usually one
            found, tested = [], []
            for c in near:
                bounds, wall = self._crate_bounds[c], self.group.compounds[c].thickness
                reach = [reach_box(bounds, wall, s, (ox, oz)) for s in limbs]
                hits = [t for t in self.group.touching(np.array(reach)) if t.compound == c]
                if not hits:                   # through a hole: a rim near enough is torn
                    tears = self._tears(c, limbs, reach, (ox, oz))
                    if tears is not None:
                        reach = tears
                        hits = [t for t in self.group.touching(np.array(reach)) if t.compound == c]
                found += hits
                tested += [reach] * len(hits)
        best: tuple[float, int, int, int] | None = None
        judged: dict[int, list] = {}                             # crate -> the boxes judged against it
        for (c, k, rows), boxes_k in zip(found, tested):         # per touched crate, usually one
            judged[c] = boxes_k
            # crates come in group order, so (limb, crate, row) order is the group's row order
            cand = _largest_overlap(boxes_k, k.tolist(), rows, self.group.compounds[c].boxes, c)
            if best is None or cand < best:
                best = cand
        if best is None:
            return None
        _vol, limb, gc, row = best
        return CrateOverlap(limb, int(self._group_crate[gc]), self.group.compounds[gc].boxes[row],
                            np.array(judged[gc][limb]))

    def _tears(self, c: int, limbs: list, reach: list, origin: tuple[float, float]) -> list | None:
        """The boxes to judge against group compound ``c`` when no limb's reach box touches it:
        each limb's :func:`tear_box` where it has one, else its reach box; None if none has."""
        comp = self.group.compounds[c]
        tears = [tear_box(self._crate_bounds[c], comp.thickness, comp.boxes, s, origin) for s in limbs]
        if all(t is None for t in tears):
            return None
        return [r if t is None else t for t, r in zip(tears, reach)]

    def reach(self, index: int, striker_box: np.ndarray, origin: tuple[float, float]) -> np.ndarray:
        """``(2, 3)``: :func:`reach_box` of a limb's range box against crate ``index`` for an
        attacker centred at ``origin`` ``(x, z)``: what a strike with that origin cuts with."""
        comp = self.crates[index].compound
        return np.array(reach_box(comp.bounds.tolist(), comp.thickness, np.asarray(striker_box, dtype=float).tolist(),
                                  (float(origin[0]), float(origin[1]))))

    def strike(self, index: int, striker_box: np.ndarray, origin: tuple[float, float] | None = None,
               heavy: bool = False) -> tuple[StrikeResult | None, bool]:
        """Strike crate ``index`` with a limb's range box (B1-B7); update its scene model.

        ``origin``: the attacker's body centre ``(x, z)``, or None.  Given, the strike cuts
        with the limb's :func:`reach_box`: the wall facing the attacker, not the lid or the
        floor that the limb's box grazes from inside once it is past that wall.  Without it,
        ``striker_box`` is what cuts (the match passes the reach box :meth:`touch` judged).
        ``heavy``: a heavy move's blow, whose region (B3) is grown by ``HEAVY_STRIKE_MARGIN``
        instead of ``STRIKE_MARGIN``.  Returns ``(result, broke)``; ``result`` is None when
        nothing was removed.
        """
        crate = self.crates[index]
        if origin is not None:
            striker_box = self.reach(index, striker_box, origin)
        result = crate.compound.strike(striker_box, margin=HEAVY_STRIKE_MARGIN if heavy else STRIKE_MARGIN)
        if result is None:
            return None, False
        crate.last_strike = result
        broke = crate.too_little_left()
        if broke:
            crate.broken = True
            self._refresh_obstacles()
            self._rebuild_group()
        self.sync_model(crate)
        return result, broke

    def struck_normal(self, index: int, result: StrikeResult,
                      origin: tuple[float, float] | None = None) -> tuple[float, float, float]:
        """The outward normal of the face a strike ``result`` on crate ``index`` hit (B2): of
        its target layers, the first that faces ``origin`` ``(x, z)`` (the attacker), else its
        first.  (A punch that also notches the lid's front edge hit the front face.)"""
        layers = result.layers.tolist()
        pick = layers[0]
        if origin is not None:
            (x0, _, z0), (x1, _, z1) = self.crates[index].compound.bounds.tolist()
            ox, oz = float(origin[0]), float(origin[1])
            facing = {0: ox < x0, 1: ox > x1, 4: oz < z0, 5: oz > z1}
            pick = next((lay for lay in layers if facing.get(lay, False)), pick)
        n = [0.0, 0.0, 0.0]
        n[pick // 2] = 1.0 if pick % 2 else -1.0
        return n[0], n[1], n[2]

    # ------------------------------------------------------------ fighters
    def _refresh_obstacles(self) -> None:
        """x–z rects ``(x0, z0, x1, z1)`` of pillars, walls and standing crates (plain floats)."""
        live = [c.compound.bounds for c in self.crates if not c.broken]
        self._obstacles = [tuple(r) for r in self._solid_xz.reshape(-1, 4).tolist()] + [
            (float(b[0, 0]), float(b[0, 2]), float(b[1, 0]), float(b[1, 2])) for b in live]
        self._pushed: dict[tuple[float, ...], tuple[float, float]] = {}
        #: Counts the changes of the obstacles (a crate broken or restored): what a cache of
        #: something they decide (``movement.resolve_pushboxes``) checks to know it is current.
        self.obstacles_version = getattr(self, "obstacles_version", -1) + 1

    #: :meth:`push_out` answers kept at most (a match asks the same few circles, again and again)
    PUSHED_KEPT = 64

    def push_out(self, x: float, z: float, r: float) -> tuple[float, float]:
        """Move a pushbox circle (centre x, z, radius r) out of pillars, walls and standing crates.

        A function of the circle and the obstacles: the answers for the circles asked since the
        obstacles last changed are kept (most calls: a fighter standing, or a second pass of
        ``movement.resolve_pushboxes`` over a circle the first moved nowhere).
        (A zero coordinate's sign is part of the key: ``0.0 == -0.0``, and a kept answer gives
        the zero back as it was asked.)"""
        key: tuple[float, ...] = (x, z, r) if x and z else (x, z, r, math.copysign(1.0, x), math.copysign(1.0, z))
        hit = self._pushed.get(key)
        if hit is not None:
            return hit
        out = self._push_out(x, z, r)
        if len(self._pushed) >= self.PUSHED_KEPT:
            self._pushed.clear()
        self._pushed[key] = out
        return out

    def _push_out(self, x: float, z: float, r: float) -> tuple[float, float]:
        """:meth:`push_out` computed."""
        xl, xh, zl, zh = x - r, x + r, z - r, z + r     # the circle's x-z box, kept until it moves
        for x0, z0, x1, z1 in self._obstacles:
            if xh <= x0 or xl >= x1 or zh <= z0 or zl >= z1:
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
            xl, xh, zl, zh = x - r, x + r, z - r, z + r
        return x, z

    def push_rect_out(self, x: float, z: float, rect: tuple[float, float, float, float],
                      tol: float = 1e-9) -> tuple[float, float, bool]:
        """Move a body's x–z rect out of pillars, walls and standing crates, one pass.

        ``rect`` ``(x0, z0, x1, z1)``: the rect's sides as offsets from the centre ``(x, z)``
        (a lying fighter's limbs: ``movement.lying_rect``).  Each obstacle it overlaps by more than
        ``tol`` moves the centre the least of the four axis moves that clear it.  Returns
        ``(x, z, moved)``; one move can push the rect into another obstacle, so a caller
        repeats the pass until nothing moves (the match's few passes, ``movement.place_lying``)."""
        ex0, ez0, ex1, ez1 = rect
        moved = False
        for x0, z0, x1, z1 in self._obstacles:
            if x + ex1 <= x0 + tol or x + ex0 >= x1 - tol or z + ez1 <= z0 + tol or z + ez0 >= z1 - tol:
                continue
            d, sx, sz = min((x + ex1 - x0, -1, 0), (x1 - x - ex0, 1, 0), (z + ez1 - z0, 0, -1), (z1 - z - ez0, 0, 1))
            x, z, moved = x + sx * d, z + sz * d, True
        return x, z, moved

    def ground_height(self, x: float, z: float, y_hint: float) -> float:
        """Floor height under (x, z) by a downward nearest-hit ray (C7) against high models.

        The distance is the scene walk's, found among the few triangles under the point
        (:class:`~game.sim.ground.GroundGrid`); the walk's visit counters, which only the debug
        overlay shows, are counted by walking the ray when the overlay reads :attr:`rays` (or
        before a crate's model changes: :meth:`_settle_rays`)."""
        top = y_hint + GROUND_RAY_UP
        if not (type(x) is float and type(z) is float and type(top) is float and math.isfinite(x + top + z)):
            # not plain finite floats (a tool's value): the scene's cast, which checks them
            t = self.scene.cast_nearest_distance((x, top, z), (0.0, -1.0, 0.0), GROUND_RAY_DOWN, level=GROUND_LEVEL)
            self._record((x, top, z), (x, top - GROUND_RAY_DOWN, z), "ray_nearest", t is not None,
                         None if t is None else (x, top - t, z))
            return y_hint if t is None else top - t
        grid = self._ground
        if grid is None or self._ground_version != self.scene.version:
            grid = self._ground = ground_grid(self.scene, GROUND_LEVEL)
            self._ground_version = self.scene.version
        t = grid.distance(x, top, z, GROUND_RAY_DOWN)
        self._rays.append(((x, top, z), (x, top - GROUND_RAY_DOWN, z), "ray_nearest", t is not None,
                           None if t is None else (x, top - t, z), -1, -1))
        return y_hint if t is None else top - t

    # ------------------------------------------------------------ projectiles
    def path_blocked(self, start: Vec3, step: Vec3, level: int) -> bool:
        """C8: does the segment ``start -> start + step`` hit any model above ``level``?

        ``start``, ``step``: 3 numbers each, arrays or plain sequences (a projectile's own
        floats, so its per-frame ray builds no array besides the overlay's record)."""
        ox, oy, oz = _floats3(start)
        sx, sy, sz = _floats3(step)
        length = math.sqrt(sx * sx + sy * sy + sz * sz)     # not np.linalg.norm: BLAS (see DEVELOPERS.md)
        hit = self.scene.cast_any((ox, oy, oz), (sx, sy, sz), length, level=level)
        self._record((ox, oy, oz), (ox + sx, oy + sy, oz + sz), "ray_any", hit, None)
        return hit

    def box_blocked(self, box: Any, level: int | None) -> tuple[int, np.ndarray] | None:
        """A2-A4, B7, C9: the small box of a standing crate that a projectile's range box touches.

        The path ray (:meth:`path_blocked`) is a projectile's centre only: through a hole
        smaller than the projectile it meets nothing, though the projectile's box meets the
        hole's rim.  Here that box is judged against the crates' compounds by method A (B7),
        with the ray's level rule (C9): a crate is judged only when its collision model's
        level is above ``level`` (or ``level`` is None), the crates the ray would stop at.

        Parameters
        ----------
        box : ``((x0, y0, z0), (x1, y1, z1))``, numbers or arrays (a ``(2, 3)`` array too): the
            range box, ``min <= max``.
        level : the projectile's logic level, or None.

        Returns
        -------
        None, or ``(crate, small_box)``: the crate index and its small box ``(2, 3)`` with the
        largest overlap volume (the first of equals in crate, then row order).
        """
        if not self._crate_xz:
            return None
        (x0, y0, z0), (x1, y1, z1) = _floats3(box[0]), _floats3(box[1])
        # most frames the box is near no crate: no numpy at all (a NaN passes here, fails below)
        near = [c for c, (cx0, cz0, cx1, cz1) in enumerate(self._crate_xz)
                if not (x1 < cx0 or x0 > cx1 or z1 < cz0 or z0 > cz1)]
        if near and level is not None:                                  # C9, as cast_any: model.level > level
            models = self.scene.models
            near = [c for c in near if models[self.crates[int(self._group_crate[c])].obj.model].level > level]
        if not near:
            return None
        best: tuple[float, int, int] | None = None
        for c, _k, rows in self.group.touching(np.array([[[x0, y0, z0], [x1, y1, z1]]])):
            if c not in near:
                continue
            for r, (b0, b1) in zip(rows.tolist(), self.group.compounds[c].boxes.take(rows, axis=0).tolist()):
                vol = (max(min(x1, b1[0]) - max(x0, b0[0]), 0.0) * max(min(y1, b1[1]) - max(y0, b0[1]), 0.0)
                       * max(min(z1, b1[2]) - max(z0, b0[2]), 0.0))
                if best is None or vol > best[0]:
                    best = (vol, c, r)
        if best is None:
            return None
        _vol, c, r = best
        return int(self._group_crate[c]), self.group.compounds[c].boxes[r]

    def line_of_sight(self, a: Vec3, b: Vec3, level: int) -> bool:
        """C8, C9: is the segment ``a -> b`` clear of every model above ``level``?  An any-hit
        question of the simulation: the CPU asks it before it zones with a fireball, which
        a pillar, a wall or a crate in between would stop.  (Recorded as a ray, like a
        projectile's path, so the overlay shows it.)"""
        start = np.asarray(a, dtype=float)
        step = np.asarray(b, dtype=float) - start
        sx, sy, sz = step.tolist()
        if not math.sqrt(sx * sx + sy * sy + sz * sz) > 0.0:
            return True
        return not self.path_blocked(start, step, level)

    # ------------------------------------------------------------ projectiles in flight
    def launch(self, p: Projectile) -> None:
        """Put ``p`` in flight (after those already flying)."""
        self.projectiles = self.projectiles + (p,)

    def advance_projectiles(self, spec: ProjectileSpec) -> list[Stopped]:
        """Fly every projectile one frame (``spec``: what they are).  One whose step is blocked
        (:func:`~game.sim.projectiles.flight_blocked`: its centre's any-hit ray, C8, at its
        level, C9, so low props let it through and pillars, walls and crates stop it; its cube
        against the crates' slabs, B7, so it passes only a hole larger than itself) stops
        where it is; one at the end of its lifetime vanishes; the others move on.  Returns the
        stopped ones, in flight order."""
        moved, stopped = [], []
        for p in self.projectiles:
            blocked, point = flight_blocked(self, (p.x, p.y, p.z), (p.vx, p.vz), spec, sweep=True)
            if blocked:
                stopped.append(Stopped(p, point))
            elif p.age + 1 < spec.lifetime:
                moved.append(p.moved())
        self.projectiles = tuple(moved)
        return stopped

    def remove_projectiles(self, gone: Collection[int]) -> None:
        """Take the projectiles at the indices ``gone`` out of flight (they struck or clashed)."""
        self.projectiles = tuple(p for i, p in enumerate(self.projectiles) if i not in gone)

    def clear_projectiles(self) -> None:
        """No projectile in flight (a round starts)."""
        self.projectiles = ()

    # ------------------------------------------------------------ rays
    def begin_frame(self) -> None:
        """A step starts: forget the rays of the last one."""
        self._rays = []

    @property
    def rays(self) -> list[RayRecord]:
        """The ray casts of this step (C6-C8), in order, for the debug overlay: made from the
        log on each read, so a step that no overlay draws builds no record and no array."""
        self._settle_rays()
        return [RayRecord(np.asarray(o, float), np.asarray(e, float), kind, hit,
                          None if p is None else np.array(p, float), nodes, tris)
                for o, e, kind, hit, p, nodes, tris in self._rays]

    def cast_counts(self) -> tuple[int, int]:
        """``(any-hit, nearest-hit)`` casts of this step (C8, C7), counted from the log without
        building its records (the server's referee counts every step's)."""
        any_hit = sum(1 for r in self._rays if r[2] == "ray_any")
        return any_hit, len(self._rays) - any_hit

    def _record(self, origin: Vec3, end: Vec3, kind: str, hit: bool, point: Vec3 | None) -> None:
        """Log a cast the scene has just made (its visit counters are the last query's)."""
        st = self.scene.stats
        self._rays.append((origin, end, kind, bool(hit), point, int(st.nodes_visited), int(st.triangles_tested)))

    def _settle_rays(self) -> None:
        """Count the visits of the logged ground rays (-1 until counted) by walking each in the
        scene, as it stands: called before the scene changes, and when the log is read."""
        for i, (origin, end, kind, hit, point, nodes, _) in enumerate(self._rays):
            if nodes < 0:
                self.scene.cast_nearest_distance(origin, (0.0, -1.0, 0.0), GROUND_RAY_DOWN, level=GROUND_LEVEL)
                st = self.scene.stats
                self._rays[i] = (origin, end, kind, hit, point, int(st.nodes_visited), int(st.triangles_tested))

    # ------------------------------------------------------------ state
    def snapshot(self) -> tuple:
        """``(((compound snapshot, broken) per crate), projectiles)``: values, kept by reference."""
        return (tuple((c.compound.snapshot(), c.broken) for c in self.crates), self.projectiles)

    def restore(self, snap: tuple) -> None:
        """Put back what :meth:`snapshot` returned (a crate's compound only where it changed)."""
        crates, self.projectiles = snap
        self._rays = []
        changed = False
        for c, (csnap, broken) in zip(self.crates, crates):
            if c.compound.boxes is not csnap.boxes or c.broken != broken:   # strikes replace, never mutate
                c.compound = Compound.restore(csnap)
                c.broken = broken
                c.last_strike = None
                self.sync_model(c)
                changed = True
        if changed:
            self._rebuild_group()
            self._refresh_obstacles()
        self._rays = []

    def state_bytes(self) -> bytes:
        """The crates' and projectiles' state as bytes, for ``Match.state_hash``."""
        parts = [c.compound.state_bytes() + struct.pack("<?", c.broken) for c in self.crates]
        parts.append(repr(self.projectiles).encode())
        return b"".join(parts)

    # ------------------------------------------------------------ debug draw
    def debug_draw(self, draw: DebugDraw) -> None:
        """Crate slabs and last strike (B2-B5), quadtree cells (C1) and this frame's rays (C6-C8)."""
        for c in self.crates:
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
