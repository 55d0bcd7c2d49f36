"""The match's whole state as a value: snapshot, restore and hash.

Everything that determines a match's future is in a :class:`Snapshot` (a picklable named
tuple of values; arrays that the match replaces rather than writes are kept by reference).
``state_hash`` digests the same state, identically in any process and on any machine: scalars
by ``repr`` of plain Python values (enum members as their string value, numpy scalars as the
numbers they equal), arrays as little-endian float64 bytes.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Mapping
from enum import Enum
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .ai.plan import hash_text
from .events import Event
from .fighter import SCALARS
from .inputs import FrameInput

if TYPE_CHECKING:
    from .match import Match

#: The match's own scalars, in snapshot and hash order.
MATCH_SCALARS = ("frame", "round", "phase", "phase_frame", "timer", "winner", "over")


class Snapshot(NamedTuple):
    """Everything that determines a match's future (``Match.snapshot``; restore it with
    ``Match.restore``).  Picklable: restore an unpickled one into a match made the same way."""

    match: tuple                # the values of MATCH_SCALARS
    round_winner: int | None    # winner of the round being closed (for the win pose)
    fighters: tuple             # each fighter's ``scalars()``
    poses: tuple                # each fighter's (pose, pose_from, local, body), read-only arrays by reference
    rng: Mapping[str, Any]      # the PCG64 bit generator's state
    ai: tuple                   # each side's CPU plan (a copy)
    last_inputs: tuple[FrameInput, FrameInput]   # the inputs of the last step
    pending: tuple[Event, ...]  # events waiting for the next step to return (a round's start)
    stage: tuple | None         # ``Stage.snapshot()``, or None on a bare floor
    # The range boxes as stepped, (rot, origin, boxes): after a round restart they still show
    # the last frame's poses, so rebuilding them on restore would change state_hash().
    limbs: tuple[np.ndarray, np.ndarray, np.ndarray]


def snapshot(m: Match) -> Snapshot:
    """Everything that determines ``m``'s future."""
    return Snapshot(
        match=tuple(getattr(m, n) for n in MATCH_SCALARS),
        round_winner=m.round_winner,
        fighters=tuple(f.scalars() for f in m.fighters),
        # read-only and replaced, never written in place (``Fighter.take_pose``): kept by reference
        poses=tuple((f.pose, f.pose_from, f.local, f.body) for f in m.fighters),
        rng=m.rng.bit_generator.state,
        ai=tuple(s.copy() for s in m.ai_state),
        last_inputs=m.last_inputs,
        pending=tuple(m.pending),
        stage=m.stage.snapshot() if m.stage is not None else None,
        limbs=m.limbs.snapshot(),
    )


def restore(m: Match, snap: Any) -> None:
    """Put ``m`` back in the state of ``snap`` (a :class:`Snapshot`).

    ``snap`` may come from another match on the same arena (or the same bare floor) and
    fighter data; anything else raises ValueError before the match is changed."""
    _check(m, snap)
    for n, v in zip(MATCH_SCALARS, snap.match):
        setattr(m, n, v)
    m.round_winner = snap.round_winner
    for f, s, (p, pf, local, body) in zip(m.fighters, snap.fighters, snap.poses):
        f.set_scalars(s)
        f.restore_pose(p, pf, local, body)
    m.rng.bit_generator.state = snap.rng
    m.ai_state = [s.copy() for s in snap.ai]
    m.last_inputs = snap.last_inputs
    m.pending = list(snap.pending)
    if m.stage is not None and snap.stage is not None:
        m.stage.restore(snap.stage)
    m.limbs.restore(*snap.limbs)
    m.contacts = m.crate_contacts = m.projectile_contacts = m.clash_contacts = ()
    m.throw_contacts = ()


def _check(m: Match, snap: Any) -> None:
    """ValueError, naming the fix, unless ``snap`` is a :class:`Snapshot` that fits ``m``."""
    if not isinstance(snap, Snapshot):
        got = f"a tuple of {len(snap)} items" if isinstance(snap, tuple) else type(snap).__name__
        raise ValueError(f"Match.restore: snap must be a tuple from Match.snapshot() (a Snapshot), got {got}; "
                         f"take one with snap = match.snapshot()")
    if (snap.stage is None) != (m.stage is None):
        where = ("a bare floor (arena=False)", "the arena") if snap.stage is None else \
            ("the arena", "a bare floor (arena=False)")
        raise ValueError(f"Match.restore: snap is of a match on {where[0]}, this match is on {where[1]}; "
                         f"restore it into a match made with the same arena setting")
    if m.stage is not None and snap.stage is not None and len(snap.stage[0]) != len(m.stage.crates):
        raise ValueError(f"Match.restore: snap is of an arena with {len(snap.stage[0])} crates, this match's "
                         f"has {len(m.stage.crates)}; restore it into a match on the same arena")
    if snap.limbs[2].shape != m.limbs.boxes.shape:
        raise ValueError(f"Match.restore: snap has limb boxes {snap.limbs[2].shape}, this match "
                         f"{m.limbs.boxes.shape}; restore it into a match made with the same fighter data (assets_dir)")


def state_hash(m: Match) -> str:
    """SHA-256 of the whole state, identical for the same seed and inputs in any process."""
    h = hashlib.sha256()
    h.update(repr(_plain(_value(getattr(m, n)) for n in MATCH_SCALARS)).encode())
    h.update(repr(m.round_winner).encode())
    for f in m.fighters:
        s = f.scalars()
        h.update(repr(_plain((*s[:_STATE], _value(s[_STATE]), *s[_STATE + 1:]))).encode())
        h.update(_le_bytes(f.pose))
        h.update(_le_bytes(f.pose_from))
    rs = m.rng.bit_generator.state
    st = rs["state"]
    h.update(struct.pack("<QQQQ", st["state"] & (2**64 - 1), st["state"] >> 64, st["inc"] & (2**64 - 1),
                         st["inc"] >> 64))
    if rs["has_uint32"]:
        # PCG64 keeps the unused half of a 64-bit output for the next 32-bit draw (the CPU's
        # rng.integers); with it the same state/inc draws other numbers.  Tagged "U": what
        # follows otherwise starts with "[", so no two states hash alike by this.
        h.update(struct.pack("<cI", b"U", rs["uinteger"]))
    h.update(hash_text(m.ai_state).encode())            # repr([s.hash_items() for s in m.ai_state])
    h.update(_le_bytes(m.limbs.boxes))
    if m.stage is not None:
        h.update(m.stage.state_bytes())
    return h.hexdigest()


_STATE = SCALARS.index("state")            # where Fighter.scalars() has the (enum) state
_PLAIN_TYPES = frozenset((int, float, bool, str, type(None)))


def _value(v: Any) -> Any:
    """An enum member as its plain value (the string it stands for), anything else as it is."""
    return v.value if isinstance(v, Enum) else v


def _plain(values: Any) -> tuple:
    """``values`` with numpy scalars as the Python numbers they equal: a tool that sets
    ``fighter.x = np.float64(0.5)`` sets the same state as ``0.5`` (repr would differ)."""
    values = tuple(values)
    if _PLAIN_TYPES.issuperset(map(type, values)):       # the usual case, in one C-level pass
        return values
    return tuple(v.item() if isinstance(v, np.generic) else v for v in values)


def _le_bytes(a: np.ndarray) -> bytes:
    """``a``'s values as little-endian float64 bytes in C order (the same bytes on a
    big-endian machine as on a little-endian one)."""
    return np.ascontiguousarray(a, dtype="<f8").tobytes()
