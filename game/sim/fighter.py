"""One fighter's state: plain scalars plus the pose arrays, with read-only views.

The pose arrays (``pose``, ``pose_from``, ``local``, ``body``) are values: read-only, and
replaced by the match each frame rather than written in place.  So a renderer or tool can
hold one (it keeps that frame's value), cannot change the match through it (numpy raises
``ValueError: assignment destination is read-only``), and a snapshot keeps them by reference.
A tool sets one by assignment (``fighter.pose = angles``), which stores a read-only copy."""

from __future__ import annotations

import operator
import weakref

import numpy as np

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

_GET_SCALARS = operator.attrgetter(*SCALARS)   # a tuple of all of them, in one C-level call

#: Values of ``Fighter.state`` in which the fighter is free (it can start a move).  The others:
#: "attack", "jump", "hitstun", "blockstun", "knockdown" (floored by a sweep: falling, lying,
#: getting up; nothing strikes it), "thrown" (held by a throw's grab, then slammed, lying and
#: getting up; nothing strikes it either), "ko", "win".
NEUTRAL_STATES = ("idle", "walk_fwd", "walk_back", "sidestep", "crouch", "block_stand", "block_crouch")
#: States in which nothing strikes a fighter, fist or fireball, and it cannot act: floored by a
#: sweep, or thrown (held, slammed, lying, getting up).  A frame meter shows both as "knockdown".
DOWN_STATES = ("knockdown", "thrown")


class Fighter:
    """A fighter in a :class:`~game.sim.Match`.

    Game code reads and writes the plain attributes listed in ``SCALARS``;
    tools and the renderer use the read-only methods below.
    """

    def __init__(self, match, index: int, max_health: int, n_limbs: int):
        # A weak link: no Match <-> Fighter cycle, so a finished match is freed at once.
        self._match_ref = weakref.ref(match)
        self.index = index
        self.max_health = max_health
        # The match sets these four directly, each frame, to read-only arrays (table rows or a
        # blend's fresh arrays) and never writes into them; everyone else goes through the
        # properties below.
        self._pose = _frozen(np.zeros((n_limbs, 3)))
        self._pose_from = self._pose
        self._local = np.broadcast_to(np.eye(3), (n_limbs, 3, 3))
        self._body: np.ndarray | None = None
        for name in SCALARS:
            setattr(self, name, 0)

    @property
    def _match(self):
        return self._match_ref()

    # ---- pose arrays: read-only values, replaced (never written in place) by the match ----
    @property
    def pose(self) -> np.ndarray:
        """Joint angles ``(L, 3)`` float (radians) of this frame, read-only.  Hashed state."""
        return self._pose

    @pose.setter
    def pose(self, value) -> None:
        self._pose = _frozen_copy(value, self._pose.shape, "pose")

    @property
    def pose_from(self) -> np.ndarray:
        """Joint angles ``(L, 3)`` float the current pose blend started from, read-only.  Hashed state."""
        return self._pose_from

    @pose_from.setter
    def pose_from(self, value) -> None:
        self._pose_from = _frozen_copy(value, self._pose_from.shape, "pose_from")

    @property
    def local(self) -> np.ndarray:
        """Joint rotations ``(L, 3, 3)`` float for ``pose`` (``euler_matrices``), read-only."""
        return self._local

    @local.setter
    def local(self, value) -> None:
        self._local = _frozen_copy(value, self._local.shape, "local")

    @property
    def body(self) -> np.ndarray | None:
        """``local`` posed in the body frame ``(12, L, 4)`` float (``Skeleton.body``), read-only:
        the next step places it to rebuild the range boxes (A6)."""
        return self._body

    @body.setter
    def body(self, value) -> None:
        shape = (12, self._pose.shape[0], 4) if self._body is None else self._body.shape
        self._body = _frozen_copy(value, shape, "body")

    # ---- read-only views -------------------------------------------------
    @property
    def limb_names(self) -> tuple[str, ...]:
        return self._match.data.skeleton.names

    def limb_boxes(self) -> np.ndarray:
        """Current range boxes ``(L, 2, 3)`` (A6), rebuilt every step."""
        return self._match._boxes[self.index].copy()

    def limb_frames(self) -> tuple[np.ndarray, np.ndarray]:
        """World rotation ``(L, 3, 3)`` (columns = limb axes) and joint origin ``(L, 3)``.

        With ``Skeleton.center``/``half`` this places each limb's oriented solid.
        """
        return self._match._rot[self.index].copy(), self._match._origin[self.index].copy()

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

    def busy_frames(self, moves) -> int:
        """Frames until this fighter can start a move: its hitstop, then its stun or the rest
        of its move (``moves``: the move table); 0 when free."""
        if self.stun > 0:
            left = self.stun
        elif self.move:
            left = moves[self.move].total - self.mframe
        else:
            left = 0
        return self.hitstop + left

    def frame_phase(self) -> str:
        """What a training frame meter shows for this frame:
        'startup', 'active', 'recovery', 'hitstun', 'knockdown', 'blockstun', 'jump' or
        'neutral'.  'knockdown' is ``state == "knockdown"`` (floored by a sweep: falling, lying,
        getting up), a phase of its own: like hitstun the fighter cannot act (it lasts the
        knocking move's hitstun, the knockdown animation), but nothing can strike it, so a
        meter shows it apart (the wake-up frame is where a meaty must meet it)."""
        if self.state == "hitstun":
            return "hitstun"
        if self.state in DOWN_STATES:
            return "knockdown"
        if self.state == "blockstun":
            return "blockstun"
        if self.move:
            mv = self._match.data.moves[self.move]
            return "jump" if self.move == "jump" else mv.phase(self.mframe)
        return "neutral"

    def scalars(self) -> tuple:
        return _GET_SCALARS(self)

    def set_scalars(self, values: tuple) -> None:
        # plain instance attributes (no property among SCALARS): one dict update, not a setattr each
        vars(self).update(zip(SCALARS, values))


def _frozen(a: np.ndarray) -> np.ndarray:
    """``a``, made read-only (the match's own fresh arrays)."""
    a.flags.writeable = False
    return a


def frozen_value(a) -> np.ndarray:
    """``a`` if it is already a read-only float64 array, else a read-only float64 copy of it:
    how the match takes arrays back from a snapshot (an unpickled one is writable)."""
    if isinstance(a, np.ndarray) and not a.flags.writeable and a.dtype == np.float64:
        return a
    return _frozen(np.array(a, dtype=np.float64))


def _frozen_copy(value, shape: tuple, name: str) -> np.ndarray:
    """A tool's assignment to a pose array: a read-only float64 copy of the right shape."""
    try:
        a = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"Fighter.{name}: expected an array of {shape} numbers, got {type(value).__name__}") from None
    if a.shape != tuple(shape):
        raise ValueError(f"Fighter.{name}: expected shape {tuple(shape)}, got {a.shape}; "
                         f"assign an array of the fighter's own shape (e.g. from another fighter's {name})")
    return _frozen(a)
