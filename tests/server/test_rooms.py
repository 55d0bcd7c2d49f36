"""The server's rooms and what it checks (game/server/server.py, room.py), with hand-made
datagrams on a virtual clock: joining, tokens, the relay, tampering, a room's failure, limits."""

from __future__ import annotations

import functools
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from game.net import protocol as netwire
from game.net import room_protocol as wire
from game.replay import load_replay
from game.server.results import ResultWriter
from game.server.room import LINGER
from game.server.server import MAX_ADDRESSES, RoomServer, ServerOptions
from game.sim import FrameInput, Match
from serverhelp import DIGEST, RawClient, route

P1_ADDR, P2_ADDR, THIRD = ("10.0.0.2", 4000), ("10.0.0.3", 4000), ("10.0.0.4", 4000)


def _server(**kw) -> tuple[RoomServer, list]:
    """A server (the referee not waiting for hash reports, unless ``report_wait`` is given)."""
    kw.setdefault("report_wait", 0)
    written: list = []
    srv = RoomServer(ServerOptions(**kw), sink=lambda room, started: written.append(room))
    return srv, written


def _room(srv: RoomServer, name: str = "dojo", frames: int = 0, p1=P1_ADDR, p2=P2_ADDR):
    a, b = RawClient(srv, p1), RawClient(srv, p2)
    a.join(name, frames=frames)
    b.join(name, frames=frames)
    route(srv, [a, b])
    return a, b


def _last(client: RawClient, kind):
    found = [m for _, m in client.got if isinstance(m, kind)]
    return found[-1] if found else None


def test_the_first_join_makes_the_room_the_second_starts_it_and_a_repeat_gets_the_same_token():
    srv, _ = _server()
    a, b = RawClient(srv, P1_ADDR), RawClient(srv, P2_ADDR)
    a.join("dojo", frames=90, seed=11)
    route(srv, [a, b])
    assert _last(a, wire.Joined).ready == 0 and a.side == 0 and a.token != 0
    first = a.token
    a.join("dojo", seed=99, now=0.1)                        # a repeat: same nonce and address
    route(srv, [a, b])
    assert a.token == first
    b.join("dojo", seed=12)
    route(srv, [a, b])
    for c in (a, b):
        j = _last(c, wire.Joined)
        assert j.ready == 1 and j.seed == 11 and j.frames == 90 and j.key == a.key
    assert (a.side, b.side) == (0, 1) and b.token not in (0, a.token)


@pytest.mark.parametrize("role, refusal", [(0, "full"), (1, "spectators"), (2, "spectators")])
def test_a_third_player_is_refused_full_and_without_a_feed_spectators_are_refused(role, refusal):
    srv, _ = _server()
    _room(srv)
    c = RawClient(srv, THIRD)
    c.join("dojo", role=role)
    route(srv, [c])
    assert _last(c, wire.Refused).reason == wire.REFUSALS.index(refusal)


def test_one_address_cannot_take_both_seats_of_a_room_with_a_second_join():
    srv, _ = _server()
    a = RawClient(srv, P1_ADDR)
    a.join("dojo")
    route(srv, [a])
    first = a.token
    again = RawClient(srv, P1_ADDR, nonce=a.nonce + 1)      # the same address, another nonce
    again.join("dojo")
    route(srv, [a, again])
    assert _last(again, wire.Refused).reason == wire.REFUSALS.index("address")
    assert srv.rooms["dojo"].state == "waiting" and a.token == first


def test_a_private_room_admits_only_joins_with_its_key_players_and_spectators_alike(tmp_path):
    from game.server.spectators import SpectatorFeed

    writer = ResultWriter(tmp_path)
    srv = RoomServer(ServerOptions(report_wait=0), make_feed=SpectatorFeed,
                     sink=lambda room, started: writer.write(room, started, started))
    a = RawClient(srv, P1_ADDR)
    a.join("dojo", key="tiger", frames=3)
    strangers = [RawClient(srv, ("10.0.5.1", 4000 + k), nonce=k + 1) for k in range(4)]
    strangers[0].join("dojo")                               # no key
    strangers[1].join("dojo", key="lion")                   # another key
    strangers[2].join("dojo", key="lion", digest=bytes(32))  # another key and game: the key is checked first
    strangers[3].join("dojo", role=1)                       # a spectator without the key
    route(srv, [a, *strangers])
    for c in strangers:
        refused = _last(c, wire.Refused)
        assert refused.reason == wire.REFUSALS.index("key") and refused.digest == bytes(32)
    assert srv.rooms["dojo"].state == "waiting" and not srv.rooms["dojo"].spectators
    b, watcher = RawClient(srv, P2_ADDR), RawClient(srv, THIRD)
    b.join("dojo", key="tiger")
    watcher.join("dojo", role=1, key="tiger")
    route(srv, [a, b, watcher])
    assert b.side == 1 and watcher.token != 0 and srv.rooms["dojo"].state == "playing"
    a.inputs(0, [1, 1, 1])
    b.inputs(0, [2, 2, 2])
    route(srv, [a, b, watcher], 0.5)
    line = json.loads((tmp_path / "results.jsonl").read_text())
    assert line["private"] is True and line["spectators"] == 1 and line["reason"] == "finished"
    assert wire.room_secret("dojo", "tiger") != wire.room_secret("dojo2", "tiger") != bytes(16)


def test_a_join_with_another_digest_is_refused_with_the_rooms():
    srv, _ = _server()
    a = RawClient(srv, P1_ADDR)
    a.join("dojo")
    b = RawClient(srv, P2_ADDR)
    b.join("dojo", digest=bytes(32))
    route(srv, [a, b])
    refused = _last(b, wire.Refused)
    assert refused.reason == wire.REFUSALS.index("digest") and refused.digest == DIGEST


def test_inputs_are_relayed_to_the_other_player_and_confirmed_frames_step_the_referee():
    srv, _ = _server()
    a, b = _room(srv)
    a.inputs(0, [1, 1, 2])
    route(srv, [a, b])
    relayed = _last(b, wire.Relay)
    assert relayed is not None and netwire.parse(relayed.payload, b.key)[1].bits == (1, 1, 2)
    referee = srv.rooms["dojo"].referee
    assert referee.frame == 0                               # P2's inputs not yet held: nothing confirmed
    b.inputs(0, [4, 4])
    assert referee.frame == 2 and list(referee.inputs[0]) == [1, 1, 2] and list(referee.inputs[1]) == [4, 4]


@given(st.lists(st.tuples(st.booleans(), st.integers(0, 2), st.integers(0, 2**16 - 1)), min_size=1, max_size=12))
def test_a_relayed_datagram_is_the_senders_payload_encoded_as_a_relay_with_the_receivers_token(sends):
    srv, _ = _server()
    a, b = _room(srv)
    srv.poll(0.0)
    frames = [0, 0]
    for from_b, kind, stamp in sends:
        sender, receiver = (b, a) if from_b else (a, b)
        if kind == 0:
            msg: netwire.Message = netwire.Inputs(frames[from_b], frames[from_b], -1, 0, (stamp % 8,))
            frames[from_b] += 1
        else:
            msg = netwire.Quality(stamp, 0, 0) if kind == 1 else netwire.QualityReply(stamp)
        payload = netwire.encode(msg, sender.seq, sender.key)
        sender.relay(msg)
        assert srv.poll(0.0) == [(wire.encode(wire.Relay(payload), receiver.token), receiver.addr)]


def test_tampering_inputs_for_the_other_side_with_its_token_a_wrong_token_or_another_address_are_dropped():
    srv, _ = _server()
    a, b = _room(srv)
    referee = srv.rooms["dojo"].referee
    a.inputs(0, [9, 9], token=b.token)                      # P2's token from P1's address
    a.inputs(0, [9, 9], token=b.token ^ 1)                  # a token nobody was given
    RawClient(srv, THIRD).inputs(0, [9, 9], token=b.token)  # P2's token from a third address
    b.inputs(0, [3, 3], addr=P1_ADDR)                       # P2's datagram with P1's source address
    assert len(referee.inputs[1]) == 0 and len(referee.inputs[0]) == 0
    assert srv.dropped["token"] == 4
    route(srv, [a, b])
    assert _last(a, wire.Relay) is None and _last(b, wire.Relay) is None


def test_an_input_that_conflicts_with_one_held_is_refused_and_not_relayed():
    srv, _ = _server()
    a, b = _room(srv)
    a.inputs(0, [1, 2, 3])
    route(srv, [a, b])
    b.got.clear()
    a.inputs(1, [2, 7])                                     # frame 2 was 3
    route(srv, [a, b])
    room = srv.rooms["dojo"]
    assert list(room.referee.inputs[0]) == [1, 2, 3] and room.dropped["inputs conflict"] == 1
    assert _last(b, wire.Relay) is None
    a.inputs(5, [1])                                        # a gap
    a.inputs(0, [0] * 64, now=0.0)                          # conflicts again
    assert room.dropped["inputs gap"] == 1 and room.dropped["inputs conflict"] == 2


@functools.cache
def _hash_at(frame: int, seed: int = 5) -> bytes:
    m = Match.new(seed)
    for _ in range(frame):
        m.step(FrameInput.from_bits(0), FrameInput.from_bits(0))
    return bytes.fromhex(m.state_hash())


def test_a_false_hash_report_names_that_player_in_a_desync_to_both_and_in_the_result(tmp_path):
    writer = ResultWriter(tmp_path)
    written: list = []
    srv = RoomServer(ServerOptions(report_wait=0),
                     sink=lambda room, started: written.append(writer.write(room, started, started + 1) and room))
    a, b = _room(srv)
    true = _hash_at(30)
    a.relay(netwire.HashReport(30, true))
    b.relay(netwire.HashReport(30, bytes(32)))              # P2 lies
    route(srv, [a, b])
    assert _last(a, wire.Relay) is None                     # hash reports are the referee's, never relayed
    a.inputs(0, [0] * 40)
    b.inputs(0, [0] * 40)
    route(srv, [a, b], 0.2)
    for c in (a, b):
        end = _last(c, wire.RoomEnd)
        assert end is not None and wire.ENDINGS[end.reason] == "desync" and end.culprits == 0b10
        assert end.frame == 30 and end.state_hash == true
    assert [r.name for r in written] == ["dojo"] and written[0].ending.culprits == 0b10
    line = json.loads((tmp_path / "results.jsonl").read_text())
    assert line["reason"] == "desync" and line["culprits"] == [2] and line["frames"] == 30
    assert line["state_hash"] == true.hex() and "P2's at frame 30" in line["detail"]
    assert load_replay(line["replay"]).frames == 30


def test_a_report_arriving_after_the_referee_passed_its_frame_is_judged_too():
    srv, written = _server()
    a, b = _room(srv)
    a.inputs(0, [0] * 40)
    b.inputs(0, [0] * 40)
    a.relay(netwire.HashReport(30, _hash_at(30)))
    route(srv, [a, b])
    assert srv.rooms["dojo"].state == "playing"
    a.relay(netwire.HashReport(0, bytes(32)))               # P1 lies about frame 0, late
    route(srv, [a, b])
    assert written and written[0].ending.reason == "desync" and written[0].ending.culprits == 0b01


def test_the_referee_waits_at_a_check_frame_for_both_reports_but_not_past_its_limit():
    srv, _ = _server(report_wait=20)
    a, b = _room(srv)
    referee = srv.rooms["dojo"].referee
    a.inputs(0, [0] * 40)
    b.inputs(0, [0] * 40)
    assert referee.frame == 30                              # at frame 30: no report of it yet
    a.relay(netwire.HashReport(30, _hash_at(30)))
    assert referee.frame == 30
    b.relay(netwire.HashReport(30, _hash_at(30)))
    assert referee.frame == 40                              # both in and equal: on it goes
    a.inputs(40, [0] * 30)
    b.inputs(40, [0] * 30)
    assert referee.frame == 60                              # no report of 60 ...
    a.inputs(70, [0] * 20)
    b.inputs(70, [0] * 20)
    assert referee.frame == 90                              # ... but it waits 20 frames of inputs at most


def test_a_room_stops_at_its_stop_frame_and_writes_its_result_as_finished():
    srv, written = _server()
    a, b = _room(srv, frames=20)
    a.inputs(0, [0] * 30)
    b.inputs(0, [0] * 30)
    route(srv, [a, b])
    room = written[0]
    assert room.ending.reason == "finished" and room.referee.frame == 20 and room.referee.recorder.frames == 20
    assert wire.ENDINGS[_last(a, wire.RoomEnd).reason] == "finished"


def test_a_goodbye_mid_match_is_relayed_and_ends_the_room_as_a_disconnect_naming_that_player():
    srv, written = _server()
    a, b = _room(srv)
    b.relay(netwire.Goodbye(0))
    route(srv, [a, b])
    assert _last(a, wire.Relay) is not None
    assert written[0].ending.reason == "disconnect" and written[0].ending.culprits == 0b10


def test_a_silent_player_ends_the_match_and_a_waiting_room_expires_unwritten():
    srv, written = _server(room_timeout=2.0)
    a, b = _room(srv)
    c = RawClient(srv, THIRD)
    c.join("lonely")
    a.inputs(0, [0], now=1.5)
    route(srv, [a, b, c], 2.5)
    assert written[0].ending.reason == "disconnect" and written[0].ending.culprits == 0b10
    assert srv.rooms["lonely"].ending.reason == "expired" and len(written) == 1
    for k in range(3):                                      # the RoomEnd's repeats, then the linger
        route(srv, [a, b, c], 2.5 + LINGER + 1 + k)
    assert srv.rooms == {} and srv.buffer_sizes()["members"] == 0


def test_one_rooms_exception_ends_it_as_an_error_with_its_result_and_the_others_go_on(caplog):
    srv, written = _server()
    a, b = _room(srv, "bad")
    c, d = _room(srv, "good", p1=THIRD, p2=("10.0.0.5", 4000))
    a.inputs(0, [0] * 5)
    b.inputs(0, [0] * 5)

    def broken(*_a, **_k):
        raise RuntimeError("injected fault")

    srv.rooms["bad"].referee.advance = broken
    a.inputs(5, [0] * 5)
    b.inputs(5, [0] * 5)                                # frames 5 to 9 to step: the referee raises
    route(srv, [a, b, c, d])
    assert [r.name for r in written] == ["bad"] and written[0].ending.reason == "error"
    assert "room bad failed" in caplog.text and "RuntimeError: injected fault" in caplog.text   # the traceback
    assert written[0].referee.recorder.frames == 5          # what it had is written
    assert wire.ENDINGS[_last(b, wire.RoomEnd).reason] == "error"
    c.inputs(0, [0] * 10)
    d.inputs(0, [0] * 10)
    assert srv.rooms["good"].referee.frame == 10 and srv.rooms["good"].state == "playing"


def test_a_room_failing_inside_a_step_writes_its_replay_to_the_last_check_frame_and_it_plays(tmp_path,
                                                                                           monkeypatch):
    """A step that raises leaves the referee's match between two frames, never hashed: the
    replay ends at the newest check frame, and the result and the RoomEnd give that frame and
    its hash."""
    import game.sim.match as match_mod
    from game.replay import play_replay

    writer = ResultWriter(tmp_path)
    srv = RoomServer(ServerOptions(room_timeout=2.0, report_wait=0),
                     sink=lambda room, started: writer.write(room, started, started + 1))
    a, b = _room(srv, frames=60)
    a.inputs(0, [0] * 40)
    b.inputs(0, [0] * 40)

    def judge(_m):                                      # after the fighters moved in frame 40
        raise RuntimeError("injected fault in a step")
    monkeypatch.setattr(match_mod.combat, "judge", judge)
    a.inputs(40, [0b1])
    b.inputs(40, [0b1])
    monkeypatch.undo()
    route(srv, [a, b])
    line = json.loads((tmp_path / "results.jsonl").read_text().splitlines()[0])
    replay = load_replay(line["replay"])
    assert line["reason"] == "error" and line["frames"] == replay.frames == 30
    assert play_replay(replay)["final_hash"] == line["state_hash"]
    end = _last(b, wire.RoomEnd)
    assert wire.ENDINGS[end.reason] == "error" and end.frame == 30 and end.state_hash.hex() == line["state_hash"]


def test_shutdown_writes_every_started_match_and_tells_every_player():
    srv, written = _server()
    rooms = [_room(srv, f"r{i}", p1=("10.0.1.1", i), p2=("10.0.1.2", i)) for i in range(3)]
    for a, b in rooms:
        a.inputs(0, [0] * 7)
        b.inputs(0, [0] * 7)
    out = srv.shutdown(1.0)
    assert sorted(r.name for r in written) == ["r0", "r1", "r2"]
    assert all(r.ending.reason == "shutdown" and r.referee.frame == 7 for r in written)
    ends = [wire.parse(d)[1] for d, _ in out]
    assert sum(isinstance(m, wire.RoomEnd) for m in ends) == 6


def test_malformed_datagrams_are_counted_by_reason_and_joins_past_the_limits_refused():
    srv, _ = _server(max_rooms=3, waiting_per_ip=2)
    srv.handle(b"junk", P1_ADDR, 0.0)
    srv.handle(b"RS" + bytes(30), P1_ADDR, 0.0)
    assert srv.dropped["short"] == 1 and srv.dropped["version"] == 1
    clients = [RawClient(srv, ("10.0.2.1", p), nonce=p) for p in range(3)]
    for i, c in enumerate(clients):
        c.join(f"room{i}")
    route(srv, clients)
    assert _last(clients[2], wire.Refused).reason == wire.REFUSALS.index("rooms")     # 2 waiting per IP
    other = RawClient(srv, ("10.0.3.1", 1))
    other.join("room9")
    late = RawClient(srv, ("10.0.4.1", 1))
    late.join("room10")
    route(srv, [other, late])
    assert _last(other, wire.Joined) is not None and _last(late, wire.Refused).reason == wire.REFUSALS.index("rooms")


def test_an_address_over_its_rate_is_dropped_until_its_bucket_refills():
    srv, _ = _server(rate=10.0, burst=5.0)
    for _ in range(8):
        srv.handle(b"x", P1_ADDR, 0.0)
    assert srv.dropped["rate"] == 3
    srv.handle(b"x", P1_ADDR, 1.0)
    assert srv.dropped["rate"] == 3


@pytest.mark.slow
def test_a_flood_of_joins_and_junk_from_many_addresses_keeps_every_table_bounded_and_a_room_advancing():
    srv, written = _server(max_rooms=64)
    a, b = _room(srv)
    referee = srv.rooms["dojo"].referee
    now, frame = 0.0, 0
    for burst in range(60):
        now += 1 / 60
        for k in range(200):
            n = burst * 200 + k
            addr = (f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}", 5000 + k)
            srv.handle(wire.encode(wire.Join(n, 0, f"f{n}", "", DIGEST, 1, 3, 60), 0), addr, now)
            srv.handle(bytes([n & 255]) * (n % 700), addr, now)
            srv.handle(wire.encode(wire.Relay(b"RN" + bytes(20)), n + 1), addr, now)
        a.inputs(frame, [0], now)
        b.inputs(frame, [0], now)
        frame += 1
        route(srv, [a, b], now)
        sizes = srv.buffer_sizes()
        assert sizes["rooms"] <= 64 and sizes["members"] <= 2 * 64 and sizes["buckets"] <= MAX_ADDRESSES
        assert referee.frame == frame                       # the room keeps its frame rate
    assert srv.dropped["refused rooms"] > 10_000 and srv.dropped["token"] >= 12_000
    assert not written and srv.rooms["dojo"].state == "playing"


class _Feed:
    """A stand-in for game.server.spectators.SpectatorFeed (its interface in the design note)."""

    def __init__(self, places: int = 2) -> None:
        self.places, self.tokens, self.pushed, self.ended, self.acks = places, {}, [], False, []
        self.frames = 0

    def add(self, token, addr, now):
        if len(self.tokens) >= self.places and token not in self.tokens:
            return False
        self.tokens[token] = [addr, now]
        return True

    def remove(self, token):
        self.tokens.pop(token, None)

    def push(self, p1, p2):
        assert not self.ended
        self.pushed.append((p1, p2))
        self.frames += 1

    def end(self):
        self.ended = True

    def handle_ack(self, token, next_frame, now):
        self.acks.append((token, next_frame))
        self.tokens[token][1] = now

    def poll(self, now):
        return []

    def expire(self, now, silent):
        gone = [t for t, (_, heard) in self.tokens.items() if now - heard > silent]
        for t in gone:
            del self.tokens[t]
        return gone

    def addresses(self):
        return [(t, a) for t, (a, _) in self.tokens.items()]

    def __len__(self):
        return len(self.tokens)


def test_spectators_get_a_place_the_confirmed_frames_in_order_and_the_verdict_and_leave_no_token_behind():
    feeds: list[_Feed] = []
    srv = RoomServer(ServerOptions(report_wait=0, room_timeout=5.0),
                     make_feed=lambda: feeds.append(_Feed()) or feeds[-1])
    a, b = _room(srv, frames=6)
    watchers = [RawClient(srv, ("10.0.9.1", p), nonce=p) for p in range(3)]
    for k, w in enumerate(watchers):
        w.join("dojo", role=1 if k else 2)                  # "play or spectate" in a full room: a spectator
    route(srv, [a, b, *watchers])
    feed = feeds[0]
    assert [_last(w, wire.Joined).side for w in watchers[:2]] == [wire.NO_SIDE] * 2
    assert _last(watchers[2], wire.Refused).reason == wire.REFUSALS.index("spectators")
    watchers[0].send(wire.SpectatorAck(0), 0.5)
    assert feed.acks == [(watchers[0].token, 0)]
    a.inputs(0, [1, 2, 3, 4, 5, 6, 7])
    b.inputs(0, [9, 9, 9, 9, 9, 9, 9])
    route(srv, [a, b, *watchers], 1.0)
    assert feed.pushed == [(1, 9), (2, 9), (3, 9), (4, 9), (5, 9), (6, 9)] and feed.ended
    for w in watchers[:2]:
        end = _last(w, wire.RoomEnd)
        assert end is not None and wire.ENDINGS[end.reason] == "finished" and end.frame == 6
    route(srv, [a, b, *watchers], 7.0)                      # silent spectators expire: their tokens too
    assert len(feed) == 0 and srv.buffer_sizes()["members"] == 2


@pytest.mark.slow
@given(st.binary(max_size=700), st.sampled_from([0, 1, 2]))
def test_any_bytes_from_anyone_are_dropped_or_taken_never_raised(data, who):
    srv, _ = _server()
    a, b = _room(srv)
    srv.handle(data, (P1_ADDR, P2_ADDR, THIRD)[who], 0.1)
    srv.handle(wire.encode(wire.Relay(data[:netwire.MAX_DATAGRAM] or b"x"), a.token), P1_ADDR, 0.1)
    srv.poll(0.2)
