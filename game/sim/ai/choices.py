"""The choices of a new plan, in order: when no rule of :mod:`.rules` decides a frame and the
plan has run out, :func:`~.rules.new_plan` draws one uniform roll ``r`` and the first of
:data:`PLAN_CHOICES` that takes it decides.  Each choice reads the frame's
:class:`~.situation.Situation` and the CPU's :class:`~.plan.CpuPlan`, as a rule does.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..inputs import BACK, DOWN, FORWARD, GUARD, HP, LP, SIDE_L, SIDE_R, UP
from .measure import WALK_FWD, body_front, move_reach, projectile_move
from .moves import THROW_FRONT, heaviest, next_launch, press_move, punish, throw_name, throw_reaches
from .plan import CpuPlan
from .situation import Situation, blocked_ahead, clear_shot

#: A detour around an obstacle is held at least this long (frames): long enough to clear a crate.
DETOUR_FRAMES = 24

#: How far (m) the CPU walks in to throw a standing guard that is just out of the throw's reach.
THROW_WALK = 0.3

#: Beyond this distance (m, past the longest reach) a new plan closes in rather than fights.
APPROACH = 0.35

#: A guard is raised ahead of an attack (``block``) when the opponent's longest attack would
#: reach this fighter's front (centres its longest reach plus a body's front apart) after a
#: step this long (m).
GUARD_REACH = 0.15

#: A guard raised ahead of an attack is a crouching one (which stops lows; the standing one
#: stops highs and mids) at the rate ``(lows + a) / (attacks + b)`` for ``(a, b)`` below: a
#: guess from the opponent's attacks seen this round, a quarter before any.
LOW_PRIOR = (1, 4)

#: Of the new plans in reach that are neither an attack nor a guard, the shares that walk back
#: (or stand guarding) and that sidestep; the rest step in or pause.
BACK_SHARE, SIDE_SHARE = 0.45, 0.13
#: A choice of a new plan: as a rule, with the plan roll ``r`` (one uniform draw per new plan).
PlanChoice = Callable[[Situation, CpuPlan, float], int | None]


def keep_blocking(s: Situation, plan: CpuPlan, r: float) -> int | None:
    """In blockstun: keep the guard it holds, at its height, through the blockstun and the
    level's shortest hold after (a string may follow; a punish still may, :func:`~.rules.punish_stuck`)."""
    me = s.me
    if me.state != "blockstun":
        return None
    plan.start(me.input_bits & (GUARD | DOWN), me.hitstop + me.stun + s.level.hold[0])
    return plan.press()


def opening(s: Situation, plan: CpuPlan, r: float) -> int | None:
    """The round's first second (no attack yet): walk in to fighting range, then guard (a
    ``block`` roll, or half the rest) or hold still."""
    if not s.calm:
        return None
    lo, hi = s.level.hold
    if s.dist > _threat_range(s):
        plan.start(FORWARD, int(s.rng.integers(lo, hi + 1)))
    elif r < s.level.block + 0.5 * (1.0 - s.level.block) and (bits := guard_up(s, plan, 0.0)) is not None:
        return bits
    else:
        plan.start(0, int(s.rng.integers(lo, hi + 1)))
    return plan.press()


def detour(s: Situation, plan: CpuPlan, r: float) -> int | None:
    """Far off, and an obstacle between us: walk round it, always the same way until the way is
    clear (a random side each time would slide it back to the middle of the crate's face)."""
    if not (s.dist > s.longest + APPROACH and blocked_ahead(s.match, s.me)):
        return None
    lo, hi = s.level.hold
    if not plan.detour:
        plan.detour = SIDE_L if s.rng.random() < 0.5 else SIDE_R
    plan.start(plan.detour, DETOUR_FRAMES + int(s.rng.integers(lo, hi + 1)))
    return plan.press()


def approach(s: Situation, plan: CpuPlan, r: float) -> int | None:
    """Far off, the way clear: close the distance, now and then with a sidestep or a hop, or
    zone (``zone``) with a fireball when none of its own is in flight and its path is clear
    (else step around the obstacle first)."""
    if not s.dist > s.longest + APPROACH:
        return None
    plan.detour = 0
    lo, hi = s.level.hold
    stage, rng, zone = s.match.stage, s.rng, s.level.zone
    if r < zone and stage is not None and "fireball" in s.data.moves and \
            not any(p.owner == s.i for p in stage.projectiles):      # one fireball at a time
        if clear_shot(s.match, stage, s.i):
            plan.start(0, int(rng.integers(lo, hi + 1)) + 20, LP | HP)
        else:   # a pillar or a crate in the way would stop it
            plan.start(SIDE_L if rng.random() < 0.5 else SIDE_R, int(rng.integers(lo, hi + 1)))
        return plan.press()
    if r < 0.06 + zone:
        bits = SIDE_L if rng.random() < 0.5 else SIDE_R
    elif r < 0.08 + zone and s.threat is None:          # a hop is no answer to a projectile: timed above
        bits = UP | FORWARD
    else:
        bits = FORWARD
    plan.start(bits, int(rng.integers(lo, hi + 1)))
    return plan.press()


def attack(s: Situation, plan: CpuPlan, r: float) -> int | None:
    """In reach (``attack``), or just out of it (``whiff``): press an attack.  Against a read
    heavy's wind-up only one that lands first (else guard it); against a crouch a low or a mid,
    against a standing guard a sweep or a throw (walking in to it first if need be), against a
    crouching guard a mid (each a ``mix`` roll); else any attack in reach."""
    level = s.level
    if not (r < level.attack or (s.dist > s.longest and r < level.attack + level.whiff)):
        return None
    data, op, rng, dist, tele = s.data, s.op, s.rng, s.dist, s.tele
    throw = throw_name(data)
    in_range = _in_range(s, throw)
    ducking = op.state in ("crouch", "block_crouch") or (op.move and data.moves[op.move].height == "low")
    if tele is not None and plan.read:
        # A heavy it has read winds up (and this fighter is still busy): press only a move
        # that lands first, counted from when it can act; else guard it.
        move = punish(data, op, dist, s.me.busy_frames(data.moves))
        if not move:
            plan.start(GUARD | (DOWN if tele.height == "low" else 0), tele.over + 2)
            plan.read = 2
            return plan.press()
    elif (launch := next_launch(data, op, plan)) and rng.random() < level.read:
        # a projectile counted on (a habit): only a move that lands before its launch (a slower
        # one would be struck in its wind-up), else guard it
        move = heaviest(data, dist, launch - s.me.busy_frames(data.moves))[0]
        if not move:
            return _guard_launch(s, plan, launch)
    elif ducking and op.guard != 2 and rng.random() < level.mix:
        # a high passes over a crouching body: a low or a mid
        fits = [n for n in in_range if data.moves[n].height != "high"] or in_range
        move = fits[int(rng.integers(len(fits)))]
    elif op.guard == 1 and ("hk_low" in in_range or throw_reaches(data, dist - THROW_WALK)) and \
            rng.random() < level.mix:
        # open up a standing guard: under it (the sweep) or through it (a throw, whose hands
        # take the guarding arms as well as the body; a step or two in first if need be)
        openers = [n for n in ("hk_low",) if n in in_range] + \
            ([throw] if throw_reaches(data, dist - THROW_WALK) else [])
        move = openers[int(rng.integers(len(openers)))]
        if move == throw and not throw_reaches(data, dist):
            gap = dist - move_reach(data)[throw][0] - THROW_FRONT * body_front(data)
            plan.start(FORWARD, math.ceil(gap / WALK_FWD))
            return plan.press()
    elif op.guard == 2 and rng.random() < level.mix:
        mids = [n for n in in_range if data.moves[n].height == "mid"]
        move = mids[int(rng.integers(len(mids)))] if mids else in_range[int(rng.integers(len(in_range)))]
    elif rng.random() < level.quick:
        fits = [n for n in in_range if not (ducking and data.moves[n].height == "high")] or in_range
        move = min(fits, key=lambda n: (data.moves[n].startup, -data.moves[n].damage))
    else:
        move = in_range[int(rng.integers(len(in_range)))]
    bits = press_move(s, plan, move)
    # a light at an opponent seen with no guard up is likely to hit: its follow-up is decided at
    # the press, as a confirm would be; at a guarding one it is a string pressed blind
    open_ = not op.guard and op.state != "blockstun"
    chance = level.confirm if open_ else level.string
    if data.moves[move].cancel and chance > 0.0 and rng.random() < chance:
        plan.string = 1                                  # followed once it makes contact, hit or block
    return bits


def _guard_launch(s: Situation, plan: CpuPlan, launch: int) -> int:
    """Guard, at the projectile's height, until a projectile counted on (:func:`~.moves.next_launch`)
    has launched, ``launch`` frames from now; :func:`~.rules.answer_projectile` holds the guard
    on until it lands."""
    pm = projectile_move(s.data)
    low = pm is not None and pm.projectile is not None and pm.projectile.height == "low"
    plan.start(GUARD | (DOWN if low else 0), launch + 2)
    return plan.press()


def guess_low(s: Situation, plan: CpuPlan) -> bool:
    """A guard raised before the attack is seen: crouching (True) at the opponent's share of
    lows so far (:data:`LOW_PRIOR`), one draw."""
    return bool(s.rng.random() * (plan.attacks + LOW_PRIOR[1]) < plan.lows + LOW_PRIOR[0])


def _threat_range(s: Situation) -> float:
    """The distance (centres, m) within which the opponent's longest attack reaches after a
    step in (:data:`GUARD_REACH`)."""
    return s.longest + body_front(s.data) + GUARD_REACH


def _rest(s: Situation, r: float) -> float:
    """The plan roll ``r`` of a plan that is no attack, spread over 0..1 again."""
    attack = s.level.attack
    return (r - attack) / (1.0 - attack) if r > attack else 0.0


def guard_up(s: Situation, plan: CpuPlan, r: float) -> int | None:
    """In the opponent's reach: raise a guard before anything is seen (``block`` of the plans
    that are no attack) and hold it, standing or crouching as the opponent's attacks so far
    suggest (:data:`LOW_PRIOR`)."""
    if not (_rest(s, r) < s.level.block and s.dist <= _threat_range(s)):
        return None
    lo, hi = s.level.hold
    low = guess_low(s, plan)
    plan.start(GUARD | (DOWN if low else 0), int(s.rng.integers(lo, hi + 1)) + lo)
    return plan.press()


def _in_range(s: Situation, throw: str) -> list[str]:
    """The attacks that reach (the throw by :func:`~.moves.throw_reaches`, the others with 0.12 m
    to spare), or, when none does or a ``whiff`` roll says so, every attack but the throw (a
    swing anyway: a whiff, never a throw's long recovery)."""
    reach = move_reach(s.data)
    dist = s.dist
    in_range = [n for n, (reach_n, _) in reach.items()
                if (throw_reaches(s.data, dist) if n == throw else reach_n + 0.12 >= dist)]
    if not in_range or s.rng.random() < s.level.whiff:
        in_range = [n for n in reach if n != throw]
    return in_range


def back_off(s: Situation, plan: CpuPlan, r: float) -> int | None:
    """Close in, walk back; further off, stand guarding."""
    block = s.level.block
    if not _rest(s, r) < block + (1.0 - block) * BACK_SHARE:
        return None
    lo, hi = s.level.hold
    plan.start(BACK if s.dist < 1.2 else GUARD, int(s.rng.integers(lo, hi + 1)))
    return plan.press()


def sidestep(s: Situation, plan: CpuPlan, r: float) -> int | None:
    """Sidestep, to a random side."""
    block = s.level.block
    if not _rest(s, r) < block + (1.0 - block) * (BACK_SHARE + SIDE_SHARE):
        return None
    lo, hi = s.level.hold
    plan.start(SIDE_L if s.rng.random() < 0.5 else SIDE_R, int(s.rng.integers(lo, hi + 1)))
    return plan.press()


def step_in(s: Situation, plan: CpuPlan, r: float) -> int:
    """Otherwise: a short walk in (past 1 m), or a short pause."""
    lo = s.level.hold[0]
    plan.start(FORWARD if s.dist > 1.0 else 0, int(s.rng.integers(2, lo + 1)))
    return plan.press()


#: The choices of a new plan, in order: the first that takes the roll decides.
PLAN_CHOICES: tuple[PlanChoice, ...] = (
    keep_blocking,          # in blockstun: hold the guard
    opening,                # the round's first second: walk in, guard or wait (no attack)
    detour,                 # far off, blocked: walk round the obstacle
    approach,               # far off: close in, hop, sidestep or zone with a fireball
    attack,                 # in reach: press an attack (mix-ups, a throw, against a read heavy)
    guard_up,               # in the opponent's reach: guard before anything is seen
    back_off,               # walk back, or guard
    sidestep,               # sidestep
    step_in,                # a short walk in, or a pause
)
