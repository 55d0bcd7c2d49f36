"""Watching a room of a server over UDP: the loop object a headless run and the window both tick.

:class:`Spectator` joins a room as a spectator (a :class:`~game.net.room_client.RoomJoin` with
role 1, "spectate"), then runs a :class:`~game.net.spectator.SpectatorSession` and carries out
its requests on a :class:`~game.sim.Match` of the room's seed, rounds and timer: it receives
the room's confirmed inputs only, so it steps each frame once and never rolls back, a fixed
delay behind the live match, catching up from frame 0 when it joined late.  Once per
displayed frame (the window) or as fast as it can (headless) the caller calls
:meth:`Spectator.tick`; it drains the socket, runs the join or the session, steps the match,
sends the acknowledgements.  :attr:`Spectator.state` is ``"joining"``, ``"watching"``, then
``"ended"`` (:attr:`Spectator.ending` says why, with the server's verdict and whether this
spectator's state agrees with the referee's).

It has the ``tick(now)`` / ``state`` / ``link`` / ``close(now)`` of a
:class:`~game.online.netmatch.NetMatch`, so a test loop that ticks players ticks spectators too.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, NamedTuple

from game.net import room_protocol as wire
from game.net.handshake import Agreed, Failed, MatchSettings
from game.net.room_client import RoomJoin
from game.net.spectator import DELAY, SpectatorSession, Verdict
from game.sim import FrameInput, Match
from game.sim.events import Hit

from .address import format_address
from .digest import describe
from .udp import Address, UdpLink, client_bind

if TYPE_CHECKING:
    from game.sim.events import Event as SimEvent

State = Literal["joining", "watching", "ended"]
#: Bytes asked of each receive: one more than the largest server datagram.
RECV_BYTES = wire.MAX_DATAGRAM + 1
#: Frames a window's spectator steps per tick at most while catching up (30 a tick: 30 times
#: real time at 60 ticks a second).
WINDOW_CATCH_UP = 30


class SpectateOptions(NamedTuple):
    """A spectator's own settings."""

    delay: int = DELAY                  # frames behind the live match (0 or more)
    catch_up: int | None = None         # frames per tick at most when far behind (None: all it holds)
    timeout: float = 5.0                # s of silence from the server before it counts as gone
    give_up: float = 10.0               # s without an answer to the Join
    stop_at: int | None = None          # stop at this frame (None: the match's end)


class SpectateEnding(NamedTuple):
    """Why watching ended."""

    kind: str                   # "finished", "stopped" (stop_at), "no verdict", "left", "disconnected",
    #                             "refused", "no answer"
    detail: str                 # one line for the user
    frames: int                 # frames the match was stepped
    verdict: Verdict | None     # the server's verdict, when it came
    agrees: bool | None         # this match's state hash equals the verdict's (None: not at its frame)


class Spectator:
    """One spectator of a room; make it with :meth:`open` (or from a link and a RoomJoin),
    then :meth:`tick`."""

    def __init__(self, link: UdpLink, join: RoomJoin, options: SpectateOptions) -> None:
        self.link, self.join, self.options = link, join, options
        self.server: Address = join.server          # type: ignore[assignment]   # a resolved (ip, port)
        self.state: State = "joining"
        self.ending: SpectateEnding | None = None
        self.session: SpectatorSession | None = None
        #: The match as the spectator sees it (None before the Joined).
        self.match: Match | None = None
        self.settings: MatchSettings | None = None
        #: Called once when the join succeeded, before the first step (the caller starts recording).
        self.on_start: Callable[[], None] | None = None
        #: Called as ``listener(match, events)`` after each step (a recorder).
        self.listeners: list[Callable[[Match, tuple[SimEvent, ...]], None]] = []
        #: Hits so far; the most frames the shown match was behind the live one.
        self.hits = self.behind_max = 0
        self._stop_at: int | None = options.stop_at

    @classmethod
    def open(cls, server: Address, room: str, options: SpectateOptions, now: float, *, name: str = "",
             digest: bytes | None = None, nonce: int | None = None, key: str = "") -> Spectator:
        """A spectator of ``room`` on the server at ``server`` (a resolved address), on a socket
        of its own (the server's family: loopback for a loopback server, else any address; a
        port the system picks).  ``digest``: the game's (default
        :func:`~game.online.digest.game_digest`); ``key``: a private room's key ("": a public room)."""
        from .digest import game_digest

        udp = UdpLink(client_bind(server), recv_bytes=RECV_BYTES)
        join = RoomJoin(server, room, name, game_digest() if digest is None else digest,
                        MatchSettings(0, None, None, 3, 60, 0), secrets.randbits(32) if nonce is None else nonce,
                        now, role=1, give_up=options.give_up, key=key)
        return cls(udp, join, options)

    # ------------------------------------------------------------------ the caller's calls
    def tick(self, now: float) -> list[tuple[int, tuple[SimEvent, ...]]]:
        """Take what arrived, step what the session allows, send what is due.  Returns
        ``(frame, events)`` of every frame stepped (each once, in order)."""
        received = self.link.receive()
        if self.state == "joining":
            received = self._joining(received, now)
        if self.state != "watching":
            return []
        session, m = self.session, self.match
        assert session is not None and m is not None
        for data, addr in received:
            session.handle_datagram(data, addr, now)
        self.behind_max = max(self.behind_max, session.newest - m.frame)
        stepped = []
        for r in session.advance(now):
            if m.over or (self._stop_at is not None and m.frame >= self._stop_at):
                break
            events = m.step(FrameInput.from_bits(r.inputs[0]), FrameInput.from_bits(r.inputs[1]))
            self.hits += sum(isinstance(e, Hit) for e in events)
            for listener in self.listeners:
                listener(m, events)
            stepped.append((r.frame, events))
        self.behind_max = max(self.behind_max, session.newest - m.frame)
        for data in session.poll(now):
            self.link.send(data, self.server)
        self._check_end(now)
        return stepped

    def close(self, now: float) -> None:
        """Leave the room now (the server is told); the link stays open."""
        if self.state == "ended":
            return
        if self.session is not None:
            self.session.close(now)
            for data in self.session.poll(now):
                self.link.send(data, self.server)
        else:
            data = self.join.leave()
            if data:
                self.link.send(data, self.server)
        self._end("left", "you left the room")

    @property
    def behind(self) -> int:
        """Frames the shown match is behind the live one (0 before the session)."""
        return self.session.behind if self.session is not None else 0

    @property
    def delay(self) -> int:
        return self.options.delay

    # ------------------------------------------------------------------ inside
    def _joining(self, received: list[tuple[bytes, Address]], now: float) -> list[tuple[bytes, Address]]:
        """The join's part of a tick; what arrived after the Joined (the session's)."""
        rest = []
        for data, addr in received:
            if self.state == "watching":
                rest.append((data, addr))
            elif not self.join.handle_datagram(data, addr, now):
                rest.append((data, addr))           # a Confirmed that overtook the Joined
            self._take_join(now)
        for data in self.join.poll(now):
            self.link.send(data, self.server)
        self._take_join(now)
        return rest if self.state == "watching" else []

    def _take_join(self, now: float) -> None:
        result = self.join.result
        if self.state != "joining" or result is None:
            return
        if isinstance(result, Failed):
            detail = result.detail
            if result.reason == "digest":
                detail = (f"the server refused: room {self.join.room} plays another game (its "
                          f"{describe(result.parts)} from this one's); spectator and players need the same Rangebox")
            elif result.reason == "ended":
                detail = (f"the server refused: room {self.join.room} has no match to watch (it is over, or "
                          f"nobody made it); check the room's name")
            elif result.reason == "no answer":
                detail = f"{result.detail}: is a server running at {format_address(self.server)}?"
            self._end("no answer" if result.reason == "no answer" else "refused", detail)
            return
        assert isinstance(result, Agreed)
        s = self.settings = result.settings
        o = self.options
        self.session = SpectatorSession(self.server, self.join.token, now, delay=o.delay, catch_up=o.catch_up,
                                        timeout=o.timeout, interrupt_after=min(0.75, o.timeout / 2))
        self.match = Match.new(s.seed, rounds=s.rounds, timer=s.timer)
        room_stop = self.join.stop_at
        if room_stop is not None:
            self._stop_at = room_stop if self._stop_at is None else min(self._stop_at, room_stop)
        self.state = "watching"
        if self.on_start is not None:
            self.on_start()

    def _check_end(self, now: float) -> None:
        session, m = self.session, self.match
        assert session is not None and m is not None
        stop = self._stop_at
        if session.state == "watching" and stop is not None and m.frame >= stop \
                and (session.verdict is None or session.verdict.frame > stop):
            if self.options.stop_at is not None and stop == self.options.stop_at:
                session.close(now)
                for data in session.poll(now):
                    self.link.send(data, self.server)
                self._end("stopped", f"stopped at frame {m.frame}")
            return
        if session.state != "ended":
            return
        ending = session.ending
        assert ending is not None
        v = ending.verdict
        if ending.kind == "timeout":
            self._end("disconnected", f"the server was silent for {self.options.timeout:g} s: disconnected after "
                                      f"{m.frame} frames")
        elif ending.kind == "closed":
            self._end("left", "you left the room")
        elif ending.kind == "no verdict":
            self._end("no verdict", f"the match ended after {m.frame} frames; the server's verdict never came")
        else:
            assert v is not None
            self._end("finished", _verdict_line(v))

    def _end(self, kind: str, detail: str) -> None:
        if kind not in ("left", "disconnected", "stopped"):
            data = self.join.leave()            # the room need not keep this spectator's place
            if data:
                self.link.send(data, self.server)
        m = self.match
        v = self.session.verdict if self.session is not None else None
        agrees = None
        if v is not None and m is not None and m.frame == v.frame:
            agrees = m.state_hash() == v.state_hash
        self.state = "ended"
        self.ending = SpectateEnding(kind, detail, m.frame if m is not None else 0, v, agrees)


def _verdict_line(v: Verdict) -> str:
    """The server's verdict in words."""
    who = " and ".join(f"P{s + 1}" for s in (0, 1) if v.culprits >> s & 1)
    if v.reason == "finished":
        won = "a draw" if v.winner is None else f"P{v.winner + 1} won"
        return f"the match is over after {v.frame} frames: {won}"
    if v.reason == "desync":
        return f"the referee's state differs from {who or 'a player'}'s: the match ended at frame {v.frame}"
    if v.reason == "disconnect":
        return f"{who or 'a player'} left or fell silent: the match ended at frame {v.frame}"
    return f"the match ended ({v.reason}) at frame {v.frame}"
