"""Two rooms of CPU players (NetMatch through a RoomLink) and the server over a faulty network on
a virtual clock: datagrams delayed, reordered, duplicated and lost, the server stepped at
irregular times (a drain of everything waiting, then its poll, as its socket loop does), and the
server stopped at any moment (right after the start, at a check frame, mid-match).  No room may
raise (nothing logged at error level), every started match writes one result, every player's
match ends, and what each player confirmed is the referee's replay."""

from __future__ import annotations

import heapq
import logging
import random

import pytest

from game.replay import decode
from game.server.server import RoomServer, ServerOptions
from game.server.spectators import SpectatorFeed
from serverhelp import MemoryNet, memory_player, recorded

pytestmark = pytest.mark.slow


class FaultyNet(MemoryNet):
    """A MemoryNet whose datagrams each way are lost (``loss``), sent twice (``dup``) and delayed
    by ``delay`` s plus up to ``jitter`` s (so reordered); the server takes what reached it only
    when :meth:`pump` steps it."""

    def __init__(self, server: RoomServer, rng: random.Random, loss: float, dup: float, delay: float,
                 jitter: float) -> None:
        super().__init__(server)
        self.rng, self.loss, self.dup, self.delay, self.jitter = rng, loss, dup, delay, jitter
        self._flight: list[tuple[float, int, bytes, object, object]] = []
        self._sent = 0
        self._waiting: list[tuple[bytes, object]] = []       # in the server's socket
        self.stopped = False

    def deliver(self, data: bytes, src, dst) -> None:
        r = self.rng
        if r.random() < self.loss:
            return
        for _ in range(2 if r.random() < self.dup else 1):
            self._sent += 1
            heapq.heappush(self._flight, (self.now + self.delay + r.random() * self.jitter, self._sent, data, src, dst))

    def pump(self, now: float) -> None:
        """Move every datagram due by ``now``; step the server (drain, poll) unless stopped."""
        self.now = now
        while self._flight and self._flight[0][0] <= now:
            _, _, data, src, dst = heapq.heappop(self._flight)
            if dst == self.SERVER:
                self._waiting.append((data, src))
            elif dst in self.nodes:
                self.nodes[dst].inbox.append((data, self.SERVER))
        if self.stopped or self.rng.random() < 0.3:          # a server busy elsewhere takes them later
            return
        waiting, self._waiting = self._waiting, []
        for data, src in waiting:
            self.server.handle(data, src, now)
        self.send_all(self.server.poll(now))

    def send_all(self, out) -> None:
        for data, addr in out:
            self.deliver(data, self.SERVER, addr)

    def shutdown(self, now: float) -> None:
        self.now = now
        self.send_all(self.server.shutdown(now))
        self.stopped = True


class Faults(logging.Handler):
    """Every record of the server's log at error level or with a traceback."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR or record.exc_info:
            self.records.append(record)




def _play(seed: int, stop_at: int, loss: float, dup: float, jitter: float, report_wait: int) -> None:
    """Two rooms over a :class:`FaultyNet` (``seed``: its faults and the tick times), stopped
    once every player has confirmed ``stop_at`` frames; the checks of the module docstring."""
    rng = random.Random(seed)
    faults = Faults()
    log = logging.getLogger("rangebox.server")
    log.addHandler(faults)
    level = log.level
    log.setLevel(logging.INFO)
    written: list = []
    srv = RoomServer(ServerOptions(report_wait=report_wait), sink=lambda room, started: written.append(room),
                     make_feed=lambda: SpectatorFeed(max_spectators=4), wall=lambda: 0.0)
    net = FaultyNet(srv, rng, loss=loss, dup=dup, delay=0.005, jitter=jitter)
    nets = []
    for k, room in enumerate(("east", "west")):
        nets.append(memory_player(net, ("10.0.1.1", 1000 + k), room, nonce=2 * k + 1))
        nets.append(memory_player(net, ("10.0.2.1", 1000 + k), room, level="normal", seed=9, nonce=2 * k + 2))
    recs = [recorded(n) for n in nets]
    now, stopped_at = 0.0, None
    try:
        for _ in range(20_000):
            now += rng.choice([1 / 60, 1 / 60, 1 / 240, 1 / 30, 0.2])
            net.pump(now)
            for n in rng.sample(nets, len(nets)):
                n.tick(now)
            if stopped_at is None and all(n.confirmed is not None and n.confirmed.frame >= stop_at for n in nets):
                net.shutdown(now + rng.choice([0.0, 0.001, 0.03]))
                stopped_at = now
            if stopped_at is not None and all(n.state == "ended" for n in nets):
                break
        else:
            raise AssertionError(f"seed {seed}: not done: {[n.state for n in nets]}")
    finally:
        log.removeHandler(faults)
        log.setLevel(level)
    assert not faults.records, f"seed {seed}: " + "\n".join(logging.Formatter().format(r) for r in faults.records)
    assert sorted(r.name for r in written) == ["east", "west"], seed
    for n, rec in zip(nets, recs):
        room = next(r for r in written if r.name == n.link.join.room)
        if not rec:
            continue
        mine, theirs = decode(rec[0].to_bytes()), decode(room.referee.recorder.to_bytes())
        k = min(mine.frames, theirs.frames)
        same_hashes = (mine.checkpoints[:k // 30] == theirs.checkpoints[:k // 30]).all()
        assert (mine.inputs[:k] == theirs.inputs[:k]).all() and same_hashes, seed


@pytest.mark.parametrize("seed, stop_at, loss, dup, jitter, report_wait", [
    (1, 0, 0.05, 0.1, 0.02, 60),          # stopped right after the start
    (2, 30, 0.2, 0.0, 0.15, 60),          # at a check frame, with much loss
    (3, 61, 0.0, 0.1, 0.05, 10),
    (4, 150, 0.05, 0.05, 0.15, 0),        # mid-match, the referee waiting for no report
])
def test_over_a_lossy_reordering_network_no_room_raises_and_every_player_confirms_the_referees_frames(
        seed, stop_at, loss, dup, jitter, report_wait):
    _play(seed, stop_at, loss, dup, jitter, report_wait)
