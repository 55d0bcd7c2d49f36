"""A Rangebox server and its players in the test's own process, on the loopback address.

``ServerLoop`` on port 0 (real sockets, the real clock), players as ``NetMatch`` objects
through the server (a CPU on each side), all stepped in one loop: :func:`play` ticks them
until every player's match has ended.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from game.net.handshake import MatchSettings
from game.net.room_client import RoomJoin
from game.online.digest import game_digest
from game.online.netmatch import NetMatch, NetOptions
from game.online.room_link import RECV_BYTES, RoomLink
from game.online.udp import Address, UdpLink, client_bind
from game.server.loop import ServerLoop
from game.server.server import ServerOptions

ROOT = Path(__file__).resolve().parents[2]


def server_child(results: Path, status_every: str = "0") -> tuple[subprocess.Popen, int]:
    """``python3 -m game.server`` in a child process on 127.0.0.1, port 0, writing into
    ``results``; returns the child (its stderr a pipe: the log) and the port it printed."""
    child = subprocess.Popen([sys.executable, "-m", "game.server", "--port", "0", "--bind", "127.0.0.1",
                              "--results", str(results), "--status-every", status_every],
                             cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), stderr=subprocess.PIPE, text=True)
    line = child.stderr.readline()                              # type: ignore[union-attr]
    assert "listening on UDP 127.0.0.1:" in line, line
    return child, int(line.split("127.0.0.1:")[1].split(";")[0])


#: What a server's log shows only when something went wrong: a traceback (``log.exception``: a
#: room that raised, a result that could not be written), logging's own error report, an
#: exception Python ignored (a finalizer, at exit), a room that failed again.
LOG_FAULTS = ("Traceback", "--- Logging error ---", "Exception ignored", "failed again")


def log_faults(log: str) -> list[str]:
    """The lines of a server's ``log`` (its stderr) that show a fault (:data:`LOG_FAULTS`)."""
    return [line for line in log.splitlines() if any(f in line for f in LOG_FAULTS)]


def stop_child(child: subprocess.Popen) -> str:
    """Kill ``child`` if it still runs; its whole stderr (the server's log)."""
    if child.poll() is None:
        child.kill()
        child.wait(30)
    return child.stderr.read() if child.stderr is not None else ""     # type: ignore[union-attr]


def start_server(results, options: ServerOptions | None = None, *, bind: str = "127.0.0.1", **kw) -> ServerLoop:
    """A server on ``bind`` (127.0.0.1; ``::1``, or ``""`` for every address, dual-stack), port 0,
    writing into ``results``."""
    return ServerLoop((bind, 0), results, options, status_every=0, **kw)


def room_player(server: Address, room: str, *, level: str = "hard", seed: int = 5, frames: int | None = None,
                name: str = "", rounds: int = 3, timer: int = 60, digest: bytes | None = None,
                timeout: float = 5.0) -> NetMatch:
    """A CPU player (``level``) joining ``room`` on a socket of the server address's family;
    ``frames``: the room's stop frame if it makes it."""
    udp = UdpLink(client_bind(server), recv_bytes=RECV_BYTES)
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


# ----------------------------------------------------------------- in memory, on a virtual clock
class MemoryUdp:
    """A UdpLink stand-in on :class:`MemoryNet`: what is sent to an address lands in its inbox."""

    def __init__(self, net: MemoryNet, address: Address) -> None:
        self.net, self.address = net, address
        self.inbox: list[tuple[bytes, Address]] = []
        net.nodes[address] = self
        self.tamper: Callable[[bytes], bytes | None] | None = None     # rewrites (or drops) what it sends

    def receive(self) -> list[tuple[bytes, Address]]:
        out, self.inbox = self.inbox, []
        return out

    def send(self, data: bytes, addr: Address) -> bool:
        if self.tamper is not None:
            changed = self.tamper(data)
            if changed is None:
                return True
            data = changed
        self.net.deliver(data, self.address, addr)
        return True

    def wait(self, timeout: float) -> bool:
        return bool(self.inbox)

    @property
    def counts(self):
        from game.online.udp import LinkCounts
        return LinkCounts(0, 0, 0, 0, 0)

    def close(self) -> None:
        pass


class MemoryNet:
    """Datagrams between in-memory nodes and a RoomServer at :data:`SERVER`, delivered at once."""

    SERVER: Address = ("10.0.0.1", 7100)

    def __init__(self, server) -> None:
        self.server = server
        self.nodes: dict[Address, MemoryUdp] = {}

    def deliver(self, data: bytes, src: Address, dst: Address) -> None:
        if dst == self.SERVER:
            self.server.handle(data, src, self.now)
        elif dst in self.nodes:
            self.nodes[dst].inbox.append((data, self.SERVER))

    now = 0.0

    def pump(self, now: float) -> None:
        self.now = now
        for data, addr in self.server.poll(now):
            if addr in self.nodes:
                self.nodes[addr].inbox.append((data, self.SERVER))


def memory_player(net: MemoryNet, address: Address, room: str, *, level: str = "hard", seed: int = 5,
                  frames: int | None = None, name: str = "", nonce: int = 1) -> NetMatch:
    """A CPU player on ``net`` at ``address`` joining ``room``."""
    udp = MemoryUdp(net, address)
    join = RoomJoin(MemoryNet.SERVER, room, name, game_digest(), MatchSettings(seed, None, None, 3, 60, 0), nonce,
                    net.now, frames=frames or 0)
    return NetMatch.through_server(RoomLink(udp, join), NetOptions(stop_at=frames, cpu_level=level))  # type: ignore[arg-type]


def play_virtual(net: MemoryNet, nets: Sequence[NetMatch], *, max_ticks: int = 20_000, dt: float = 1 / 60,
                 until: Callable[[], bool] | None = None) -> float:
    """Tick the players and the server on a virtual clock until every match ended; the time."""
    done = until or (lambda: all(n.state == "ended" for n in nets))
    now = net.now
    for _ in range(max_ticks):
        if done():
            return now
        now += dt
        net.pump(now)
        for n in nets:
            n.tick(now)
    raise AssertionError(f"not done in {max_ticks} ticks: {[n.state for n in nets]}")


# ----------------------------------------------------------------- hand-made datagrams
DIGEST = bytes(range(32))


class RawClient:
    """A client that writes its datagrams by hand, straight into a RoomServer's handler."""

    def __init__(self, server, addr: Address, nonce: int = 7) -> None:
        self.server, self.addr, self.nonce = server, addr, nonce
        self.token = self.key = 0
        self.side = -1
        self.got: list = []             # (token, message) of each datagram the server sent here
        self.seq = 0

    def send(self, msg, now: float = 0.0, token: int | None = None, addr: Address | None = None) -> None:
        from game.net import room_protocol as wire
        self.server.handle(wire.encode(msg, self.token if token is None else token), addr or self.addr, now)

    def join(self, room: str, *, role: int = 0, frames: int = 0, seed: int = 5, digest: bytes = DIGEST,
             now: float = 0.0, key: str = "") -> None:
        from game.net import room_protocol as wire
        self.send(wire.Join(self.nonce, role, room, "", digest, seed, 3, 60, frames, wire.room_secret(room, key)),
                  now, token=0)

    def relay(self, netmsg, now: float = 0.0, token: int | None = None, addr: Address | None = None) -> None:
        from game.net import protocol as netwire
        from game.net import room_protocol as wire
        self.send(wire.Relay(netwire.encode(netmsg, self.seq, self.key)), now, token, addr)
        self.seq += 1

    def inputs(self, start: int, bits, now: float = 0.0, **kw) -> None:
        from game.net import protocol as netwire
        self.relay(netwire.Inputs(start, start + len(bits), -1, 0, tuple(bits)), now, **kw)


def route(server, clients: Sequence[RawClient], now: float = 0.0) -> list:
    """Poll the server and hand each client what was sent to it; what went elsewhere."""
    from game.net import room_protocol as wire
    by_addr = {c.addr: c for c in clients}
    stray = []
    for data, addr in server.poll(now):
        token, msg = wire.parse(data)
        c = by_addr.get(addr)
        if c is None:
            stray.append((addr, msg))
            continue
        c.got.append((token, msg))
        if isinstance(msg, wire.Joined):
            c.token, c.key, c.side = token, msg.key, msg.side
    return stray


def recorded(net) -> list:
    """A recorder (in a one-item list, filled at the first frame) following ``net``'s confirmed
    match, or a spectator's match, from its start."""
    from game.replay import ReplayRecorder
    holder: list[ReplayRecorder] = []

    def listener(match, _events):
        if not holder:
            holder.append(ReplayRecorder.of_settings(match, online=True))    # as the game records it
        holder[0].record(match)
    (net.listeners if hasattr(net, "listeners") else net.confirmed_listeners).append(listener)
    return holder
