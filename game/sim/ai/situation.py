"""The situation a CPU rule reads: computed once per frame, before any rule runs.

:class:`Situation` gathers what several rules read (the distance, whether this fighter can
act, the opponent as seen a reaction time ago (:mod:`.sight`), its heavy wind-up that will
reach, the projectile that will strike) so each is computed once, from what a player sees.
Nothing here draws from the RNG or changes the match: reading the situation first leaves the
rules' draws in their order.  The arena looks (a wall ahead, room to sidestep or back off, a
clear shot) are here too: they are questions a rule asks of the stage, answered by its
push-out and its ray casts (C8, C9).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..data import GameData, Move
from ..inputs import SIDE_L, SIDE_R
from ..stage import Stage
from .levels import CpuLevel
from .measure import (
    SIDESTEP,
    WALK_BACK,
    body_front,
    longest_reach,
    move_reach,
    projectile_geometry,
    projectile_lanes,
    projectile_move,
)
from .plan import CpuPlan
from .sight import Sight, sight
from .view import FighterView, MatchView

#: States from which a move starts on the next frame (the match's neutral states).
FREE_STATES = ("idle", "walk_fwd", "walk_back", "sidestep", "crouch", "block_stand", "block_crouch")
#: How far one step of a forward walk goes (m), for the CPU's "is the way ahead blocked?" look.
STEP_AHEAD = 0.045
#: A dodge steps this much further out of a projectile's path than its bare clearance (m): a
#: fighter that then walks at the thrower drifts back toward the path it flies along.
DODGE_MARGIN = 0.15
#: The round's first second, in frames from "FIGHT!": no hit of the CPU's lands in it (it
#: presses no attack whose startup would end inside it).
OPENING = 60


class Telegraph(NamedTuple):
    """The opponent's heavy attack in its wind-up, when it will reach this fighter."""

    first: int        # frames until its first active frame
    over: int         # frames until its last active frame is over
    height: str       # its height: "high", "mid" or "low"
    reach: float      # its reach (m) from where the attacker stands, from move_reach


class Threat(NamedTuple):
    """The opponent's projectile that will strike this fighter if it stays where it is."""

    frames: int       # frames until it reaches the body's front
    need: int         # frames of sidestep needed to leave its path
    side: int         # the sidestep bit (SIDE_L / SIDE_R) that does
    gap: float        # its gap to the body's front (m) once the thrower's wind-up is over
    wait: int         # the thrower's wind-up frames left (0: in flight)
    speed: float      # its speed (m / frame)
    top: float        # its top's height above this fighter's ground (m)
    spec: Move        # the projectile move (its spec: height, speed, half size)


class Situation(NamedTuple):
    """What one CPU sees this frame, read once for every rule."""

    match: MatchView                 # the match: the arena looks, the frame count
    i: int                           # this CPU's fighter index
    level: CpuLevel                  # its level's chances and hold times
    rng: np.random.Generator         # the match's RNG: every random choice, in a fixed order
    data: GameData                   # the fighter data: move table, throw
    me: FighterView                  # this CPU's fighter
    op: Sight                        # the opponent as seen ``level.reaction`` frames ago, where it is now
    dist: float                      # centre to centre in x-z (m)
    free: bool                       # ``me`` starts a move next frame: neutral, in no move, no stun
    calm: int                        # frames of the round's first second (OPENING) still to go
    longest: float                   # the longest attack's reach (m)
    tele: Telegraph | None           # the opponent's heavy wind-up that will reach, or None
    threat: Threat | None            # the projectile that will strike, or None

    def may_press(self, move: str) -> bool:
        """Whether ``move`` pressed now lands after the round's first second (its startup outlasts
        what is left of it)."""
        return self.data.moves[move].startup >= self.calm


def read_situation(match: MatchView, i: int, level: CpuLevel, plan: CpuPlan) -> Situation:
    """Fighter ``i``'s situation this frame, the opponent seen through ``plan.eyes`` (no RNG
    draw, no change to the match)."""
    me = match.fighters[i]
    data = match.data
    op = sight(data, match.fighters[1 - i], plan.eyes)
    dist = math.hypot(op.x - me.x, op.z - me.z)
    tele = telegraph(data, op, dist) if op.move else None
    threat = None
    pm = projectile_move(data)
    if match.stage is not None and me.state not in ("attack", "hitstun", "jump") and pm is not None:
        threat = projectile_threat(match, match.stage, i, op, pm, level.reaction)
    free = me.state in FREE_STATES and not me.move and me.stun == 0
    calm = max(0, OPENING - match.phase_frame)
    # tuple.__new__ takes the fields in order without the generated __new__'s extra Python call
    # (a situation is built for every CPU on every frame)
    return tuple.__new__(Situation, (match, i, level, match.rng, data, me, op, dist, free, calm,
                                     longest_reach(data), tele, threat))


def telegraph(data: GameData, op: Sight, dist: float) -> Telegraph | None:
    """The opponent's heavy attack in its wind-up (its long startup is what a player reads),
    when it will reach a fighter ``dist`` away that stands or walks in; else None.  Its reach
    is counted from where the attacker stands now: less the lunge it has made so far."""
    mv = data.moves[op.move]
    if not mv.heavy or not mv.hit_limbs or op.mframe >= mv.startup:
        return None
    reach = move_reach(data)[op.move][0] - float(mv.advance[:op.mframe].sum())
    first = mv.startup - op.mframe + op.hitstop
    if dist > reach + body_front(data) + STEP_AHEAD * first:
        return None
    return Telegraph(first, first + mv.active, mv.height, reach)


def projectile_threat(match: MatchView, stage: Stage, i: int, op: Sight, pm: Move,
                      reaction: int) -> Threat | None:
    """The opponent's projectile that will strike fighter ``i`` if it stays where it is, as a
    player reads it (a fireball in flight, or the thrower's wind-up aimed at it), or None.
    The thrower faces where it aims, and a projectile flies straight.  ``frames`` counts to
    its reaching the body's front; it is past the body ``2 * front / speed`` frames later.
    ``op`` is the thrower as seen, ``pm`` the projectile move
    (:func:`~.measure.projectile_move`); a projectile in flight counts once the start of its
    wind-up is ``reaction`` frames old (its age plus the move's startup)."""
    me = match.fighters[i]
    data = match.data
    spec = pm.projectile
    assert spec is not None, "projectile_move returns a move with a projectile"
    lines = []
    half = spec.half
    for p in stage.projectiles:
        if p.owner != i and p.age + pm.startup >= reaction:
            lines.append((p.x, p.z, p.vx, p.vz, 0, p.y + half))
    if op.move and not lines:
        mv = data.moves[op.move]
        if mv.projectile is not None and op.mframe < mv.startup:
            ahead, _, _, y = projectile_geometry(data)
            s = mv.projectile.speed
            lines.append((op.x + op.fx * ahead, op.z + op.fz * ahead, op.fx * s, op.fz * s, mv.startup - op.mframe,
                          op.ground_y + y + half))
    if not lines:
        return None
    _, front, clear = projectile_lanes(data)
    best = None
    for x, z, vx, vz, wait, top in lines:
        speed = math.hypot(vx, vz)
        if speed <= 0.0:
            continue
        dx, dz = vx / speed, vz / speed
        along = (me.x - x) * dx + (me.z - z) * dz
        side = (me.x - x) * -dz + (me.z - z) * dx           # + : to the left of its path
        if along < -front or abs(side) >= clear + DODGE_MARGIN:
            continue                                         # gone past, or flying wide
        gap = max(0.0, along - front)
        frames = wait + int(gap / speed)
        need = int((clear + DODGE_MARGIN - abs(side)) / SIDESTEP) + 1
        # SIDE_R moves a fighter along (-fz, fx): away from the path on the side it is already on
        gain_r = -me.fz * -dz + me.fx * dx
        bit = SIDE_R if (gain_r > 0) == (side >= 0) else SIDE_L
        if best is None or frames < best.frames:
            best = Threat(frames, need, bit, gap, wait, speed, top - me.ground_y, pm)
    return best


def blocked_ahead(match: MatchView, me: FighterView) -> bool:
    """True when a pillar, a wall or a standing crate stops a step toward the opponent, as a
    player sees when their walk goes nowhere (the arena's own push-out, no state changed)."""
    if match.stage is None:
        return False
    x, z = me.x + me.fx * STEP_AHEAD, me.z + me.fz * STEP_AHEAD
    nx, nz = match.stage.push_out(x, z, match.data.pushbox_radius)
    return (nx - me.x) * me.fx + (nz - me.z) * me.fz < 0.5 * STEP_AHEAD


def side_free(match: MatchView, me: FighterView, bit: int, frames: int) -> bool:
    """True when ``frames`` of sidestep ``bit`` stay clear of pillars, walls, crates and the bounds
    (asked only on an arena: a projectile flies only there)."""
    stage = match.stage
    assert stage is not None, "a sidestep out of a projectile's path is looked for only on an arena"
    sign = 1.0 if bit == SIDE_R else -1.0
    d = sign * SIDESTEP * frames
    x, z = me.x - me.fz * d, me.z + me.fx * d
    r = match.data.pushbox_radius
    nx, nz = stage.push_out(x, z, r)
    (x0, z0), (x1, z1) = match.bounds.tolist()
    return abs(nx - x) + abs(nz - z) < 1e-9 and x0 + r <= x <= x1 - r and z0 + r <= z <= z1 - r


def back_free(match: MatchView, me: FighterView, frames: int) -> bool:
    """True when ``frames`` of walking back stay clear of pillars, walls, crates and the bounds."""
    d = WALK_BACK * frames
    x, z = me.x - me.fx * d, me.z - me.fz * d
    r = match.data.pushbox_radius
    (x0, z0), (x1, z1) = match.bounds.tolist()
    if not (x0 + r <= x <= x1 - r and z0 + r <= z <= z1 - r):
        return False
    if match.stage is None:
        return True
    nx, nz = match.stage.push_out(x, z, r)
    return abs(nx - x) + abs(nz - z) < 1e-9


def clear_shot(match: MatchView, stage: Stage, i: int) -> bool:
    """Line of sight (C8 any-hit at the projectile's level, C9) from where fighter ``i``'s
    fireball would start to the opponent, at the height it would fly."""
    spec = match.data.moves["fireball"].projectile
    assert spec is not None, "the fireball move launches a projectile"
    start = match.launch_point(i, spec)
    op = match.fighters[1 - i]
    return stage.line_of_sight(start, np.array((op.x, start[1], op.z)), spec.level)
