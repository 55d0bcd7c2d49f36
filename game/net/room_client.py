"""A client's join of a server's room: Join until Joined (ready) or Refused (``docs/netplay.md``,
"The server").

Like :class:`~game.net.handshake.JoinHandshake`, it holds no socket and no clock: datagrams in
(:meth:`RoomJoin.handle_datagram`), datagrams out (:meth:`RoomJoin.poll`, each for the server),
``now`` passed in.  It sends a :class:`~.room_protocol.Join` every :data:`JOIN_EVERY` s until
the server answers for good:

- a player (``role`` 0) is told :class:`~.room_protocol.Joined` with ``ready`` 0 while the room
  waits for its opponent (it keeps sending its Join, which keeps its place), then ``ready`` 1
  when the match starts: :attr:`RoomJoin.result` becomes an :class:`~.handshake.Agreed` whose
  ``peer`` is the server, ``key`` the room's netplay key and ``side`` the player's;
- a spectator (``role`` 1, or 2 "play or spectate" when the room has its players) is agreed on
  its first Joined with role 1 (``side`` is :data:`~.room_protocol.NO_SIDE`);
- a :class:`~.room_protocol.Refused` ends it: :attr:`RoomJoin.result` is a
  :class:`~.handshake.Failed` whose ``reason`` is the refusal's word (``"full"``, ``"digest"``
  with the differing parts, ...); no answer in ``give_up`` s is ``"no answer"`` (once the room
  has answered, the wait for an opponent has no limit: a player waits as a host waits, as long
  as the server answers its repeated Joins; ``give_up`` s without an answer is ``"no answer"``).

Every answer must come from the server's address and echo the Join's nonce; once a Joined gave
a token, only datagrams carrying it count.  The agreed player's session runs unchanged: what it
sends goes to the server inside a Relay with :attr:`RoomJoin.token`
(:func:`wrap` / :func:`unwrap`).
"""

from __future__ import annotations

from . import room_protocol as wire
from .handshake import Agreed, Failed, MatchSettings, differing_parts
from .protocol import ProtocolError

#: Seconds between two Joins while the server has not said the match starts.
JOIN_EVERY = 0.25


class RoomJoin:
    """Asks ``server`` for a place in ``room`` as ``name`` (the results' name; "" lets the server
    use the address) with the game's ``digest``; ``settings`` (seed, rounds, timer) make the room
    if this client is its first, with ``frames`` (the frame the match stops at, 0 at its end:
    the room's is :attr:`stop_at` once joined); ``nonce``: a random u32 the caller draws;
    ``key``: a private room's key, shared by its players and spectators ("": a public room)."""

    def __init__(self, server: object, room: str, name: str, digest: bytes, settings: MatchSettings,
                 nonce: int, now: float, *, role: int = 0, give_up: float = 10.0, frames: int = 0,
                 key: str = "") -> None:
        self.server, self.room, self.role = server, room, role
        self.nonce = nonce & 0xFFFFFFFF
        self.digest = digest
        # a name, room or setting out of range raises ProtocolError here, before anything is sent
        self._join = wire.encode(wire.Join(self.nonce, role, room, name, digest, settings.seed, settings.rounds,
                                           settings.timer, frames, wire.room_secret(room, key)), 0)
        self._start, self._last = now, -1.0
        self._answered = now                                # when the server last answered (a Joined)
        self.give_up = give_up
        #: The token the server gave (0 until a Joined came).
        self.token = 0
        #: The last Joined (None before one came): ``side``, ``ready`` and the room's settings.
        self.joined: wire.Joined | None = None
        #: None while asking or waiting, then an :class:`Agreed` or a :class:`Failed`.
        self.result: Agreed | Failed | None = None

    @property
    def host(self) -> object:
        """The server's address (where :meth:`poll`'s datagrams go; as JoinHandshake's ``host``)."""
        return self.server

    @property
    def stop_at(self) -> int | None:
        """The frame the room's match stops at (None: at its end, or not joined yet)."""
        return self.joined.frames or None if self.joined is not None else None

    @property
    def waiting(self) -> bool:
        """True once the room holds this player's place and waits for the opponent."""
        return self.result is None and self.joined is not None

    def handle_datagram(self, data: bytes, addr: object, now: float) -> bool:
        """Take a datagram: True if it was an answer to the Join (from the server, with its
        nonce), False for anything else (a Relay, once agreed, is the session's: :func:`unwrap`)."""
        if addr != self.server:
            return False
        try:
            token, msg = wire.parse(data)
        except ProtocolError:
            return False
        if isinstance(msg, wire.Refused) and msg.nonce == self.nonce and token == 0 and self.result is None:
            reason = wire.REFUSALS[msg.reason]
            parts = differing_parts(self.digest, msg.digest) if reason == "digest" else ()
            self.result = Failed(reason, parts, _refusal_line(reason, self.room))
            return True
        if not isinstance(msg, wire.Joined) or msg.nonce != self.nonce or (self.token and token != self.token):
            return False
        if self.result is not None:
            return True                                   # a repeat of the answer already taken
        self.token, self.joined, self._answered = token, msg, now
        if msg.ready or msg.role == 1:
            settings = MatchSettings(msg.seed, None, None, msg.rounds, msg.timer, 0)
            self.result = Agreed(self.server, msg.key, msg.side, settings)
        return True

    def poll(self, now: float) -> list[bytes]:
        """The Join, every :data:`JOIN_EVERY` s until the answer (send each to ``server``)."""
        if self.result is not None:
            return []
        if self.joined is None and now - self._start > self.give_up:
            self.result = Failed("no answer", (), f"no answer from the server in {self.give_up:g} s")
            return []
        if self.joined is not None and now - self._answered > self.give_up:
            self.result = Failed("no answer", (), f"the server stopped answering for {self.give_up:g} s while "
                                                  f"room {self.room} waited for an opponent")
            return []
        if now - self._last >= JOIN_EVERY:
            self._last = now
            return [self._join]
        return []

    def leave(self, reason: int = 0) -> bytes:
        """The Leave datagram to send the server (``reason``: index in protocol.GOODBYES);
        empty before a token came (there is no place to leave)."""
        return wire.encode(wire.Leave(reason), self.token) if self.token else b""


def wrap(payload: bytes, token: int) -> bytes:
    """A netplay datagram of the session, inside a Relay for the server."""
    return wire.encode(wire.Relay(payload), token)


def unwrap(data: bytes, token: int) -> wire.Message | None:
    """The server's message in ``data`` if it carries ``token`` (a Relay, a RoomEnd, a repeated
    Joined, ...), else None (a stranger's or a damaged datagram)."""
    try:
        got, msg = wire.parse(data)
    except ProtocolError:
        return None
    return msg if got == token and token else None


def _refusal_line(reason: str, room: str) -> str:
    """The line for a refused join."""
    lines = {
        "full": f"room {room} already has its two players (ask to spectate with --spectate)",
        "digest": f"room {room} plays another game",
        "settings": f"the server refused room {room}'s settings",
        "rooms": "the server holds as many rooms as it may; try again later",
        "rate": "the server refused: too many datagrams from this address",
        "ended": f"room {room}'s match is over; pick another room name",
        "spectators": f"room {room} has no spectator place left",
        "name": "the server refused the player's name",
        "address": "this address already holds a place on the server (another Join still in a room)",
        "key": f"room {room} is private and this is not its key (give the players' --room-key)",
        "network": "this IP address already holds as many places on the server as it may (seats in "
                   "rooms, or spectator places in this room); try again when one is free",
    }
    return f"the server refused: {lines.get(reason, reason)}"
