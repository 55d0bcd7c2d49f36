"""Events returned by :meth:`game.sim.Match.step`: small frozen records."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np


class _ArrayValues:
    """Equality and hash by value for an event holding read-only ``(3,)`` arrays.

    The dataclass default compares the fields' tuples, and ``array == array`` is an array, so
    ``events == rerun_events`` (a rollback or replay check) would raise ``ValueError`` ("truth
    value of an array ... is ambiguous") and ``hash(event)`` ``TypeError``.  Here arrays compare
    by their exact values (dtype, shape and bytes): two runs of the same frames give equal events."""

    __slots__ = ()

    def _value(self) -> tuple:
        event: Any = self              # a mixin of dataclasses: every subclass is one
        return tuple((v.dtype.str, v.shape, v.tobytes()) if isinstance(v, np.ndarray) else v
                     for v in (getattr(self, f.name) for f in fields(event)))

    def __eq__(self, other: Any) -> Any:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._value() == other._value()

    def __hash__(self) -> int:
        return hash(self._value())


@dataclass(frozen=True, eq=False)
class Hit(_ArrayValues):
    """A move connected (A8 steps 4-6): hit or blocked.

    ``attack_limb`` and ``struck_limb`` are names from ``Fighter.limb_names``,
    except for a projectile's hit: then ``attack_limb`` is the projectile's
    name (``move``, e.g. ``'fireball'``), as no limb of the thrower struck.
    ``point`` is the A7 collision point ``(3,)`` float, read-only, of the attacking
    limb's (or the projectile's) and the struck limb's range boxes as
    ``limb_boxes()`` reports them after the step.  ``height`` is the move's ("high", "mid",
    "low"), or "throw" for a throw that lands (no guard stops it; ``move`` is the grab's
    name, ``point`` the A7 point of the thrower's hand and the thrown fighter's torso).
    ``advantage`` is the attacker's frame advantage once both recover
    (positive: the attacker can act first), counted after every hit of the
    step: a projectile's thrower may still be in its move or already free, and
    in a trade each fighter is in the other's stun.
    """

    frame: int
    attacker: int
    defender: int
    move: str
    attack_limb: str
    struck_limb: str
    point: np.ndarray
    damage: int
    blocked: bool
    height: str
    heavy: bool
    hitstop: int
    advantage: int


@dataclass(frozen=True, eq=False)
class CrateStruck(_ArrayValues):
    """A fist or foot struck a crate (method B): its compound was re-split.

    ``point`` is the A7 collision point of the two boxes the strike was judged on
    (A4): the limb's reach box (its range box traced back to the wall facing the
    attacker, ``game.sim.reach.reach_box``, B1; for a blow through a hole, that box
    grown to the hole's rim, ``tear_box``, B3; the box the strike cuts with) and the
    struck small box; ``normal`` ``(3,)`` the outward normal of the target face toward the
    attacker (B2); ``removed`` the volume the strike removed; ``broke`` whether the
    crate fell apart.
    """

    frame: int
    fighter: int
    crate: int
    name: str
    limb: str
    point: np.ndarray
    removed: float
    broke: bool
    normal: np.ndarray


@dataclass(frozen=True, eq=False)
class ProjectileLaunched(_ArrayValues):
    """Fighter ``owner`` threw a projectile; ``position`` ``(3,)`` float (read-only) is where it starts."""

    frame: int
    owner: int
    position: np.ndarray


@dataclass(frozen=True, eq=False)
class ProjectileImpact(_ArrayValues):
    """A projectile's path hit the scene (C8 any-hit) between ``start`` and ``end`` (``(3,)``
    float each, read-only).

    The simulation only knows *that* it hit; presentation finds *where* with a
    nearest-hit cast along the same segment (C7) at the same logic ``level`` (C9),
    so a spark never lands on a low prop the projectile flew through.

    ``point`` is None for such a path hit.  A projectile whose centre ray went clear but
    whose range box touched a crate's small box (A2-A4 on the compound, B7: a hole smaller
    than the projectile) carries there the A7 collision point ``(3,)`` float, read-only, of
    the range box judged (the projectile's cube at ``end``; for a step longer than the cube,
    the bounding box of its cubes at ``start`` and ``end``) and that small box: the ray
    along the segment may meet nothing there (it flies in the hole), or a far wall.
    """

    frame: int
    owner: int
    start: np.ndarray
    end: np.ndarray
    level: int
    point: np.ndarray | None = None


@dataclass(frozen=True, eq=False)
class ProjectileClash(_ArrayValues):
    """Both players' projectiles met (A2-A4 on their range boxes) and cancelled each other
    at ``point``, the A7 collision point of the two boxes."""

    frame: int
    point: np.ndarray


@dataclass(frozen=True, eq=False)
class ThrowGrab(_ArrayValues):
    """A throw's grab (lp + lk, ``moves.json`` ``throw``) took hold: the grabbing move's hit limb
    touched the defender (A2-A4) on an active frame while the defender stood free or in a
    move of its own.  ``point`` is the A7 collision point ``(3,)`` of the touching pair with the
    largest overlap, read-only.  The throw lands ``tech`` frames later (a ``Hit`` with
    ``move`` the grab's name) unless the defender breaks it first (``ThrowBreak``)."""

    frame: int
    attacker: int
    defender: int
    point: np.ndarray


@dataclass(frozen=True, eq=False)
class ThrowBreak(_ArrayValues):
    """A throw was broken: the thrown fighter pressed lp + lk within the tech window, or both
    grabbed each other on the same frame.  Both reel and are pushed apart; ``point`` ``(3,)``
    is where the hands met (the A7 point of the thrower's first hit limb and the thrown
    fighter's ``struck_limb``)."""

    frame: int
    attacker: int
    defender: int
    point: np.ndarray


@dataclass(frozen=True)
class MoveStarted:
    frame: int
    fighter: int
    move: str


@dataclass(frozen=True)
class Whiff:
    """A melee move's active frames ended without connecting (a fireball's outcome is its
    projectile's events: ``Hit``, ``ProjectileImpact`` or ``ProjectileClash``)."""

    frame: int
    fighter: int
    move: str


@dataclass(frozen=True)
class RoundStart:
    frame: int
    round: int


@dataclass(frozen=True)
class Fight:
    frame: int
    round: int


@dataclass(frozen=True)
class KO:
    frame: int
    round: int
    loser: int | None  # None: double KO


@dataclass(frozen=True)
class TimeOver:
    frame: int
    round: int


@dataclass(frozen=True)
class RoundEnd:
    frame: int
    round: int
    winner: int | None  # None: draw, no round point


@dataclass(frozen=True)
class MatchOver:
    frame: int
    winner: int | None  # None: draw


#: Every kind of event a step returns.
Event = (Hit | CrateStruck | ProjectileLaunched | ProjectileImpact | ProjectileClash | ThrowGrab | ThrowBreak
         | MoveStarted | Whiff | RoundStart | Fight | KO | TimeOver | RoundEnd | MatchOver)
