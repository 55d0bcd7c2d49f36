"""The handshake before a match: the joiner's Hello, the host's Welcome or Refuse.

Like the session, it holds no socket and no clock: datagrams in (``handle_datagram``), datagrams
out (``poll``), ``now`` passed in.  The joiner sends a Hello (its random token and digest) every
``HELLO_EVERY`` s until the host answers.  The host answers a Hello whose digest equals its own
with a Welcome that fixes the match (:class:`MatchSettings`) and takes the token as the match's
key; any other with a Refuse carrying its own digest, so the joiner can say which part differs
(:func:`settings_digest`: a digest is four 8-byte parts).  A Hello of another protocol version
is refused as such.  Handshake datagrams are checked with key 0.

Once agreed (``result`` is an :class:`Agreed`), each side makes a ``P2PSession(agreed.side,
agreed.peer, now, key=agreed.key, ...)``.  The host keeps passing datagrams to its handshake
first: a repeated Hello (the Welcome was lost) is answered again, and ``handle_datagram``
returns False for everything else, which goes to the session.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import NamedTuple

from game.sim.ai.levels import LEVELS

from . import protocol as wire

#: The parts of a digest, and each part's bytes (a SHA-256 prefix).
DIGEST_PARTS = 4
PART_BYTES = wire.DIGEST_BYTES // DIGEST_PARTS
#: Seconds between a joiner's Hellos.
HELLO_EVERY = 0.25
_LEVELS = tuple(LEVELS)


def settings_digest(parts: Sequence[bytes]) -> bytes:
    """The 32-byte digest of up to four byte strings (say the game version, ``moves.json``,
    ``fighters.json`` and the arena's files): the first 8 bytes of each one's SHA-256, in order
    (a missing part is zeros)."""
    if len(parts) > DIGEST_PARTS:
        raise ValueError(f"settings_digest: at most {DIGEST_PARTS} parts, got {len(parts)}")
    out = b"".join(hashlib.sha256(p).digest()[:PART_BYTES] for p in parts)
    return out + bytes(wire.DIGEST_BYTES - len(out))


def differing_parts(a: bytes, b: bytes) -> tuple[int, ...]:
    """The indices of the parts in which two digests differ."""
    return tuple(i for i in range(DIGEST_PARTS) if a[i * PART_BYTES:(i + 1) * PART_BYTES]
                 != b[i * PART_BYTES:(i + 1) * PART_BYTES])


class MatchSettings(NamedTuple):
    """What the host fixes for both sides."""

    seed: int                 # the match's seed, below 2**64
    p1_cpu: str | None        # P1's CPU level (a key of LEVELS), None for a player
    p2_cpu: str | None        # the same for P2
    rounds: int               # best of 1, 3 or 5
    timer: int                # seconds a round lasts
    host_side: int            # 0 the host is P1, 1 P2


class Agreed(NamedTuple):
    """The handshake succeeded: make the session with these."""

    peer: object              # the other side's address
    key: int                  # the session's key (the Hello's token)
    side: int                 # this side's player: 0 P1, 1 P2
    settings: MatchSettings


class Failed(NamedTuple):
    """The handshake failed (the joiner's result)."""

    reason: str               # "busy", "version", "digest", "settings" or "no answer"
    parts: tuple[int, ...]    # for "digest": the indices of the parts that differ
    detail: str               # one line for the user


def _welcome(token: int, digest: bytes, s: MatchSettings) -> wire.Welcome:
    def code(level: str | None) -> int:
        return 0 if level is None else 1 + _LEVELS.index(level)
    return wire.Welcome(token, digest, s.seed, code(s.p1_cpu), code(s.p2_cpu), s.rounds, s.timer, s.host_side)


def _settings(w: wire.Welcome) -> MatchSettings:
    def level(code: int) -> str | None:
        return None if code == 0 else _LEVELS[code - 1]
    return MatchSettings(w.seed, level(w.p1_cpu), level(w.p2_cpu), w.rounds, w.timer, w.host_side)


class HostHandshake:
    """The host's side: waits for one joiner whose digest is ``digest``."""

    def __init__(self, digest: bytes, settings: MatchSettings) -> None:
        wire.encode(_welcome(0, digest, settings), 0)     # a setting out of range raises now
        self.digest, self.settings = digest, settings
        #: None while waiting, then the :class:`Agreed`.
        self.result: Agreed | None = None
        self._out: list[tuple[bytes, object]] = []
        self._seq = 0

    def handle_datagram(self, data: bytes, addr: object, now: float) -> bool:
        """Take a datagram: True if it was the handshake's (a Hello), False for anything else
        (the session's, once agreed)."""
        try:
            _, msg = wire.parse(data, 0)
        except wire.ProtocolError as e:
            if e.reason == "version" and self.result is None:
                self._send(wire.Refuse(0, wire.REFUSALS.index("version"), self.digest), addr)
                return True
            return False
        if not isinstance(msg, wire.Hello):
            return False
        agreed = self.result
        if agreed is not None:
            if addr == agreed.peer and msg.token == agreed.key:
                self._send(_welcome(msg.token, self.digest, self.settings), addr)     # the Welcome was lost
            else:
                self._send(wire.Refuse(msg.token, wire.REFUSALS.index("busy"), self.digest), addr)
            return True
        if msg.digest != self.digest:
            self._send(wire.Refuse(msg.token, wire.REFUSALS.index("digest"), self.digest), addr)
            return True
        self.result = Agreed(addr, msg.token, self.settings.host_side, self.settings)
        self._send(_welcome(msg.token, self.digest, self.settings), addr)
        return True

    def poll(self, now: float) -> list[tuple[bytes, object]]:
        """``(datagram, address)`` pairs to send now."""
        out, self._out = self._out, []
        return out

    def _send(self, msg: wire.Message, addr: object) -> None:
        self._out.append((wire.encode(msg, self._seq, 0), addr))
        self._seq += 1


class JoinHandshake:
    """The joiner's side: asks ``host`` with ``token`` (a random u32 the caller draws) and
    ``digest``; gives up after ``give_up`` s with no answer."""

    def __init__(self, host: object, digest: bytes, token: int, now: float, *, give_up: float = 10.0) -> None:
        self.host, self.digest, self.token = host, digest, token & 0xFFFFFFFF
        self._hello = wire.encode(wire.Hello(self.token, digest), 0, 0)
        self._start, self._last = now, -1.0
        self.give_up = give_up
        #: None while asking, then an :class:`Agreed` or a :class:`Failed`.
        self.result: Agreed | Failed | None = None

    def handle_datagram(self, data: bytes, addr: object, now: float) -> bool:
        """Take a datagram: True if it answered the Hello."""
        if addr != self.host or self.result is not None:
            return False
        try:
            _, msg = wire.parse(data, 0)
        except wire.ProtocolError as e:
            if e.reason == "version":
                self.result = Failed("version", (), f"the host speaks netplay protocol version {data[2]}, "
                                                    f"this game {wire.VERSION}: both need the same Rangebox")
                return True
            return False
        if isinstance(msg, wire.Welcome) and msg.token == self.token:
            if msg.digest != self.digest:
                return False                      # not an answer to this Hello
            self.result = Agreed(addr, self.token, 1 - msg.host_side, _settings(msg))
            return True
        if isinstance(msg, wire.Refuse) and msg.token in (self.token, 0):
            reason = wire.REFUSALS[msg.reason]
            parts = differing_parts(self.digest, msg.digest) if reason == "digest" else ()
            self.result = Failed(reason, parts, f"the host refused: {reason}")
            return True
        return False

    def poll(self, now: float) -> list[bytes]:
        """The Hello, every ``HELLO_EVERY`` s while unanswered (send each to ``host``)."""
        if self.result is not None:
            return []
        if now - self._start > self.give_up:
            self.result = Failed("no answer", (), f"no answer from the host in {self.give_up:g} s")
            return []
        if now - self._last >= HELLO_EVERY:
            self._last = now
            return [self._hello]
        return []
