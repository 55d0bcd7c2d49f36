"""Whole matches through the server: two CPU players (NetMatch through a RoomLink) and the
referee agree on every state and replay, over memory on a virtual clock and over the loopback
address; a player who lies about its hashes is named by the referee and both players stop."""

from __future__ import annotations

import json

import pytest

from game.net import protocol as netwire
from game.net import room_protocol as wire
from game.replay import ReplayRecorder, load_replay
from game.server.server import RoomServer
from serverhelp import MemoryNet, close, memory_player, play, play_virtual, recorded, room_player, start_server

pytestmark = pytest.mark.slow




def test_two_cpu_players_through_the_server_agree_with_the_referee_state_and_replay():
    written: list = []
    srv = RoomServer(sink=lambda room, started: written.append(room))
    net = MemoryNet(srv)
    a = memory_player(net, ("10.0.0.2", 1), "dojo", frames=300)
    b = memory_player(net, ("10.0.0.3", 1), "dojo", frames=300, level="normal", seed=9)
    recs = [recorded(a), recorded(b)]
    play_virtual(net, [a, b])
    assert a.ending.kind == b.ending.kind == "finished" and (a.side, b.side) == (0, 1)
    room = written[0]
    assert room.ending.reason == "finished" and room.referee.frame == 300
    assert a.confirmed.state_hash() == b.confirmed.state_hash() == room.referee.match.state_hash()
    server_replay = room.referee.recorder.to_bytes()
    assert recs[0][0].to_bytes() == recs[1][0].to_bytes() == server_replay
    assert room.referee.casts.nearest > 0                  # the ground under the fighters (C7)


def test_the_second_player_stops_where_the_room_stops_not_where_its_own_frames_say():
    written: list = []
    srv = RoomServer(sink=lambda room, started: written.append(room))
    net = MemoryNet(srv)
    a = memory_player(net, ("10.0.0.2", 1), "dojo", frames=120)
    b = memory_player(net, ("10.0.0.3", 1), "dojo", frames=60)
    play_virtual(net, [a, b])
    assert a.ending.kind == b.ending.kind == "finished" and a.confirmed.frame == b.confirmed.frame == 120
    assert written[0].ending.reason == "finished" and written[0].referee.frame == 120


def test_a_player_that_reports_false_hashes_is_named_and_both_players_end_in_that_desync():
    written: list = []
    srv = RoomServer(sink=lambda room, started: written.append(room))
    net = MemoryNet(srv)
    a = memory_player(net, ("10.0.0.2", 1), "dojo", frames=600)
    b = memory_player(net, ("10.0.0.3", 1), "dojo", frames=600)

    def lie(data: bytes) -> bytes:                          # P2's client rewrites its hash reports
        token, msg = wire.parse(data)
        if isinstance(msg, wire.Relay) and b.link.join.token:
            seq, inner = netwire.parse(msg.payload, b.link.join.joined.key)
            if isinstance(inner, netwire.HashReport) and inner.frame >= 60:
                fake = netwire.encode(inner._replace(state_hash=bytes(32)), seq, b.link.join.joined.key)
                return wire.encode(wire.Relay(fake), token)
        return data
    b.link.udp.tamper = lie
    play_virtual(net, [a, b])
    assert written[0].ending.reason == "desync" and written[0].ending.culprits == 0b10
    assert written[0].referee.desync_frame == 60
    for n in (a, b):
        assert n.ending.kind == "desync"
        assert "the referee's state differs from P2's at frame 60" in n.ending.detail


def test_two_players_on_the_loopback_address_through_a_server_write_the_result_and_the_same_replay(tmp_path):
    srv = start_server(tmp_path)
    a = room_player(srv.address, "dojo", frames=240, name="Kaito")
    b = room_player(srv.address, "dojo", frames=240, level="normal", seed=9)
    recs = [recorded(a), recorded(b)]
    try:
        play([srv], [a, b], seconds=60, until=lambda: a.state == b.state == "ended" and not srv.server.rooms)
    finally:
        close([srv], [a, b])
    lines = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert len(lines) == 1
    line = lines[0]
    assert line["reason"] == "finished" and line["frames"] == 240 and line["room"] == "dojo"
    assert line["players"][0]["name"] == "Kaito" and line["players"][1]["name"] == line["players"][1]["address"]
    assert line["spectators"] == 0
    assert line["state_hash"] == a.confirmed.state_hash() == b.confirmed.state_hash()
    replay = (tmp_path / line["replay"]).read_bytes()
    assert replay == recs[0][0].to_bytes() == recs[1][0].to_bytes()
    assert load_replay(tmp_path / line["replay"]).frames == 240


def test_3600_frames_two_players_and_two_spectators_on_the_loopback_address_agree_to_the_end(tmp_path):
    """The issue's whole-match check: two CPU players and two spectators (one from the start, one
    joining at frame 1,800 and catching up from frame 0) through a server on 127.0.0.1: the
    players' confirmed hashes, the referee's and the spectators' agree, and the server's replay
    is byte for byte both players' replays and both spectators' recordings."""
    from game.online.spectate import SpectateOptions, Spectator

    srv = start_server(tmp_path)
    a = room_player(srv.address, "long", frames=3600, timer=60, rounds=5)
    b = room_player(srv.address, "long", frames=3600, level="normal", seed=9)
    recs = [recorded(a), recorded(b)]
    specs: list[Spectator] = []
    watched: list[list[ReplayRecorder]] = []

    def each(now: float) -> None:
        frame = a.confirmed.frame if a.confirmed is not None else 0
        if len(specs) < 2 and frame >= (1, 1800)[len(specs)]:
            specs.append(Spectator.open(srv.address, "long", SpectateOptions(delay=30), now))
            watched.append(recorded(specs[-1]))
        for sp in specs:
            sp.tick(now)

    try:
        play([srv], [a, b], seconds=400, each=each, until=lambda: a.state == b.state == "ended"
             and len(specs) == 2 and all(sp.state == "ended" for sp in specs) and not srv.server.rooms)
    finally:
        close([srv], [a, b])
        for sp in specs:
            sp.link.close()
    line = json.loads((tmp_path / "results.jsonl").read_text())
    assert a.ending.kind == b.ending.kind == "finished"
    assert a.confirmed.frame == b.confirmed.frame == line["frames"] == 3600
    assert line["reason"] == "finished" and line["spectators"] == 2
    final = a.confirmed.state_hash()
    assert line["state_hash"] == final == b.confirmed.state_hash()
    for sp in specs:
        assert sp.ending is not None and sp.ending.agrees is True and sp.match.state_hash() == final
    assert specs[1].behind_max > 1000                       # it joined at 1,800 and caught up from frame 0
    replay = (tmp_path / line["replay"]).read_bytes()
    assert replay == recs[0][0].to_bytes() == recs[1][0].to_bytes()
    assert all(w[0].to_bytes() == replay for w in watched)


def test_a_client_that_never_sends_hash_reports_still_ends_the_match_finished_with_both_players():
    written: list = []
    srv = RoomServer(sink=lambda room, started: written.append(room))
    net = MemoryNet(srv)
    a = memory_player(net, ("10.0.0.2", 1), "dojo", frames=300)
    b = memory_player(net, ("10.0.0.3", 1), "dojo", frames=300)

    def withhold(data: bytes) -> bytes | None:              # P2's client drops its hash reports
        _, msg = wire.parse(data)
        if isinstance(msg, wire.Relay) and b.link.join.joined is not None:
            _, inner = netwire.parse(msg.payload, b.link.join.joined.key)
            if isinstance(inner, netwire.HashReport):
                return None
        return data
    b.link.udp.tamper = withhold
    net.pump(play_virtual(net, [a, b]) + 0.1)               # the room's result is written at its next poll
    assert a.ending.kind == b.ending.kind == "finished"
    room = written[0]
    assert room.ending.reason == "finished" and room.ending.culprits == 0 and room.referee.frame == 300
    assert room.referee.match.state_hash() == a.confirmed.state_hash()
