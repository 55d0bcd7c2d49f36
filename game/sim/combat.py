"""Combat: stages 4-6 of a step (A8): judge what touches (A2-A4), find where (A7), land hits.

Stage 4 (:func:`judge`) asks one batched question per kind: each attacker's active hitting
limbs against all of the defender's limbs (``LimbBoxes.pairs``), the same limbs against the
crates' small boxes (B7), the projectiles against each other and against the other fighter.
Stage 5 (:func:`collision_points`) gives each touch its collision point (A7).  Stage 6
(:func:`apply_hits`) lands each move's hit at most once: damage or guard, stun, knockback and
hitstop (:func:`land`), trades, grabs (``throws``), crate strikes, and each hit's frame
advantage once every hit of the frame has landed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from game.collision import collision_point, collision_point_pair, judgement_points

from . import throws
from .contacts import (
    NO_CONTACTS,
    NO_TOUCHES,
    ClashContact,
    ClashTouch,
    CrateContact,
    CrateTouch,
    FrameContacts,
    LimbContact,
    LimbTouch,
    ProjectileContact,
    ProjectileTouch,
    Touches,
)
from .events import CrateStruck, Event, Hit, ProjectileClash
from .fighter import BLOCKSTUN, DOWN_STATES, HITSTUN, KNOCKDOWN, THROWN
from .movement import SLIDE_DECAY
from .moves import Move, ProjectileSpec
from .rounds import FIGHT

if TYPE_CHECKING:
    from .match import Match

CRATE_HITSTOP = 4          # the attacker's freeze when a fist or foot breaks through a crate wall


# ------------------------------------------------------------------ 4. judge (A2-A4)
def judge(m: Match) -> Touches:
    """A2-A4, one batched call per question:

    * each attacker on an active frame whose move has not hit yet: its
      hitting limbs against all of the defender's limbs;
    * the same limbs against every standing crate's small boxes (B7), once
      per move;
    * the two players' projectiles against each other: meeting, they cancel (a clash)
      and strike no one;
    * each other projectile's range box against the other fighter's limbs.

    Fighters are struck only in the FIGHT phase (crates always), and never while knocked
    down (falling, lying or getting up) or thrown (``DOWN_STATES``).  A throw's grab is
    judged like any move's hitting limbs (A2-A4 on the same pairs); it strikes no crate
    (open hands), and :func:`apply_hits` decides whether a contact grabs.
    """
    limb: list[LimbTouch] = []
    crate: list[CrateTouch] = []
    # Once a round is decided (K.O. or time), no attack lands on a fighter any more: not on
    # the knocked-out body, not on the winner (the result stands as announced).
    live = m.phase == FIGHT
    stage = m.stage
    for f in m.fighters:
        if not f.move or f.hitstop:
            continue
        mv = m.data.moves[f.move]
        if not mv.hit_limbs or not mv.is_active(f.mframe):
            continue
        hits = list(mv.hit_limbs)
        if not f.move_hit and live and m.fighters[1 - f.index].state not in DOWN_STATES:
            ok, j1, j2 = m.limbs.pairs(f.index)                          # (L, L), (L, L, 4) x 2
            ok = ok[hits]                                                # (K, L): hitting limbs only
            if ok.any():
                k, ls = np.nonzero(ok)
                ks = np.asarray(hits)[k]
                limb.append(LimbTouch(f.index, ks, ls, j1[ks, ls, :3], j2[ks, ls, :3], mv))
        if stage is not None and not f.crate_hit and not throws.is_grab(m.data.throw, mv):
            origin = (f.x, f.z)
            touch = stage.touch(m.limbs.boxes[f.index, hits], origin=origin)   # B3: through the wall facing f
            if touch is not None:
                crate.append(CrateTouch(f.index, mv.hit_limbs[touch.limb], touch.crate, touch.box, touch.reach,
                                        origin, mv.heavy))
    if live and stage is not None and stage.projectiles:   # decided: it flies on through
        proj, clash = judge_projectiles(m)
        if proj or clash:
            return Touches(limb, crate, proj, clash)
    return Touches(limb, crate, (), ()) if limb or crate else NO_TOUCHES


def judge_projectiles(m: Match) -> tuple[list[ProjectileTouch], list[ClashTouch]]:
    """A2-A4 for the projectiles in flight (:func:`judge`'s last two questions).

    A projectile flies for many frames and touches no one on almost all of them, so the
    verdict (A4: ``j2 >= j1`` on every axis, touching counts) is taken on Python floats:
    ``min(a1, b1) >= max(a0, b0)`` is ``a1 >= b0 and b1 >= a0`` for boxes whose own
    ``min <= max`` (the projectile's cube, a limb's range box: A6), and a NaN fails it
    either way.  Only a touching pair goes on to numpy for its judgement points (A2, A3)."""
    assert m.stage is not None and m.projectile_spec is not None
    ps = m.stage.projectiles
    half = m.projectile_spec.half
    cubes = [((p.x - half, p.y - half, p.z - half), (p.x + half, p.y + half, p.z + half)) for p in ps]
    # one projectile per fighter at most: a clash is the two of them overlapping, and strikes no one
    if len(ps) == 2 and ps[0].owner != ps[1].owner and _touch(cubes[0], cubes[1]):
        both = np.array(cubes)                                                      # (P, 2, 3)
        return [], [ClashTouch(0, 1, both[0], both[1])]
    proj: list[ProjectileTouch] = []
    boxes = m.limbs.boxes
    pbox: np.ndarray | None = None
    for i, (p, cube) in enumerate(zip(ps, cubes)):
        v = 1 - p.owner
        # a knocked-down or thrown fighter is struck by nothing: a projectile flies over (through) it
        if m.fighters[v].state in DOWN_STATES:
            continue
        (ax0, ay0, az0), (ax1, ay1, az1) = cube                                   # _touch, inlined
        hit = [li for li, ((bx0, by0, bz0), (bx1, by1, bz1)) in enumerate(boxes[v].tolist())
               if ax1 >= bx0 and bx1 >= ax0 and ay1 >= by0 and by1 >= ay0 and az1 >= bz0 and bz1 >= az0]
        if not hit:
            continue
        if pbox is None:
            pbox = np.array(cubes)                                                  # (P, 2, 3)
        ls = np.array(hit)
        j1, j2 = judgement_points(pbox[i], boxes[v, ls])                          # (n, 3) each
        best = int(ls[np.argmax(np.prod(np.maximum(j2 - j1, 0.0), axis=-1))])
        proj.append(ProjectileTouch(i, p, best, pbox[i]))
    return proj, []


# ------------------------------------------------------------------ 5. points (A7)
def collision_points(m: Match, t: Touches) -> FrameContacts:
    """A7 for every touch: limb pairs, limb reach box vs crate small box, projectile vs limb,
    projectile vs projectile."""
    if not any(t):
        return NO_CONTACTS
    boxes = m.limbs.boxes
    return FrameContacts(
        tuple(LimbContact(c.attacker, c.attack_limbs, c.struck_limbs, c.j1, c.j2,
                          collision_point(boxes[c.attacker, c.attack_limbs], boxes[1 - c.attacker, c.struck_limbs]))
              for c in t.limb),
        tuple(CrateContact(c.attacker, c.limb, c.crate, c.box, collision_point_pair(c.reach, c.box))
              for c in t.crate),
        tuple(ProjectileContact(c.projectile.owner, c.box, c.limb,
                                collision_point(c.box, boxes[1 - c.projectile.owner, c.limb]))
              for c in t.projectile),
        tuple(ClashContact(c.a, c.b, collision_point_pair(c.a, c.b)) for c in t.clash),
    )


# ------------------------------------------------------------------ 6. apply hits
def apply_hits(m: Match, t: Touches, contacts: FrameContacts, events: list[Event]) -> None:
    """Land this frame's contacts, each move's hit at most once.  Every contact was judged on
    this frame's poses, so a trade lands both ways; strikes land before grabs (a grabber
    struck on the same frame lets go), crate strikes after both."""
    if not any(t):                   # most frames: nothing touches, no event to add or amend
        return
    names = m.data.skeleton.names
    first = len(events)
    grabs: list[tuple[int, np.ndarray]] = []
    for touch, c in zip(t.limb, contacts.limb):
        # The pair with the largest overlap volume is the one that lands.
        best = int(np.argmax(np.prod(np.maximum(c.j2 - c.j1, 0.0), axis=-1)))
        if throws.is_grab(m.data.throw, touch.move):   # decided below, once every strike has landed
            grabs.append((c.attacker, c.points[best]))
            continue
        m.fighters[c.attacker].move_hit = True
        land(m, c.attacker, touch.move, names[int(c.attack_limbs[best])], names[int(c.struck_limbs[best])],
             c.points[best], True, events)
    gone: set[int] = set()
    for clash, xc in zip(t.clash, contacts.clash):
        point = np.array(xc.point)
        point.flags.writeable = False
        events.append(ProjectileClash(m.frame, point))
        gone.update((clash.first, clash.second))
    for ptouch, pc in zip(t.projectile, contacts.projectile):
        spec = m.projectile_spec
        assert spec is not None
        land(m, pc.owner, spec, spec.name, names[pc.limb], pc.point, False, events)
        gone.add(ptouch.slot)
    if gone:
        assert m.stage is not None
        m.stage.remove_projectiles(gone)
    struck = _hits(events, first)
    if len({e.defender for _j, e in struck}) == 2:
        trade(m, events, struck)
    if grabs:
        assert m.data.throw is not None
        throws.grabs(m, m.data.throw, grabs, events)
    strike_crates(m, t.crate, contacts.crate, events)
    set_advantages(m, events, first)


def strike_crates(m: Match, touches: Sequence[CrateTouch], contacts: tuple[CrateContact, ...],
                  events: list[Event]) -> None:
    """Each fist or foot touching a crate strikes it (B1-B7) with the reach box it was judged
    with, a heavy move's blow with the larger margin: once per move; a strike that removes
    material freezes the attacker briefly."""
    if not touches:
        return
    stage = m.stage
    assert stage is not None
    names = m.data.skeleton.names
    for touch, c in zip(touches, contacts):
        a = m.fighters[touch.attacker]
        origin = (a.x, a.z)
        # A fighter grabbed on this step was moved by the grab: its strike is taken from where it now stands.
        reach = touch.reach if origin == touch.origin else stage.reach(touch.crate, m.limbs.boxes[a.index, touch.limb],
                                                                       origin)
        result, broke = stage.strike(touch.crate, reach, heavy=touch.heavy)
        a.crate_hit = True
        if result is None:
            continue
        if a.state != THROWN:            # grabbed on this step: the throw's clock runs on
            a.hitstop = max(a.hitstop, CRATE_HITSTOP)
        point = np.array(c.point)
        point.flags.writeable = False
        normal = np.array(stage.struck_normal(touch.crate, result, origin))    # the face toward the attacker
        normal.flags.writeable = False
        events.append(CrateStruck(m.frame, touch.attacker, touch.crate, stage.crates[touch.crate].obj.name,
                                  names[touch.limb], point, float(result.removed_volume), broke, normal))


def set_advantages(m: Match, events: list[Event], first: int) -> None:
    """Frame advantage of each ``Hit`` from ``events[first]`` on, once every hit (and crate
    hitstop) of this frame has landed: how many steps sooner the attacker can start a move
    than the defender."""
    moves = m.data.moves
    for j in range(first, len(events)):
        e = events[j]
        if isinstance(e, Hit):
            events[j] = dataclasses.replace(e, advantage=m.fighters[e.defender].frames_to_act(moves)
                                            - m.fighters[e.attacker].frames_to_act(moves))


def land(m: Match, atk: int, spec: Move | ProjectileSpec, attack_limb: str, struck_limb: str, pt: np.ndarray,
         freeze_attacker: bool, events: list[Event]) -> None:
    """Apply one landed attack (a move or a projectile): damage or guard, stun, knockback, hitstop."""
    a, d = m.fighters[atk], m.fighters[1 - atk]
    blocked = (d.guard == 1 and spec.height in ("high", "mid")) or (d.guard == 2 and spec.height == "low")
    # A hit on a defender still in hitstun is the next hit of a combo, its damage scaled by
    # its place in it (``combo_scaling``, percent; rounded down, at least 1).
    d.combo = 0 if blocked else (d.combo + 1 if d.state == HITSTUN else 1)
    damage = 0
    if not blocked and spec.damage:
        scale = m.data.combo_scaling
        damage = max(1, spec.damage * scale[min(d.combo, len(scale)) - 1] // 100)
    d.health = max(0, d.health - damage)
    # Hit out of a jump, it falls from where it was struck.
    d.air = d.lift()
    d.move, d.mframe, d.buf_move, d.buf_left = "", 0, "", 0
    # A knockdown move's hit (the sweep) floors the defender for its hitstun frames (the
    # knockdown animation's length): it falls, lies and gets up, struck by nothing
    # (``judge``), and acts again on the first frame after.
    d.state = BLOCKSTUN if blocked else (KNOCKDOWN if spec.knockdown
                                                        else HITSTUN)
    d.stun = spec.blockstun if blocked else spec.hitstun
    d.stun_height = spec.height
    v0 = spec.pushback * (1.0 - SLIDE_DECAY)
    d.vx, d.vz = a.fx * v0, a.fz * v0
    d.hitstop = spec.hitstop
    if freeze_attacker:              # a projectile does not freeze its thrower
        a.hitstop = spec.hitstop
    point = np.array(pt)
    point.flags.writeable = False
    events.append(Hit(
        frame=m.frame, attacker=atk, defender=d.index, move=spec.name,
        attack_limb=attack_limb, struck_limb=struck_limb, point=point,
        damage=damage, blocked=blocked, height=spec.height, heavy=spec.heavy, hitstop=spec.hitstop,
        advantage=0,                 # set by set_advantages once every hit of the frame has landed
    ))


def trade(m: Match, events: list[Event], struck: list[tuple[int, Hit]]) -> None:
    """Both fighters were struck on the same frame (``struck``: this frame's ``Hit`` events
    and their indices in ``events``): a limb contact each way, or a limb one way and a
    projectile the other.

    Each is now in the other's stun; so that the landing order cannot matter, both freeze
    for the longest of the hitstops."""
    stop = max(e.hitstop for _j, e in struck)
    for f in m.fighters:
        f.hitstop = stop
    for j, e in struck:
        events[j] = dataclasses.replace(e, hitstop=stop)


def _hits(events: list[Event], first: int) -> list[tuple[int, Hit]]:
    """The ``Hit`` events from ``events[first]`` on, with their indices."""
    return [(j, e) for j, e in enumerate(events[first:], first) if isinstance(e, Hit)]


def _touch(a: tuple, b: tuple) -> bool:
    """A2-A4 on two 3D boxes of Python floats ``((x0, y0, z0), (x1, y1, z1))``, each with
    ``min <= max``: ``j2 >= j1`` on every axis (touching counts), as ``overlaps`` decides it."""
    (ax0, ay0, az0), (ax1, ay1, az1) = a
    (bx0, by0, bz0), (bx1, by1, bz1) = b
    return ax1 >= bx0 and bx1 >= ax0 and ay1 >= by0 and by1 >= ay0 and az1 >= bz0 and bz1 >= az0
