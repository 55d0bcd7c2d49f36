"""P2PSession (game/net/session.py): prediction and rollback, the prediction window, acks and
resends, refused inputs, silence, and the desync check, driven by hand or over a SimNet with
a stand-in game (nethelp.FakeGame) whose state is its inputs."""

from __future__ import annotations

import pytest

from game.net import protocol as wire
from game.net.requests import AdvanceFrame, Desync, Disconnected, Interrupted, LoadState, Resumed
from game.net.session import P2PSession
from game.net.simnet import Conditions, SimNet
from nethelp import ADDRS, FakeGame, link

DT = 1 / 60


def pair(**kw) -> tuple[P2PSession, P2PSession]:
    return P2PSession(0, ADDRS[1], 0.0, **kw), P2PSession(1, ADDRS[0], 0.0, **kw)


def test_a_wrong_guess_loads_its_frame_and_re_advances_to_the_present_with_the_real_input():
    a, b = pair(input_delay=0)
    game = FakeGame(b.slots)
    for f in range(4):                      # b runs 4 frames guessing a's input (0: none known)
        game.carry_out(b.advance(0, f * DT))
    assert [r.inputs for r in b.advance(0, 4 * DT) if isinstance(r, AdvanceFrame)] == [(0, 0)]
    game.carry_out([AdvanceFrame(4, (0, 0))])
    a.advance(0, 0.0)                       # a's frames 0, 1: inputs 0 then 5
    a.advance(5, DT)
    for data in a.poll(DT):
        b.handle_datagram(data, ADDRS[0], DT)
    reqs = b.advance(0, 5 * DT)
    assert reqs[0] == LoadState(1, 1 % b.slots)
    adv = [r for r in reqs if isinstance(r, AdvanceFrame)]
    assert [r.frame for r in adv] == [1, 2, 3, 4, 5]
    assert all(r.inputs == (5, 0) for r in adv)     # the real input of frame 1, then repeated
    game.carry_out(reqs)
    assert game.state == ((0, 0),) + ((5, 0),) * 5
    assert b.stats(5 * DT).rollback_last == 4      # frames 1..4 stepped again


def test_the_local_input_is_played_input_delay_frames_later():
    a, _ = pair(input_delay=3)
    played = [r.inputs[0] for f in range(6) for r in a.advance(f + 1, f * DT) if isinstance(r, AdvanceFrame)]
    assert played == [0, 0, 0, 1, 2, 3]


def test_past_the_prediction_window_advance_waits_for_the_peer():
    a, _ = pair(max_rollback=5)
    counts = [len(a.advance(0, f * DT)) for f in range(8)]
    assert counts == [2] * 5 + [0] * 3           # frames 0..4: a wrong guess at 0 costs 5 frames again
    assert a.waiting == "window" and a.frame == 5 and a.stats(0.2).waited_frames == 3


def _inputs(start, bits, ack=-1, frame=0) -> bytes:
    return wire.encode(wire.Inputs(start, frame, ack, 0, tuple(bits)), 0)


def test_an_input_that_disagrees_with_a_received_one_is_ignored_and_counted():
    a, _ = pair()
    a.handle_datagram(_inputs(0, [1, 2, 3, 4]), ADDRS[1], 0.0)
    a.handle_datagram(_inputs(2, [9, 4, 7]), ADDRS[1], 0.0)
    assert [a.remote[f] for f in range(5)] == [1, 2, 3, 4, 7]
    assert a.counters.conflicts == 1


def test_duplicated_and_reordered_datagrams_give_the_same_inputs():
    a, _ = pair()
    packets = [_inputs(0, range(k)) for k in range(1, 9)]
    for data in packets[::-1] + packets + packets[::2]:
        a.handle_datagram(data, ADDRS[1], 0.0)
    assert a.remote.last == 7 and [a.remote[f] for f in range(8)] == list(range(8))
    assert a.counters.conflicts == 0


def test_inputs_after_a_gap_far_ahead_or_acking_unsent_frames_are_refused():
    a, _ = pair()
    a.handle_datagram(_inputs(5, [1]), ADDRS[1], 0.0)
    a.handle_datagram(_inputs(0, [1], frame=10**6), ADDRS[1], 0.0)
    a.handle_datagram(_inputs(0, [1], ack=500), ADDRS[1], 0.0)
    assert dict(a.counters.invalid) == {"gap": 1, "future": 1, "ack": 1}
    assert a.remote.last == -1


def test_a_datagram_from_another_address_is_ignored():
    a, _ = pair()
    a.handle_datagram(_inputs(0, [1, 2]), "stranger", 0.0)
    assert a.remote.last == -1 and a.counters.strangers == 1 and a.counters.received == 0


def test_every_datagram_repeats_the_inputs_the_peer_has_not_acknowledged():
    a, b = pair(input_delay=0)
    sent = []
    for f in range(5):
        a.advance(f + 1, f * DT)
        sent += [wire.parse(d)[1] for d in a.poll(f * DT)]
    inputs = [m for m in sent if isinstance(m, wire.Inputs)]
    assert inputs[-1].start == 0 and inputs[-1].bits == (1, 2, 3, 4, 5)
    b.handle_datagram(wire.encode(inputs[-1], 0), ADDRS[0], 0.1)
    link(b, a, 0.1)                                # b's ack reaches a
    a.advance(6, 0.12)
    last = [wire.parse(d)[1] for d in a.poll(0.12)]
    assert [(m.start, m.bits) for m in last if isinstance(m, wire.Inputs)] == [(5, (6,))]


def test_silence_gives_an_interrupted_notice_then_a_timeout_disconnect_and_a_goodbye():
    a, b = pair(timeout=2.0)
    a.poll(0.5)
    assert a.events() == []
    a.poll(0.8)
    assert [type(e) for e in a.events()] == [Interrupted]
    link(b, a, 1.0)
    assert [type(e) for e in a.events()] == [Resumed]
    out = a.poll(3.1)
    assert [type(e) for e in a.events()] == [Disconnected] and a.state == "disconnected"
    assert any(isinstance(wire.parse(d)[1], wire.Goodbye) for d in out)
    for d in out:
        b.handle_datagram(d, ADDRS[0], 3.1)
    assert b.events()[-1] == Disconnected("peer left", b.confirmed_frame) and b.advance(0, 3.2) == []


def _run_pair(a, b, frames, hash_a=None):
    """Advance both over a perfect link with a FakeGame each; ``hash_a`` replaces a's reported hashes."""
    ga, gb = FakeGame(a.slots), FakeGame(b.slots)
    for f in range(frames):
        now = f * DT
        link(a, b, now)
        for s, g, bits in ((a, ga, f % 7), (b, gb, f % 5)):
            reqs = s.advance(bits, now)
            g.carry_out(reqs, s if (s is b or hash_a is None) else None)
            if s is a and hash_a is not None:
                for r in reqs:
                    if getattr(r, "hash_wanted", False):
                        a.saved(r.frame, hash_a(r.frame, ga))
    return ga, gb


def test_equal_hashes_raise_nothing_and_the_first_different_one_stops_both_sides():
    a, b = pair()
    _run_pair(a, b, 100)
    assert a.state == b.state == "running" and a.last_agreed >= 60

    a, b = pair()
    bad = bytes(32)
    _run_pair(a, b, 100, hash_a=lambda f, g: bad if f >= 60 else g.hash_of(g.slots[f % a.slots]))
    ea, eb = a.events(), b.events()
    assert a.state == b.state == "desync"
    da, db = (next(e for e in ev if isinstance(e, Desync)) for ev in (ea, eb))
    assert da.frame == db.frame == 60 and da.last_agreed == db.last_agreed == 30
    assert da.local_hash == bad.hex() == db.remote_hash


def test_confirmed_inputs_come_out_once_in_frame_order_as_p1_p2():
    a, b = pair()
    _run_pair(a, b, 50)
    ca, cb = a.drain_confirmed(), b.drain_confirmed()
    n = min(len(ca), len(cb))
    assert n > 40 and ca[:n] == cb[:n]
    assert [c[0] for c in ca] == list(range(len(ca)))
    assert all(c[1] == (c[0] - 2) % 7 for c in ca[2:]) and all(c[2] == (c[0] - 2) % 5 for c in ca[2:])
    assert a.drain_confirmed() == []


@pytest.mark.parametrize("cond, args", [
    (Conditions(0.001), {}),
    (Conditions(0.04, 0.01, 0.05, 0.05, 0.1), {}),
    (Conditions(0.1, 0.04, 0.1, 0.02, 0.05), {}),
    (Conditions(0.04, 0.01, 0.05), {"input_delay": 0, "max_rollback": 1}),
    (Conditions(0.04, 0.01, 0.05), {"input_delay": 8, "max_rollback": 16}),
], ids=["lan", "80ms", "200ms", "80ms delay 0 window 1", "80ms delay 8 window 16"])
def test_over_a_lossy_network_both_sides_end_in_the_state_of_the_confirmed_inputs(cond, args):
    net = SimNet(3, cond)
    a, b = pair(**args)
    games = (FakeGame(a.slots), FakeGame(b.slots))
    done: list[list] = [[], []]
    for f in range(300):
        for s, g, d in ((a, games[0], done[0]), (b, games[1], done[1])):
            now = f * DT + 0.004 * s.side
            for data, src in net.deliver(ADDRS[s.side], now):
                s.handle_datagram(data, src, now)
            g.carry_out(s.advance((f * 31 + s.side * 7) % 2048 if f % 9 else 0, now), s)
            for data in s.poll(now):
                net.send(ADDRS[s.side], ADDRS[1 - s.side], data, now)
            d.extend(s.drain_confirmed())
    # a window of one frame at an 80 ms round trip waits for the peer most frames (lockstep)
    need = 60 if a.max_rollback == 1 else 200
    assert a.state == b.state == "running" and min(len(done[0]), len(done[1])) > need
    for s, g, d in zip((a, b), games, done):
        final = s.final_frame
        assert g.slots[final % s.slots] == tuple((p1, p2) for _, p1, p2 in d[:final])
        assert s.stats(5.0).rollback_max <= s.max_rollback
    n = min(len(done[0]), len(done[1]))
    assert done[0][:n] == done[1][:n]


def test_a_duplicated_or_replayed_quality_reply_leaves_the_ping_as_measured():
    a, b = pair()
    (quality,) = [d for d in a.poll(0.0) if isinstance(wire.parse(d)[1], wire.Quality)]
    b.handle_datagram(quality, ADDRS[0], 0.010)
    (reply,) = [d for d in b.poll(0.010) if isinstance(wire.parse(d)[1], wire.QualityReply)]
    a.handle_datagram(reply, ADDRS[1], 0.020)
    assert a.stats(0.020).ping_ms == pytest.approx(20.0)
    a.handle_datagram(reply, ADDRS[1], 2.0)              # the same reply again, late (a duplicate, a replay)
    a.handle_datagram(wire.encode(wire.QualityReply(1500), 9), ADDRS[1], 2.0)   # a stamp never sent
    assert a.stats(2.0).ping_ms == pytest.approx(20.0)
