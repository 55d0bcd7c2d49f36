"""The server's socket loop: one UDP socket, every room's datagrams, the status line, the stop.

:class:`ServerLoop` opens the socket and the results folder, and each :meth:`ServerLoop.step`
drains the socket into the :class:`~game.server.server.RoomServer`, sends what it has to send,
and prints the status line every ``status_every`` s.  :meth:`ServerLoop.run` steps until a
stop is asked (SIGINT / SIGTERM: :mod:`game.server.__main__`), then ends every room
(:meth:`RoomServer.shutdown`: each match's result and replay written up to its last confirmed
frame) and sends each player and spectator the room's end.  The tests and the benchmark make a
ServerLoop on port 0 in their own process and step it with their clients.
"""

from __future__ import annotations

import importlib
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from game.net import room_protocol as wire
from game.online.udp import Address, UdpLink

from .results import ResultWriter
from .room import END_EVERY, END_REPEATS, Room
from .server import RoomServer, ServerOptions

log = logging.getLogger("rangebox.server")
#: Bytes asked of each receive: one more than the largest valid datagram (a longer one is refused).
RECV_BYTES = wire.MAX_DATAGRAM + 1
#: Datagrams taken from the socket in one step at most (then the rooms' timers run).
MAX_DRAIN = 2048
#: Seconds the loop blocks on the socket when nothing is waiting (the rooms' timers run between).
IDLE_WAIT = 0.005


def spectator_feeds(max_spectators: int) -> Callable[[], Any] | None:
    """A room's spectator feed maker (``game.server.spectators.SpectatorFeed``), or None when
    this build has no spectators module (a room then refuses spectators)."""
    try:
        module = importlib.import_module("game.server.spectators")
    except ImportError:
        return None
    feed = module.SpectatorFeed
    return lambda: feed(max_spectators=max_spectators)


class ServerLoop:
    """The server on ``bind`` (port 0: the system picks; :attr:`address` says which), writing
    results into ``results`` (made now; OSError if it cannot be)."""

    def __init__(self, bind: Address, results: str | Path, options: ServerOptions | None = None, *,
                 status_every: float = 5.0, spectators: bool = True) -> None:
        self.options = options or ServerOptions()
        self.writer = ResultWriter(results)
        self.link = UdpLink(bind, max_drain=MAX_DRAIN, recv_bytes=RECV_BYTES)
        self.address = self.link.address
        self.server = RoomServer(self.options, sink=self._write,
                                 make_feed=spectator_feeds(self.options.max_spectators) if spectators else None)
        self.status_every = status_every
        self._status_at = time.monotonic()
        #: The result lines written so far (each a dict of the JSON line).
        self.results: list[dict[str, object]] = []

    def _write(self, room: Room, started: float) -> None:
        self.results.append(self.writer.write(room, started, time.time()))
        if len(self.results) > 1024:
            del self.results[:512]

    def step(self, now: float) -> int:
        """Take every waiting datagram and send the answers; the datagrams taken."""
        got = self.link.receive()
        for data, addr in got:
            self.server.handle(data, addr, now)
        for data, to in self.server.poll(now):
            self.link.send(data, to)                    # type: ignore[arg-type]   # the address recvfrom gave
        if self.status_every > 0 and now - self._status_at >= self.status_every:
            self._status_at = now
            log.info("%s", status_line(self.server.status()))
        return len(got)

    def run(self, stopping: Callable[[], bool]) -> None:
        """Step until ``stopping()``, then shut down (every room's result written)."""
        clock = time.monotonic
        while not stopping():
            if not self.step(clock()):
                self.link.wait(IDLE_WAIT)
        self.shutdown(clock())

    def shutdown(self, now: float) -> None:
        """End every room now ("shutdown"), write each started match's result, tell the members:
        the RoomEnds go out :data:`~.room.END_REPEATS` times, :data:`~.room.END_EVERY` s apart, as
        a room's verdict always does (one lost datagram would leave a player waiting out its
        timeout for a server that is gone)."""
        out = self.server.shutdown(now)
        for k in range(END_REPEATS):
            if k:
                time.sleep(END_EVERY)
            for data, addr in out:
                self.link.send(data, addr)              # type: ignore[arg-type]
        log.info("stopped: %d matches' results in %s", self.server.matches_ended, self.writer.folder)

    def close(self) -> None:
        self.link.close()


def status_line(s: dict[str, int]) -> str:
    """The status line of :meth:`RoomServer.status`'s figures."""
    ended = f" (and {s['ended']} ended, closing)" if s.get("ended") else ""
    return (f"status: {_count(s['rooms'], 'room')}{ended}, {_count(s['players'], 'player')}, "
            f"{_count(s['spectators'], 'spectator')}; packets {s['in']} in, {s['out']} out, {s['dropped']} dropped; "
            f"slowest room {_count(s['lag'], 'frame')} behind")


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
