"""The CPU opponent: decides a FrameInput each frame, as a player would.

It sees only what a player sees (positions, the opponent's pose and move
phase), acts only through the input bits a player could press, and draws
every random choice from the match's own seeded RNG.  Its small plan state
lives in ``match.ai_state`` so snapshots include it.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .fighter import DOWN_STATES
from .inputs import BACK, DOWN, FORWARD, GUARD, HK, HP, LK, LP, SIDE_L, SIDE_R, UP

#: Per level: chance per frame to notice an incoming attack, chance to guard it
#: correctly once noticed, attack eagerness when in range, chance to throw an
#: attack from out of range (a whiff), and how long a decision is held (frames);
#: ``dodge``: chance to sidestep out of a noticed projectile's line (when there is time)
#: rather than guard it; ``punish``: chance per frame to hit an opponent stuck in a move
#: (a whiffed heavy's recovery, a slow wind-up) with an attack that lands in time;
#: ``jump``: chance, on a frame it notices a projectile and a jump timed now would clear it,
#: to jump over it (neutral or toward the thrower); ``read``: chance to read a heavy attack's
#: wind-up that will reach it (one roll per attack) and answer it (stand off, back out of its
#: reach, interrupt with a faster move, or guard it) instead of walking or pressing a slow
#: move into it; ``confirm``: chance, when its attack has hit (the opponent reels in hitstun,
#: as a player sees), to cancel it into a follow-up that combos (one roll per hit); it is the
#: only way the CPU cancels (no other press is made while its move could still cancel);
#: ``meaty``: chance, when it has knocked the opponent down, to time an attack whose active
#: frames meet the opponent's first free frame (one roll per knockdown; otherwise it attacks
#: nothing while the opponent is down: nothing strikes a fighter on the ground); ``tech``:
#: chance, when it is grabbed by a throw, to break it (lp + lk) inside the tech window (one roll
#: per grab, pressed after a reaction of ``_TECH_DELAY`` frames).
LEVELS = {
    "easy":   dict(notice=0.10, guard=0.35, attack=0.30, whiff=0.25, hold=(14, 26), mix=0.2, zone=0.02,
                   dodge=0.15, punish=0.02, jump=0.0, read=0.15, confirm=0.0, meaty=0.0, tech=0.0),
    "normal": dict(notice=0.22, guard=0.60, attack=0.45, whiff=0.15, hold=(8, 16), mix=0.5, zone=0.05,
                   dodge=0.45, punish=0.06, jump=0.10, read=0.45, confirm=0.35, meaty=0.40, tech=0.30),
    "hard":   dict(notice=0.45, guard=0.85, attack=0.60, whiff=0.06, hold=(4, 9), mix=0.8, zone=0.08,
                   dodge=0.85, punish=0.30, jump=0.40, read=0.85, confirm=0.75, meaty=0.85, tech=0.60),
}

_MOVE_BUTTON = {"lp": LP, "hp": HP, "lk": LK, "hk": HK, "hk_low": HK | DOWN, "fireball": LP | HP}
#: A throw's grab and its break are lp + lk (the grab's move is named by ``moves.json`` ``throw``).
_THROW_BUTTONS = LP | LK
#: Frames from a grab to the CPU's break press, when it breaks (``tech``): a reaction, inside the
#: 12-frame window of the shipped throw.
_TECH_DELAY = (5, 10)
#: Of a standing fighter's front (its guarding arms, :func:`body_front`), how much a throw's
#: hands can count on taking: a grab touching the arms holds (the shipped grab reaches 1.15 m).
_THROW_FRONT = 0.8
#: How far (m) the CPU walks in to throw a standing guard that is just out of the throw's reach.
_THROW_WALK = 0.3


#: How far one step of a forward walk goes (m), for the CPU's "is the way ahead blocked?" look.
_STEP_AHEAD = 0.045
#: A detour around an obstacle is held at least this long (frames): long enough to clear a crate.
_DETOUR_FRAMES = 24
#: How far one frame of a sidestep goes (m, the match's SIDESTEP), for "can I get out of its line?".
_SIDESTEP = 0.040
#: A dodge starts at most this many frames before it needs to (earlier, it would walk a long arc).
_DODGE_SLACK = 4
#: A dodge steps this much further out of a projectile's path than its bare clearance (m): a
#: fighter that then walks at the thrower drifts back toward the path it flies along.
_DODGE_MARGIN = 0.15
#: The match's JUMP_DRIFT and WALK_BACK (m / frame): a forward jump's travel, a backward walk's.
_JUMP_DRIFT = 0.035
_WALK_BACK = 0.034
#: A jump over a projectile is timed this many frames inside the window that clears it, each end.
_JUMP_MARGIN = 1
#: A backward walk out of a heavy's reach is taken only if it leaves this much room (m).
_BACK_MARGIN = 0.08
#: A hit confirm is pressed once the attacker's hitstop has this many frames left (or fewer):
#: the press is buffered (the match's 6 frames) through the rest of the freeze.
_CONFIRM_AT = 2
#: A follow-up that must reach is chosen only if it reaches this much (m) past the distance
#: plus the first hit's pushback: a reeling body leans back out of a short reach.
_CONFIRM_MARGIN = 0.30
#: The match's WALK_FWD (m / frame): how long a walk in before a meaty takes.
_WALK_FWD = 0.045
#: States from which a move starts on the next frame (the match's neutral states).
_FREE_STATES = ("idle", "walk_fwd", "walk_back", "sidestep", "crouch", "block_stand", "block_crouch")


def initial_state() -> dict:
    """The plan: the held ``bits``, for ``hold`` more frames, plus a one-frame ``tap``; ``detour``
    is the sidestep (SIDE_L / SIDE_R) it keeps taking around an obstacle in its way, or 0;
    ``dodge`` is 1 while the plan is a sidestep out of a projectile's line or a jump over it;
    ``seen`` identifies the opponent's heavy attack last seen winding up (the frame it started,
    plus 1), ``read`` whether this CPU reads it: 0 no, 1 yes, 2 yes and answered; ``combo`` is
    1 once the hit of its current move has been rolled for a confirm (0 otherwise); ``down``
    while the opponent is knocked down: 0 not yet rolled, 1 no meaty (wait), 2 a meaty, with
    ``meaty`` the move's index in the move table; ``floor`` 1 once its own knockdown has been
    rolled for a guard on waking (0 otherwise); ``held`` while it is held by a throw: 0 not yet
    rolled, 1 no break, ``2 + k`` a break pressed ``k`` frames after the grab."""
    return {"bits": 0, "hold": 0, "tap": 0, "detour": 0, "dodge": 0, "seen": 0, "read": 0, "combo": 0,
            "down": 0, "meaty": 0, "floor": 0, "held": 0}


def _blocked_ahead(match, me) -> bool:
    """True when a pillar, a wall or a standing crate stops a step toward the opponent, as a
    player sees when their walk goes nowhere (the arena's own push-out, no state changed)."""
    if match.stage is None:
        return False
    x, z = me.x + me.fx * _STEP_AHEAD, me.z + me.fz * _STEP_AHEAD
    nx, nz = match.stage.push_out(x, z, match.data.pushbox_radius)
    return (nx - me.x) * me.fx + (nz - me.z) * me.fz < 0.5 * _STEP_AHEAD


@functools.lru_cache(maxsize=4)
def move_reach(data) -> dict[str, tuple[float, float]]:
    """For each attack: (reach, lowest hit height) of its hitting limbs over the
    active frames, measured by posing a fighter at the origin facing +x."""
    sk = data.skeleton
    out = {}
    for name, mv in data.moves.items():
        if not mv.hit_limbs or not mv.active:
            continue
        frames = range(mv.startup, mv.startup + mv.active)
        local = np.stack([mv.rot[f] for f in frames])
        n = len(local)
        _, _, boxes = sk.pose(np.zeros((n, 3)), np.tile([1.0, 0.0], (n, 1)), local, np.zeros(n))
        hit = boxes[:, list(mv.hit_limbs)]
        out[name] = (float(hit[:, :, 1, 0].max() + mv.advance.sum()), float(hit[:, :, 0, 1].min()))
    return out


@functools.lru_cache(maxsize=4)
def projectile_move(data):
    """The move that launches a projectile (the fireball), or None."""
    return next((m for m in data.moves.values() if m.projectile is not None), None)


@functools.lru_cache(maxsize=4)
def projectile_lanes(data) -> tuple[float, float, float]:
    """``(ahead, front, clear)``: :func:`projectile_geometry` without the flying height."""
    return projectile_geometry(data)[:3]


@functools.lru_cache(maxsize=4)
def projectile_geometry(data) -> tuple[float, float, float, float]:
    """``(ahead, front, clear)`` (m) for the projectile move, measured like :func:`move_reach`:
    how far ahead of its thrower a projectile starts (its limb's box centre at launch, 0.2 m
    on, after the lunge); how far ahead of a standing fighter's centre it strikes (the
    frontmost of the stance's limbs at its flying height, plus the projectile's half size);
    how far to the side of its path a fighter's centre must be for it to fly past (the
    widest of those limbs plus the half size); and how high above its thrower's ground it
    flies (its launch height)."""
    sk = data.skeleton
    mv = projectile_move(data)
    spec = mv.projectile
    local = np.stack([mv.rot[mv.startup], data.pose_rot["stance"]])
    _, _, boxes = sk.pose(np.zeros((2, 3)), np.tile([1.0, 0.0], (2, 1)), local, np.zeros(2))
    ahead = float(boxes[0, spec.limb, :, 0].mean() + 0.2 + mv.advance[:mv.startup].sum())
    y = float(boxes[0, spec.limb, :, 1].mean())                 # it flies level, at its launch height
    body = boxes[1][(boxes[1, :, 0, 1] <= y + spec.half) & (boxes[1, :, 1, 1] >= y - spec.half)]
    front = float(body[:, 1, 0].max() + spec.half)
    clear = float(np.abs(body[:, :, 2]).max() + spec.half)
    return ahead, front, clear, y


@functools.lru_cache(maxsize=4)
def jump_heights(data) -> tuple[float, ...]:
    """The lowest limb's height above the ground on each frame of a jump (the move's ``air``:
    the match sets the body's lowest corner there), counted from the frame it is pressed (0)."""
    return tuple(float(h) for h in data.moves["jump"].air)


@functools.lru_cache(maxsize=64)
def _clear_frames(data, top: float) -> tuple[int, int]:
    """``(first, last)`` frames of a jump whose lowest limb is above ``top`` (m), each
    :data:`_JUMP_MARGIN` frames further in; ``first > last`` when there is no such frame."""
    over = [j for j, h in enumerate(jump_heights(data)) if h > top]
    if not over:
        return 1, 0
    return over[0] + _JUMP_MARGIN, over[-1] - _JUMP_MARGIN


def _jump_over(match, gap: float, wait: int, speed: float, top: float) -> int:
    """The jump that, pressed now, clears a projectile flying straight at the fighter: ``gap``
    (m) short of its body's front after ``wait`` frames of its thrower's wind-up, at ``speed``,
    its top ``top`` m above the fighter's ground.  UP | FORWARD (toward the thrower, which
    meets it sooner) or UP when every frame it spends crossing the body (``2 * front`` at the
    closing speed) falls inside the jump's frames whose lowest limb is above it, with
    :data:`_JUMP_MARGIN` frames to spare at each end; else 0 (now is too early or too late)."""
    first, last = _clear_frames(match.data, top)
    if first > last:
        return 0
    front = projectile_lanes(match.data)[1]
    for bits, drift in ((UP | FORWARD, _JUMP_DRIFT), (UP, 0.0)):
        closing = speed + drift
        arrive = wait + int(max(0.0, gap - wait * drift) / closing)      # its first frame at the body
        gone = arrive + int(2.0 * front / closing) + 1                      # and the first one past it
        if first <= arrive and gone <= last:
            return bits
    return 0


def _projectile_threat(match, i: int):
    """The opponent's projectile that will strike fighter ``i`` if it stays where it is, as a
    player reads it (a fireball in flight, or the thrower's wind-up aimed at it): ``(frames
    until it strikes, frames of sidestep needed to leave its path, the sidestep bit that
    does, and for :func:`_jump_over`: its gap to the body's front (m), the thrower's wind-up
    frames left, its speed and its top's height above ``i``'s ground)``, or None.  The
    thrower faces where it aims, and a projectile flies straight.  ``frames`` counts to its
    reaching the body's front; it is past the body ``2 * front / speed`` frames later."""
    me, op = match.fighters[i], match.fighters[1 - i]
    lines = []
    half = projectile_move(match.data).projectile.half
    for p in match.stage.projectiles:
        if p.owner != i:
            lines.append((p.x, p.z, p.vx, p.vz, 0, p.y + half))
    if op.move and not lines:
        mv = match.data.moves[op.move]
        if mv.projectile is not None and op.mframe < mv.startup:
            ahead, _, _, y = projectile_geometry(match.data)
            s = mv.projectile.speed
            lines.append((op.x + op.fx * ahead, op.z + op.fz * ahead, op.fx * s, op.fz * s, mv.startup - op.mframe,
                          op.ground_y + y + half))
    if not lines:
        return None
    _, front, clear = projectile_lanes(match.data)
    best = None
    for x, z, vx, vz, wait, top in lines:
        speed = math.hypot(vx, vz)
        if speed <= 0.0:
            continue
        dx, dz = vx / speed, vz / speed
        along = (me.x - x) * dx + (me.z - z) * dz
        side = (me.x - x) * -dz + (me.z - z) * dx           # + : to the left of its path
        if along < -front or abs(side) >= clear + _DODGE_MARGIN:
            continue                                         # gone past, or flying wide
        gap = max(0.0, along - front)
        frames = wait + int(gap / speed)
        need = int((clear + _DODGE_MARGIN - abs(side)) / _SIDESTEP) + 1
        # SIDE_R moves a fighter along (-fz, fx): away from the path on the side it is already on
        gain_r = -me.fz * -dz + me.fx * dx
        bit = SIDE_R if (gain_r > 0) == (side >= 0) else SIDE_L
        if best is None or frames < best[0]:
            best = (frames, need, bit, gap, wait, speed, top - me.ground_y)
    return best


def _side_free(match, me, bit: int, frames: int) -> bool:
    """True when ``frames`` of sidestep ``bit`` stay clear of pillars, walls, crates and the bounds."""
    sign = 1.0 if bit == SIDE_R else -1.0
    d = sign * _SIDESTEP * frames
    x, z = me.x - me.fz * d, me.z + me.fx * d
    r = match.data.pushbox_radius
    nx, nz = match.stage.push_out(x, z, r)
    (x0, z0), (x1, z1) = match.bounds.tolist()
    return abs(nx - x) + abs(nz - z) < 1e-9 and x0 + r <= x <= x1 - r and z0 + r <= z <= z1 - r


@functools.lru_cache(maxsize=4)
def body_front(data) -> float:
    """How far ahead of a standing fighter's centre its frontmost limb reaches (m): an attack
    whose reach (:func:`move_reach`) is this much short of the distance between the two
    centres strikes nothing."""
    _, _, boxes = data.skeleton.pose(np.zeros((1, 3)), np.array([[1.0, 0.0]]), data.pose_rot["stance"][None],
                                     np.zeros(1))
    return float(boxes[0, :, 1, 0].max())


def _telegraph(match, op, dist: float):
    """The opponent's heavy attack in its wind-up (its long startup is what a player reads),
    when it will reach a fighter ``dist`` away that stands or walks in: ``(frames until its
    first active frame, frames until its last one is over, its height, its reach (m))``, or None."""
    mv = match.data.moves[op.move]
    if not mv.heavy or not mv.hit_limbs or op.mframe >= mv.startup:
        return None
    reach = move_reach(match.data)[op.move][0]
    first = mv.startup - op.mframe + op.hitstop
    if dist > reach + body_front(match.data) + _STEP_AHEAD * first:
        return None
    return first, first + mv.active, mv.height, reach


def _back_free(match, me, frames: int) -> bool:
    """True when ``frames`` of walking back stay clear of pillars, walls, crates and the bounds."""
    d = _WALK_BACK * frames
    x, z = me.x - me.fx * d, me.z - me.fz * d
    r = match.data.pushbox_radius
    (x0, z0), (x1, z1) = match.bounds.tolist()
    if not (x0 + r <= x <= x1 - r and z0 + r <= z <= z1 - r):
        return False
    if match.stage is None:
        return True
    nx, nz = match.stage.push_out(x, z, r)
    return abs(nx - x) + abs(nz - z) < 1e-9


def _punish(match, me, op, dist: float, delay: int = 0) -> str:
    """The attack that lands on ``op`` before it can guard or strike: it is in a move's
    recovery (a whiffed heavy) or slow wind-up, and the attack, pressed now and starting
    ``delay`` frames from now, reaches it in time.  The heaviest such attack, or ``""``."""
    mv = match.data.moves[op.move]
    if op.mframe < mv.startup and (mv.hit_limbs or mv.projectile is not None):
        window = mv.startup - op.mframe                      # hit it out of its wind-up
    elif op.mframe >= mv.startup + mv.active:
        window = mv.total - op.mframe                        # or in its recovery
    else:
        return ""
    window += op.hitstop - delay
    ducking = match.data.moves[op.move].height == "low"     # a sweep: a crouching body, highs pass over
    best, damage = "", -1
    for name, (reach_n, _) in move_reach(match.data).items():
        m = match.data.moves[name]
        if m.startup + 2 <= window and reach_n >= dist and m.damage > damage and \
                not (ducking and m.height == "high"):
            best, damage = name, m.damage
    return best


def decide(match, i: int, level: str) -> int:
    """The CPU's input bits for fighter ``i`` this frame (mutates ``match.ai_state[i]``)."""
    st = match.ai_state[i]
    if match.phase != "fight":
        st.update(bits=0, hold=0, tap=0, detour=0, dodge=0, seen=0, read=0, combo=0, down=0, meaty=0, floor=0,
                  held=0)
        return 0
    cfg = LEVELS[level]
    rng = match.rng
    me, op = match.fighters[i], match.fighters[1 - i]
    dist = math.hypot(op.x - me.x, op.z - me.z)

    # Held by a throw: break it or not (rolled once a grab), and press nothing else while held;
    # once the throw has landed it lies as after a knockdown (below).
    throw = match.data.throw
    if me.state == "thrown" and throw is not None:
        since = throw.frames - me.stun                     # 0 on the first frame after the grab
        if since == 0:         # a new grab (also one on the step it woke from the last throw)
            st.update(held=1, bits=0, hold=0, tap=0, dodge=0, detour=0)
            if rng.random() < cfg["tech"]:
                st["held"] = 2 + int(rng.integers(_TECH_DELAY[0], _TECH_DELAY[1] + 1))
        if since < throw.tech:
            return _THROW_BUTTONS if st["held"] - 2 == since else 0
    else:
        st["held"] = 0

    # A heavy attack's wind-up that will reach: read or not (one chance per attack, rolled
    # when it first shows), and once read answered as soon as this fighter is free, whatever
    # the plan: stand off if it only reaches a fighter who walks in, walk back if that takes
    # it out of reach in time, hit it out of its wind-up if a faster move lands first, else
    # guard it.  Read while busy, no slow move is pressed into it (below).  Unread, the CPU
    # may walk or press a slow move into it.
    tele = _telegraph(match, op, dist) if op.move else None
    if tele is not None:
        started = match.frame - op.mframe + 1
        if st["seen"] != started:
            st["seen"] = started
            st["read"] = 1 if rng.random() < cfg["read"] else 0
        if st["read"] == 1 and me.state in _FREE_STATES and not me.move and me.stun == 0:
            first, over, height, reach_o = tele
            front = body_front(match.data)
            st["read"] = 2                                   # answered
            if dist > reach_o + front + _BACK_MARGIN:
                st.update(bits=0, hold=over + 2, tap=0, dodge=0)
            elif dist + _WALK_BACK * first > reach_o + front + _BACK_MARGIN and _back_free(match, me, over):
                st.update(bits=BACK, hold=over + 2, tap=0, dodge=0)
            else:
                move = _punish(match, me, op, dist)
                if move:
                    button = _button(match.data, move)
                    st.update(bits=button & DOWN, hold=cfg["hold"][0], tap=button & ~DOWN, dodge=0)
                    return _press(st)
                st.update(bits=GUARD | (DOWN if height == "low" else 0), hold=over + 2, tap=0, dodge=0)
    reading = st["read"] == 2 and st["hold"] > 0             # an answer held through the active frames

    # Reacting to an attack on its way in can interrupt any plan (a projectile: below).
    if op.move and op.move != "jump" and me.state not in ("attack", "hitstun") and dist < 2.2 and \
            not reading and match.data.moves[op.move].projectile is None:
        mv = match.data.moves[op.move]
        if op.mframe < mv.startup + mv.active and not (st["bits"] & GUARD) and rng.random() < cfg["notice"]:
            if rng.random() < cfg["guard"]:
                guard = GUARD | (DOWN if mv.height == "low" else 0)
            else:  # a wrong guess, as players make
                guard = GUARD | (0 if mv.height == "low" else DOWN)
            st.update(bits=guard, hold=mv.startup + mv.active - op.mframe + 2, tap=0, dodge=0)

    # A projectile on its way (in flight, or the thrower's wind-up): once noticed, jump over it
    # when a jump now clears it (see _jump_over), sidestep out of its path when there is time,
    # else guard it until it lands.  A guard already up is held until then (a wind-up guard
    # dropped at the launch would take the projectile).
    threat = None
    if match.stage is not None and me.state not in ("attack", "hitstun", "jump") and \
            projectile_move(match.data) is not None:
        threat = _projectile_threat(match, i)
    if threat is not None:
        frames, need, side, gap, wait, speed, top = threat
        height = projectile_move(match.data).projectile.height
        guard = GUARD | (DOWN if height == "low" else 0)
        jump = 0
        if cfg["jump"] > 0.0 and me.state in _FREE_STATES and not (st["dodge"] and st["hold"] > 0):
            jump = _jump_over(match, gap, wait, speed, top)
        if st["dodge"] and st["hold"] > 0:
            pass                                             # already stepping out of its path
        elif st["bits"] & (GUARD | DOWN) == guard:
            st["hold"] = max(st["hold"], frames + 3)
        elif (frames <= need + _DODGE_SLACK or jump) and rng.random() < cfg["notice"]:
            if jump and rng.random() < cfg["jump"]:
                # over it: the jump's own frames, then decide again on landing; its direction held
                # (the match reads it until take-off)
                st.update(bits=jump & FORWARD, hold=match.data.moves["jump"].total - 2, tap=jump, dodge=1)
            elif frames > need + _DODGE_SLACK:
                pass                                         # seen; the sidestep or guard can wait
            elif frames >= need and rng.random() < cfg["dodge"] and _side_free(match, me, side, need):
                _, front, _ = projectile_lanes(match.data)
                passing = int(2.0 * front / projectile_move(match.data).projectile.speed) + 1
                st.update(bits=side, hold=frames + passing, tap=0, dodge=1)   # until it has flown past
            elif rng.random() < cfg["guard"]:
                st.update(bits=guard, hold=frames + 3, tap=0, dodge=0)
    elif op.move and op.move != "jump" and me.state in _FREE_STATES and not me.move and me.stun == 0 and \
            dist <= longest_reach(match.data) and rng.random() < cfg["punish"]:
        # The opponent is stuck in a move (a whiffed heavy's recovery, a slow wind-up): hit it.
        move = _punish(match, me, op, dist)
        if move:
            return _press_move(match.data, st, cfg, rng, move, dodge=0)

    # A hit confirm: its attack has hit (the opponent reels), and the move cancels into a
    # follow-up that lands in time; pressed near the end of the hit's freeze, rolled once a hit.
    if me.move and me.move_hit and op.state == "hitstun" and me.hitstop <= _CONFIRM_AT:
        if not st["combo"]:
            st["combo"] = 1
            if rng.random() < cfg["confirm"]:
                move = _confirm(match, i, me, dist)
                if move:
                    return _press_move(match.data, st, cfg, rng, move, dodge=0)
    elif not me.move_hit:
        st["combo"] = 0

    # The opponent on the ground (knocked down: nothing strikes it): no attack at it, only,
    # when rolled, a meaty timed to its first free frame.  A projectile on its way comes first.
    if op.state in DOWN_STATES and threat is None:
        return _wake_up(match, st, cfg, rng, me, op, dist)
    st["down"] = 0
    # On the ground itself: guard on waking (rolled once; an unrolled plan could press an
    # attack, buffered into a wake-up swing).
    if me.state in DOWN_STATES:
        if not st["floor"]:
            st["floor"] = 1
            guard = GUARD | (DOWN if rng.random() < 0.5 else 0) if rng.random() < cfg["guard"] else 0
            st.update(bits=guard, hold=me.hitstop + me.stun + 2, tap=0, dodge=0, detour=0)
    else:
        st["floor"] = 0

    if st["hold"] > 0:
        st["hold"] -= 1
        bits = st["bits"] | st["tap"]
        st["tap"] = 0
        return bits

    st["dodge"] = 0
    lo, hi = cfg["hold"]
    if _may_cancel(match, me):
        # Its move could still cancel (its window is not over): any attack pressed now would
        # cut it short, a combo on hit that was never confirmed (the easy CPU's lights went
        # into heavies so).  Only a confirm (above) cancels; wait for the window to close.
        mv = match.data.moves[me.move]
        st.update(bits=0, hold=mv.cancel_window[1] - me.mframe, tap=0)
        return 0
    reach = move_reach(match.data)
    longest = longest_reach(match.data)
    r = rng.random()
    if me.state == "blockstun":
        st.update(bits=me.input_bits & (GUARD | DOWN), hold=2, tap=0)
    elif dist > longest + 0.35 and _blocked_ahead(match, me):
        # An obstacle between us: walk round it, always the same way until the way is clear
        # (a random side each time would slide it back to the middle of the crate's face).
        if not st["detour"]:
            st["detour"] = SIDE_L if rng.random() < 0.5 else SIDE_R
        st.update(bits=st["detour"], hold=_DETOUR_FRAMES + int(rng.integers(lo, hi + 1)), tap=0)
    elif dist > longest + 0.35:
        st["detour"] = 0
        # Close the distance, now and then with a sidestep or a hop.
        if r < cfg["zone"] and match.stage is not None and "fireball" in match.data.moves and \
                not any(p.owner == i for p in match.stage.projectiles):      # one fireball at a time
            if _clear_shot(match, i):
                st.update(bits=0, hold=int(rng.integers(lo, hi + 1)) + 20, tap=LP | HP)   # zone with a fireball
            else:   # a pillar or a crate in the way would stop it: step around the obstacle first
                st.update(bits=SIDE_L if rng.random() < 0.5 else SIDE_R, hold=int(rng.integers(lo, hi + 1)), tap=0)
            return _press(st)
        if r < 0.06 + cfg["zone"]:
            plan = SIDE_L if rng.random() < 0.5 else SIDE_R
        elif r < 0.08 + cfg["zone"] and threat is None:     # a hop is no answer to a projectile: timed above
            plan = UP | FORWARD
        else:
            plan = FORWARD
        st.update(bits=plan, hold=int(rng.integers(lo, hi + 1)), tap=0)
    elif r < cfg["attack"] or (dist > longest and r < cfg["attack"] + cfg["whiff"]):
        throw = _throw_name(match)
        in_range = [n for n, (reach_n, _) in reach.items()
                    if (_throw_reaches(match, dist) if n == throw else reach_n + 0.12 >= dist)]
        if not in_range or rng.random() < cfg["whiff"]:
            in_range = [n for n in reach if n != throw]   # swing anyway: a whiff (never a throw's 24 frames)
        ducking = op.state in ("crouch", "block_crouch") or (op.move and match.data.moves[op.move].height == "low")
        move = ""
        if tele is not None and st["read"]:
            # A heavy it has read winds up (and this fighter is still busy): press only a move
            # that lands first, counted from when it can act; else guard it.
            move = _punish(match, me, op, dist, me.busy_frames(match.data.moves))
            if not move:
                st.update(bits=GUARD | (DOWN if tele[2] == "low" else 0), hold=tele[1] + 2, tap=0, read=2)
                return _press(st)
        if move:
            pass
        elif ducking and op.guard != 2 and rng.random() < cfg["mix"]:
            # a high passes over a crouching body: a low or a mid
            fits = [n for n in in_range if match.data.moves[n].height != "high"] or in_range
            move = fits[int(rng.integers(len(fits)))]
        elif op.guard == 1 and ("hk_low" in in_range or _throw_reaches(match, dist - _THROW_WALK)) and \
                rng.random() < cfg["mix"]:
            # open up a standing guard: under it (the sweep) or through it (a throw, whose hands
            # take the guarding arms as well as the body; a step or two in first if need be)
            openers = [n for n in ("hk_low",) if n in in_range] + \
                ([throw] if _throw_reaches(match, dist - _THROW_WALK) else [])
            move = openers[int(rng.integers(len(openers)))]
            if move == throw and not _throw_reaches(match, dist):
                gap = dist - move_reach(match.data)[throw][0] - _THROW_FRONT * body_front(match.data)
                st.update(bits=FORWARD, hold=math.ceil(gap / _WALK_FWD), tap=0)
                return _press(st)
        elif op.guard == 2 and rng.random() < cfg["mix"]:
            mids = [n for n in in_range if match.data.moves[n].height == "mid"]
            move = mids[int(rng.integers(len(mids)))] if mids else in_range[int(rng.integers(len(in_range)))]
        else:
            move = in_range[int(rng.integers(len(in_range)))]
        return _press_move(match.data, st, cfg, rng, move)
    elif r < cfg["attack"] + 0.25:
        st.update(bits=BACK if dist < 1.2 else GUARD, hold=int(rng.integers(lo, hi + 1)), tap=0)
    elif r < cfg["attack"] + 0.32:
        st.update(bits=SIDE_L if rng.random() < 0.5 else SIDE_R, hold=int(rng.integers(lo, hi + 1)), tap=0)
    else:
        st.update(bits=FORWARD if dist > 1.0 else 0, hold=int(rng.integers(2, lo + 1)), tap=0)
    return _press(st)


def _may_cancel(match, me) -> bool:
    """True while a press of an attack could cancel ``me``'s current move: the move has cancels
    and its window is not over (before contact too: a press is buffered, and once the move
    has made contact it comes out in the window)."""
    if not me.move:
        return False
    mv = match.data.moves[me.move]
    return bool(mv.cancel) and me.mframe <= mv.cancel_window[1]


def _wake_up(match, st: dict, cfg: dict, rng, me, op, dist: float) -> int:
    """This frame's bits while the opponent ``op`` is knocked down.  Rolled once per knockdown
    (``cfg["meaty"]``): a meaty, an attack (a mid or low that reaches, picked at random) pressed
    so that one of its active frames, the second when it has more than one (a frame to spare),
    falls on ``op``'s first free frame, with a walk in first when it is out of reach and
    there is time; otherwise (or when that can no longer be timed) it presses nothing, walking
    in to its longest reach.  The opponent acts on the ``op.hitstop + op.stun``-th step from
    this one (this one the 1st), as ``Hit.advantage`` counts."""
    names = tuple(match.data.moves)
    reach = move_reach(match.data)
    wake = op.hitstop + op.stun
    if not st["down"]:
        st.update(down=1, bits=0, hold=0, tap=0, dodge=0, detour=0)
        if rng.random() < cfg["meaty"]:
            fits = [n for n in reach if match.data.moves[n].height != "high"]
            if fits:
                st.update(down=2, meaty=names.index(fits[int(rng.integers(len(fits)))]))
    free = me.state in _FREE_STATES and not me.move and me.stun == 0 and me.hitstop == 0
    if st["down"] == 2 and free:
        name = names[st["meaty"]]
        mv = match.data.moves[name]
        lead = mv.startup + min(1, mv.active - 1)       # press -> the active frame meant to land
        walk = max(0, math.ceil((dist - reach[name][0]) / _WALK_FWD))
        if walk == 0 and wake == 1 + lead:
            st.update(bits=0, hold=0, tap=0)
            return _button(match.data, name)             # down + hk in one press: the sweep
        if 1 + walk + lead > wake:
            st["down"] = 1                              # too late for it: wait
        else:
            return FORWARD if walk else 0
    return FORWARD if dist > longest_reach(match.data) and free else 0


def _confirm(match, i: int, me, dist: float) -> str:
    """The follow-up ``me``'s current move (which has hit) cancels into that still lands: the
    most damaging of its cancels whose reach covers ``dist`` plus the hit's pushback (with
    :data:`_CONFIRM_MARGIN`), or its projectile move if none does and its own is not in
    flight (else the press would come out as a heavy punch); ``""`` when there is none."""
    mv = match.data.moves[me.move]
    reach = move_reach(match.data)
    gap = dist + mv.pushback + _CONFIRM_MARGIN            # where the reeling body will be
    best, damage = "", -1
    for name in mv.cancel:
        m = match.data.moves[name]
        if name in reach and name != "hk_low" and reach[name][0] >= gap - body_front(match.data) and \
                m.startup + 1 < mv.hitstun and m.damage > damage:
            best, damage = name, m.damage
    if best or match.stage is None:
        return best
    pm = projectile_move(match.data)
    if pm is None or pm.name not in mv.cancel or any(p.owner == i for p in match.stage.projectiles):
        return ""
    ahead, front, _, _ = projectile_geometry(match.data)
    flight = math.ceil(max(0.0, gap - ahead - front) / pm.projectile.speed)
    return pm.name if pm.startup + flight + 1 < mv.hitstun else ""


@functools.lru_cache(maxsize=4)
def longest_reach(data) -> float:
    """The reach of the longest attack (m), from :func:`move_reach`."""
    return max(r for r, _ in move_reach(data).values())


def _clear_shot(match, i: int) -> bool:
    """Line of sight (C8 any-hit at the projectile's level, C9) from where fighter ``i``'s
    fireball would start to the opponent, at the height it would fly."""
    spec = match.data.moves["fireball"].projectile
    start = match.launch_point(i, spec)
    op = match.fighters[1 - i]
    return match.stage.line_of_sight(start, (op.x, start[1], op.z), spec.level)


def _throw_reaches(match, dist: float) -> bool:
    """A throw pressed now grabs a standing fighter ``dist`` away (centres): its hands' reach
    (:func:`move_reach`) plus most of the front of that fighter's guard (:func:`body_front`)."""
    name = _throw_name(match)
    return bool(name) and dist <= move_reach(match.data)[name][0] + _THROW_FRONT * body_front(match.data)


def _throw_name(match) -> str:
    """The throw's grab move (``moves.json`` ``throw.move``), or "" without one."""
    return match.data.throw.move if match.data.throw is not None else ""


def _button(data, move: str) -> int:
    """The bits that start ``move``: its button (with down for the sweep), lp + lk for the throw."""
    if data.throw is not None and move == data.throw.move:
        return _THROW_BUTTONS
    return _MOVE_BUTTON[move]


def _press_move(data, st: dict, cfg: dict, rng, move: str, **extra) -> int:
    """Start pressing ``move``: its direction (down for the sweep) held for a span drawn from
    the level's ``hold`` range, its attack button tapped; returns this frame's bits."""
    lo, hi = cfg["hold"]
    button = _button(data, move)
    st.update(bits=button & DOWN, hold=int(rng.integers(lo, hi + 1)), tap=button & ~DOWN, **extra)
    return _press(st)


def _press(st: dict) -> int:
    bits = st["bits"] | st["tap"]
    st["tap"] = 0
    return bits
