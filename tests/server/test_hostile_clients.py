"""A hostile or buggy client against the server (RoomServer in-process, on a virtual clock):
it can neither forge another player's result nor hold a room, or the server, for ever."""

from __future__ import annotations

import json

import pytest

from game.net import protocol as netwire
from game.net import room_protocol as wire
from game.replay import load_replay
from game.server.results import ResultWriter
from game.server.server import RoomServer, ServerOptions
from game.sim import FrameInput, Match
from serverhelp import RawClient, route

P1_ADDR, P2_ADDR = ("10.0.0.2", 4000), ("10.0.0.3", 4000)


def _server(**kw) -> tuple[RoomServer, list]:
    written: list = []
    return RoomServer(ServerOptions(**kw), sink=lambda room, started: written.append(room)), written


def _room(srv: RoomServer, frames: int = 0) -> tuple[RawClient, RawClient]:
    a, b = RawClient(srv, P1_ADDR), RawClient(srv, P2_ADDR)
    a.join("dojo", frames=frames)
    b.join("dojo", frames=frames)
    route(srv, [a, b])
    return a, b


def _hashes(frames: int, seed: int = 5) -> dict[int, bytes]:
    """The true state hash of every check frame before ``frames`` (both players idle)."""
    m, out = Match.new(seed), {}
    for f in range(frames):
        if f % 30 == 0:
            out[f] = bytes.fromhex(m.state_hash())
        m.step(FrameInput.from_bits(0), FrameInput.from_bits(0))
    return out


def test_a_player_withholding_its_hash_reports_cannot_turn_the_match_end_into_a_disconnect_of_the_other():
    srv, written = _server()                                # the referee waits for reports (REPORT_WAIT)
    a, b = _room(srv, frames=70)
    a.inputs(0, [0] * 64, 0.1)
    b.inputs(0, [0] * 64, 0.1)
    a.inputs(64, [0] * 6, 0.2)
    b.inputs(64, [0] * 6, 0.2)
    for f, h in _hashes(70).items():
        a.relay(netwire.HashReport(f, h), 0.3)              # P1 honest; P2 never reports
    route(srv, [a, b], 0.3)
    assert srv.rooms["dojo"].state == "playing"             # the referee waits at frame 60 for P2's report
    a.relay(netwire.Goodbye(0), 0.5)                        # P1's match is over: it says Goodbye
    route(srv, [a, b], 0.6)
    ending = written[0].ending
    assert ending.reason == "finished" and ending.culprits == 0 and written[0].referee.frame == 70


def test_both_players_silent_after_the_last_frame_is_a_finished_match_not_a_disconnect():
    srv, written = _server(room_timeout=2.0)
    a, b = _room(srv, frames=50)
    a.inputs(0, [0] * 50, 0.1)
    b.inputs(0, [0] * 50, 0.1)                              # neither reports: the referee waits at frame 0
    route(srv, [a, b], 0.2)
    assert srv.rooms["dojo"].referee.frame == 0
    route(srv, [a, b], 3.0)
    assert written[0].ending.reason == "finished" and written[0].referee.frame == 50
    assert wire.ENDINGS[[m for _, m in a.got if isinstance(m, wire.RoomEnd)][-1].reason] == "finished"


def test_a_player_sending_keep_alives_but_no_inputs_is_named_once_the_referee_is_stuck_for_the_timeout(tmp_path):
    srv, written = _server(room_timeout=2.0)
    a, b = _room(srv)
    t = 0.0
    for k in range(40):                                     # 4 s: P1 plays its first 40 frames, P2 only pings
        t += 0.1
        if k < 5:
            a.inputs(8 * k, [0] * 8, t)
        a.relay(netwire.Quality(0, 40, 0), t)
        b.relay(netwire.Quality(0, 0, 0), t)
        route(srv, [a, b], t)
    assert written and written[0].ending.reason == "disconnect" and written[0].ending.culprits == 0b10
    assert "P2 without inputs" in written[0].ending.detail


def test_a_match_the_players_pause_together_on_the_same_frame_ends_naming_both():
    srv, written = _server(room_timeout=2.0)
    a, b = _room(srv)
    a.inputs(0, [0] * 10, 0.1)
    b.inputs(0, [0] * 10, 0.1)
    for k in range(60):                                     # the referee steps to 10 (no reports) then is stuck
        t = 0.2 + 0.1 * k
        a.relay(netwire.Quality(0, 10, 0), t)
        b.relay(netwire.Quality(0, 10, 0), t)
        route(srv, [a, b], t)
    assert written[0].ending.reason == "disconnect" and written[0].ending.culprits == 0b11
    assert written[0].referee.frame == 10


def test_after_a_finished_match_an_input_that_conflicts_with_the_referees_is_not_relayed():
    srv, written = _server(report_wait=0)
    a, b = _room(srv, frames=20)
    a.inputs(0, [0] * 20, 0.1)
    b.inputs(0, [0] * 20, 0.1)
    route(srv, [a, b], 0.1)
    assert written[0].ending.reason == "finished"
    a.got.clear()
    b.inputs(10, [1] * 10, 0.2)                             # P2 rewrites its last frames while the room lingers
    b.inputs(0, [0] * 24, 0.2)                              # its true inputs (and some past the end) still go
    route(srv, [a, b], 0.2)
    relayed = [netwire.parse(m.payload, a.key)[1] for _, m in a.got if isinstance(m, wire.Relay)]
    assert [(r.start, set(r.bits)) for r in relayed] == [(0, {0})]


def test_a_repeated_join_to_an_ended_room_is_answered_with_its_end_never_a_joined_saying_the_match_runs():
    srv, _ = _server(room_timeout=2.0)
    a = RawClient(srv, P1_ADDR)
    a.join("lonely", now=0.0)
    route(srv, [a], 0.0)
    for k in range(3):                                      # it expires; its RoomEnds are lost
        srv.poll(2.5 + 0.2 * k)
    assert srv.rooms["lonely"].ending.reason == "expired"
    a.got.clear()
    a.join("lonely", now=3.2)                               # the waiting player's Join comes through again
    route(srv, [a], 3.2)
    assert [type(m) for _, m in a.got] == [wire.RoomEnd]
    assert wire.ENDINGS[a.got[0][1].reason] == "expired"


def test_shutdown_writes_every_frame_both_players_sent_even_while_the_referee_waits_for_a_report():
    srv, written = _server()                                # the referee waits at frame 0 for the reports
    a, b = _room(srv)
    a.inputs(0, [0] * 50, 0.1)
    b.inputs(0, [0] * 50, 0.1)
    assert srv.rooms["dojo"].referee.frame == 0
    srv.shutdown(0.2)
    assert written[0].ending.reason == "shutdown" and written[0].referee.recorder.frames == 50


def _goodbye(srv, a, b):
    b.relay(netwire.Goodbye(0), 0.3)


def _leave(srv, a, b):
    b.send(wire.Leave(0), 0.3)


def _silence(srv, a, b):
    a.relay(netwire.Quality(0, 0, 0), 2.5)                  # P1 still speaks; P2 is silent past the timeout
    srv.poll(2.6)


def _stall(srv, a, b):
    for k in range(30):                                     # both speak; P2's inputs stop at frame 40
        t = 0.3 + 0.1 * k
        a.inputs(40 + k, [0], t)
        b.relay(netwire.Quality(0, 40, 0), t)
        srv.poll(t)


def _desync(srv, a, b):
    b.relay(netwire.HashReport(30, bytes(32)), 0.3)


def _error(srv, a, b):
    srv.rooms["dojo"].referee.match.step = None             # the room's next step raises
    a.inputs(40, [0], 0.3)
    b.inputs(40, [0], 0.3)


def _shutdown(srv, a, b):
    srv.shutdown(0.3)


def _finished(srv, a, b):
    a.inputs(40, [0] * 20, 0.3)
    b.inputs(40, [0] * 20, 0.3)


@pytest.mark.parametrize("how, reason", [(_goodbye, "disconnect"), (_leave, "disconnect"), (_silence, "disconnect"),
                                         (_stall, "disconnect"), (_desync, "desync"), (_error, "error"),
                                         (_shutdown, "shutdown"), (_finished, "finished")])
def test_every_ending_of_a_started_match_writes_its_result_line_and_a_replay_of_the_referees_frames(tmp_path, how,
                                                                                                   reason):
    writer = ResultWriter(tmp_path)
    srv = RoomServer(ServerOptions(room_timeout=2.0, report_wait=0),
                     sink=lambda room, started: writer.write(room, started, started + 1))
    a, b = _room(srv, frames=60)
    a.inputs(0, [0] * 40, 0.1)
    b.inputs(0, [0] * 40, 0.1)
    how(srv, a, b)
    srv.poll(3.0)
    lines = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert [x["reason"] for x in lines] == [reason]
    assert load_replay(lines[0]["replay"]).frames == lines[0]["frames"] > 0


def _refusal(client: RawClient) -> str | None:
    found = [m for _, m in client.got if isinstance(m, wire.Refused)]
    return wire.REFUSALS[found[-1].reason] if found else None


def test_one_ip_with_many_ports_holds_at_most_rooms_per_ip_seats_and_another_ip_still_gets_a_room():
    srv, _ = _server(rooms_per_ip=3, waiting_per_ip=8)
    host = "10.0.7.7"
    clients = [RawClient(srv, (host, 5000 + k), nonce=k + 1) for k in range(8)]
    for k, c in enumerate(clients[:4]):                     # rooms made from one IP: three, not four
        c.join(f"r{k}")
    route(srv, clients)
    assert [_refusal(c) for c in clients[:4]] == [None, None, None, "network"]
    seat = RawClient(srv, P2_ADDR)                          # a stranger takes r0's second seat: r0 plays
    seat.join("r0")
    late = clients[4]                                       # the same IP cannot take a seat of another IP's room
    other = RawClient(srv, P1_ADDR)
    other.join("theirs")
    route(srv, [*clients, seat, other])
    late.join("theirs")
    route(srv, [*clients, seat, other])
    assert _refusal(late) == "network" and _refusal(other) is None
    assert srv.rooms["r0"].state == "playing" and srv.rooms["theirs"].state == "waiting"
    assert _refusal(seat) is None and sorted(srv.rooms) == ["r0", "r1", "r2", "theirs"]


def test_a_room_holds_at_most_spectators_per_ip_watchers_from_one_ip():
    from game.server.spectators import SpectatorFeed
    srv = RoomServer(ServerOptions(spectators_per_ip=2), make_feed=SpectatorFeed)
    a, b = _room(srv)
    crowd = [RawClient(srv, ("10.0.8.8", 6000 + k), nonce=k + 1) for k in range(3)]
    elsewhere = RawClient(srv, ("10.0.8.9", 6000))
    for c in (*crowd, elsewhere):
        c.join("dojo", role=1)
    route(srv, [a, b, *crowd, elsewhere])
    assert [_refusal(c) for c in crowd] == [None, None, "network"] and _refusal(elsewhere) is None
    assert len(srv.rooms["dojo"].spectators) == 3


def test_a_fixed_port_player_joins_its_next_room_at_once_while_the_ended_one_lingers_and_a_leave_frees_places():
    from game.server.spectators import SpectatorFeed
    srv = RoomServer(ServerOptions(report_wait=0), make_feed=SpectatorFeed)
    a, b = _room(srv, frames=3)
    watcher = RawClient(srv, ("10.0.9.9", 7000))
    watcher.join("dojo", role=1)
    route(srv, [a, b, watcher])
    a.inputs(0, [1, 1, 1])
    b.inputs(0, [2, 2, 2])
    route(srv, [a, b, watcher], 0.5)
    old = srv.rooms["dojo"]
    assert old.state == "ended" and old.ending.reason == "finished"
    route(srv, [a, b, watcher], 6.0)                        # past the linger: the unacked spectator holds it
    assert srv.rooms.get("dojo") is old
    old_token = a.token
    again = RawClient(srv, P1_ADDR, nonce=a.nonce + 1)      # the same address and port, a new Join
    again.join("next", now=6.1)
    route(srv, [again], 6.1)
    assert _refusal(again) is None and again.token not in (0, old_token) and srv.rooms["next"].state == "waiting"
    a.send(wire.Leave(0), 6.2)                              # the old token still speaks to the ended room
    route(srv, [again], 6.3)
    assert old.left[0] and srv.rooms["next"].players[0].token == again.token
    watcher.send(wire.Leave(0), 6.4)                        # the spectator goes: the ended room is forgotten ...
    route(srv, [again, watcher], 6.5)
    assert "dojo" not in srv.rooms
    first = again.token                                     # ... and the address keeps its new place
    again.join("next", now=6.6)
    route(srv, [again], 6.6)
    assert again.token == first and _refusal(again) is None and srv.buffer_sizes()["joins"] == 1
