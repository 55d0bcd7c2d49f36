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

from .inputs import BACK, DOWN, FORWARD, GUARD, HK, HP, LK, LP, SIDE_L, SIDE_R, UP

#: Per level: chance per frame to notice an incoming attack, chance to guard it
#: correctly once noticed, attack eagerness when in range, chance to throw an
#: attack from out of range (a whiff), and how long a decision is held (frames).
LEVELS = {
    "easy":   dict(notice=0.10, guard=0.35, attack=0.30, whiff=0.25, hold=(14, 26), mix=0.2, zone=0.02),
    "normal": dict(notice=0.22, guard=0.60, attack=0.45, whiff=0.15, hold=(8, 16), mix=0.5, zone=0.05),
    "hard":   dict(notice=0.45, guard=0.85, attack=0.60, whiff=0.06, hold=(4, 9), mix=0.8, zone=0.08),
}

_MOVE_BUTTON = {"lp": LP, "hp": HP, "lk": LK, "hk": HK, "hk_low": HK | DOWN, "fireball": LP | HP}


#: How far one step of a forward walk goes (m), for the CPU's "is the way ahead blocked?" look.
_STEP_AHEAD = 0.045
#: A detour around an obstacle is held at least this long (frames): long enough to clear a crate.
_DETOUR_FRAMES = 24


def initial_state() -> dict:
    """The plan: the held ``bits``, for ``hold`` more frames, plus a one-frame ``tap``; ``detour``
    is the sidestep (SIDE_L / SIDE_R) it keeps taking around an obstacle in its way, or 0."""
    return {"bits": 0, "hold": 0, "tap": 0, "detour": 0}


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


def decide(match, i: int, level: str) -> int:
    """The CPU's input bits for fighter ``i`` this frame (mutates ``match.ai_state[i]``)."""
    st = match.ai_state[i]
    if match.phase != "fight":
        st.update(bits=0, hold=0, tap=0, detour=0)
        return 0
    cfg = LEVELS[level]
    rng = match.rng
    me, op = match.fighters[i], match.fighters[1 - i]
    dist = math.hypot(op.x - me.x, op.z - me.z)

    # Reacting to an attack on its way in can interrupt any plan.
    if op.move and op.move != "jump" and me.state not in ("attack", "hitstun") and dist < 2.2:
        mv = match.data.moves[op.move]
        if op.mframe < mv.startup + mv.active and not (st["bits"] & GUARD) and rng.random() < cfg["notice"]:
            if rng.random() < cfg["guard"]:
                guard = GUARD | (DOWN if mv.height == "low" else 0)
            else:  # a wrong guess, as players make
                guard = GUARD | (0 if mv.height == "low" else DOWN)
            st.update(bits=guard, hold=mv.startup + mv.active - op.mframe + 2, tap=0)

    # A fireball on its way in: stand and guard it (a mid), if noticed in time.
    if match.stage is not None and me.state not in ("attack", "hitstun") and not (st["bits"] & GUARD):
        for p in match.stage.projectiles:
            if p.owner != i and math.hypot(p.x - me.x, p.z - me.z) < 2.5 and rng.random() < cfg["notice"]:
                if rng.random() < cfg["guard"]:
                    st.update(bits=GUARD, hold=24, tap=0)
                break

    if st["hold"] > 0:
        st["hold"] -= 1
        bits = st["bits"] | st["tap"]
        st["tap"] = 0
        return bits

    lo, hi = cfg["hold"]
    reach = move_reach(match.data)
    longest = max(r for r, _ in reach.values())
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
        elif r < 0.08 + cfg["zone"]:
            plan = UP | FORWARD
        else:
            plan = FORWARD
        st.update(bits=plan, hold=int(rng.integers(lo, hi + 1)), tap=0)
    elif r < cfg["attack"] or (dist > longest and r < cfg["attack"] + cfg["whiff"]):
        in_range = [n for n, (reach_n, _) in reach.items() if reach_n + 0.12 >= dist]
        if not in_range or rng.random() < cfg["whiff"]:
            in_range = list(reach)           # swing anyway: a whiff
        if op.guard == 1 and "hk_low" in in_range and rng.random() < cfg["mix"]:
            move = "hk_low"                  # open up a standing guard
        elif op.guard == 2 and rng.random() < cfg["mix"]:
            mids = [n for n in in_range if match.data.moves[n].height == "mid"]
            move = mids[int(rng.integers(len(mids)))] if mids else in_range[int(rng.integers(len(in_range)))]
        else:
            move = in_range[int(rng.integers(len(in_range)))]
        button = _MOVE_BUTTON[move]
        st.update(bits=button & DOWN, hold=int(rng.integers(lo, hi + 1)), tap=button & ~DOWN)
        return _press(st)
    elif r < cfg["attack"] + 0.25:
        st.update(bits=BACK if dist < 1.2 else GUARD, hold=int(rng.integers(lo, hi + 1)), tap=0)
    elif r < cfg["attack"] + 0.32:
        st.update(bits=SIDE_L if rng.random() < 0.5 else SIDE_R, hold=int(rng.integers(lo, hi + 1)), tap=0)
    else:
        st.update(bits=FORWARD if dist > 1.0 else 0, hold=int(rng.integers(2, lo + 1)), tap=0)
    return _press(st)


def _clear_shot(match, i: int) -> bool:
    """Line of sight (C8 any-hit at the projectile's level, C9) from where fighter ``i``'s
    fireball would start to the opponent, at the height it would fly."""
    spec = match.data.moves["fireball"].projectile
    start = match.launch_point(i, spec)
    op = match.fighters[1 - i]
    return match.stage.line_of_sight(start, (op.x, start[1], op.z), spec.level)


def _press(st: dict) -> int:
    bits = st["bits"] | st["tap"]
    st["tap"] = 0
    return bits
