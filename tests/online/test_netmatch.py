"""game/online/netmatch.py: two NetMatch sides in one process over real loopback sockets, ticked
in turn on a shared simulated clock: they agree a match, stop on the same confirmed frame with
the same state, and end as the other side leaves, falls silent, desyncs or is refused."""

from __future__ import annotations

import pytest

from game.net.handshake import MatchSettings, settings_digest
from game.online.netmatch import NetMatch, NetOptions
from game.online.udp import UdpLink
from game.sim import FrameInput, Match

LOOPBACK = ("127.0.0.1", 0)
DIGEST = settings_digest([b"0.8.0", b"moves", b"fighters", b"arena"])
DT = 1 / 60


class Clock:
    now = 0.0


@pytest.fixture
def links():
    made = [UdpLink(LOOPBACK), UdpLink(LOOPBACK)]
    yield made
    for link in made:
        link.close()


def make_pair(links, *, stop_at=None, timeout=5.0, seed=4, join_digest=DIGEST, rounds=3):
    host_link, join_link = links
    settings = MatchSettings(seed, "hard", None, rounds, 60, 0)
    host = NetMatch.host(host_link, DIGEST, settings, NetOptions(stop_at=stop_at, cpu_level="hard", timeout=timeout))
    join = NetMatch.join(join_link, host_link.address, join_digest, 0xC0FFEE, 0.0,
                         NetOptions(stop_at=stop_at, cpu_level="normal", timeout=timeout))
    return host, join


def tick(sides, clock: Clock, ticks: int = 1, until=None) -> None:
    """Tick every side once per 1/60 s of the clock, ``ticks`` times or until ``until()``."""
    for _ in range(ticks if until is None else 100_000):
        if until is not None and until():
            return
        for s in sides:
            s.tick(clock.now)
        clock.now += DT


def recorded(net: NetMatch) -> list[tuple[int, int]]:
    """The confirmed match's inputs, frame by frame, as a replay records them."""
    out: list[tuple[int, int]] = []
    net.confirmed_listeners.append(lambda m, _ev: out.append(tuple(i.bits for i in m.last_inputs)))
    return out


def test_a_refused_joiner_stops_naming_the_part_that_differs_and_the_host_waits_on(links):
    other = settings_digest([b"0.8.0", b"other moves", b"fighters", b"arena"])
    host, join = make_pair(links, join_digest=other)
    tick([join, host, join], Clock(), 3)
    assert join.state == "ended" and join.ending.kind == "refused", join.ending
    assert host.state == "waiting" and host.ending is None and host.refusals == 1
    for line in (join.ending.detail, *host.notices()):
        assert "assets/moves.json differs" in line
        assert "fighters.json" not in line and "the game version" not in line
    assert host.notices() == []                     # drained


def test_a_strangers_datagrams_never_stop_a_waiting_host_which_then_plays_its_joiner(links):
    from game.net import protocol as wire

    host, join = make_pair(links)
    stranger = UdpLink(LOOPBACK)
    hello = wire.encode(wire.Hello(7, settings_digest([b"x"])), 0)
    other_version = bytes([*b"RN", wire.VERSION + 1]) + hello[3:]
    flipped = hello[:2] + bytes([hello[2] ^ 0x40]) + hello[3:]          # one bit of a Hello's version
    try:
        for data in (hello, other_version, flipped, hello, b"RN", b"\xff" * 600):
            stranger.send(data, links[0].address)
        tick([host], Clock(), 2)
        assert host.state == "waiting" and host.refusals == 4
        assert len(host.notices()) == 3                # each different line once
        assert [wire.parse(d)[1].reason for d, _ in stranger.receive()] == [2, 1, 1, 2]   # digest, version
        clock = Clock()
        tick([join, host], clock, until=lambda: host.state == join.state == "playing")
    finally:
        stranger.close()


@pytest.mark.slow
def test_both_sides_stop_on_the_same_confirmed_frame_with_the_same_state_as_an_offline_replay(links):
    host, join = make_pair(links, stop_at=400)
    inputs = [recorded(host), recorded(join)]
    clock = Clock()
    tick([host, join], clock, until=lambda: host.state == join.state == "ended")
    assert host.ending.kind == join.ending.kind == "finished"
    assert host.side == 0 and join.side == 1
    assert host.confirmed.frame == join.confirmed.frame == 400
    assert host.confirmed.state_hash() == join.confirmed.state_hash()
    assert inputs[0] == inputs[1] and len(inputs[0]) == 400
    assert len({p1 for p1, _ in inputs[0]}) > 3 and len({p2 for _, p2 in inputs[0]}) > 3     # both CPUs played
    offline = Match.new(4)
    for p1, p2 in inputs[0]:
        offline.step(FrameInput.from_bits(p1), FrameInput.from_bits(p2))
    assert offline.state_hash() == host.confirmed.state_hash()
    assert host.hits == join.hits


@pytest.mark.slow
def test_a_side_that_falls_silent_ends_the_match_after_the_timeout(links):
    host, join = make_pair(links, timeout=1.0)
    clock = Clock()
    tick([host, join], clock, 90)
    assert host.state == join.state == "playing"
    quiet_from = clock.now
    tick([host], clock, until=lambda: host.state == "ended")
    assert host.ending.kind == "disconnected" and "silent for 1 s" in host.ending.detail
    assert 1.0 < clock.now - quiet_from < 1.0 + 3 * DT
    assert host.ending.frames == host.confirmed.frame > 60


@pytest.mark.slow
def test_a_side_that_leaves_ends_the_others_match_at_once(links):
    host, join = make_pair(links)
    clock = Clock()
    tick([host, join], clock, 60)
    join.close(clock.now)
    assert join.ending.kind == "left"
    tick([host], clock, 1)
    assert host.ending.kind == "disconnected" and "left the match" in host.ending.detail


@pytest.mark.slow
def test_a_desync_stops_both_sides_and_reports_the_frame_hashes_and_inputs(links):
    host, join = make_pair(links)
    clock = Clock()
    tick([host, join], clock, until=lambda: host.state == "playing")
    live = host.match
    step = live.step

    def flawed_step(p1, p2):           # the host's simulation differs from frame 100 on
        events = step(p1, p2)
        if live.frame == 101:
            live.fighters[0].health -= 1
        return events
    live.step = flawed_step
    tick([host, join], clock, until=lambda: host.state == join.state == "ended")
    for side in (host, join):
        assert side.ending.kind == "desync", side.ending
        assert "differ at frame 120" in side.ending.detail and "last agreed at frame 90" in side.ending.detail
    report = host.desync_report()
    assert report["frame"] == 120 and report["last_agreed"] == 90 and report["player"] == 1
    assert report["local_hash"] != report["remote_hash"]
    assert join.desync_report()["local_hash"] == report["remote_hash"]
    frames = [f for f, _p1, _p2 in report["inputs"]]
    assert frames[0] == 90 and frames == list(range(90, frames[-1] + 1)) and frames[-1] >= 119
