"""Which attack or jump the CPU presses, and the bits that press it.

Pure choices over the move table and what a player sees (no RNG draw except in
:func:`press_move`, whose hold time is the level's): the attack that punishes a fighter
stuck in a move, the follow-up that confirms a hit, the jump that clears a projectile.
"""

from __future__ import annotations

import math

from ..data import GameData
from ..inputs import DOWN, FORWARD, HK, HP, LK, LP, UP
from ..movement import SLIDE_DECAY
from .measure import (
    JUMP_DRIFT,
    WALK_FWD,
    body_front,
    clear_frames,
    move_reach,
    projectile_geometry,
    projectile_lanes,
    projectile_move,
)
from .plan import CpuPlan
from .sight import Sight
from .situation import Situation, Threat
from .view import FighterView

#: The buttons that start each attack (down with hk: the sweep; lp + hp: the fireball).
MOVE_BUTTON = {"lp": LP, "hp": HP, "lk": LK, "hk": HK, "hk_low": HK | DOWN, "fireball": LP | HP}
#: A throw's grab and its break are lp + lk (the grab's move is named by ``moves.json`` ``throw``).
THROW_BUTTONS = LP | LK
#: Of a standing fighter's front (its guarding arms, :func:`~.measure.body_front`), how much a
#: throw's hands can count on taking: a grab touching the arms holds (the shipped grab reaches 1.15 m).
THROW_FRONT = 0.8
#: A punish counts on reaching this share of a standing body's front past its limb's reach.
PUNISH_FRONT = 0.5
#: A turn's attack reaches this much (m) past its limb's reach: the margin a swing in neutral has.
TURN_MARGIN = 0.12
#: A follow-up that must reach is chosen only if it reaches this much (m) past the distance
#: plus the first hit's pushback: a reeling body leans back out of a short reach.
CONFIRM_MARGIN = 0.30
#: Projectile throws seen in a round (and at least as many as its other attacks) before the CPU
#: counts on the opponent throwing another once it recovers (:func:`zoning`).
ZONE_HABIT = 2


def throw_name(data: GameData) -> str:
    """The throw's grab move (``moves.json`` ``throw.move``), or "" without one."""
    return data.throw.move if data.throw is not None else ""


def throw_reaches(data: GameData, dist: float) -> bool:
    """A throw pressed now grabs a standing fighter ``dist`` away (centres): its hands' reach
    (:func:`~.measure.move_reach`) plus most of the front of that fighter's guard
    (:func:`~.measure.body_front`)."""
    name = throw_name(data)
    return bool(name) and dist <= move_reach(data)[name][0] + THROW_FRONT * body_front(data)


def button(data: GameData, move: str) -> int:
    """The bits that start ``move``: its button (with down for the sweep), lp + lk for the throw."""
    if data.throw is not None and move == data.throw.move:
        return THROW_BUTTONS
    return MOVE_BUTTON[move]


def press_move(s: Situation, plan: CpuPlan, move: str) -> int:
    """Start pressing ``move``: its direction (down for the sweep) held for a span drawn from
    the level's ``hold`` range, its attack button tapped; returns this frame's bits."""
    lo, hi = s.level.hold
    bits = button(s.data, move)
    plan.start(bits & DOWN, int(s.rng.integers(lo, hi + 1)), bits & ~DOWN)
    return plan.press()


def may_cancel(data: GameData, me: FighterView) -> bool:
    """True while a press of an attack could cancel ``me``'s current move: the move has cancels
    and its window is not over (before contact too: a press is buffered, and once the move
    has made contact it comes out in the window)."""
    if not me.move:
        return False
    mv = data.moves[me.move]
    return bool(mv.cancel) and me.mframe <= mv.cancel_window[1]


def zoner(plan: CpuPlan) -> bool:
    """Whether the opponent's habit is to throw projectiles: at least :data:`ZONE_HABIT` seen
    this round, and no fewer than its other attacks."""
    return plan.zoned >= ZONE_HABIT and plan.zoned >= plan.attacks


def zoning(data: GameData, op: Sight, plan: CpuPlan) -> int:
    """The wind-up the CPU counts on after ``op``'s recovery: the projectile move's startup when
    ``op`` is seen in a projectile throw past its launch (its recovery, or counted on past its
    end: a next one may have begun) and its habit is to throw them (:func:`zoner`), as a player
    who has watched a fireball loop counts on the next one; else 0."""
    if not op.move or not zoner(plan):
        return 0
    mv = data.moves[op.move]
    if mv.projectile is None or op.mframe < mv.startup:
        return 0
    return mv.startup


def next_launch(data: GameData, op: Sight, plan: CpuPlan) -> int:
    """Frames until the projectile the CPU counts on launches, when the opponent's habit is to
    throw them (:func:`zoner`): the one seen winding up, else the next, started as soon as
    ``op`` is free (after its throw's recovery, or its stun; seen free, it may have started as
    long ago as the look is old); 0 when none is counted on (no habit, another move seen, or
    the count is past: a throw it has not seen yet)."""
    pm = projectile_move(data)
    if pm is None or not zoner(plan) or (op.move and op.move != pm.name):
        return 0
    if not op.move:
        left = op.stun + pm.startup if op.stun else pm.startup - op.age
    elif op.mframe < pm.startup:
        left = pm.startup - op.mframe
    else:
        left = pm.total - op.mframe + pm.startup
    return max(0, left + op.hitstop)


def punish(data: GameData, op: Sight, dist: float, delay: int = 0, after: int = 0) -> str:
    """The attack that lands on ``op`` before it can guard or strike: it is in a move's
    recovery (a whiffed heavy) or slow wind-up, and the attack, pressed now and starting
    ``delay`` frames from now, reaches it in time (``after``: frames past the recovery it is
    counted on to stay harmless, :func:`zoning`).  The heaviest such attack, or ``""``."""
    return punish_walk(data, op, dist, delay, walk=False, after=after)[0]


def punish_walk(data: GameData, op: Sight, dist: float, delay: int = 0, walk: bool = True,
                after: int = 0) -> tuple[str, int]:
    """:func:`punish`, allowing (``walk``) a walk in first: ``(move, frames to walk before its
    press)`` for the heaviest attack that still lands in time after that walk, or ``("", 0)``.
    A move seen to make contact is no opening while it was last seen inside its cancel window:
    a string may follow it."""
    mv = data.moves[op.move]
    if mv.cancel and op.move_hit and op.seen_mframe <= mv.cancel_window[1]:
        return "", 0
    if op.mframe < mv.startup and (mv.hit_limbs or mv.projectile is not None):
        window = mv.startup - op.mframe                      # hit it out of its wind-up
    elif op.mframe >= mv.startup + mv.active:
        window = mv.total - op.mframe + after                # or in its recovery
    else:
        return "", 0
    # a sweep: a crouching body, highs pass over
    return heaviest(data, dist, window + op.hitstop - delay, walk, mv.height == "low")


def heaviest(data: GameData, dist: float, window: int, walk: bool = False, ducking: bool = False) -> tuple[str, int]:
    """``(move, frames to walk before its press)``: the heaviest attack active, with 2 frames to
    spare, within ``window`` frames from now, after a walk in first if ``walk`` (else it must
    reach from here); no high at a ``ducking`` body; ``("", 0)`` when there is none.  An attack
    reaches a body its limb's reach plus :data:`PUNISH_FRONT` of a standing body's front away
    (centre to centre)."""
    front = PUNISH_FRONT * body_front(data)
    best, damage, steps = "", -1, 0
    for name, (reach_n, _) in move_reach(data).items():
        m = data.moves[name]
        gap = dist - reach_n - front
        need = max(0, math.ceil(gap / WALK_FWD)) if walk else (0 if gap <= 0.0 else window)
        if need + m.startup + 2 <= window and m.damage > damage and not (ducking and m.height == "high"):
            best, damage, steps = name, m.damage, need
    return best, steps


def turn(data: GameData, op: Sight, dist: float) -> str:
    """The quickest attack that reaches ``op`` with :data:`TURN_MARGIN` to spare while it is
    seen in a move's recovery, no cancel to follow: too late to punish it, but pressed now it
    meets the opponent as it recovers, before any move of the opponent's but its guard (and
    close enough that a light's follow-up reaches too).  ``""`` when there is none."""
    mv = data.moves[op.move]
    if mv.cancel and op.move_hit and op.seen_mframe <= mv.cancel_window[1]:
        return ""
    if not mv.startup + mv.active <= op.mframe < mv.total:
        return ""
    best, startup = "", 1 << 30
    for name, (reach_n, _) in move_reach(data).items():
        m = data.moves[name]
        if reach_n + TURN_MARGIN >= dist and m.startup < startup and not (mv.height == "low" and m.height == "high"):
            best, startup = name, m.startup
    return best


def slide_kept(frames: int) -> float:
    """``SLIDE_DECAY ** frames`` (``frames >= 0``) by repeated multiplication, as the slide keeps
    it frame by frame: float ``**`` is libm's ``pow``, whose last bits glibc's FMA variant
    changes (see :mod:`game.sim.trig`)."""
    kept = 1.0
    for _ in range(frames):
        kept *= SLIDE_DECAY
    return kept


def confirm(s: Situation, late: int = 0) -> str:
    """The follow-up the CPU's current move (which has hit) cancels into that still lands: the
    most damaging of its cancels whose reach covers the distance plus what is left of the hit's
    pushback (with :data:`CONFIRM_MARGIN`), no high at an opponent seen crouching (it would pass
    over), or its projectile move if none does and its own is
    not in flight (else the press would come out as a heavy punch); ``""`` when there is none.
    ``late``: frames since the hit's freeze ended (the reeling body has slid that long, and has
    that much less hitstun left)."""
    data = s.data
    mv = data.moves[s.me.move]
    reach = move_reach(data)
    gap = s.dist + mv.pushback * slide_kept(late) + CONFIRM_MARGIN   # where the reeling body will be
    left = mv.hitstun - late
    ducking = s.op.state in ("crouch", "block_crouch")
    best, damage = "", -1
    for name in mv.cancel:
        m = data.moves[name]
        if name in reach and name != "hk_low" and reach[name][0] >= gap - body_front(data) and \
                m.startup + 1 < left and m.damage > damage and not (ducking and m.height == "high"):
            best, damage = name, m.damage
    stage = s.match.stage
    if best or stage is None:
        return best
    pm = projectile_move(data)
    if pm is None or pm.projectile is None or pm.name not in mv.cancel or \
            any(p.owner == s.i for p in stage.projectiles):
        return ""
    ahead, front, _, _ = projectile_geometry(data)
    flight = math.ceil(max(0.0, gap - ahead - front) / pm.projectile.speed)
    return pm.name if pm.startup + flight + 1 < left else ""


def jump_over(data: GameData, threat: Threat) -> int:
    """The jump that, pressed now, clears ``threat``, a projectile flying straight at the
    fighter: UP | FORWARD (toward the thrower, which meets it sooner) or UP when every frame
    it spends crossing the body (``2 * front`` at the closing speed) falls inside the jump's
    frames whose lowest limb is above its top, with :data:`~.measure.JUMP_MARGIN` frames to
    spare at each end; else 0 (now is too early or too late)."""
    first, last = clear_frames(data, threat.top)
    if first > last:
        return 0
    front = projectile_lanes(data)[1]
    gap, wait = threat.gap, threat.wait
    for bits, drift in ((UP | FORWARD, JUMP_DRIFT), (UP, 0.0)):
        closing = threat.speed + drift
        arrive = wait + int(max(0.0, gap - wait * drift) / closing)      # its first frame at the body
        gone = arrive + int(2.0 * front / closing) + 1                      # and the first one past it
        if first <= arrive and gone <= last:
            return bits
    return 0
