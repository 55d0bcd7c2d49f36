"""What touches what within one step: the records stages 4-6 of ``Match.step`` pass on.

Stage 4 (A2-A4, :func:`game.sim.combat.judge`) finds the **touches** of a frame, one list per
kind (:class:`Touches`); stage 5 (A7, :func:`game.sim.combat.collision_points`) adds each one's
collision point, giving the **contacts** (:class:`FrameContacts`) that the match keeps for the
debug overlay (``match.contacts``, ``crate_contacts``, ``projectile_contacts``,
``clash_contacts``, ``throw_contacts``); stage 6 applies them.  A contact unpacks as the plain
tuple it replaces (``atk, ks, ls, j1, j2, points = contact``).  Arrays are values: nothing
writes into them after they are made.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from .moves import Move
from .projectiles import Projectile


# ---------------------------------------------------------------- stage 4: touches (A2-A4)
class LimbTouch(NamedTuple):
    """An attacker's hitting limbs touching the defender's limbs on an active frame."""

    attacker: int               # index of the attacking fighter (the defender is 1 - attacker)
    attack_limbs: np.ndarray    # (n,) int, the attacker's limb of each touching pair
    struck_limbs: np.ndarray    # (n,) int, the defender's limb of each pair
    j1: np.ndarray              # (n, 3) float, each pair's judgement point j1 (A2)
    j2: np.ndarray              # (n, 3) float, each pair's judgement point j2 (A3)
    move: Move                  # the attacker's move (a strike, or a throw's grab)


class CrateTouch(NamedTuple):
    """A fist or foot touching a standing crate's small box (B1, B7)."""

    attacker: int               # index of the striking fighter
    limb: int                   # its striking limb (skeleton index)
    crate: int                  # index into ``stage.crates``
    box: np.ndarray             # (2, 3) float, the crate's small box with the largest overlap
    reach: np.ndarray           # (2, 3) float, the limb's reach (or tear) box judged (``game.sim.reach``): what strikes
    origin: tuple[float, float]  # the attacker's (x, z) the reach was taken from
    heavy: bool                 # a heavy move's blow (``Move.heavy``): it tears a larger hole (B3)


class ProjectileTouch(NamedTuple):
    """A projectile's range box touching the other fighter's limbs."""

    slot: int                   # its place in ``stage.projectiles``
    projectile: Projectile      # the projectile itself
    limb: int                   # the struck limb with the largest overlap
    box: np.ndarray             # (2, 3) float, the projectile's range box (cube)


class ClashTouch(NamedTuple):
    """The two players' projectiles touching each other: they cancel."""

    first: int                  # index of one in ``stage.projectiles``
    second: int                 # index of the other
    a: np.ndarray               # (2, 3) float, the first one's range box
    b: np.ndarray               # (2, 3) float, the second one's range box


class Touches(NamedTuple):
    """Stage 4's answer: every touch of the frame, by kind (each list usually empty)."""

    limb: Sequence[LimbTouch]
    crate: Sequence[CrateTouch]
    projectile: Sequence[ProjectileTouch]
    clash: Sequence[ClashTouch]


#: The touches of a frame where nothing touches (most frames).
NO_TOUCHES = Touches((), (), (), ())


# ---------------------------------------------------------------- stage 5: contacts (A7)
class LimbContact(NamedTuple):
    """A :class:`LimbTouch` with its collision points (``match.contacts``)."""

    attacker: int               # index of the attacking fighter
    attack_limbs: np.ndarray    # (n,) int, the attacker's limb of each touching pair
    struck_limbs: np.ndarray    # (n,) int, the defender's limb of each pair
    j1: np.ndarray              # (n, 3) float, A2 judgement points
    j2: np.ndarray              # (n, 3) float, A3 judgement points
    points: np.ndarray          # (n, 3) float, each pair's A7 collision point


class CrateContact(NamedTuple):
    """A :class:`CrateTouch` with its collision point (``match.crate_contacts``)."""

    attacker: int               # index of the striking fighter
    limb: int                   # its striking limb (skeleton index)
    crate: int                  # index into ``stage.crates``
    box: np.ndarray             # (2, 3) float, the crate's small box struck
    point: np.ndarray           # (3,) float, A7 point of the limb's reach (or tear) box and that small box


class ProjectileContact(NamedTuple):
    """A :class:`ProjectileTouch` with its collision point (``match.projectile_contacts``)."""

    owner: int                  # the thrower's index (the struck fighter is 1 - owner)
    box: np.ndarray             # (2, 3) float, the projectile's range box
    limb: int                   # the struck limb
    point: np.ndarray           # (3,) float, A7 point of the projectile's box and the limb's


class ClashContact(NamedTuple):
    """A :class:`ClashTouch` with its collision point (``match.clash_contacts``)."""

    a: np.ndarray               # (2, 3) float, one projectile's range box
    b: np.ndarray               # (2, 3) float, the other's
    point: np.ndarray           # (3,) float, A7 point of the two


class ThrowContact(NamedTuple):
    """A throw landing or broken: the thrower's hand on the thrown body (``match.throw_contacts``)."""

    hand: np.ndarray            # (2, 3) float, the grab's first hit limb's range box (as judged)
    body: np.ndarray            # (2, 3) float, the thrown fighter's ``throw.struck_limb`` box
    point: np.ndarray           # (3,) float, A7 point of the two, read-only


class FrameContacts(NamedTuple):
    """Stage 5's answer, one tuple per kind, in the order of :class:`Touches`' lists."""

    limb: tuple[LimbContact, ...]
    crate: tuple[CrateContact, ...]
    projectile: tuple[ProjectileContact, ...]
    clash: tuple[ClashContact, ...]


#: The contacts of a frame where nothing touches (most frames).
NO_CONTACTS = FrameContacts((), (), (), ())
