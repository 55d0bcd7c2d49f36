"""Method B with method A: many compounds' small boxes against many limb boxes, once per frame.

:class:`CompoundGroup` answers "which limb boxes touch which small boxes" (A2-A4) for every
crate of an arena.  Almost every frame the limbs are near no crate, so the test narrows in
levels (the limbs' union box, then each limb, against each compound's bounds) before any
small box is tested; at these sizes numpy's per-call cost is the price, so every operand of
the first levels is made once and reused.
"""

from __future__ import annotations

import math
import operator
from typing import Any, NamedTuple, Sequence

import numpy as np

from .compound import Compound
from .layout import CompoundError, readonly

__all__ = ["GroupTouch", "GroupPairs", "CompoundGroup"]

_LO_NEG_HI = np.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0])
_multiply, _less_equal = np.multiply, np.less_equal
# minimum propagates a NaN into the union box, where the finiteness test below finds it
_min_reduce, _and_reduce = np.minimum.reduce, np.logical_and.reduce
_NINF = -math.inf
_NO_PAIRS = readonly(np.zeros(0, dtype=np.intp))
_NOT_PACKED = readonly(np.zeros((6, 0)))
#: CompoundGroup.touching tests more limbs than this against each near compound's bounds
#: first (level 2); up to this many, level 3 on all of them costs less.
_LEVEL2_MIN_LIMBS = 8
#: CompoundGroup keeps its level-1/2 operands tiled for at most this many limb counts.
_MAX_TILE_SIZES = 8


class GroupTouch(NamedTuple):
    """The limbs that touch one compound of a :class:`CompoundGroup`, and where."""

    compound: int          # index into ``group.compounds``
    limbs: np.ndarray      # (m,) intp: limb indices, ascending
    rows: np.ndarray       # (m,) intp: the touched rows of that compound's ``boxes``, by limb then row


class GroupPairs(NamedTuple):
    """Group-wide (limb, row) pairs that touch, by limb then row (:meth:`CompoundGroup.pairs`)."""

    limbs: np.ndarray      # (M,) intp: limb k[i] ...
    rows: np.ndarray       # (M,) intp: ... touches group row n[i]


class _Packed(NamedTuple):
    """One compound's boxes packed for the A4 test, and the boxes array they were packed from."""

    source: np.ndarray | None   # (K, 2, 3) the compound's ``boxes`` when packed (None: not yet)
    packed: np.ndarray          # (6, K) float [hi, -lo]


class _Tiles(NamedTuple):
    """:meth:`CompoundGroup.touching`'s operands for one limb count L.  A ufunc on two operands
    of one shape takes numpy's trivial-loop path, cheaper at these sizes than broadcasting a
    ``(6,)`` row."""

    sign: np.ndarray            # (L, 6) float, read-only: [1, 1, 1, -1, -1, -1] per limb
    bounds: list[np.ndarray]    # per compound (L, 6) float, read-only: its packed bounds [hi, -lo] per limb
    q: np.ndarray               # (L, 6) float scratch: the limbs packed [lo, -hi]
    q3: np.ndarray              # (L, 6, 1) view of ``q``
    fit: np.ndarray             # (L, 6) bool scratch: level 2's verdicts


class _Concat(NamedTuple):
    """The compounds' boxes concatenated, and the boxes arrays they were built from."""

    key: list[np.ndarray]   # each compound's ``boxes`` when built
    boxes: np.ndarray       # (N, 2, 3) float, read-only
    owner: np.ndarray       # (N,) int32, read-only: the compound of each row
    offsets: np.ndarray     # (C + 1,) int64, read-only: the row range of each compound


class CompoundGroup:
    """All small boxes of several compounds as one array, for one method-A pass.

    ``group.boxes`` (N, 2, 3) is the concatenation of every compound's boxes,
    ``group.owner`` (N,) int32 the compound index of each row, ``group.offsets``
    (C + 1,) the row ranges.  They are rebuilt only when read after some compound
    was struck: :meth:`touching` (the per-frame path), :meth:`pairs` and
    :meth:`overlaps` work from each touched compound's own packed boxes, repacked
    only for the compound a strike changed.

    :meth:`touching` answers the per-frame question "which limb boxes touch which
    small boxes" with the same verdict as
    ``range_box.overlaps(limbs[:, None], group.boxes[None])`` (A2-A4), but first
    tests the limbs' union box and then each limb against each compound's bounds,
    and only the limbs near a compound against its small boxes.  :meth:`pairs` is
    the same answer as group-wide ``(limb, row)`` pairs, :meth:`overlaps` as an
    ``(L, N)`` matrix.

    A strike always installs a new (read-only) boxes array, so array identity is the key of
    everything cached here.  After a rollback, put the restored compounds into
    ``group.compounds``.
    """

    __slots__ = ("compounds", "_concat", "_off_key", "_off_list", "_packed", "_pb_list", "_pb_rows", "_tiles")

    def __init__(self, compounds: Sequence[Compound]):
        self.compounds = list(compounds)
        for i, c in enumerate(self.compounds):
            if not isinstance(c, Compound):
                raise CompoundError(f"compounds[{i}]: expected a Compound, got {type(c).__name__}")
        self._concat: _Concat | None = None
        self._off_key: list[np.ndarray] | None = None
        self._off_list: list[int] = [0]
        self._packed: list[_Packed] = [_Packed(None, _NOT_PACKED)] * len(self.compounds)
        # a compound's bounds never change: the broad phase's boxes are packed once
        bnd = np.array([c.bounds for c in self.compounds]).reshape(-1, 2, 3)
        pb = readonly(np.concatenate((bnd[:, 1], -bnd[:, 0]), axis=1))        # (C, 6) [hi, -lo]
        self._pb_list = [tuple(r) for r in pb.tolist()]                       # as Python floats (level 1)
        self._pb_rows = list(pb)                                              # as (6,) rows (level 2)
        self._tiles: dict[int, _Tiles] = {}                                   # L -> _tiles_of(L)

    # touching() only needs each touched compound's packed array, pairs() the row offsets
    # too: the concatenated arrays are built on demand.

    def _offsets_now(self) -> list[int]:
        """Row offsets ``(C + 1)`` of the compounds' current boxes, as Python ints."""
        key = [c.boxes for c in self.compounds]
        old = self._off_key
        if old is None or not all(map(operator.is_, old, key)):
            off = [0]
            for a in key:
                off.append(off[-1] + a.shape[0])
            self._off_key, self._off_list = key, off
        return self._off_list

    def _packed_of(self, c: int) -> np.ndarray:
        """Compound ``c``'s boxes packed ``(6, K)`` ``[hi, -lo]``: A4 as one comparison, a
        limb ``q = [lo, -hi]`` touches box ``p`` iff ``q <= p`` on all six lanes."""
        boxes = self.compounds[c].boxes
        src, p = self._packed[c]
        if src is not boxes:
            p = np.ascontiguousarray(np.concatenate((boxes[:, 1], -boxes[:, 0]), axis=1).T)
            self._packed[c] = _Packed(boxes, p)
        return p

    def _tiles_of(self, n: int) -> _Tiles:
        """The :class:`_Tiles` for ``n`` limbs (made once per limb count; callers use one or two)."""
        t = self._tiles.get(n)
        if t is None:
            if len(self._tiles) >= _MAX_TILE_SIZES:
                self._tiles.clear()
            q = np.empty((n, 6))
            t = _Tiles(readonly(np.tile(_LO_NEG_HI, (n, 1))), [readonly(np.tile(r, (n, 1))) for r in self._pb_rows],
                       q, q.reshape(n, 6, 1), np.empty((n, 6), dtype=bool))
            self._tiles[n] = t
        return t

    def _refresh(self) -> _Concat:
        key = [c.boxes for c in self.compounds]
        old = self._concat
        if old is not None and len(old.key) == len(key) and all(map(operator.is_, old.key, key)):
            return old
        counts = np.array([a.shape[0] for a in key], dtype=np.int64)
        boxes = np.ascontiguousarray(np.concatenate(key)) if key else np.zeros((0, 2, 3))
        self._concat = _Concat(key, readonly(boxes),
                               readonly(np.repeat(np.arange(len(key), dtype=np.int32), counts)),
                               readonly(np.concatenate(([0], np.cumsum(counts))).astype(np.int64)))
        return self._concat

    @property
    def boxes(self) -> np.ndarray:
        """(N, 2, 3) float, read-only: every compound's boxes, concatenated."""
        return self._refresh().boxes

    @property
    def owner(self) -> np.ndarray:
        """(N,) int32, read-only: the compound of each row of :attr:`boxes`."""
        return self._refresh().owner

    @property
    def offsets(self) -> np.ndarray:
        """(C + 1,) int64, read-only: compound ``c``'s rows are ``offsets[c]`` to ``offsets[c + 1]``."""
        return self._refresh().offsets

    def touching(self, limbs: Any) -> list[GroupTouch]:
        """A2-A4 of limb boxes against every small box: the touching pairs, compound by compound.

        Parameters
        ----------
        limbs : (L, 2, 3) float

        Returns
        -------
        list of :class:`GroupTouch`, one per compound that some limb touches, in compound
        order; each holds ``limbs`` (m,) intp and that compound's own box ``rows`` (m,) intp,
        by limb, then row.  This is the per-frame test (``Stage.touch``): the box a limb
        touches is ``compounds[c].boxes[row]``, with no group-wide row numbers to make
        and take apart again.

        Every test is A4 as one comparison on packed endpoints: a limb ``q = [lo, -hi]``
        touches a box ``p = [hi, -lo]`` iff ``q <= p`` on all six lanes, the same verdict as
        ``j2 >= j1`` on every axis for boxes with ``lo <= hi``.  Three levels, each on
        fewer boxes than the last:

        1. the limbs' union box against each compound's bounds (Python floats: C is small);
        2. for each compound that passes, every limb against its bounds (only for more
           than ``_LEVEL2_MIN_LIMBS`` limbs: for fewer, level 3 costs less than this);
        3. the limbs that pass against that compound's small boxes.
        """
        lb = np.asarray(limbs, dtype=float)
        if lb.ndim != 3 or lb.shape[1:] != (2, 3):
            raise CompoundError(f"limbs: expected (L, 2, 3) [min, max] boxes, got shape {lb.shape}")
        n = len(lb)
        if not n:
            return []
        # (every numpy call here is a module-level alias, positional arguments, into buffers
        # made once per limb count where the result does not leave this call: at these sizes
        # a lookup, a keyword or an allocation is a measurable share of a call)
        sign, bounds, q, q3, fit = self._tiles.get(n) or self._tiles_of(n)   # (L, 6) each: no broadcasting
        _multiply(lb.reshape(n, 6), sign, q)                               # (L, 6): [lo, -hi]
        u0, u1, u2, u3, u4, u5 = _min_reduce(q, 0).tolist()                # the union box, packed
        # A2-A4 need finite boxes (range_box.overlaps refuses others): a NaN, a -inf min or a
        # +inf max of any limb shows in the union (a NaN fails every comparison)
        if not (_NINF < u0 and _NINF < u1 and _NINF < u2 and _NINF < u3 and _NINF < u4 and _NINF < u5):
            raise CompoundError(f"limbs: box coordinates must be finite numbers, got NaN or infinity in "
                                f"{int(lb.size - np.isfinite(lb).sum())} of {lb.size}")
        out = []
        for c, (p0, p1, p2, p3, p4, p5) in enumerate(self._pb_list):       # level 1
            if not (u0 <= p0 and u1 <= p1 and u2 <= p2 and u3 <= p3 and u4 <= p4 and u5 <= p5):
                continue
            src, packed = self._packed[c]
            if src is not self.compounds[c].boxes:                         # struck since last packed
                packed = self._packed_of(c)
            # (the methods .nonzero() rather than np.nonzero / np.flatnonzero: at these sizes
            # the functions' Python wrappers cost about as much as the work)
            if n <= _LEVEL2_MIN_LIMBS:                                     # a punch's few limbs: straight to level 3
                k, row = _and_reduce(q3 <= packed, 1).nonzero()
            else:
                _less_equal(q, bounds[c], fit)                             # level 2
                li = _and_reduce(fit, 1).nonzero()[0]
                if not li.size:
                    continue
                i, row = _and_reduce(q3.take(li, 0) <= packed, 1).nonzero()
                k = li.take(i)
            if k.size:
                out.append(GroupTouch(c, k, row))
        return out

    def pairs(self, limbs: Any) -> GroupPairs:
        """:meth:`touching` as one list of group-wide pairs.

        Parameters
        ----------
        limbs : (L, 2, 3) float

        Returns
        -------
        :class:`GroupPairs` ``(k, n)``, each (M,) intp:
            Limb ``k[i]`` touches group row ``n[i]``, in the order of
            ``np.nonzero(range_box.overlaps(limbs[:, None], self.boxes[None]))`` (by limb,
            then by row): the same pairs, without the ``(L, N)`` verdict matrix.
        """
        touch = self.touching(limbs)
        if not touch:
            return GroupPairs(_NO_PAIRS, _NO_PAIRS)
        off = self._offsets_now()
        if len(touch) == 1:                                                # the usual case: one crate
            c, k, row = touch[0]
            return GroupPairs(k, row + off[c])
        k = np.concatenate([t.limbs for t in touch])
        n = np.concatenate([t.rows + off[t.compound] for t in touch])
        order = np.lexsort((n, k))
        return GroupPairs(k[order], n[order])

    def overlaps(self, limbs: Any) -> np.ndarray:
        """A4 verdict of every limb box against every small box.

        Parameters
        ----------
        limbs : (L, 2, 3) float

        Returns
        -------
        (L, N) bool, equal to ``range_box.overlaps(limbs[:, None], self.boxes[None])``:
        :meth:`pairs` spread into a matrix.
        """
        k, n = self.pairs(limbs)
        out = np.zeros((len(limbs), self._offsets_now()[-1]), dtype=bool)
        out[k, n] = True
        return out
