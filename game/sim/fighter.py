"""One fighter's state: plain scalars plus the pose arrays, with read-only views."""

from __future__ import annotations

import weakref

import numpy as np

#: Scalar state, in hash order.  Everything a fighter is, besides ``pose``/``pose_from``.
SCALARS = (
    "x", "z", "fx", "fz", "vx", "vz",
    "health", "wins",
    "state", "move", "mframe", "move_hit",
    "stun", "stun_height", "hitstop", "guard", "combo",
    "loop_t", "pose_key", "blend_left",
    "prev_bits", "input_bits", "buf_move", "buf_left",
    "crate_hit", "ground_y", "gx", "gz",
)

#: Values of ``Fighter.state``.
NEUTRAL_STATES = ("idle", "walk_fwd", "walk_back", "sidestep", "crouch", "block_stand", "block_crouch")


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
        self.pose = np.zeros((n_limbs, 3))
        self.pose_from = np.zeros((n_limbs, 3))
        #: Joint rotations ``(L, 3, 3)`` for ``pose``: a read-only table row or a fresh array.
        self.local = np.broadcast_to(np.eye(3), (n_limbs, 3, 3))
        #: ``local`` posed in the body frame ``(12, L, 4)`` (``Skeleton.body``), set with it.
        self.body: np.ndarray | None = None
        for name in SCALARS:
            setattr(self, name, 0)

    @property
    def _match(self):
        return self._match_ref()

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
        return self.move == "jump"

    def frame_phase(self) -> str:
        """What a training frame meter shows for this frame:
        'startup', 'active', 'recovery', 'hitstun', 'blockstun', 'jump' or 'neutral'."""
        if self.state == "hitstun":
            return "hitstun"
        if self.state == "blockstun":
            return "blockstun"
        if self.move:
            mv = self._match.data.moves[self.move]
            return "jump" if self.move == "jump" else mv.phase(self.mframe)
        return "neutral"

    def scalars(self) -> tuple:
        return tuple(getattr(self, n) for n in SCALARS)

    def set_scalars(self, values: tuple) -> None:
        for n, v in zip(SCALARS, values):
            setattr(self, n, v)
