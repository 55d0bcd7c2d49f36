"""game/online/spectate.py: a spectator over real loopback sockets joins a room, steps its
confirmed frames once each, and ends with the server's verdict, its state agreeing with the
referee's; against a stand-in room (fast) and against the real server with two CPU players,
one spectator joining mid-match (slow)."""

from __future__ import annotations

import tempfile
import time

import pytest

from game.net import room_protocol as wire
from game.online.spectate import RECV_BYTES, SpectateOptions, Spectator
from game.online.udp import UdpLink
from game.sim import FrameInput, Match
from roomhelp import ROOM, FakeRoom

DIGEST = bytes(range(32))
DT = 1 / 60


class RoomOnUdp:
    """A FakeRoom on a loopback socket."""

    def __init__(self, room: FakeRoom) -> None:
        self.room = room
        self.link = UdpLink(("127.0.0.1", 0), recv_bytes=RECV_BYTES)
        self.address = self.link.address

    def step(self, now: float) -> None:
        for data, addr in self.link.receive():
            self.room.handle(data, addr, now)
        for data, addr in self.room.poll(now):
            self.link.send(data, addr)          # type: ignore[arg-type]


def fight(frames: int) -> list[tuple[int, int]]:
    """Inputs that walk, punch and jump (their bits change every few frames)."""
    return [((f // 4 * 37) % 2048, (f // 6 * 53 + 9) % 2048) for f in range(frames)]


def offline(inputs, frames: int, seed: int = 0) -> Match:
    m = Match.new(seed)
    for p1, p2 in inputs[:frames]:
        m.step(FrameInput.from_bits(p1), FrameInput.from_bits(p2))
    return m


def watch(server: RoomOnUdp, spectators, *, confirm, finish_at, verdict, ticks=3000):
    """Tick the room and the spectators on a virtual clock (the sockets are real); the room
    confirms ``confirm(tick)`` frames and sends ``verdict`` at tick ``finish_at``."""
    now = 0.0
    for t in range(ticks):
        server.room.confirm_to(confirm(t))
        if t == finish_at:
            server.room.finish(verdict)
        server.step(now)
        time.sleep(0.0002)                      # let loopback deliver
        for s in spectators:
            s.tick(now)
        if all(s.state == "ended" for s in spectators):
            return
        now += DT
    raise AssertionError([s.state for s in spectators])


def test_a_spectator_steps_the_rooms_confirmed_frames_and_its_hash_agrees_with_the_verdict():
    inputs = fight(40)
    room = RoomOnUdp(FakeRoom(inputs, digest=DIGEST))
    final = offline(inputs, 40)
    verdict = wire.RoomEnd(0, 0, wire.NO_WINNER, 40, bytes.fromhex(final.state_hash()))
    s = Spectator.open(room.address, ROOM, SpectateOptions(delay=10), 0.0, digest=DIGEST)
    try:
        frames_seen = []
        s.listeners.append(lambda m, _e: frames_seen.append(m.frame))
        watch(room, [s], confirm=lambda t: t, finish_at=41, verdict=verdict)
        assert frames_seen == list(range(1, 41))             # each frame once, in order
        e = s.ending
        assert e is not None and e.kind == "finished" and e.frames == 40 and e.agrees is True
        assert s.match is not None and s.match.state_hash() == final.state_hash()
        assert s.behind_max >= 10
        time.sleep(0.01)
        room.step(10.0)
        assert room.room.left == [s.join.token]               # it left the room once it had seen it all
    finally:
        s.link.close()
        room.link.close()


def test_a_verdict_hash_that_differs_is_reported_as_not_agreeing():
    inputs = fight(30)
    room = RoomOnUdp(FakeRoom(inputs, digest=DIGEST))
    s = Spectator.open(room.address, ROOM, SpectateOptions(delay=0), 0.0, digest=DIGEST)
    try:
        watch(room, [s], confirm=lambda t: 30, finish_at=5, verdict=wire.RoomEnd(0, 0, 0, 30, bytes(32)))
        assert s.ending is not None and s.ending.kind == "finished" and s.ending.agrees is False
    finally:
        s.link.close()
        room.link.close()


def test_a_spectator_of_another_game_is_refused_naming_the_digest():
    room = RoomOnUdp(FakeRoom([], digest=DIGEST))
    s = Spectator.open(room.address, ROOM, SpectateOptions(), 0.0, digest=bytes(32))
    try:
        watch(room, [s], confirm=lambda t: 0, finish_at=-1, verdict=None, ticks=100)
        assert s.ending is not None and s.ending.kind == "refused"
        assert "plays another game" in s.ending.detail
    finally:
        s.link.close()
        room.link.close()


def test_no_answer_from_the_server_ends_after_give_up():
    quiet = UdpLink(("127.0.0.1", 0))
    s = Spectator.open(quiet.address, ROOM, SpectateOptions(give_up=0.5), 0.0, digest=DIGEST)
    try:
        for t in range(60):
            s.tick(t * DT)
        assert s.ending is not None and s.ending.kind == "no answer"
        assert f"127.0.0.1:{quiet.address[1]}" in s.ending.detail
    finally:
        s.link.close()
        quiet.close()


@pytest.mark.slow
def test_two_spectators_one_joining_mid_match_agree_with_the_players_and_the_referee():
    from serverhelp import close, play, room_player, start_server

    loop = start_server(tempfile.mkdtemp(prefix="rangebox-spectate-"))
    a = room_player(loop.address, "watched", frames=900, seed=3)
    b = room_player(loop.address, "watched", level="normal")
    specs: list[Spectator] = []

    def each(now: float) -> None:
        if not specs and a.confirmed is not None and a.confirmed.frame >= 1:
            specs.append(Spectator.open(loop.address, "watched", SpectateOptions(delay=30), now))
        if len(specs) == 1 and a.confirmed is not None and a.confirmed.frame >= 500:
            specs.append(Spectator.open(loop.address, "watched", SpectateOptions(delay=30, catch_up=30), now))
        for s in specs:
            s.tick(now)

    try:
        play([loop], [a, b], each=each, until=lambda: a.state == b.state == "ended" and len(specs) == 2
             and all(s.state == "ended" for s in specs))
        assert a.confirmed is not None and b.confirmed is not None
        assert a.confirmed.frame == b.confirmed.frame == 900
        referee = loop.results[-1]
        for s in specs:
            e = s.ending
            assert e is not None and e.kind == "finished" and e.agrees is True
            assert s.match is not None and s.match.state_hash() == a.confirmed.state_hash() == referee["state_hash"]
        assert specs[1].behind_max > 300                      # it came at frame 500 and caught up from 0
    finally:
        close([loop], [a, b])
        for s in specs:
            s.link.close()
