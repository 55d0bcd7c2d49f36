"""Posing: each frame's joint angles from the animation tables, blended on a change.

A fighter's pose comes from one animation source a frame (:func:`target_pose`): its move's
table row, a walking loop's, the knockdown or thrown animation's, or a state's still pose.
When the source changes, the pose blends from where it was for ``BLEND_FRAMES`` frames
(not into an active frame: a strike shows at once).  Table rows come with their rotations
and body-frame forward kinematics precomputed, so an unblended frame computes nothing.
"""

from __future__ import annotations

import numpy as np

from .data import GameData
from .fighter import (
    BLOCK_CROUCH,
    BLOCK_STAND,
    BLOCKSTUN,
    CROUCH,
    HITSTUN,
    IDLE,
    KNOCKDOWN,
    KO,
    LOOP_STATES,
    THROWN,
    WIN,
    Fighter,
)
from .skeleton import euler_matrices

BLEND_FRAMES = 4           # pose blend when the animation source changes

#: The still pose of each state that has one (any other state without a move: "stance").
STATE_POSE = {IDLE: "stance", CROUCH: "crouch", BLOCK_STAND: "block_stand",
              BLOCK_CROUCH: "block_crouch", KO: "ko", WIN: "win"}


#: id of an animation table -> (the table, its rows as views): see :func:`rows`
_ROWS: dict[int, tuple[np.ndarray, tuple[np.ndarray, ...]]] = {}
#: id of a row :func:`rows` made -> the row (kept alive by :data:`_ROWS`): see :func:`is_table_row`
_ROW_OF: dict[int, np.ndarray] = {}


def rows(table: np.ndarray) -> tuple[np.ndarray, ...]:
    """The rows of a read-only animation table as views made once, so a row is the same
    array object every frame it is posed: what the trunk test caches its extents by
    (``movement.trunk_rect``).  The entry keeps its table alive, so no other table takes its id."""
    entry = _ROWS.get(id(table))
    if entry is None or entry[0] is not table:
        entry = _ROWS[id(table)] = (table, tuple(table))
        _ROW_OF.update((id(row), row) for row in entry[1])
    return entry[1]


def is_table_row(body: np.ndarray) -> bool:
    """True when ``body`` is one of :func:`rows`' views of a table (not a blend's own array)."""
    return _ROW_OF.get(id(body)) is body


def target_pose(d: GameData, f: Fighter) -> tuple[str, np.ndarray, np.ndarray, np.ndarray]:
    """The animation source of this frame: (key, angles (L, 3), rotations (L, 3, 3),
    body-frame FK (12, L, 4))."""
    if f.move:
        mv = d.moves[f.move]
        return "m:" + f.move, mv.angles[f.mframe], mv.rot[f.mframe], rows(mv.body)[f.mframe]
    if f.state in LOOP_STATES:
        i = f.loop_t % d.loops[f.state].shape[0]
        return "l:" + f.state, d.loops[f.state][i], d.loop_rot[f.state][i], rows(d.loop_body[f.state])[i]
    if f.state == KNOCKDOWN:
        # frame 0 on the hit's (and its hitstop's) frames, the last one on the frame before
        # the fighter is free: the stun counts down the animation's own length
        i = min(max(d.knockdown_frames - f.stun, 0), d.knockdown_frames - 1)
        return "d:knockdown", d.knockdown[i], d.knockdown_rot[i], rows(d.knockdown_body)[i]
    if f.state == THROWN:                # the same, from the grab
        n = d.thrown.shape[0]
        i = min(max(n - f.stun, 0), n - 1)
        return "d:thrown", d.thrown[i], d.thrown_rot[i], rows(d.thrown_body)[i]
    if f.state == HITSTUN:
        key = "hit_" + f.stun_height
    elif f.state == BLOCKSTUN:
        key = "block_crouch" if f.guard == 2 else "block_stand"
    else:
        key = STATE_POSE.get(f.state, "stance")
    return key, d.poses[key], d.pose_rot[key], d.pose_body[key]


def source_bodies(d: GameData, key: str) -> np.ndarray | None:
    """Every body-frame FK ``(..., 12, L, 4)`` the animation source ``key`` (as
    :func:`target_pose` names it, ``Fighter.pose_key``) can pose: a table's rows, or a still
    pose's one; None for a key that names none."""
    kind, _, name = key.partition(":")
    if kind == "m" and name in d.moves:
        return d.moves[name].body
    if kind == "l" and name in d.loop_body:
        return d.loop_body[name]
    if key == "d:knockdown":
        return d.knockdown_body
    if key == "d:thrown":
        return d.thrown_body
    return d.pose_body.get(key)


#: A blend frame's pose: angles ``(L, 3)``, rotations ``(L, 3, 3)``, body-frame FK ``(12, L, 4)``.
Blend = tuple[np.ndarray, np.ndarray, np.ndarray]


class BlendMemo:
    """A match's blend frames already computed, by what they are computed from: the blend's
    start and target angles and the blend frames left.  A blend frame costs forward kinematics
    (``Skeleton.body``) and its sines and cosines, and the same transitions recur all fight
    long (about half of a CPU fight's blend frames are found here).  Not state: a pure
    function's results, the same in any order.

    The ``KEPT`` slots are allocated with the match (about 1.5 MB), so a match's memory does
    not grow as they fill; when all are used they are all forgotten.  A blend found is handed
    out as read-only copies of its slot, fresh arrays as a computed one is (a slot is written
    again later; what a fighter or a snapshot holds never changes)."""

    KEPT = 256

    def __init__(self, n_limbs: int) -> None:
        self._slot: dict[int, int] = {}                       # hash of a key -> its slot
        self._used = 0                                        # slots filled since the last clear
        self._left = [-1] * self.KEPT                         # each slot's blend frames left
        self._ends = np.zeros((self.KEPT, 2, n_limbs, 3))     # each slot's start and target angles
        self._angles = np.zeros((self.KEPT, n_limbs, 3))
        self._local = np.zeros((self.KEPT, n_limbs, 3, 3))
        self._body = np.zeros((self.KEPT, 12, n_limbs, 4))

    def blend(self, d: GameData, start: np.ndarray, target: np.ndarray, left: int) -> Blend:
        """The pose ``left`` frames before the end of the blend from ``start`` to ``target``
        (angles ``(L, 3)``), each array read-only."""
        sb, tb = start.tobytes(), target.tobytes()
        h = hash((sb, tb, left))
        k = self._slot.get(h)
        if k is not None and self._left[k] == left and self._ends[k, 0].tobytes() == sb \
                and self._ends[k, 1].tobytes() == tb:                 # the same bits: the same blend
            return _frozen_copy(self._angles[k]), _frozen_copy(self._local[k]), _frozen_copy(self._body[k])
        done = _blend(d, start, target, left)
        if self._used == self.KEPT:
            self._slot.clear()
            self._used = 0
        k = self._used
        self._used += 1
        self._slot[h] = k
        self._left[k] = left
        self._ends[k, 0], self._ends[k, 1] = start, target
        self._angles[k], self._local[k], self._body[k] = done
        return done


def _frozen_copy(a: np.ndarray) -> np.ndarray:
    """A read-only copy of ``a``."""
    c = a.copy()
    c.flags.writeable = False
    return c


def blend_angles(start: np.ndarray, target: np.ndarray, left: int) -> np.ndarray:
    """The joint angles ``(L, 3)`` ``left`` frames before the end of the blend from ``start``
    to ``target``, read-only."""
    w = 1.0 - left / BLEND_FRAMES
    angles = start + (target - start) * w
    angles.flags.writeable = False
    return angles


class PendingBlend:
    """A blend frame's rotations and body-frame FK, computed when first asked for
    (:meth:`resolve`): the angles are state and made at once, but the forward kinematics only
    serves the range boxes, the trunk and lying-body fits and a snapshot, which most blend
    frames of a fight do not ask for (``Fighter.body``)."""

    __slots__ = ("_args", "_done")

    def __init__(self, d: GameData, memo: BlendMemo | None, start: np.ndarray, target: np.ndarray,
                 left: int) -> None:
        self._args: tuple[GameData, BlendMemo | None, np.ndarray, np.ndarray, int] | None = \
            (d, memo, start, target, left)
        self._done: tuple[np.ndarray, np.ndarray] | None = None

    def resolve(self) -> tuple[np.ndarray, np.ndarray]:
        """``(local (L, 3, 3), body (12, L, 4))``, read-only, computed once (the same arrays
        on every call): ``BlendMemo.blend``'s (or ``_blend``'s, with no memo)."""
        if self._done is None:
            assert self._args is not None
            d, memo, start, target, left = self._args
            _, local, body = _blend(d, start, target, left) if memo is None else memo.blend(d, start, target, left)
            self._done, self._args = (local, body), None
        return self._done


def _blend(d: GameData, start: np.ndarray, target: np.ndarray, left: int) -> Blend:
    """:meth:`BlendMemo.blend` computed: the angles, their rotations and body-frame FK."""
    angles = blend_angles(start, target, left)
    local = euler_matrices(angles, d.table_sin_cos)
    local.flags.writeable = False
    fk = d.skeleton.body(local)
    fk.flags.writeable = False
    return angles, local, fk


def pose(d: GameData, f: Fighter, memo: BlendMemo | None = None) -> None:
    """Set the fighter's joint angles and rotations for this frame, blending
    for a few frames when the animation source changes (``memo``: the match's blend frames
    already computed; None computes each).

    The arrays are replaced, never written in place, and all are read-only (table rows, or a
    blend's fresh arrays made so): ``f.pose`` and the others hand out no writable view of the
    match's state, and a snapshot keeps them by reference.  A blend frame's rotations and
    body are made when first read (:class:`PendingBlend`)."""
    key, target, rot, body = target_pose(d, f)
    if key != f.pose_key:
        f.pose_key = key
        f.begin_blend()
        f.blend_left = BLEND_FRAMES if f.frame_phase() != "active" else 0
    if f.blend_left > 0:
        f.blend_left -= 1
        f.take_pending_pose(blend_angles(f.pose_from, target, f.blend_left),
                            PendingBlend(d, memo, f.pose_from, target, f.blend_left))
    else:
        f.take_pose(target, rot, body)
