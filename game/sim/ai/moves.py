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


def punish(data: GameData, op: Sight, dist: float, delay: int = 0) -> str:
    """The attack that lands on ``op`` before it can guard or strike: it is in a move's
    recovery (a whiffed heavy) or slow wind-up, and the attack, pressed now and starting
    ``delay`` frames from now, reaches it in time.  The heaviest such attack, or ``""``."""
    return punish_walk(data, op, dist, delay, walk=False)[0]


def punish_walk(data: GameData, op: Sight, dist: float, delay: int = 0, walk: bool = True) -> tuple[str, int]:
    """:func:`punish`, allowing (``walk``) a walk in first: ``(move, frames to walk before its
    press)`` for the heaviest attack that still lands in time after that walk, or ``("", 0)``.
    An attack reaches a body its limb's reach plus :data:`PUNISH_FRONT` of a standing body's
    front away (centre to centre).  A move seen to make contact is no opening while it was last
    seen inside its cancel window: a string may follow it."""
    mv = data.moves[op.move]
    if mv.cancel and op.move_hit and op.seen_mframe <= mv.cancel_window[1]:
        return "", 0
    if op.mframe < mv.startup and (mv.hit_limbs or mv.projectile is not None):
        window = mv.startup - op.mframe                      # hit it out of its wind-up
    elif op.mframe >= mv.startup + mv.active:
        window = mv.total - op.mframe                        # or in its recovery
    else:
        return "", 0
    window += op.hitstop - delay
    ducking = mv.height == "low"                             # a sweep: a crouching body, highs pass over
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
    gap = s.dist + mv.pushback * SLIDE_DECAY ** late + CONFIRM_MARGIN   # where the reeling body will be
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
