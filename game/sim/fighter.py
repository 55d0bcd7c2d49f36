"""One fighter's state: declared plain scalars plus the pose arrays, with read-only views.

The scalars (``SCALARS``, in hash order) are plain instance attributes, so ``scalars()`` reads
them in one C-level call and ``set_scalars()`` writes them in one dict update: both run in
every snapshot, restore and hash.

The pose arrays (``pose``, ``pose_from``, ``local``, ``body``) are values: read-only, and
replaced by the match each frame rather than written in place.  So a renderer or tool can
hold one (it keeps that frame's value), cannot change the match through it (numpy raises
``ValueError: assignment destination is read-only``), and a snapshot keeps them by reference.
A tool sets one by assignment (``fighter.pose = angles``), which stores a read-only copy; the
match hands over its own read-only arrays by reference (:meth:`Fighter.take_pose`).
"""

from __future__ import annotations

import operator
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .data import GameData, Move
    from .limbs import LimbBoxes


class PendingPose(Protocol):
    """A pose's rotations and body still to be made (``posing.PendingBlend``)."""

    def resolve(self) -> tuple[np.ndarray, np.ndarray]:
        """``(local (L, 3, 3), body (12, L, 4))``, read-only; the same arrays on every call."""
        ...


class FighterState(StrEnum):
    """What a fighter is doing.  A ``str`` enum: each member equals its string
    (``FighterState.IDLE == "idle"``), so readers outside the simulation may compare with
    strings; ``state_hash`` hashes the plain value."""

    IDLE = "idle"                   # standing free
    WALK_FWD = "walk_fwd"           # walking toward the opponent
    WALK_BACK = "walk_back"         # walking away
    SIDESTEP = "sidestep"           # stepping to its own left or right
    CROUCH = "crouch"               # crouching (down held)
    BLOCK_STAND = "block_stand"     # guarding standing (guard held)
    BLOCK_CROUCH = "block_crouch"   # guarding crouching (guard + down)
    ATTACK = "attack"               # in a move (an attack, a throw's grab or hold)
    JUMP = "jump"                   # in the jump move
    HITSTUN = "hitstun"             # reeling from a hit
    BLOCKSTUN = "blockstun"         # reeling from a blocked hit, or a broken throw
    KNOCKDOWN = "knockdown"         # floored by a sweep: falling, lying, getting up; nothing strikes it
    THROWN = "thrown"               # held by a throw's grab, then slammed, lying, getting up; nothing strikes it
    KO = "ko"                       # knocked out (the round is over)
    WIN = "win"                     # the round's winner, posing


# Each member as a module constant too: the per-frame code compares states many times a step,
# and reading a module global is several times cheaper than an enum class attribute (Python 3.11).
IDLE = FighterState.IDLE
WALK_FWD = FighterState.WALK_FWD
WALK_BACK = FighterState.WALK_BACK
SIDESTEP = FighterState.SIDESTEP
CROUCH = FighterState.CROUCH
BLOCK_STAND = FighterState.BLOCK_STAND
BLOCK_CROUCH = FighterState.BLOCK_CROUCH
ATTACK = FighterState.ATTACK
JUMP = FighterState.JUMP
HITSTUN = FighterState.HITSTUN
BLOCKSTUN = FighterState.BLOCKSTUN
KNOCKDOWN = FighterState.KNOCKDOWN
THROWN = FighterState.THROWN
KO = FighterState.KO
WIN = FighterState.WIN

#: States in which the fighter is free (it can start a move).
NEUTRAL_STATES = (IDLE, WALK_FWD, WALK_BACK, SIDESTEP,
                  CROUCH, BLOCK_STAND, BLOCK_CROUCH)
#: States in which nothing strikes a fighter, fist or fireball, and it cannot act: floored by a
#: sweep, or thrown (held, slammed, lying, getting up).  A frame meter shows both as "knockdown".
DOWN_STATES = (KNOCKDOWN, THROWN)
#: States whose body lies on the ground (or is thrown onto it), kept out of walls, pillars and
#: crates (``movement.fit_lying``).
LYING_STATES = (KNOCKDOWN, KO, THROWN)
#: States posed from a looping animation (``GameData.loops``), stepped by ``Fighter.loop_t``.
LOOP_STATES = (WALK_FWD, WALK_BACK, SIDESTEP)
#: States in which a held guard button guards (``Fighter.guard``).
GUARD_STATES = (BLOCK_STAND, BLOCK_CROUCH, BLOCKSTUN)

#: Scalar state, in hash order.  Everything a fighter is, besides ``pose``/``pose_from``.
SCALARS = (
    "x", "z", "fx", "fz", "vx", "vz",
    "health", "wins",
    "state", "move", "mframe", "move_hit",
    "stun", "stun_height", "hitstop", "guard", "combo",
    "loop_t", "pose_key", "blend_left",
    "prev_bits", "input_bits", "buf_move", "buf_left", "lone", "presses",
    "crate_hit", "ground_y", "gx", "gz",
    "air",
)
#: Every scalar zero, as a round starts them before setting its own (``rounds.start_round``).
ZERO_SCALARS = (0,) * len(SCALARS)

_GET_SCALARS = operator.attrgetter(*SCALARS)   # a tuple of all of them, in one C-level call


class Fighter:
    """A fighter in a :class:`~game.sim.Match`.

    Game code reads and writes the plain attributes listed in ``SCALARS`` (declared below, in
    that order); tools and the renderer use the read-only methods below.
    """

    # ---- scalar state (SCALARS): plain instance attributes, no defaults here -------------
    x: float                # m, ground position (x-z plane)
    z: float
    fx: float               # unit x-z facing, toward the opponent while free
    fz: float
    vx: float               # m / frame: knockback slide (decays), or a jump's drift
    vz: float
    health: int             # health points left
    wins: int               # rounds won
    state: FighterState     # what it is doing
    move: str               # the move playing ("" for none)
    mframe: int             # that move's frame, from 0
    move_hit: bool          # that move has made contact (hit, block or grab)
    stun: int               # frames of hitstun, blockstun, knockdown or throw left
    stun_height: str        # the height of what stunned it ("high", "mid", "low"; "" none)
    hitstop: int            # frames frozen left
    guard: int              # this frame's guard: 0 none, 1 standing, 2 crouching
    combo: int              # its place in the combo it is taking (the damage scaling's index)
    loop_t: int             # frames into the walking and sidestep loops
    pose_key: str           # the animation source of the last posed frame (a change starts a blend)
    blend_left: int         # blend frames left
    prev_bits: int          # last frame's input bits (a press is a bit that was not held then)
    input_bits: int         # this frame's input bits
    buf_move: str           # the buffered command ("" for none)
    buf_left: int           # frames the buffer keeps it
    lone: int               # the button of a lone press a second one may still pair with
    presses: int            # presses of the last frames, one 16-bit slot a frame, newest lowest
    crate_hit: bool         # this move has struck a crate (once per move)
    ground_y: float         # m, floor height under it (the last ground ray's)
    gx: float               # where the last ground ray was cast (x, z)
    gz: float
    air: float              # m above the ground while falling from a jump it was hit out of

    def __init__(self, index: int, data: GameData, limbs: LimbBoxes) -> None:
        self.index = index
        self.max_health = data.max_health
        self._data = data
        self._limbs = limbs         # the match's range boxes, read by limb_boxes() / limb_frames()
        n_limbs = len(data.skeleton.names)
        self._pose = _frozen(np.zeros((n_limbs, 3)))
        self._pose_from = self._pose
        self._local = np.broadcast_to(np.eye(3), (n_limbs, 3, 3))
        self._body = _frozen(np.zeros((12, n_limbs, 4)))
        #: A blend frame's ``(local, body)`` still to be made (:meth:`take_pending_pose`), or None
        self._pending: PendingPose | None = None
        self.set_scalars(ZERO_SCALARS)

    # ---- pose arrays: read-only values, replaced (never written in place) by the match ----
    @property
    def pose(self) -> np.ndarray:
        """Joint angles ``(L, 3)`` float (radians) of this frame, read-only.  Hashed state."""
        return self._pose

    @pose.setter
    def pose(self, value: object) -> None:
        self._pose = _frozen_copy(value, self._pose.shape, "pose")

    @property
    def pose_from(self) -> np.ndarray:
        """Joint angles ``(L, 3)`` float the current pose blend started from, read-only.  Hashed state."""
        return self._pose_from

    @pose_from.setter
    def pose_from(self, value: object) -> None:
        self._pose_from = _frozen_copy(value, self._pose_from.shape, "pose_from")

    @property
    def local(self) -> np.ndarray:
        """Joint rotations ``(L, 3, 3)`` float for ``pose`` (``euler_matrices``), read-only."""
        if self._pending is not None:
            self._resolve()
        return self._local

    @local.setter
    def local(self, value: object) -> None:
        if self._pending is not None:
            self._resolve()
        self._local = _frozen_copy(value, self._local.shape, "local")

    @property
    def body(self) -> np.ndarray:
        """``local`` posed in the body frame ``(12, L, 4)`` float (``Skeleton.body``), read-only:
        the next step places it to rebuild the range boxes (A6)."""
        if self._pending is not None:
            self._resolve()
        return self._body

    @body.setter
    def body(self, value: object) -> None:
        if self._pending is not None:
            self._resolve()
        self._body = _frozen_copy(value, self._body.shape, "body")

    def placed_body(self) -> np.ndarray | PendingPose:
        """:attr:`body`, or while a blend frame's is still to be made, what makes it (its
        ``resolve()[1]``): what the range boxes record at stage 3 without making it."""
        return self._body if self._pending is None else self._pending

    def _resolve(self) -> None:
        """Make the pending blend frame's rotations and body (:meth:`take_pending_pose`)."""
        assert self._pending is not None
        self._local, self._body = self._pending.resolve()
        self._pending = None

    # ---- the match's ways to set them: its own read-only arrays, taken by reference ------
    def take_pose(self, pose: np.ndarray, local: np.ndarray, body: np.ndarray) -> None:
        """This frame's pose: angles ``(L, 3)``, rotations ``(L, 3, 3)`` and body-frame FK
        ``(12, L, 4)``, each read-only (table rows, or a blend's fresh arrays made so)."""
        self._pose, self._local, self._body = pose, local, body
        self._pending = None

    def take_pending_pose(self, pose: np.ndarray, pending: PendingPose) -> None:
        """:meth:`take_pose` of a blend frame: its angles ``(L, 3)`` (read-only), and what
        makes its rotations and body when they are first read (``pending.resolve()``:
        ``(local, body)``, read-only)."""
        self._pose, self._pending = pose, pending

    def begin_blend(self) -> None:
        """The animation source changed: the blend to the new one starts from this pose."""
        self._pose_from = self._pose

    def reset_pose(self, pose: np.ndarray, local: np.ndarray, body: np.ndarray) -> None:
        """A round's start: :meth:`take_pose` with no blend under way (``pose_from`` is ``pose``)."""
        self._pose = self._pose_from = pose
        self._local, self._body = local, body
        self._pending = None

    def restore_pose(self, pose: object, pose_from: object, local: object, body: object) -> None:
        """The four arrays from a snapshot, by reference when read-only float64 (a writable
        one, as from an unpickled snapshot, is taken as a read-only copy)."""
        self._pose, self._pose_from = frozen_value(pose), frozen_value(pose_from)
        self._local, self._body = frozen_value(local), frozen_value(body)
        self._pending = None

    # ---- read-only views -------------------------------------------------
    @property
    def limb_names(self) -> tuple[str, ...]:
        return self._data.skeleton.names

    def limb_boxes(self) -> np.ndarray:
        """Current range boxes ``(L, 2, 3)`` (A6), rebuilt every step."""
        return self._limbs.boxes[self.index].copy()

    def limb_frames(self) -> tuple[np.ndarray, np.ndarray]:
        """World rotation ``(L, 3, 3)`` (columns = limb axes) and joint origin ``(L, 3)``.

        With ``Skeleton.center``/``half`` this places each limb's oriented solid.
        """
        return self._limbs.rot[self.index].copy(), self._limbs.origin[self.index].copy()

    @property
    def position(self) -> np.ndarray:
        """Ground point ``(3,)``."""
        return np.array([self.x, self.ground_y, self.z])

    @property
    def facing(self) -> np.ndarray:
        """Unit x–z forward vector ``(2,)``."""
        return np.array([self.fx, self.fz])

    @property
    def airborne(self) -> bool:
        """In a jump, or falling from one it was hit out of (``air`` m above the ground)."""
        return self.move == "jump" or self.air > 0.0

    def lift(self) -> float:
        """The fighter's height above the ground (m): its jump's, or what is left of the fall
        from a jump it was hit out of (``air``)."""
        return float(self._data.moves["jump"].air[self.mframe]) if self.move == "jump" else float(self.air)

    def busy_frames(self, moves: Mapping[str, Move]) -> int:
        """Frames until this fighter can start a move: its hitstop, then its stun or the rest
        of its move (``moves``: the move table); 0 when free."""
        if self.stun > 0:
            left = self.stun
        elif self.move:
            left = moves[self.move].total - self.mframe
        else:
            left = 0
        return self.hitstop + left

    def frames_to_act(self, moves: Mapping[str, Move]) -> int:
        """The step, counted from the next one (1), on which this fighter can start a move:
        after its hitstop, then its stun or the rest of its move; a free fighter can on the
        next step.  A hit's frame advantage is the defender's minus the attacker's."""
        return self.busy_frames(moves) + (0 if self.stun > 0 or self.move else 1)

    def frame_phase(self) -> str:
        """What a training frame meter shows for this frame:
        'startup', 'active', 'recovery', 'hitstun', 'knockdown', 'blockstun', 'jump' or
        'neutral'.  'knockdown' is ``state == "knockdown"`` (floored by a sweep: falling, lying,
        getting up), a phase of its own: like hitstun the fighter cannot act (it lasts the
        knocking move's hitstun, the knockdown animation), but nothing can strike it, so a
        meter shows it apart (the wake-up frame is where a meaty must meet it)."""
        if self.state == HITSTUN:
            return "hitstun"
        if self.state in DOWN_STATES:
            return "knockdown"
        if self.state == BLOCKSTUN:
            return "blockstun"
        if self.move:
            mv = self._data.moves[self.move]
            return "jump" if self.move == "jump" else mv.phase(self.mframe)
        return "neutral"

    def scalars(self) -> tuple:
        """The values of ``SCALARS``, in that order."""
        return _GET_SCALARS(self)

    def set_scalars(self, values: tuple) -> None:
        """Set ``SCALARS`` from ``values`` (as :meth:`scalars` returns them)."""
        # plain instance attributes (no property among SCALARS): one dict update, not a setattr each
        vars(self).update(zip(SCALARS, values))


def _frozen(a: np.ndarray) -> np.ndarray:
    """``a``, made read-only (the match's own fresh arrays)."""
    a.flags.writeable = False
    return a


def frozen_value(a: object) -> np.ndarray:
    """``a`` if it is already a read-only float64 array, else a read-only float64 copy of it:
    how the match takes arrays back from a snapshot (an unpickled one is writable)."""
    if isinstance(a, np.ndarray) and not a.flags.writeable and a.dtype == np.float64:
        return a
    return _frozen(np.array(a, dtype=np.float64))


def _frozen_copy(value: object, shape: tuple, name: str) -> np.ndarray:
    """A tool's assignment to a pose array: a read-only float64 copy of the right shape."""
    try:
        a = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"Fighter.{name}: expected an array of {shape} numbers, got {type(value).__name__}") from None
    if a.shape != tuple(shape):
        raise ValueError(f"Fighter.{name}: expected shape {tuple(shape)}, got {a.shape}; "
                         f"assign an array of the fighter's own shape (e.g. from another fighter's {name})")
    return _frozen(a)
