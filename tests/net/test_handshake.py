"""The handshake (game/net/handshake.py): a Hello answered by a Welcome that fixes the match, or
a Refuse that tells the joiner which digest part differs; a lost Welcome answered again."""

from __future__ import annotations

import struct

from game.net import protocol as wire
from game.net.handshake import (
    Agreed,
    HostHandshake,
    JoinHandshake,
    MatchSettings,
    differing_parts,
    settings_digest,
)
from game.net.session import P2PSession
from game.net.simnet import Conditions, SimNet

PARTS = [b"0.8.0", b"moves", b"fighters", b"arena"]
SETTINGS = MatchSettings(seed=2**63 + 5, p1_cpu=None, p2_cpu="hard", rounds=5, timer=45, host_side=0)


def _run(host, join, net, until=5.0):
    now = 0.0
    while now < until and (host.result is None or join.result is None):
        for data in join.poll(now):
            net.send("join", "host", data, now)
        for data, src in net.deliver("host", now):
            host.handle_datagram(data, src, now)
        for data, dst in host.poll(now):
            net.send("host", dst, data, now)
        for data, src in net.deliver("join", now):
            join.handle_datagram(data, src, now)
        now += 1 / 60
    return now


def test_a_hello_with_the_same_digest_is_welcomed_over_a_lossy_link_and_both_agree():
    digest = settings_digest(PARTS)
    host = HostHandshake(digest, SETTINGS)
    join = JoinHandshake("host", digest, token=0xDEADBEEF, now=0.0)
    _run(host, join, SimNet(2, Conditions(0.05, 0.02, loss=0.3)))
    assert host.result == Agreed("join", 0xDEADBEEF, 0, SETTINGS)
    assert join.result == Agreed("host", 0xDEADBEEF, 1, SETTINGS)


def test_a_digest_that_differs_is_refused_naming_the_parts():
    host = HostHandshake(settings_digest(PARTS), SETTINGS)
    join = JoinHandshake("host", settings_digest([b"0.8.0", b"moves (edited)", b"fighters", b"arena 2"]), 7, 0.0)
    _run(host, join, SimNet(1, Conditions(0.01)), until=1.0)
    assert host.result is None
    assert join.result is not None and join.result.reason == "digest" and join.result.parts == (1, 3)
    assert differing_parts(settings_digest(PARTS), settings_digest(PARTS)) == ()


def test_a_hello_of_another_protocol_version_is_refused_as_such():
    host = HostHandshake(settings_digest(PARTS), SETTINGS)
    hello = bytearray(wire.encode(wire.Hello(9, settings_digest(PARTS)), 0))
    hello[2] = wire.VERSION + 1
    assert host.handle_datagram(bytes(hello), "join", 0.0)
    (answer, to), = host.poll(0.0)
    join = JoinHandshake("host", settings_digest(PARTS), 9, 0.0)
    other = bytearray(answer)
    other[2] = wire.VERSION + 1                   # the host's answer, as an older host would send it
    assert join.handle_datagram(bytes(other), "host", 0.0)
    assert join.result is not None and join.result.reason == "version" and str(wire.VERSION + 1) in join.result.detail


def test_after_agreeing_the_host_answers_its_joiner_again_and_refuses_a_second_one():
    digest = settings_digest(PARTS)
    host = HostHandshake(digest, SETTINGS)
    hello = wire.encode(wire.Hello(5, digest), 0)
    assert host.handle_datagram(hello, "join", 0.0) and host.handle_datagram(hello, "join", 0.3)
    assert host.handle_datagram(wire.encode(wire.Hello(6, digest), 0), "other", 0.3)
    answers = [(wire.parse(d)[1], a) for d, a in host.poll(0.3)]
    assert [type(m).__name__ for m, _ in answers] == ["Welcome", "Welcome", "Refuse"]
    assert answers[2][1] == "other" and wire.REFUSALS[answers[2][0].reason] == "busy"
    # a session datagram is not the handshake's
    session = P2PSession(0, "join", 0.3, key=5)
    assert not host.handle_datagram(session.poll(0.3)[0], "join", 0.3)


def test_no_answer_gives_up():
    join = JoinHandshake("host", settings_digest(PARTS), 1, 0.0, give_up=2.0)
    sent = sum(len(join.poll(t / 10)) for t in range(30))
    assert join.result is not None and join.result.reason == "no answer" and 7 <= sent <= 9


def test_a_welcome_round_trips_every_cpu_level():
    from game.net.handshake import _settings, _welcome
    from game.sim.ai import LEVELS

    for level in (None, *LEVELS):
        s = SETTINGS._replace(p1_cpu=level)
        assert _settings(wire.parse(wire.encode(_welcome(1, bytes(32), s), 0))[1]) == s
    assert struct.calcsize("<IB32s") == 37
