"""Throws: the grab, the hold, the landing and the break (``moves.json`` ``throw``).

A throw's grab is a move like any other: its hit limbs touching the defender on an active
frame (A2-A4, judged with every strike) take hold when the defender can be thrown
(:func:`grabbable`).  From the grab the thrower plays ``throw.hold`` and the defender is
``thrown`` (:func:`held`): lp + lk within ``throw.tech`` frames breaks it (:func:`break_throw`),
else it lands on the ``tech``-th (:func:`throw_lands`) and the thrown body lies until it gets up.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING

import numpy as np

from game.collision import collision_point_pair

from .contacts import ThrowContact
from .events import Event, Hit, ThrowBreak, ThrowGrab
from .fighter import ATTACK, BLOCKSTUN, IDLE, JUMP, NEUTRAL_STATES, THROWN, Fighter
from .movement import SLIDE_DECAY, constrain, resolve_pushboxes
from .moves import Move, ThrowSpec
from .rounds import FIGHT

if TYPE_CHECKING:
    from .match import Match


def is_grab(throw: ThrowSpec | None, mv: Move) -> bool:
    """``mv`` is the throw's grab."""
    return throw is not None and mv.name == throw.move


def grabbable(d: Fighter) -> bool:
    """A throw takes a defender standing on the ground, free or in a move of its own (its
    startup and recovery too, a jump's take-off and landing frames included), not one in
    hitstun, blockstun, a knockdown or a throw, nor one off the ground.  A crouching body is
    left alone by geometry: the grab reaches at shoulder height."""
    return (d.state in NEUTRAL_STATES or d.state in (ATTACK, JUMP)) \
        and d.lift() == 0.0 and d.hitstop == 0


def grabs(m: Match, throw: ThrowSpec, contacts: list[tuple[int, np.ndarray]], events: list[Event]) -> None:
    """This frame's grab contacts ``(attacker, A7 point)``, after every strike of the frame:
    a grabber struck on the same frame lets go (a strike beats a throw), a defender that
    cannot be thrown is left alone (the grab stays live for its remaining active frames),
    and two fighters grabbing each other on the same frame break at once."""
    ok = [(atk, pt) for atk, pt in contacts
          if m.fighters[atk].move == throw.move and grabbable(m.fighters[1 - atk])]
    if len(ok) == 2:
        break_throw(m, throw, m.fighters[0], m.fighters[1], events)
        return
    for atk, pt in ok:
        grab(m, throw, atk, pt, events)


def grab(m: Match, throw: ThrowSpec, atk: int, pt: np.ndarray, events: list[Event]) -> None:
    """The grab takes hold: the thrower plays ``throw.hold``; the thrown fighter, set
    ``throw.distance`` in front of it and facing it, is ``"thrown"`` for ``throw.frames``."""
    t = throw
    a, d = m.fighters[atk], m.fighters[1 - atk]
    a.move, a.mframe, a.move_hit, a.crate_hit, a.state = t.hold, 0, True, True, ATTACK
    a.buf_move, a.buf_left, a.vx, a.vz = "", 0, 0.0, 0.0
    d.move, d.mframe, d.move_hit, d.buf_move, d.buf_left = "", 0, False, "", 0
    d.state, d.stun, d.stun_height, d.combo, d.guard = THROWN, t.frames, "high", 0, 0
    d.vx = d.vz = 0.0
    d.x, d.z = constrain(m, a.x + a.fx * t.distance, a.z + a.fz * t.distance)
    if math.hypot(d.x - a.x, d.z - a.z) < t.distance - 1e-9:    # a wall or a crate right there
        a.x, a.z = constrain(m, d.x - a.fx * t.distance, d.z - a.fz * t.distance)
    resolve_pushboxes(m)          # cornered both ways: still never inside each other
    d.fx, d.fz = -a.fx, -a.fz
    point = np.array(pt)
    point.flags.writeable = False
    events.append(ThrowGrab(m.frame, atk, d.index, point))


def held(m: Match, throw: ThrowSpec, f: Fighter, events: list[Event]) -> bool:
    """One frame of a thrown fighter (``actions``); False once it is free this frame (the rest
    of its action then runs, as on the frame a hitstun ends).  In the first ``throw.tech``
    frames after the grab its lp + lk (pressed since the grab: the grab clears its buffer)
    breaks the throw; on the ``tech``-th the throw lands (:func:`throw_lands`); then it lies
    and gets up, free when its stun runs out.  A thrower struck before the throw lands (a
    fireball in flight) lets go: the held fighter is free at once."""
    t = throw
    a = m.fighters[1 - f.index]
    holding = a.move == t.hold
    if t.frames - f.stun < t.tech:
        if holding and m.phase != FIGHT:          # the round was decided meanwhile: let go
            a.move, a.mframe, a.state = "", 0, IDLE
            holding = False
        if not holding:
            f.state, f.stun, f.combo = IDLE, 0, 0
            return False
        if f.buf_move == t.move:
            break_throw(m, t, a, f, events)
            return True
    f.stun -= 1
    if t.frames - f.stun == t.tech and holding and m.phase == FIGHT:
        throw_lands(m, t, a, f, events)
    if f.stun > 0:
        return True
    f.state, f.stun, f.combo = IDLE, 0, 0
    return False


def throw_point(m: Match, throw: ThrowSpec, a: Fighter, d: Fighter) -> np.ndarray:
    """The A7 point of the grab's first hit limb (the thrower's hand) and the thrown
    fighter's ``throw.struck_limb``, read-only: where the throw lands or breaks.  The pair
    (as judged: the boxes of the frame before) is kept for the overlay (``throw_contacts``)."""
    k = m.data.moves[throw.move].hit_limbs[0]
    boxes = m.limbs.boxes
    hand, body = boxes[a.index, k].copy(), boxes[d.index, throw.struck_limb].copy()
    point = collision_point_pair(hand, body)
    point.flags.writeable = False
    m.throw_contacts += (ThrowContact(hand, body, point),)
    return point


def throw_lands(m: Match, throw: ThrowSpec, a: Fighter, d: Fighter, events: list[Event]) -> None:
    """The throw lands: ``throw.damage`` (the first hit of a combo, unscaled), the thrown body
    hurled ``throw.travel`` m, and a ``Hit`` (the thrower is free ``throw.frames -
    hold.total`` frames before the thrown fighter gets up, unless struck meanwhile).  Its
    ``advantage`` is set once every hit of the step has landed (:func:`settle_advantage`)."""
    t = throw
    names = m.data.skeleton.names
    grab_move = m.data.moves[t.move]
    d.combo = 1
    d.health = max(0, d.health - t.damage)
    v0 = t.travel * (1.0 - SLIDE_DECAY)      # hurled away from the thrower (it faces it)
    d.vx, d.vz = -d.fx * v0, -d.fz * v0
    m.throw_hit = len(events)
    events.append(Hit(
        frame=m.frame, attacker=a.index, defender=d.index, move=t.move,
        attack_limb=names[grab_move.hit_limbs[0]], struck_limb=names[t.struck_limb],
        point=throw_point(m, t, a, d), damage=t.damage, blocked=False, height="throw", heavy=True, hitstop=0,
        advantage=0,
    ))


def settle_advantage(m: Match, events: list[Event]) -> None:
    """A landed throw's ``Hit.advantage``, once every hit of its step has landed (a fireball
    striking the thrower on the landing step puts it in hitstun): as a strike's is counted."""
    i, m.throw_hit = m.throw_hit, -1
    e = events[i]
    assert isinstance(e, Hit)
    moves = m.data.moves
    adv = m.fighters[e.defender].frames_to_act(moves) - m.fighters[e.attacker].frames_to_act(moves)
    events[i] = dataclasses.replace(e, advantage=adv)


def break_throw(m: Match, throw: ThrowSpec, a: Fighter, d: Fighter, events: list[Event]) -> None:
    """The throw is broken: both reel ``throw.break_stun`` frames (a blockstun: nothing was
    hit) and slide ``throw.break_pushback`` m back from each other."""
    t = throw
    v0 = t.break_pushback * (1.0 - SLIDE_DECAY)
    for x in (a, d):
        x.move, x.mframe, x.move_hit, x.buf_move, x.buf_left = "", 0, False, "", 0
        x.state, x.stun, x.stun_height, x.combo = BLOCKSTUN, t.break_stun, "mid", 0
        x.vx, x.vz = -x.fx * v0, -x.fz * v0
    events.append(ThrowBreak(m.frame, a.index, d.index, throw_point(m, t, a, d)))
