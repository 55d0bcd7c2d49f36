"""The CPU's rules, in priority order, and :func:`decide`, which runs them.

Each rule reads the frame's :class:`~.situation.Situation` and the CPU's :class:`~.plan.CpuPlan`
and either returns this frame's input bits (the decision is made) or None ("not mine": the
next rule runs).  A rule that returns None may still have revised the plan (a guard raised,
a dodge begun, a roll made) for a later rule to carry out: :func:`follow_plan` presses a plan
while it lasts, and :func:`new_plan` draws the next one when it runs out.

The order is the behaviour: the rules run in the order of :data:`RULES`, and every random
choice is drawn from the match's RNG in that order, so the same match decides the same bits.

Three limits hold for every level.  The rules see the opponent a reaction time late
(:mod:`.sight`); no attack of its lands in the round's first second (``Situation.may_press``); and
each level makes its mistakes at the rates its :class:`~.levels.CpuLevel` says.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..fighter import DOWN_STATES
from ..inputs import BACK, DOWN, FORWARD, GUARD
from .choices import PLAN_CHOICES, guess_low
from .levels import LEVELS
from .measure import WALK_BACK, WALK_FWD, body_front, move_reach, projectile_lanes
from .moves import (
    THROW_BUTTONS,
    button,
    confirm,
    jump_over,
    may_cancel,
    press_move,
    punish,
    punish_walk,
    turn,
    zoning,
)
from .plan import CpuPlan
from .sight import look, remember
from .situation import FREE_STATES, Situation, back_free, read_situation, side_free
from .view import MatchView

#: A rule: this frame's bits, or None when the rule does not decide this frame.
Rule = Callable[[Situation, CpuPlan], int | None]

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
#: Frames before a knocked-down opponent gets up that a CPU waiting for it raises its guard.
WAKE_GUARD = 6


def decide(match: MatchView, i: int, level: str) -> int:
    """The CPU's input bits for fighter ``i`` this frame: the first of :data:`RULES` that decides
    (mutates the plan ``match.ai_state[i]``).  ``level`` is a key of :data:`~.levels.LEVELS`."""
    plan = match.ai_state[i]
    if match.phase != "fight":
        plan.clear()                         # between rounds: no plan, nothing rolled, nothing seen
        return 0
    lv = LEVELS[level]
    plan.eyes = remember(plan.eyes, look(match.data, match.fighters[1 - i]), lv.reaction)
    s = read_situation(match, i, lv, plan)
    for rule in RULES:
        bits = rule(s, plan)
        if bits is not None:
            return bits
    raise AssertionError("new_plan, the last rule, always decides")


# ---------------------------------------------------------------- the rules, in order
def watch(s: Situation, plan: CpuPlan) -> int | None:
    """Tally the opponent's attacks as they are seen, how many are lows (what a raised guard's
    height is guessed from, :func:`~.choices.guard_up`) and its projectile throws (a habit of
    throwing them again, :func:`~.moves.next_launch`).  Never decides."""
    op = s.op
    if op.move:
        started = s.match.frame - op.mframe + 1
        if plan.tallied != started:
            plan.tallied = started
            mv = s.data.moves[op.move]
            if mv.hit_limbs:
                plan.attacks += 1
                plan.lows += mv.height == "low"
            plan.zoned += mv.projectile is not None
    return None


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
    once seen: a reaction time after it started, so only a wind-up longer than the reaction is
    read at all), and once read answered as soon as this fighter is free, whatever the plan:
    stand off if it only reaches a fighter who walks in, walk back if that takes it out of
    reach in time, hit it out of its wind-up if a faster move lands first (not in the round's
    first second), else guard it.  Read while busy, no slow move is pressed into it
    (:func:`~.choices.attack`).  Unread, the CPU may walk or press a slow move into it."""
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
            if move and s.may_press(move):
                bits = button(s.data, move)
                plan.start(bits & DOWN, s.level.hold[0], bits & ~DOWN)
                return plan.press()
            plan.start(GUARD | (DOWN if tele.height == "low" else 0), tele.over + 2)
    return None


def notice_attack(s: Situation, plan: CpuPlan) -> int | None:
    """An attack seen on its way in (not a projectile, below) whose active frames are not over
    by now: once noticed (``notice``, per frame), guard it until they are, at its height
    (``guard``) or the wrong one, as players guess (one height roll per attack, whether a guard
    was already up or not).  It can interrupt any plan, except a read heavy's answer held
    through the heavy's active frames."""
    op, me = s.op, s.me
    reading = plan.read == 2 and plan.hold > 0
    if op.move and op.move != "jump" and me.state not in ("attack", "hitstun") and s.dist < 2.2 and \
            not reading and s.data.moves[op.move].projectile is None:
        mv = s.data.moves[op.move]
        started = s.match.frame - op.mframe + 1
        if op.mframe < mv.startup + mv.active and plan.noticed != started and s.rng.random() < s.level.notice:
            plan.noticed = started
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
    """No projectile on its way, and the opponent is seen stuck in a move (a whiffed or blocked
    attack's recovery, a slow wind-up), past the round's first second: hit it with the
    heaviest attack that lands in time, walking in first if there is time for that
    (:func:`~.moves.punish_walk`; against a projectile habit, in time for the next throw's
    launch, :func:`~.moves.zoning`); too late for that, take the turn with the quickest attack
    that reaches (:func:`~.moves.turn`); or let it go (one ``punish`` roll per move, on the
    first frame either is there).  A punish with a light is followed by its cancel as a
    confirm would be (``confirm``, rolled at the press: the punish is sure to land)."""
    op = s.op
    if s.threat is None and op.move and op.move != "jump" and s.free:
        move, walk = punish_walk(s.data, op, s.dist, after=zoning(s.data, op, plan))
        if not move:
            move = turn(s.data, op, s.dist)              # too late to punish: take the turn
        if move and s.may_press(move):
            started = s.match.frame - op.mframe + 1
            if plan.chance != started:
                plan.chance = started
                plan.punish = 1 if s.rng.random() < s.level.punish else 0
            if plan.punish:
                plan.dodge = 0
                if walk:
                    plan.start(FORWARD, 0)              # a step in first; decided again next frame
                    return plan.press()
                bits = press_move(s, plan, move)
                if s.data.moves[move].cancel and s.rng.random() < s.level.confirm:
                    plan.string = 1                      # it lands: its follow-up is decided now
                return bits
    return None


def confirm_hit(s: Situation, plan: CpuPlan) -> int | None:
    """A light's follow-up, the one cancel that lands from here (:func:`~.moves.confirm`),
    pressed once a move: blind, as a string rolled at the light's press (``string``), near the
    end of the contact's freeze, hit or block; or as a hit confirm: once it sees the opponent
    reel from this move's contact (a reaction time after it) while the move can still cancel,
    rolled (``confirm``) once a hit."""
    me = s.me
    if me.move and me.move_hit:
        if not plan.contact:
            plan.contact = s.match.frame                 # felt at once: its own move stopped
        if not plan.combo:
            if plan.string:
                if me.hitstop <= CONFIRM_AT:
                    plan.combo, plan.string = 1, 0
                    move = confirm(s)
                    if move and s.may_press(move):
                        plan.dodge = 0
                        return press_move(s, plan, move)
            elif s.op.state == "hitstun" and s.match.frame - s.op.age >= plan.contact and may_cancel(s.data, me):
                plan.combo = 1
                if s.rng.random() < s.level.confirm:
                    late = s.match.frame - plan.contact + 1 - s.data.moves[me.move].hitstop
                    move = confirm(s, max(0, late))
                    if move and s.may_press(move):
                        plan.dodge = 0
                        return press_move(s, plan, move)
    else:
        plan.contact = plan.combo = 0
    if not me.move:
        plan.string = 0
    return None


def opponent_down(s: Situation, plan: CpuPlan) -> int | None:
    """The opponent on the ground (knocked down: nothing strikes it) and no projectile on its
    way: no attack at it, only, when rolled (``meaty``, once per knockdown), a meaty: an attack
    (a mid or low that reaches, picked at random) pressed so that one of its active frames, the
    second when it has more than one (a frame to spare), falls on the opponent's first free
    frame, with a walk in first when it is out of reach and there is time.  Otherwise (or when
    that can no longer be timed) it presses nothing, walking in to its longest reach, and,
    when rolled (``block``, instead of a meaty), raises a guard for the opponent's waking
    (:data:`WAKE_GUARD` frames before it).  The opponent acts on the ``op.hitstop + op.stun``-th
    step from this one (this one the 1st), as ``Hit.advantage`` counts; the CPU sees it down a
    reaction time late, and counts on from what it saw, so from its count on it fights on."""
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
        elif s.rng.random() < s.level.block:
            plan.down = 3
    free = s.free and s.me.hitstop == 0
    if plan.down == 2 and free:
        name = names[plan.meaty]
        mv = s.data.moves[name]
        lead = mv.startup + min(1, mv.active - 1)       # press -> the active frame meant to land
        walk = max(0, math.ceil((s.dist - reach[name][0]) / WALK_FWD))
        if walk == 0 and wake == 1 + lead and s.may_press(name):
            plan.start(0, 0)
            return button(s.data, name)                  # down + hk in one press: the sweep
        if 1 + walk + lead > wake:
            plan.down = 1                                # too late for it: wait
        else:
            return FORWARD if walk else 0
    if wake <= 0:
        return None                                      # up by now, as the frame data counts
    if plan.down == 3 and wake <= WAKE_GUARD:
        if not plan.bits & GUARD:
            plan.start(GUARD | (DOWN if guess_low(s, plan) else 0), wake + s.level.hold[0])
        return None                                      # follow_plan holds it
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


def reeling(s: Situation, plan: CpuPlan) -> int | None:
    """Reeling from a hit, and so behind when it is free again: guard from its first free frame
    and a moment after (rolled once a hitstun, ``block``, at the height it guesses,
    :func:`~.choices.guess_low`), rather than press into the attacker's next move."""
    me = s.me
    if me.state == "hitstun":
        if not plan.reel:
            plan.reel = 1
            if s.rng.random() < s.level.block:
                plan.reel = 2
                plan.start(GUARD | (DOWN if guess_low(s, plan) else 0), 0)
                plan.dodge, plan.detour = 0, 0
        if plan.reel == 2:
            plan.hold = max(plan.hold, me.hitstop + me.stun + s.level.hold[0])
    else:
        plan.reel = 0
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


#: The rules, highest priority first: the first to return bits decides the frame.
RULES: tuple[Rule, ...] = (
    watch,                  # tally the opponent's attacks as seen (never decides)
    held_by_throw,          # held by a throw: break it (rolled once) or press nothing
    read_heavy,             # a heavy's wind-up that will reach: read it (rolled once), answer it
    notice_attack,          # an attack on its way in: guard it once noticed
    answer_projectile,      # a projectile on its way: jump it, sidestep it or guard it
    punish_stuck,           # the opponent stuck in a move: hit it
    confirm_hit,            # its attack has hit: cancel into a follow-up (rolled once a hit)
    opponent_down,          # the opponent knocked down: a meaty (rolled once) or wait
    own_knockdown,          # knocked down itself: guard on waking (rolled once)
    reeling,                # reeling from a hit: guard once free (rolled once)
    follow_plan,            # a plan that lasts: press it
    wait_cancel_window,     # its move could still cancel: press nothing
    new_plan,               # draw the next plan (PLAN_CHOICES)
)
