"""The server's datagram handler: every room of one process, with no socket and no clock.

:class:`RoomServer` takes each received datagram (:meth:`RoomServer.handle`) and gives the
datagrams to send (:meth:`RoomServer.poll`), ``now`` passed in; the socket loop
(:mod:`.loop`), the benchmark and the tests drive it alike.  What it checks before a room sees
anything (``docs/netplay.md``, "The server"):

- every datagram: the sender's rate (a token bucket per address; over it, dropped), then
  :func:`game.net.room_protocol.parse` (malformed: dropped, counted by reason);
- a Join (token 0): a repeat from the same address and nonce is answered with the same token;
  one with another nonce from an address that holds a place is refused (``"address"``: one
  place per address, so one client cannot take both seats of a room); a new one is
  rate-limited per address, makes its room if none has that name (at most ``max_rooms``
  rooms, at most ``waiting_per_ip`` waiting rooms made from one IP address), and is given a
  fresh random 64-bit token.  One IP address plays in at most ``rooms_per_ip`` rooms at once
  and holds at most ``spectators_per_ip`` spectator places of one room (beyond: ``"network"``),
  so one machine with many ports cannot fill the server or a room's spectator places.  An
  address whose room has ended may join again at once with a new nonce (its old token still
  gets that room's RoomEnd);
- any other message: its token must be one the server gave, to that very address, else it is
  dropped (so a client can neither speak for another nor send from another's address).

A room that raises is ended as an ``"error"`` (the traceback logged), its result written, and
the other rooms go on.  Every room whose match started writes its result when it ends
(``sink``), :meth:`RoomServer.shutdown` included.
"""

from __future__ import annotations

import logging
import secrets
from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

from game.net import room_protocol as wire
from game.net.protocol import ProtocolError
from game.online.address import format_address

from .referee import REPORT_WAIT
from .room import Member, Room, ip_of

log = logging.getLogger("rangebox.server")
T = TypeVar("T")
#: Addresses whose rate is tracked at once (the oldest forgotten first).
MAX_ADDRESSES = 4096
#: The messages only the server sends: one from a client is dropped ("unexpected").
_SERVERS_OWN = frozenset((wire.Joined, wire.Refused, wire.Confirmed, wire.RoomEnd))


class ServerOptions(NamedTuple):
    """What one server process allows."""

    max_rooms: int = 256            # rooms at once
    room_timeout: float = 10.0      # s of silence before a player counts as gone (a waiting room expires)
    rate: float = 400.0             # datagrams a second from one address, on average ...
    burst: float = 800.0            # ... and at once
    join_rate: float = 8.0          # new Joins a second from one address, on average (burst: twice that)
    waiting_per_ip: int = 16        # rooms waiting for their second player, made from one IP address
    rooms_per_ip: int = 32          # rooms not ended in which one IP address holds a player's seat
    spectators_per_ip: int = 4      # spectator places of one room held from one IP address
    max_spectators: int = 16        # spectators per room
    report_wait: int = REPORT_WAIT  # frames a referee waits at a check frame for both hash reports


class _Bucket:
    """A token bucket: ``rate`` a second, at most ``burst`` held."""

    __slots__ = ("level", "at")

    def __init__(self, burst: float, now: float) -> None:
        self.level, self.at = burst, now

    def take(self, rate: float, burst: float, now: float) -> bool:
        self.level = min(burst, self.level + (now - self.at) * rate)
        self.at = now
        if self.level < 1.0:
            return False
        self.level -= 1.0
        return True


class RoomServer:
    """All rooms of a process.  ``sink(room, started_wall)``: writes an ended match's result
    (called once per match that started); ``make_feed()``: a room's spectator feed, or None for
    none; ``wall()``: the wall clock for the results' times."""

    def __init__(self, options: ServerOptions | None = None, *,
                 sink: Callable[[Room, float], None] | None = None,
                 make_feed: Callable[[], Any] | None = None, wall: Callable[[], float] | None = None) -> None:
        import time

        self.options = options or ServerOptions()
        self.sink, self.make_feed = sink, make_feed
        self.wall = wall or time.time
        self.rooms: dict[str, Room] = {}
        self._members: dict[int, tuple[Member, Room]] = {}
        self._joins: dict[object, tuple[int, int]] = {}     # a member's address: its Join's nonce, its token
        self._buckets: OrderedDict[object, _Bucket] = OrderedDict()
        self._join_buckets: OrderedDict[object, _Bucket] = OrderedDict()
        self._started: dict[str, float] = {}
        self._out: list[tuple[bytes, object]] = []
        #: Datagrams received, sent, and dropped by reason (the status line's figures).
        self.packets_in = self.packets_out = 0
        self.dropped: Counter[str] = Counter()
        #: Matches ended (rooms whose match started) and results written.
        self.matches_ended = 0

    # ------------------------------------------------------------------ datagrams in
    def handle(self, data: bytes, addr: object, now: float) -> None:
        """One received datagram from ``addr``."""
        self.packets_in += 1
        if not _take(self._buckets, addr, self.options.rate, self.options.burst, now):
            self.dropped["rate"] += 1
            return
        try:
            token, msg = wire.parse(data)
        except ProtocolError as e:
            self.dropped[e.reason] += 1
            return
        if isinstance(msg, wire.Join):
            if token != 0:
                self.dropped["token"] += 1
            else:
                self._join(msg, addr, now)
            return
        held = self._members.get(token)
        if held is None or held[0].addr != addr or token == 0:
            self.dropped["token"] += 1
            return
        member, room = held
        if type(msg) in _SERVERS_OWN:
            self.dropped["unexpected"] += 1
            return
        try:
            room.handle(member, msg, now)
        except Exception:
            self._failed(room, now)

    def _join(self, msg: wire.Join, addr: object, now: float) -> None:
        joined = self._joins.get(addr)
        held = self._members.get(joined[1]) if joined is not None else None
        if held is not None and joined is not None:
            member, room = held
            if joined[0] == msg.nonce:                    # a repeat: the same token, answered again
                self._guard(room, now, room.handle, member, msg, now)
                return
            if room.state != "ended":                     # one place per address: one client cannot take both seats
                self._refuse(msg, "address", addr)
                return
            del self._joins[addr]                         # its match is over: a new Join is a new place
        o = self.options
        if not _take(self._join_buckets, addr, o.join_rate, 2 * o.join_rate, now):
            self._refuse(msg, "rate", addr)
            return
        found = self.rooms.get(msg.room)
        if found is not None:
            room = found
            if msg.role != 1 and room.state == "waiting" and self._ip_rooms(addr) >= o.rooms_per_ip:
                self._refuse(msg, "network", addr)
                return
        else:
            why = self._cannot_make(msg, addr)
            if why:
                self._refuse(msg, why, addr)
                return
            room = Room(msg.room, msg, secrets.randbits(32) | 1, now, feed=self._feed(), timeout=o.room_timeout,
                        report_wait=o.report_wait, spectators_per_ip=o.spectators_per_ip)
            self.rooms[msg.room] = room
            log.info("room %s created by %s (seed %d, best of %d, %d s rounds%s)", msg.room, format_address(addr),
                     msg.seed, msg.rounds, msg.timer, f", stops at frame {msg.frames}" if msg.frames else "")
        token = self._new_token()
        state = room.state
        got = self._guard(room, now, room.admit, token, msg, addr, now)
        if isinstance(got, Member):
            self._members[token] = (got, room)
            self._joins[addr] = (msg.nonce, token)
            if state == "waiting" and room.state == "playing":
                self._started[room.name] = self.wall()
                log.info("room %s started: %s", room.name, " against ".join(
                    f"P{p.side + 1} {p.name or format_address(p.addr)}" for p in room.players))
        elif isinstance(got, str):
            self._refuse(msg, got, addr)

    def _cannot_make(self, msg: wire.Join, addr: object) -> str:
        """Why no room can be made for ``msg`` ("" if one can)."""
        if msg.role == 1:
            return "ended"                                  # a spectator of no room
        if len(self.rooms) >= self.options.max_rooms:
            return "rooms"
        ip = ip_of(addr)
        waiting = sum(1 for r in self.rooms.values() if r.state == "waiting" and r.players
                      and ip_of(r.players[0].addr) == ip)
        if waiting >= self.options.waiting_per_ip:
            return "rooms"
        return "network" if self._ip_rooms(addr) >= self.options.rooms_per_ip else ""

    def _ip_rooms(self, addr: object) -> int:
        """Rooms not ended in which ``addr``'s IP address holds a player's seat."""
        ip = ip_of(addr)
        return sum(1 for r in self.rooms.values() if r.state != "ended" and any(ip_of(p.addr) == ip for p in r.players))

    def _feed(self) -> Any:
        return self.make_feed() if self.make_feed is not None else None

    def _refuse(self, msg: wire.Join, reason: str, addr: object) -> None:
        self.dropped[f"refused {reason}"] += 1
        self._out.append((wire.encode(wire.Refused(msg.nonce, wire.REFUSALS.index(reason), bytes(32)
                                                   if reason != "digest" else self._digest(msg.room)), 0), addr))

    def _digest(self, name: str) -> bytes:
        room = self.rooms.get(name)
        return room.join.digest if room is not None else bytes(32)

    def _new_token(self) -> int:
        while True:
            token = secrets.randbits(64)
            if token and token not in self._members:
                return token

    # ------------------------------------------------------------------ datagrams out, time
    def poll(self, now: float) -> list[tuple[bytes, object]]:
        """Datagrams to send now; ends silent rooms, writes ended matches, forgets gone rooms."""
        out, self._out = self._out, []
        for room in list(self.rooms.values()):
            sent = self._guard(room, now, room.poll, now)
            if sent:
                out.extend(sent)
            for member in room.departed:                   # spectators gone: their tokens with them
                self._drop_member(member)
            room.departed.clear()
            self._finish(room, now)
            if room.gone(now) and self.rooms.get(room.name) is room:
                self._forget(room)
        self.packets_out += len(out)
        return out

    def shutdown(self, now: float) -> list[tuple[bytes, object]]:
        """End every room ("shutdown"), writing every started match's result; the RoomEnds to send."""
        for room in list(self.rooms.values()):
            self._guard(room, now, room.stop, now)
        out = self.poll(now)
        for room in list(self.rooms.values()):
            self._finish(room, now)
        return out

    def _finish(self, room: Room, now: float) -> None:
        """Log and write an ended room's result once."""
        if room.state != "ended" or room.written:
            return
        room.written = True
        ending = room.ending
        assert ending is not None
        log.info("room %s ended: %s (%s)", room.name, ending.reason, ending.detail)
        started = self._started.pop(room.name, None)
        if started is None or room.referee is None or self.sink is None:
            return
        self.matches_ended += 1
        try:
            self.sink(room, started)
        except Exception:
            log.exception("room %s: its result could not be written", room.name)

    def _forget(self, room: Room) -> None:
        del self.rooms[room.name]
        for member in [*room.members(), *room.departed]:
            self._drop_member(member)
        room.departed.clear()
        self._started.pop(room.name, None)

    def _drop_member(self, member: Member) -> None:
        """Forget ``member``'s token, and its address's place unless the address joined anew."""
        self._members.pop(member.token, None)
        joined = self._joins.get(member.addr)
        if joined is not None and joined[1] == member.token:
            del self._joins[member.addr]

    def _guard(self, room: Room, now: float, call: Callable[..., T], *args: Any) -> T | None:
        """``call(*args)``; an exception ends the room as an "error" (logged with its traceback)."""
        try:
            return call(*args)
        except Exception:
            self._failed(room, now)
            return None

    def _failed(self, room: Room, now: float) -> None:
        """``room`` raised (the exception being handled): it ends as an "error", logged with the
        traceback; closed if it fails again once ended."""
        room.failures += 1
        if room.failures > 1:                               # failing again once ended: let it go
            log.error("room %s failed again; it is closed", room.name)
            self._finish(room, now)
            if self.rooms.get(room.name) is room:
                self._forget(room)
            return
        log.exception("room %s failed; it ends, the other rooms go on", room.name)
        try:
            room.end("error", 0, "the room failed on the server (see the log)", now)
        except Exception:
            log.exception("room %s: its ending failed too", room.name)

    # ------------------------------------------------------------------ figures
    def status(self) -> dict[str, int]:
        """The status line's figures: rooms not ended and their players, rooms ended but still
        kept (their last datagrams, spectators catching up), spectators, packets in and out,
        dropped, the slowest room's lag (frames)."""
        rooms = list(self.rooms.values())
        live = [r for r in rooms if r.state != "ended"]
        return {"rooms": len(live), "players": sum(len(r.players) for r in live), "ended": len(rooms) - len(live),
                "spectators": sum(len(r.spectators) for r in rooms), "in": self.packets_in,
                "out": self.packets_out, "dropped": sum(self.dropped.values()) + sum(
                    sum(r.dropped.values()) for r in rooms), "lag": max((r.lag() for r in rooms), default=0)}

    def buffer_sizes(self) -> dict[str, int]:
        """Every table's size (each bounded; tests check the bounds)."""
        return {"rooms": len(self.rooms), "members": len(self._members), "joins": len(self._joins),
                "buckets": len(self._buckets), "join_buckets": len(self._join_buckets), "out": len(self._out),
                "started": len(self._started), "dropped": len(self.dropped)}


def _take(buckets: OrderedDict[object, _Bucket], addr: object, rate: float, burst: float, now: float) -> bool:
    """Take one token of ``addr``'s bucket (made full for a new address; the table bounded)."""
    bucket = buckets.get(addr)
    if bucket is None:
        if len(buckets) >= MAX_ADDRESSES:
            buckets.popitem(last=False)
        bucket = buckets[addr] = _Bucket(burst, now)
    else:
        buckets.move_to_end(addr)
    return bucket.take(rate, burst, now)
