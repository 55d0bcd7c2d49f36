"""The observation's layout: which element of the float32 vector holds what.

The observation is one ``(N,) float32`` vector (or, with ``observation="dict"``, the same
numbers cut into named arrays).  Everything in it is seen from the learner's side: "self" is
the learner's fighter, "opponent" the other, whether the learner plays P1 or P2.  Positions
are world metres (the arena is not symmetric, so nothing is mirrored); frame counts are given
in seconds (frames / 60).

Blocks, in order (:class:`ObsLayout` holds each one's slice; ``docs/rl.md`` has the table):

* ``self``, ``opponent``: :data:`FIGHTER_FIELDS`, then the fighter's state one-hot
  (:data:`STATES`), its move one-hot (the move table's order; all zero: no move) and the
  move's phase one-hot (:data:`MOVE_PHASES`);
* ``relative``: :data:`RELATIVE_FIELDS`, the opponent in the learner's own facing frame;
* ``projectiles``: two slots of :data:`PROJECTILE_FIELDS`, the learner's projectile then the
  opponent's (a fighter has at most one in flight);
* ``match``: :data:`MATCH_FIELDS`, then the match phase one-hot (:data:`PHASES`);
* ``self_limbs``, ``opponent_limbs``: the limbs' range boxes (A6), ``(L, 2, 3)`` ``[min, max]``
  flattened, as ``Fighter.limb_boxes()`` gives them;
* ``crates``: one row of :data:`CRATE_FIELDS` per breakable crate of the arena (none on a bare
  floor), in ``Stage.crates`` order.

The first five blocks are contiguous (``ObsLayout.scalars``): the observer writes them from one
list of Python floats each step, then copies the two box arrays; the crate rows change only
when a crate is struck.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from game.sim.fighter import FighterState
from game.sim.rounds import Phase

#: One fighter's scalars, in order: (name, low, high, meaning).
FIGHTER_FIELDS: tuple[tuple[str, float, float, str], ...] = (
    ("x", -100.0, 100.0, "ground position x (m, world)"),
    ("y", -100.0, 100.0, "floor height under it (m)"),
    ("z", -100.0, 100.0, "ground position z (m, world)"),
    ("facing_x", -1.0, 1.0, "unit facing, x"),
    ("facing_z", -1.0, 1.0, "unit facing, z"),
    ("vx", -10.0, 10.0, "knockback slide or jump drift, x (m / frame)"),
    ("vz", -10.0, 10.0, "knockback slide or jump drift, z (m / frame)"),
    ("lift", 0.0, 100.0, "height above the ground (m): a jump's, or a fall's"),
    ("health", 0.0, 1.0, "health left, a fraction of the maximum"),
    ("wins", 0.0, 5.0, "rounds won in this match"),
    ("stun", 0.0, 10.0, "hitstun, blockstun, knockdown or throw left (s)"),
    ("hitstop", 0.0, 10.0, "hitstop left (s)"),
    ("busy", 0.0, 20.0, "time until it can start a move (s): hitstop, then stun or the rest of its move"),
    ("state_time", 0.0, 10.0, "time in its current state (s), capped at 10"),
    ("move_time", 0.0, 10.0, "time into its current move (s); 0 with no move"),
    ("guard", 0.0, 2.0, "this frame's guard: 0 none, 1 standing, 2 crouching"),
    ("combo", 0.0, 100.0, "hits of the combo it is taking"),
    ("move_hit", 0.0, 1.0, "1: its current move has made contact"),
    ("airborne", 0.0, 1.0, "1: in a jump, or falling from one"),
)
#: The fighter states of the state one-hot, in order.
STATES: tuple[str, ...] = tuple(s.value for s in FighterState)
#: The move phases of the move-phase one-hot, in order (all zero: no move).
MOVE_PHASES = ("startup", "active", "recovery")
#: The opponent as the learner sees it (its own facing frame).
RELATIVE_FIELDS: tuple[tuple[str, float, float, str], ...] = (
    ("ahead", -200.0, 200.0, "opponent's offset along the learner's facing (m)"),
    ("aside", -200.0, 200.0, "opponent's offset to the learner's right (m)"),
    ("distance", 0.0, 300.0, "centre-to-centre ground distance (m)"),
)
#: One projectile slot.
PROJECTILE_FIELDS: tuple[tuple[str, float, float, str], ...] = (
    ("present", 0.0, 1.0, "1: this fighter has a projectile in flight"),
    ("x", -100.0, 100.0, "centre x (m)"),
    ("y", -100.0, 100.0, "centre y (m)"),
    ("z", -100.0, 100.0, "centre z (m)"),
    ("vx", -10.0, 10.0, "velocity x (m / frame)"),
    ("vz", -10.0, 10.0, "velocity z (m / frame)"),
    ("age", 0.0, 10.0, "time in flight (s)"),
)
#: One crate row.
CRATE_FIELDS: tuple[tuple[str, float, float, str], ...] = (
    ("whole", 0.0, 1.0, "1: never struck"),
    ("struck", 0.0, 1.0, "1: struck, still standing"),
    ("broken", 0.0, 1.0, "1: broken apart (gone)"),
    ("material", 0.0, 1.0, "its shell's volume left, a fraction of the whole crate's"),
    ("x", -100.0, 100.0, "centre of its box x (m)"),
    ("y", -100.0, 100.0, "centre of its box y (m)"),
    ("z", -100.0, 100.0, "centre of its box z (m)"),
)
#: Match-wide numbers; the phase one-hot follows in :data:`PHASES` order.
MATCH_FIELDS: tuple[tuple[str, float, float, str], ...] = (
    ("timer", 0.0, 1.0, "round timer left, a fraction of the round's length"),
    ("round", 0.0, 5.0, "rounds played before this one"),
    ("side", 0.0, 1.0, "the learner's side: 0 P1, 1 P2"),
)
#: The match phases of the phase one-hot, in order.
PHASES: tuple[str, ...] = tuple(p.value for p in Phase)
#: Projectile slots: the learner's, then the opponent's.
PROJECTILE_SLOTS = 2
#: A frame count's scale in the observation: seconds.
PER_FRAME = 1.0 / 60.0
#: Limb boxes' bounds (m).
BOX_BOUND = 100.0


@dataclass(frozen=True)
class ObsLayout:
    """Where each block sits in the flat observation, for ``limbs`` limbs, ``moves`` moves and
    ``crates`` crates.  Each slice indexes the ``(size,)`` vector; ``shapes`` gives the shape
    each block takes in the Dict observation."""

    limbs: int                                   # L, limbs per fighter
    moves: tuple[str, ...]                       # the move one-hot's order
    crates: int                                  # crate rows (0 on a bare floor)
    slices: dict[str, slice]                     # block name -> its slice of the vector
    shapes: dict[str, tuple[int, ...]]           # block name -> its shape in the Dict observation
    low: np.ndarray                              # (size,) float32, each element's lower bound
    high: np.ndarray                             # (size,) float32, each element's upper bound

    @property
    def size(self) -> int:
        """Elements of the flat observation."""
        return int(self.low.shape[0])

    @property
    def scalars(self) -> slice:
        """The blocks ``self`` to ``match``, contiguous: the part written from Python floats."""
        return slice(0, self.slices["match"].stop)

    @property
    def fighter_size(self) -> int:
        """Elements of one fighter block: its scalars and its three one-hots."""
        return len(FIGHTER_FIELDS) + len(STATES) + len(self.moves) + len(MOVE_PHASES)


def _bounds(fields: tuple[tuple[str, float, float, str], ...]) -> tuple[list[float], list[float]]:
    return [f[1] for f in fields], [f[2] for f in fields]


def make_layout(limbs: int, moves: tuple[str, ...], crates: int) -> ObsLayout:
    """The layout for a match of ``limbs`` limbs a fighter, ``moves`` (names, in the move
    table's order) and ``crates`` breakable crates."""
    lo_f, hi_f = _bounds(FIGHTER_FIELDS)
    onehots = len(STATES) + len(moves) + len(MOVE_PHASES)
    fighter = (lo_f + [0.0] * onehots, hi_f + [1.0] * onehots)
    boxes = ([-BOX_BOUND] * (limbs * 6), [BOX_BOUND] * (limbs * 6))
    lo_p, hi_p = _bounds(PROJECTILE_FIELDS)
    lo_c, hi_c = _bounds(CRATE_FIELDS)
    lo_m, hi_m = _bounds(MATCH_FIELDS)
    blocks: list[tuple[str, tuple[int, ...], tuple[list[float], list[float]]]] = [
        ("self", (len(fighter[0]),), fighter),
        ("opponent", (len(fighter[0]),), fighter),
        ("relative", (len(RELATIVE_FIELDS),), _bounds(RELATIVE_FIELDS)),
        ("projectiles", (PROJECTILE_SLOTS, len(PROJECTILE_FIELDS)), (lo_p * PROJECTILE_SLOTS, hi_p * PROJECTILE_SLOTS)),
        ("match", (len(MATCH_FIELDS) + len(PHASES),), (lo_m + [0.0] * len(PHASES), hi_m + [1.0] * len(PHASES))),
        ("self_limbs", (limbs, 2, 3), boxes),
        ("opponent_limbs", (limbs, 2, 3), boxes),
        ("crates", (crates, len(CRATE_FIELDS)), (lo_c * crates, hi_c * crates)),
    ]
    slices: dict[str, slice] = {}
    shapes: dict[str, tuple[int, ...]] = {}
    low: list[float] = []
    high: list[float] = []
    for name, shape, (lo, hi) in blocks:
        slices[name] = slice(len(low), len(low) + len(lo))
        shapes[name] = shape
        low += lo
        high += hi
    return ObsLayout(limbs, tuple(moves), crates, slices, shapes,
                     np.array(low, dtype=np.float32), np.array(high, dtype=np.float32))
