"""A server's room reduced to its spectators, for the spectator's tests: it answers a
spectator's Join with a Joined, feeds the confirmed inputs it is given through a
:class:`~game.server.spectators.SpectatorFeed`, and sends its verdict (a RoomEnd).  No socket
and no clock: datagrams in (``handle``), datagrams out (``poll``), the time passed in."""

from __future__ import annotations

from game.net import room_protocol as wire
from game.server.spectators import SpectatorFeed

#: The room's netplay key and settings, as a Joined gives them.
KEY = 0x5EED
ROOM = "dojo"


class FakeRoom:
    """A room whose match plays ``inputs`` (``(p1, p2)`` per frame) with ``seed``, ``rounds``
    and ``timer``; frames are confirmed when the test says (:meth:`confirm_to`)."""

    def __init__(self, inputs: list[tuple[int, int]], *, seed: int = 0, rounds: int = 3, timer: int = 60,
                 digest: bytes | None = None, feed: SpectatorFeed | None = None) -> None:
        self.inputs, self.seed, self.rounds, self.timer = inputs, seed, rounds, timer
        self.digest = digest
        self.feed = feed if feed is not None else SpectatorFeed()
        self._tokens: dict[tuple[object, int], int] = {}       # (address, nonce) -> token
        self._out: list[tuple[bytes, object]] = []
        self.joins = 0
        self.acks = 0
        self.left: list[int] = []

    def handle(self, data: bytes, addr: object, now: float) -> None:
        """One datagram from a spectator (anything malformed is ignored)."""
        try:
            token, msg = wire.parse(data)
        except wire.ProtocolError:
            return
        if isinstance(msg, wire.Join):
            self._join(msg, addr, now)
        elif isinstance(msg, wire.SpectatorAck) and token in self.feed:
            self.acks += 1
            self.feed.handle_ack(token, msg.next_frame, now)
        elif isinstance(msg, wire.Leave) and token in self.feed:
            self.left.append(token)
            self.feed.remove(token)

    def _join(self, msg: wire.Join, addr: object, now: float) -> None:
        self.joins += 1
        if msg.room != ROOM or msg.role == 0:
            self._out.append((wire.encode(wire.Refused(msg.nonce, wire.REFUSALS.index("full"), bytes(32)), 0),
                              addr))
            return
        if self.digest is not None and msg.digest != self.digest:
            self._out.append((wire.encode(wire.Refused(msg.nonce, wire.REFUSALS.index("digest"), self.digest),
                                          0), addr))
            return
        token = self._tokens.setdefault((addr, msg.nonce), 1000 + len(self._tokens))
        if not self.feed.add(token, addr, now):
            self._out.append((wire.encode(wire.Refused(msg.nonce, wire.REFUSALS.index("spectators"),
                                                       bytes(32)), 0), addr))
            return
        joined = wire.Joined(msg.nonce, 1, wire.NO_SIDE, KEY, self.seed, self.rounds, self.timer, 1)
        self._out.append((wire.encode(joined, token), addr))

    def confirm_to(self, frame: int) -> None:
        """Frames up to ``frame`` (of ``inputs``) are now confirmed."""
        while self.feed.frames < min(frame, len(self.inputs)):
            self.feed.push(*self.inputs[self.feed.frames])

    def finish(self, verdict: wire.RoomEnd, *, repeats: int = 3) -> None:
        """The match is over: the feed ends, and every spectator is sent ``verdict`` (repeated,
        as a datagram may be lost)."""
        self.feed.end()
        for _ in range(repeats):
            for token, addr in self.feed.addresses():
                self._out.append((wire.encode(verdict, token), addr))

    def poll(self, now: float) -> list[tuple[bytes, object]]:
        """``(datagram, address)`` to send now."""
        out, self._out = self._out, []
        return out + self.feed.poll(now)
