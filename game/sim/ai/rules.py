"""The CPU's rules, in priority order, and :func:`decide`, which runs them.

Each rule reads the frame's :class:`~.situation.Situation` and the CPU's :class:`~.plan.CpuPlan`
and either returns this frame's input bits (the decision is made) or None ("not mine": the
next rule runs).  A rule that returns None may still have revised the plan (a guard raised,
a dodge begun, a roll made) for a later rule to carry out: :func:`follow_plan` presses a plan
while it lasts, and :func:`new_plan` draws the next one when it runs out.

The order is the behaviour: the rules run in the order of :data:`RULES`, and every random
choice is drawn from the match's RNG in that order, so the same match decides the same bits.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..fighter import DOWN_STATES
from ..inputs import BACK, DOWN, FORWARD, GUARD, HP, LP, SIDE_L, SIDE_R, UP
from .levels import LEVELS
from .measure import WALK_BACK, WALK_FWD, body_front, move_reach, projectile_lanes
from .moves import (
    THROW_BUTTONS,
    THROW_FRONT,
    button,
    confirm,
    jump_over,
    may_cancel,
    press_move,
    punish,
    throw_name,
    throw_reaches,
)
from .plan import CpuPlan
from .situation import FREE_STATES, Situation, back_free, blocked_ahead, clear_shot, read_situation, side_free
from .view import MatchView

#: A rule: this frame's bits, or None when the rule does not decide this frame.
Rule = Callable[[Situation, CpuPlan], int | None]
#: A choice of a new plan: as a rule, with the plan roll ``r`` (one uniform draw per new plan).
PlanChoice = Callable[[Situation, CpuPlan, float], int | None]

#: Frames from a grab to the CPU's break press, when it breaks (``tech``): a reaction, inside the
#: 12-frame window of the shipped throw.
TECH_DELAY = (5, 10)
#: A backward walk out of a heavy's reach is taken only if it leaves this much room (m).
BACK_MARGIN = 0.08
#: A dodge starts at most this many frames before it needs to (earlier, it would walk a long arc).
DODGE_SLACK = 4
#: A hit confirm is pressed once the attacker's hitstop has this many frames left (or fewer):
#: the press is buffered (the match's 6 frames) through the rest of the freeze.
CONFIRM_AT = 2
#: A detour around an obstacle is held at least this long (frames): long enough to clear a crate.
DETOUR_FRAMES = 24
#: How far (m) the CPU walks in to throw a standing guard that is just out of the throw's reach.
THROW_WALK = 0.3
#: Beyond this distance (m, past the longest reach) a new plan closes in rather than fights.
APPROACH = 0.35


def decide(match: MatchView, i: int, level: str) -> int:
    """The CPU's input bits for fighter ``i`` this frame: the first of :data:`RULES` that decides
    (mutates the plan ``match.ai_state[i]``).  ``level`` is a key of :data:`~.levels.LEVELS`."""
    plan = match.ai_state[i]
    if match.phase != "fight":
        plan.clear()                         # between rounds: no plan, nothing rolled
        return 0
    s = read_situation(match, i, LEVELS[level])
    for rule in RULES:
        bits = rule(s, plan)
        if bits is not None:
            return bits
    raise AssertionError("new_plan, the last rule, always decides")


# ---------------------------------------------------------------- the rules, in order
def held_by_throw(s: Situation, plan: CpuPlan) -> int | None:
    """Held by a throw: break it or not (rolled once a grab, ``tech``), and press nothing else
    inside the tech window; once the throw has landed it lies as after a knockdown."""
    throw = s.data.throw
    if s.me.state == "thrown" and throw is not None:
        since = throw.frames - s.me.stun                 # 0 on the first frame after the grab
        if since == 0:         # a new grab (also one on the step it woke from the last throw)
            plan.start(0, 0)
            plan.held, plan.dodge, plan.detour = 1, 0, 0
            if s.rng.random() < s.level.tech:
                plan.held = 2 + int(s.rng.integers(TECH_DELAY[0], TECH_DELAY[1] + 1))
        if since < throw.tech:
            return THROW_BUTTONS if plan.held - 2 == since else 0
    else:
        plan.held = 0
    return None


def read_heavy(s: Situation, plan: CpuPlan) -> int | None:
    """A heavy attack's wind-up that will reach: read or not (one ``read`` roll per attack,
    when it first shows), and once read answered as soon as this fighter is free, whatever
    the plan: stand off if it only reaches a fighter who walks in, walk back if that takes it
    out of reach in time, hit it out of its wind-up if a faster move lands first, else guard
    it.  Read while busy, no slow move is pressed into it (:func:`attack`).  Unread, the CPU
    may walk or press a slow move into it."""
    tele = s.tele
    if tele is None:
        return None
    started = s.match.frame - s.op.mframe + 1
    if plan.seen != started:
        plan.seen = started
        plan.read = 1 if s.rng.random() < s.level.read else 0
    if plan.read == 1 and s.free:
        edge = tele.reach + body_front(s.data) + BACK_MARGIN
        plan.read = 2                                    # answered
        plan.dodge = 0
        if s.dist > edge:
            plan.start(0, tele.over + 2)
        elif s.dist + WALK_BACK * tele.first > edge and back_free(s.match, s.me, tele.over):
            plan.start(BACK, tele.over + 2)
        else:
            move = punish(s.data, s.op, s.dist)
            if move:
                bits = button(s.data, move)
                plan.start(bits & DOWN, s.level.hold[0], bits & ~DOWN)
                return plan.press()
            plan.start(GUARD | (DOWN if tele.height == "low" else 0), tele.over + 2)
    return None


def notice_attack(s: Situation, plan: CpuPlan) -> int | None:
    """An attack on its way in (not a projectile, below): once noticed (``notice``, per frame),
    guard it until its active frames are over, at its height (``guard``) or the wrong one, as
    players guess.  It can interrupt any plan, except a read heavy's answer held through the
    heavy's active frames."""
    op, me = s.op, s.me
    reading = plan.read == 2 and plan.hold > 0
    if op.move and op.move != "jump" and me.state not in ("attack", "hitstun") and s.dist < 2.2 and \
            not reading and s.data.moves[op.move].projectile is None:
        mv = s.data.moves[op.move]
        if op.mframe < mv.startup + mv.active and not (plan.bits & GUARD) and s.rng.random() < s.level.notice:
            if s.rng.random() < s.level.guard:
                guard = GUARD | (DOWN if mv.height == "low" else 0)
            else:  # a wrong guess, as players make
                guard = GUARD | (0 if mv.height == "low" else DOWN)
            plan.start(guard, mv.startup + mv.active - op.mframe + 2)
            plan.dodge = 0
    return None


def answer_projectile(s: Situation, plan: CpuPlan) -> int | None:
    """A projectile on its way (in flight, or the thrower's wind-up): once noticed, jump over it
    when a jump now clears it (:func:`~.moves.jump_over`), sidestep out of its path when there
    is time, else guard it until it lands.  A guard already up is held until then (a wind-up
    guard dropped at the launch would take the projectile)."""
    threat = s.threat
    if threat is None:
        return None
    spec = threat.spec.projectile
    assert spec is not None, "a threat's move launches a projectile"
    guard = GUARD | (DOWN if spec.height == "low" else 0)
    dodging = plan.dodge and plan.hold > 0               # already stepping out of its path
    jump = 0
    if s.level.jump > 0.0 and s.me.state in FREE_STATES and not dodging:
        jump = jump_over(s.data, threat)
    frames, need = threat.frames, threat.need
    if dodging:
        pass
    elif plan.bits & (GUARD | DOWN) == guard:
        plan.hold = max(plan.hold, frames + 3)
    elif (frames <= need + DODGE_SLACK or jump) and s.rng.random() < s.level.notice:
        if jump and s.rng.random() < s.level.jump:
            # over it: the jump's own frames, then decide again on landing; its direction held
            # (the match reads it until take-off)
            plan.start(jump & FORWARD, s.data.moves["jump"].total - 2, jump)
            plan.dodge = 1
        elif frames > need + DODGE_SLACK:
            pass                                         # seen; the sidestep or guard can wait
        elif frames >= need and s.rng.random() < s.level.dodge and side_free(s.match, s.me, threat.side, need):
            passing = int(2.0 * projectile_lanes(s.data)[1] / spec.speed) + 1
            plan.start(threat.side, frames + passing)    # until it has flown past
            plan.dodge = 1
        elif s.rng.random() < s.level.guard:
            plan.start(guard, frames + 3)
            plan.dodge = 0
    return None


def punish_stuck(s: Situation, plan: CpuPlan) -> int | None:
    """No projectile on its way, and the opponent is stuck in a move (a whiffed heavy's
    recovery, a slow wind-up) within reach: hit it (``punish``, per frame) with the heaviest
    attack that lands in time (:func:`~.moves.punish`)."""
    op = s.op
    if s.threat is None and op.move and op.move != "jump" and s.free and s.dist <= s.longest and \
            s.rng.random() < s.level.punish:
        move = punish(s.data, op, s.dist)
        if move:
            plan.dodge = 0
            return press_move(s, plan, move)
    return None


def confirm_hit(s: Situation, plan: CpuPlan) -> int | None:
    """A hit confirm: its attack has hit (the opponent reels), and the move cancels into a
    follow-up that lands in time (:func:`~.moves.confirm`); pressed near the end of the hit's
    freeze, rolled (``confirm``) once a hit."""
    me = s.me
    if me.move and me.move_hit and s.op.state == "hitstun" and me.hitstop <= CONFIRM_AT:
        if not plan.combo:
            plan.combo = 1
            if s.rng.random() < s.level.confirm:
                move = confirm(s)
                if move:
                    plan.dodge = 0
                    return press_move(s, plan, move)
    elif not me.move_hit:
        plan.combo = 0
    return None


def opponent_down(s: Situation, plan: CpuPlan) -> int | None:
    """The opponent on the ground (knocked down: nothing strikes it) and no projectile on its
    way: no attack at it, only, when rolled (``meaty``, once per knockdown), a meaty: an attack
    (a mid or low that reaches, picked at random) pressed so that one of its active frames, the
    second when it has more than one (a frame to spare), falls on the opponent's first free
    frame, with a walk in first when it is out of reach and there is time.  Otherwise (or when
    that can no longer be timed) it presses nothing, walking in to its longest reach.  The
    opponent acts on the ``op.hitstop + op.stun``-th step from this one (this one the 1st), as
    ``Hit.advantage`` counts."""
    op = s.op
    if op.state not in DOWN_STATES or s.threat is not None:
        plan.down = 0
        return None
    names = tuple(s.data.moves)
    reach = move_reach(s.data)
    wake = op.hitstop + op.stun
    if not plan.down:
        plan.start(0, 0)
        plan.down, plan.dodge, plan.detour = 1, 0, 0
        if s.rng.random() < s.level.meaty:
            fits = [n for n in reach if s.data.moves[n].height != "high"]
            if fits:
                plan.down, plan.meaty = 2, names.index(fits[int(s.rng.integers(len(fits)))])
    free = s.free and s.me.hitstop == 0
    if plan.down == 2 and free:
        name = names[plan.meaty]
        mv = s.data.moves[name]
        lead = mv.startup + min(1, mv.active - 1)       # press -> the active frame meant to land
        walk = max(0, math.ceil((s.dist - reach[name][0]) / WALK_FWD))
        if walk == 0 and wake == 1 + lead:
            plan.start(0, 0)
            return button(s.data, name)                  # down + hk in one press: the sweep
        if 1 + walk + lead > wake:
            plan.down = 1                                # too late for it: wait
        else:
            return FORWARD if walk else 0
    return FORWARD if s.dist > s.longest and free else 0


def own_knockdown(s: Situation, plan: CpuPlan) -> int | None:
    """On the ground itself: guard on waking (rolled once a knockdown, ``guard``, at a random
    height; an unrolled plan could press an attack, buffered into a wake-up swing)."""
    me = s.me
    if me.state in DOWN_STATES:
        if not plan.floor:
            plan.floor = 1
            guard = GUARD | (DOWN if s.rng.random() < 0.5 else 0) if s.rng.random() < s.level.guard else 0
            plan.start(guard, me.hitstop + me.stun + 2)
            plan.dodge, plan.detour = 0, 0
    else:
        plan.floor = 0
    return None


def follow_plan(s: Situation, plan: CpuPlan) -> int | None:
    """A plan that lasts: press it, one frame less to go.  Run out, it is no dodge any more."""
    if plan.hold > 0:
        plan.hold -= 1
        return plan.press()
    plan.dodge = 0
    return None


def wait_cancel_window(s: Situation, plan: CpuPlan) -> int | None:
    """Its move could still cancel (its window is not over): any attack pressed now would cut
    it short, a combo on hit that was never confirmed.  Only a confirm (:func:`confirm_hit`)
    cancels; press nothing until the window closes."""
    me = s.me
    if may_cancel(s.data, me):
        mv = s.data.moves[me.move]
        plan.start(0, mv.cancel_window[1] - me.mframe)
        return 0
    return None


def new_plan(s: Situation, plan: CpuPlan) -> int:
    """Draw the next plan: one uniform roll ``r``, then the first of :data:`PLAN_CHOICES` that
    takes it."""
    r = s.rng.random()
    for choice in PLAN_CHOICES:
        bits = choice(s, plan, r)
        if bits is not None:
            return bits
    raise AssertionError("step_in, the last plan choice, always decides")


# ------------------------------------------------- the choices of a new plan, in order
def keep_blocking(s: Situation, plan: CpuPlan, r: float) -> int | None:
    """In blockstun: keep the guard it holds, at its height."""
    if s.me.state != "blockstun":
        return None
    plan.start(s.me.input_bits & (GUARD | DOWN), 2)
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
    else:
        move = in_range[int(rng.integers(len(in_range)))]
    return press_move(s, plan, move)


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
    if not r < s.level.attack + 0.25:
        return None
    lo, hi = s.level.hold
    plan.start(BACK if s.dist < 1.2 else GUARD, int(s.rng.integers(lo, hi + 1)))
    return plan.press()


def sidestep(s: Situation, plan: CpuPlan, r: float) -> int | None:
    """Sidestep, to a random side."""
    if not r < s.level.attack + 0.32:
        return None
    lo, hi = s.level.hold
    plan.start(SIDE_L if s.rng.random() < 0.5 else SIDE_R, int(s.rng.integers(lo, hi + 1)))
    return plan.press()


def step_in(s: Situation, plan: CpuPlan, r: float) -> int:
    """Otherwise: a short walk in (past 1 m), or a short pause."""
    lo = s.level.hold[0]
    plan.start(FORWARD if s.dist > 1.0 else 0, int(s.rng.integers(2, lo + 1)))
    return plan.press()


#: The rules, highest priority first: the first to return bits decides the frame.
RULES: tuple[Rule, ...] = (
    held_by_throw,          # held by a throw: break it (rolled once) or press nothing
    read_heavy,             # a heavy's wind-up that will reach: read it (rolled once), answer it
    notice_attack,          # an attack on its way in: guard it once noticed
    answer_projectile,      # a projectile on its way: jump it, sidestep it or guard it
    punish_stuck,           # the opponent stuck in a move: hit it
    confirm_hit,            # its attack has hit: cancel into a follow-up (rolled once a hit)
    opponent_down,          # the opponent knocked down: a meaty (rolled once) or wait
    own_knockdown,          # knocked down itself: guard on waking (rolled once)
    follow_plan,            # a plan that lasts: press it
    wait_cancel_window,     # its move could still cancel: press nothing
    new_plan,               # draw the next plan (PLAN_CHOICES)
)

#: The choices of a new plan, in order: the first that takes the roll decides.
PLAN_CHOICES: tuple[PlanChoice, ...] = (
    keep_blocking,          # in blockstun: hold the guard
    detour,                 # far off, blocked: walk round the obstacle
    approach,               # far off: close in, hop, sidestep or zone with a fireball
    attack,                 # in reach: press an attack (mix-ups, a throw, against a read heavy)
    back_off,               # walk back, or guard
    sidestep,               # sidestep
    step_in,                # a short walk in, or a pause
)
