"""What a session asks of the game, and what it tells it (GGRS style: the session never calls
the game).

:meth:`~.session.P2PSession.advance` and :meth:`~.synctest.SyncTestSession.advance` return a
list of requests; the game carries them out in order before it calls the session again:

* :class:`SaveState`: keep a snapshot of the match (it is at the start of ``frame``) in
  ``slot``; when ``hash_wanted``, report its ``state_hash()`` with ``session.saved(frame, hash)``;
* :class:`LoadState`: restore the snapshot kept in ``slot`` (it holds ``frame``);
* :class:`AdvanceFrame`: step the match once with ``inputs`` (P1's and P2's 11-bit ints).

Events (``session.events()``) are what happened on the network that the game shows or acts on.
"""

from __future__ import annotations

from typing import NamedTuple


class SaveState(NamedTuple):
    """Save the match's state, which is at the start of ``frame``."""

    frame: int            # the match's frame now (``Match.frame``)
    slot: int             # where to keep it: an index below ``session.slots``
    hash_wanted: bool     # report ``state_hash()`` back with ``session.saved(frame, hash)``


class LoadState(NamedTuple):
    """Restore the state saved for ``frame`` (kept in ``slot``)."""

    frame: int            # the frame the match is at after the load
    slot: int             # the slot a SaveState of that frame used


class AdvanceFrame(NamedTuple):
    """Step the match once: frame ``frame`` with these inputs."""

    frame: int                  # the match's frame before the step
    inputs: tuple[int, int]     # (P1's bits, P2's bits): ``FrameInput.from_bits`` of each


Request = SaveState | LoadState | AdvanceFrame


class Interrupted(NamedTuple):
    """Nothing heard from the peer for ``silent`` seconds (the match runs on while it can)."""

    silent: float         # seconds since the last valid datagram


class Resumed(NamedTuple):
    """The peer is heard again after an :class:`Interrupted`."""

    silent: float         # how long the silence lasted (s)


class Disconnected(NamedTuple):
    """The session has ended: ``reason`` is ``"timeout"`` (nothing heard for ``timeout`` s),
    ``"peer left"`` (a Goodbye) or ``"closed"`` (this side's :meth:`close`)."""

    reason: str
    frame: int            # the newest frame whose inputs both sides know


class Desync(NamedTuple):
    """The two sides' states differ: the session has stopped (both sides learn of it)."""

    frame: int            # the first frame known to differ (a multiple of the hash interval)
    local_hash: str       # this side's state_hash of it (hex)
    remote_hash: str      # the peer's (hex)
    last_agreed: int      # the newest earlier frame whose hashes agreed, -1 for none


Event = Interrupted | Resumed | Disconnected | Desync
