"""A Rangebox server and its players in the test's own process, on the loopback address.

``ServerLoop`` on port 0 (real sockets, the real clock), players as ``NetMatch`` objects
through the server (a CPU on each side), all stepped in one loop: :func:`play` ticks them
until every player's match has ended.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Sequence

from game.net.handshake import MatchSettings
from game.net.room_client import RoomJoin
from game.online.digest import game_digest
from game.online.netmatch import NetMatch, NetOptions
from game.online.room_link import RECV_BYTES, RoomLink
from game.online.udp import Address, UdpLink
from game.server.loop import ServerLoop
from game.server.server import ServerOptions


def start_server(results, options: ServerOptions | None = None, **kw) -> ServerLoop:
    """A server on 127.0.0.1, port 0, writing into ``results``."""
    return ServerLoop(("127.0.0.1", 0), results, options, status_every=0, **kw)


def room_player(server: Address, room: str, *, level: str = "hard", seed: int = 5, frames: int | None = None,
                name: str = "", rounds: int = 3, timer: int = 60, digest: bytes | None = None,
                timeout: float = 5.0) -> NetMatch:
    """A CPU player (``level``) joining ``room``; ``frames``: the room's stop frame if it makes it."""
    udp = UdpLink(("127.0.0.1", 0), recv_bytes=RECV_BYTES)
    join = RoomJoin(server, room, name, game_digest() if digest is None else digest,
                    MatchSettings(seed, None, None, rounds, timer, 0), secrets.randbits(32), time.monotonic(),
                    frames=frames or 0, give_up=timeout)
    return NetMatch.through_server(RoomLink(udp, join), NetOptions(timeout=timeout, stop_at=frames, cpu_level=level))


def play(loops: Sequence[ServerLoop], nets: Sequence[NetMatch], *, seconds: float = 60.0,
         until: Callable[[], bool] | None = None, each: Callable[[float], None] | None = None) -> None:
    """Step the servers and tick the players until every match ended (or ``until()``); fails
    after ``seconds``."""
    done = until or (lambda: all(n.state == "ended" for n in nets))
    end = time.monotonic() + seconds
    while not done():
        now = time.monotonic()
        assert now < end, f"not done in {seconds} s: {[n.state for n in nets]}"
        busy = 0
        for loop in loops:
            busy += loop.step(now)
        for n in nets:
            busy += len(n.tick(now))
        if each is not None:
            each(now)
        if not busy:
            time.sleep(0.0005)


def close(loops: Sequence[ServerLoop], nets: Sequence[NetMatch]) -> None:
    for n in nets:
        n.close(time.monotonic())
        n.link.close()
    for loop in loops:
        loop.close()
