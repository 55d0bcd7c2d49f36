"""Projectiles: their values, their launch and their flight through the arena.

A projectile is a frozen value (:class:`Projectile`); the stage owns the ones in flight
(``Stage.projectiles``, changed only by its named operations).  A projectile move launches on
its first active frame (:func:`spawn`, after stage 3 and before the judge, A8), and every
frame each one flies a step unless the step is blocked (:func:`flight_blocked`: its centre's
any-hit ray, C8, at its level, C9, and its cube against the crates' small boxes, A2-A4, B7).
What it strikes is judged with the limbs in ``combat`` (A2-A4).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from game.collision import collision_point_pair

from .events import Event, ProjectileImpact, ProjectileLaunched
from .moves import ProjectileSpec

if TYPE_CHECKING:
    from .match import Match
    from .stage import Stage


@dataclass(frozen=True)
class Projectile:
    """A projectile in flight: plain values (hashable, snapshot by reference)."""

    owner: int      # the thrower's fighter index
    x: float        # m, centre of its range box (a cube of half size ``ProjectileSpec.half``)
    y: float
    z: float
    vx: float       # m / frame along x
    vz: float       # m / frame along z
    age: int        # frames flown

    def moved(self) -> Projectile:
        """The same projectile one frame on."""
        return Projectile(self.owner, self.x + self.vx, self.y, self.z + self.vz, self.vx, self.vz, self.age + 1)


class Stopped(NamedTuple):
    """A projectile whose flight step was blocked (``Stage.advance_projectiles``)."""

    projectile: Projectile      # as it was before the step
    point: np.ndarray | None    # (3,) A7 point of its cube and the crate's small box met, or None: the ray stopped it


def flight_blocked(stage: Stage, start: tuple[float, float, float], step: tuple[float, float],
                   spec: ProjectileSpec, sweep: bool) -> tuple[bool, np.ndarray | None]:
    """Does a projectile going from ``start`` (x, y, z) by ``step`` (dx, dz) stop?  The
    segment is its centre's any-hit ray (C8) at its level (C9): pillars, walls, crates
    through their holes (B7).  The ray is the centre only: its range box at the end (the
    cube the judge judges) is also judged against the crates' small boxes (A2-A4, B7, at the
    same level, C9), so a hole smaller than the projectile stops it at the rim.  Returns
    ``(blocked, point)``: the A7 point ``(3,)`` (read-only) of the cube and the small box it
    met, or None when the ray stopped it (presentation finds where, C7)."""
    (x0, y, z0), (dx, dz) = start, step
    if stage.path_blocked((x0, y, z0), (dx, 0.0, dz), spec.level):   # floats: no arrays
        return True, None
    h, x, z = spec.half, x0 + dx, z0 + dz
    lo, hi = [x - h, y - h, z - h], [x + h, y + h, z + h]
    # Tunnelling (y does not change), with ``sweep`` (a flight step; the cube at ``start``
    # was judged by the step before): on each of x, z the start and end cubes are 2h wide
    # and |d| apart.  (a) |dx|, |dz| <= 2h (the fireball: 0.16 <= 0.28): they overlap on
    # both axes, so no slab between them is missed: a step along an axis sweeps exactly
    # their union, and a diagonal step sweeps besides only two corner triangles beside its
    # path (legs |dx|, |dz|, a box w x d fits iff w/|dx| + d/|dz| <= 1: a sliver the cube's
    # edge grazes, which the centre ray and the next cube go by).  (b) |dx| or |dz| > 2h: a
    # gap between the cubes that a wall (the compound's thickness, 0.08 m) could lie in, so
    # the box judged is the bounding box of the two cubes, the whole sweep.  Without
    # ``sweep`` (the launch: from the body to the launch point, the hand's reach) the ray
    # alone covers the way there, and the cube at the launch point is judged.
    if sweep and (abs(dx) > 2.0 * h or abs(dz) > 2.0 * h):
        lo = [min(lo[0], x0 - h), lo[1], min(lo[2], z0 - h)]
        hi = [max(hi[0], x0 + h), hi[1], max(hi[2], z0 + h)]
    stop = stage.box_blocked((lo, hi), spec.level)
    if stop is None:
        return False, None
    return True, _read_only(collision_point_pair((lo, hi), stop[1]))   # A7


def launch_point(m: Match, i: int, spec: ProjectileSpec) -> np.ndarray:
    """``(3,)`` where fighter ``i`` would launch ``spec`` now: its limb's range-box centre,
    0.2 m ahead along the facing."""
    f = m.fighters[i]
    c = m.limbs.boxes[i, spec.limb].mean(axis=0)
    return np.array([c[0] + f.fx * 0.2, c[1], c[2] + f.fz * 0.2])


def spawn(m: Match, events: list[Event]) -> None:
    """A projectile move launches on its first active frame, from its limb's box centre
    (this frame's range boxes, stage 3), before stage 4 judges: like a punch's first active
    frame, the launch frame can strike at point-blank (a fireball thrown into a crouching
    opponent's body strikes it at once rather than spawning inside it).  One thrown
    point-blank into a crate or a wall bursts at once: the way from the body to the launch
    point is judged as a flight step (:func:`flight_blocked`)."""
    stage = m.stage
    if stage is None:
        return
    for f in m.fighters:
        if not f.move or f.hitstop:
            continue
        mv = m.data.moves[f.move]
        spec = mv.projectile
        if spec is None or f.mframe != mv.startup:
            continue
        if any(p.owner == f.index for p in stage.projectiles):
            continue   # one in flight per fighter
        x, y, z = launch_point(m, f.index, spec).tolist()
        p = Projectile(f.index, x, y, z, f.fx * spec.speed, f.fz * spec.speed, 0)
        events.append(ProjectileLaunched(m.frame, f.index, _read_only(np.array([p.x, p.y, p.z]))))
        # thrown point-blank into a crate or a wall: from the body to the launch point (the
        # hand's reach) the way is judged as a flight step, and a blocked one bursts at once
        # (the launch point can lie past a crate's near wall, in its hollow)
        blocked, point = flight_blocked(stage, (f.x, y, f.z), (x - f.x, z - f.z), spec, sweep=False)
        if blocked:
            events.append(ProjectileImpact(m.frame, f.index, _read_only(np.array([f.x, y, f.z])),
                                           _read_only(np.array([x, y, z])), spec.level, point))
            continue
        stage.launch(p)


def advance(m: Match, stage: Stage, events: list[Event]) -> None:
    """Fly every projectile in flight one frame (``Stage.advance_projectiles``); each one
    stopped by the arena bursts: a :class:`ProjectileImpact` from where it was to where the
    step would have taken it."""
    spec = m.projectile_spec
    if not stage.projectiles or spec is None:
        return
    for p, point in stage.advance_projectiles(spec):
        start = np.array([p.x, p.y, p.z])
        events.append(ProjectileImpact(m.frame, p.owner, _read_only(start),
                                       _read_only(start + np.array([p.vx, 0.0, p.vz])), spec.level, point))


def _read_only(a: np.ndarray) -> np.ndarray:
    """``a``, made read-only: an event's arrays are values, as its other fields are."""
    a.flags.writeable = False
    return a
