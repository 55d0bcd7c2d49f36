"""Both fighters' limb range boxes of this frame (A6), and A2-A4 on all their pairs.

Stage 3 of a step (A8) places each fighter's body-frame pose (``Fighter.body``) on the
ground at its facing; every limb's range box is the bounding box of its rotated solid's eight
corners (A6).  The boxes are kept padded to four lanes (A1: the rows :class:`PairJudge`
judges), and the boxes proper are a view of those rows, so each frame builds one array.
Stage 4 asks :meth:`LimbBoxes.pairs` for the verdict on every (P1 limb, P2 limb) pair, made by
the first question of a frame that needs it and shared by both fighters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from game.collision import PairJudge, padded_boxes

from .skeleton import Skeleton

if TYPE_CHECKING:
    from .fighter import Fighter, PendingPose

#: A fighter's body-frame FK ``(12, L, 4)``, or what makes it (``Fighter.placed_body``).
Body: TypeAlias = "np.ndarray | PendingPose"
#: A fighter's place ``(fx, fz, gx, gy, gz, lift)``, Python floats.
Place = tuple[float, float, float, float, float, float]


class _Placed:
    """A :class:`LimbBoxes` array (``rot``, ``origin``, ``padded``, ``boxes``): placed by its first
    read after :meth:`LimbBoxes.place` (:meth:`LimbBoxes._settle`), kept in ``_<name>``.  A tool
    that sets one sets it in place of the placed one."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.attr = "_" + name

    def __get__(self, obj: LimbBoxes | None, objtype: type | None = None) -> Any:
        if obj is None:                  # read on the class
            return self
        if obj._pending is not None:
            obj._settle()
        return getattr(obj, self.attr)

    def __set__(self, obj: LimbBoxes, value: np.ndarray) -> None:
        if obj._pending is not None:     # placed first, so that no later read replaces this value
            obj._settle()
        setattr(obj, self.attr, value)


class LimbBoxes:
    """The range boxes of both fighters' limbs, rebuilt every step (A6).

    ``boxes`` : (2, L, 2, 3) float, ``[min, max]`` of each fighter's limbs (a view of ``padded``);
    ``padded`` : (2, L, 2, 4) float, the same with a zero pad lane (A1 rows for the judge);
    ``rot`` : (2, L, 3, 3) float, each limb's world rotation (columns = limb axes);
    ``origin`` : (2, L, 3) float, each limb's joint origin.
    Values: read-only, replaced (never written in place) each step, so a tool holding one
    keeps that frame's and cannot change the match through it; a snapshot copies them.
    """

    def __init__(self, skeleton: Skeleton) -> None:
        n = len(skeleton.names)
        self.skeleton = skeleton
        self._padded = _frozen(padded_boxes(np.zeros((2, n, 2, 3))))
        self._boxes = self._padded[..., :3]
        self._rot = _frozen(np.zeros((2, n, 3, 3)))
        self._origin = _frozen(np.zeros((2, n, 3)))
        #: What the arrays are still to be placed from (both bodies and both places), or None
        #: when they are current: see :meth:`place`.
        self._pending: tuple[Body, Body, list[Place]] | None = None
        self._judge = PairJudge.all_pairs(n, n)        # A2-A4 on every (P1 limb, P2 limb) pair
        self._pairs: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None   # this frame's, on demand
        #: What the boxes were last placed from: both bodies (kept, so no other array takes
        #: their ids) and both places; None after a restore.
        self._placed: tuple[Body, Body, list[Place]] | None = None

    # The arrays, placed when first read after a place(): a function of what place() was
    # given (read-only bodies, plain floats), so a step that reads none of them (most steps
    # of a fight have no active hitting limb, no projectile and no throw) places nothing.
    rot = _Placed()
    origin = _Placed()
    padded = _Placed()
    boxes = _Placed()

    def place(self, a: Fighter, b: Fighter) -> None:
        """A6: every limb's range box from its rotated solid's eight corners.

        Each fighter's pose in its own frame (``f.body``, forward kinematics) comes from
        the animation tables, or was computed this frame for a blend; here both bodies
        are turned to their facing and set on the ground, corners included: when the arrays
        are first read (:meth:`_settle`), from the bodies and places of this call (a fighter
        moved after it, as a thrown one is on a grab's frame, does not move its boxes).

        When both bodies are the arrays of the last placing and both fighters stand where they
        stood then, facing the same way (an idle, guarding or stunned pair: two steps in five
        of a CPU fight), the boxes are those of the last frame and are kept: the result is a
        function of those values alone (read-only bodies; a ``-0.0`` in a place, equal to
        ``0.0`` here, gives the same boxes)."""
        places = [(float(f.fx), float(f.fz), float(f.x), float(f.ground_y), float(f.z), f.lift()) for f in (a, b)]
        body_a, body_b = a.placed_body(), b.placed_body()    # a blend frame's body: made when placed
        last = self._placed
        if last is not None and last[0] is body_a and last[1] is body_b and last[2] == places:
            self._pairs = None
            return
        self._placed = self._pending = (body_a, body_b, places)
        self._pairs = None

    def _settle(self) -> None:
        """Place the arrays from what the last :meth:`place` was given."""
        assert self._pending is not None
        a_src, b_src, places = self._pending
        self._pending = None
        a_body, b_body = (s if isinstance(s, np.ndarray) else s.resolve()[1] for s in (a_src, b_src))
        rot, origin, padded = self.skeleton.place_rows(np.concatenate((a_body[None], b_body[None])), places)
        rot.setflags(write=False)
        origin.setflags(write=False)
        padded.setflags(write=False)
        self._rot, self._origin, self._padded = rot, origin, padded
        self._boxes = padded[..., :3]              # (2, L, 2, 3), a view: one array per frame

    def pairs(self, attacker: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A2-A4 on every (attacker limb, defender limb) pair of this frame: ``ok (L, L)``
        bool and the judgement points ``j1, j2 (L, L, 4)`` (pad lanes past 3).

        All ``L x L`` pairs are judged in one :class:`PairJudge` call, made by the first
        check of a frame that needs it (most frames have no active hitting limb), and serve
        both fighters: the verdict and the judgement points are symmetric in the two boxes,
        so P2's view is P1's transposed."""
        if self._pairs is None:
            # (L, L), (L, L, 4) x 2: views of the judge's buffers, refilled by its next call,
            # which comes after place() or restore() has dropped this cache.
            self._pairs = self._judge.check(self.padded.reshape(-1, 4))
        ok, j1, j2 = self._pairs
        if attacker == 0:
            return ok, j1, j2
        return ok.T, j1.transpose(1, 0, 2), j2.transpose(1, 0, 2)

    def snapshot(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Copies of ``rot``, ``origin`` and ``boxes``."""
        return self.rot.copy(), self.origin.copy(), self.boxes.copy()

    def restore(self, rot: np.ndarray, origin: np.ndarray, boxes: np.ndarray) -> None:
        """Put back what :meth:`snapshot` copied (copied again: the snapshot stays unchanged)."""
        self._rot, self._origin = _frozen(rot.copy()), _frozen(origin.copy())
        self._padded = _frozen(padded_boxes(boxes))
        self._boxes = self._padded[..., :3]
        self._pairs = None
        self._placed = self._pending = None


def _frozen(a: np.ndarray) -> np.ndarray:
    """``a``, made read-only (the match's own fresh arrays)."""
    a.setflags(write=False)
    return a
