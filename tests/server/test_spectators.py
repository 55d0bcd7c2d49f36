"""The server's spectator feed (game/server/spectators.py): every spectator gets every
confirmed frame in order over a lossy, reordering network, a mid-match joiner from frame 0,
and every buffer and every poll's output is bounded."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.net import room_protocol as wire
from game.net.simnet import Conditions, SimNet
from game.server.spectators import SpectatorFeed

SERVER = "server"
STEP = 1 / 60


def inputs_of(n: int, seed: int = 1) -> list[tuple[int, int]]:
    """``n`` frames of inputs that change every few frames (as a fight's do)."""
    return [((f // 3 * 7 + seed) % 2048, (f // 5 * 13 + seed) % 2048) for f in range(n)]


class Watcher:
    """A model spectator: keeps the frames that join on in order, acks what it holds."""

    def __init__(self, token: int, addr: str) -> None:
        self.token, self.addr = token, addr
        self.held: list[tuple[int, int]] = []
        self.newest = 0
        self.ended = False
        self.datagrams = 0

    def take(self, data: bytes) -> None:
        token, msg = wire.parse(data)
        assert token == self.token                      # the feed addresses each spectator by its token
        assert isinstance(msg, wire.Confirmed)
        self.datagrams += 1
        assert msg.newest >= self.newest or msg.newest >= msg.start + len(msg.inputs)
        self.newest = max(self.newest, msg.newest)
        self.ended = self.ended or bool(msg.ended)
        if msg.start <= len(self.held):
            self.held.extend(msg.inputs[len(self.held) - msg.start:])


def pump(feed: SpectatorFeed, net: SimNet, watchers: list[Watcher], now: float) -> None:
    """One server tick: the acks delivered, the feed polled; each watcher takes its datagrams."""
    for data, _src in net.deliver(SERVER, now):
        token, msg = wire.parse(data)
        assert isinstance(msg, wire.SpectatorAck)
        feed.handle_ack(token, msg.next_frame, now)
    for data, addr in feed.poll(now):
        net.send(SERVER, addr, data, now)
    for w in watchers:
        for data, _src in net.deliver(w.addr, now):
            w.take(data)
        net.send(w.addr, SERVER, wire.encode(wire.SpectatorAck(len(w.held)), w.token), now)


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.0, 0.3), st.floats(0.0, 0.3), st.floats(0.0, 0.2),
       st.lists(st.integers(0, 900), min_size=1, max_size=8), st.integers(200, 900))
def test_every_spectator_gets_every_frame_in_order_over_a_lossy_reordering_network(
        seed, loss, reorder, duplicate, joins, frames):
    net = SimNet(seed, Conditions(latency=0.02, jitter=0.01, loss=loss, duplicate=duplicate, reorder=reorder))
    feed = SpectatorFeed()
    pushed = inputs_of(frames, seed % 97)
    watchers: list[Watcher] = []
    now, f = 0.0, 0
    while now < 60.0:
        for k, at in enumerate(joins):                  # spectators join at their frames, mid-match too
            if at == f and len(watchers) == k:
                w = Watcher(1000 + k, f"spectator-{k}")
                assert feed.add(w.token, w.addr, now)
                watchers.append(w)
        if f < frames:
            feed.push(*pushed[f])
            f += 1
            if f == frames:
                feed.end()
        pump(feed, net, watchers, now)
        now += STEP
        if feed.ended and len(watchers) == len(joins) and all(w.held == pushed and w.ended for w in watchers):
            break
    for k in range(len(watchers), len(joins)):          # the spectators that came after the last frame
        w = Watcher(1000 + k, f"spectator-{k}")
        assert feed.add(w.token, w.addr, now)
        watchers.append(w)
    while now < 120.0 and not (all(w.held == pushed and w.ended for w in watchers) and feed.unacked() == 0):
        pump(feed, net, watchers, now)
        now += STEP
    for w in watchers:
        assert w.held == pushed
        assert w.ended and w.newest == frames
    assert feed.unacked() == 0


def test_two_spectators_one_joining_mid_match_get_every_frame_over_a_lossy_network():
    lossy = test_every_spectator_gets_every_frame_in_order_over_a_lossy_reordering_network.hypothesis.inner_test
    lossy(1, 0.1, 0.1, 0.1, [0, 100], 300)


def test_a_mid_match_joiner_is_sent_from_frame_0_in_bursts_within_its_window():
    feed = SpectatorFeed(burst=3, budget=100, window=500)
    pushed = inputs_of(5000)
    for p in pushed:
        feed.push(*p)
    assert feed.add(7, "late", 0.0)
    feed.handle_ack(7, 0, 0.0)                          # its first ack: it is at the address it joined from
    out = feed.poll(0.0)
    assert len(out) == 3                                # one poll: at most `burst` datagrams to one spectator
    msgs = [wire.parse(d)[1] for d, addr in out]
    assert all(addr == "late" for _d, addr in out)
    assert msgs[0].start == 0
    for a, b in zip(msgs, msgs[1:]):
        assert b.start == a.start + len(a.inputs)       # consecutive, in order
    assert all(m.newest == 5000 and not m.ended for m in msgs)
    sent = sum(len(m.inputs) for m in msgs)
    more = [wire.parse(d)[1] for d, _ in feed.poll(0.01)]
    assert sum(len(m.inputs) for m in more) <= 500 - sent   # never more than `window` frames past the ack
    feed.handle_ack(7, 500, 0.02)
    nxt = [wire.parse(d)[1] for d, _ in feed.poll(0.03)]
    assert nxt and nxt[0].start == 500


def test_a_spectator_that_never_acks_is_sent_one_datagram_of_frames_and_keep_alives_only():
    feed = SpectatorFeed()
    for p in inputs_of(5000):
        feed.push(*p)
    feed.add(7, "forged", 0.0)                          # a Join whose source address was someone else's
    sent = [d for k in range(400) for d, _ in feed.poll(k * 0.025)]     # 10 s, never an ack
    frames = [len(wire.parse(d)[1].inputs) for d in sent]
    assert frames[0] == wire.MAX_CONFIRMED and not any(frames[1:]) and sum(map(len, sent)) < 3_000
    feed.handle_ack(7, 240, 10.0)                       # an ack: the window opens
    assert len(feed.poll(10.0)) == feed.burst


def test_unacked_frames_are_sent_again_from_the_acked_frame_once_acks_stop_moving():
    feed = SpectatorFeed(resend_after=0.2)
    for p in inputs_of(100):
        feed.push(*p)
    feed.add(1, "a", 0.0)
    first = [wire.parse(d)[1] for d, _ in feed.poll(0.0)]
    assert first[0].start == 0 and sum(len(m.inputs) for m in first) == 100
    feed.handle_ack(1, 40, 0.1)                         # it holds 40: the rest was lost
    assert feed.poll(0.15) == []                        # nothing new to send, no keep-alive due yet
    again = [wire.parse(d)[1] for d, _ in feed.poll(0.31)]
    assert again[0].start == 40 and sum(len(m.inputs) for m in again) == 60
    assert feed.resends == 1


def test_no_resend_while_acks_keep_moving():
    feed = SpectatorFeed(resend_after=0.2)
    feed.add(1, "a", 0.0)
    now = 0.0
    for _ in range(120):                                # live: one frame a tick, acked a tick later
        feed.push(*inputs_of(1)[0])
        for data, _ in feed.poll(now):
            msg = wire.parse(data)[1]
            feed.handle_ack(1, msg.start + len(msg.inputs), now + 0.01)
        now += STEP
    assert feed.resends == 0
    assert feed.acked(1) == 120


def test_an_idle_spectator_gets_keep_alives_and_hears_the_end_at_once():
    feed = SpectatorFeed(keep_alive=0.25)
    for p in inputs_of(10):
        feed.push(*p)
    feed.add(5, "a", 0.0)
    feed.poll(0.0)
    feed.handle_ack(5, 10, 0.01)
    assert feed.poll(0.1) == []
    (alive,) = [wire.parse(d)[1] for d, _ in feed.poll(0.3)]
    assert alive == wire.Confirmed(10, 10, 0, ())
    feed.end()
    (end,) = [wire.parse(d)[1] for d, _ in feed.poll(0.31)]
    assert end == wire.Confirmed(10, 10, 1, ())
    with pytest.raises(ValueError):
        feed.push(0, 0)


def test_places_are_bounded_and_a_repeated_add_keeps_its_place():
    feed = SpectatorFeed(max_spectators=8)
    assert all(feed.add(t, f"s{t}", 0.0) for t in range(8))
    assert not feed.add(99, "s99", 0.0)                 # the ninth is refused
    assert len(feed) == 8
    for p in inputs_of(50):
        feed.push(*p)
    feed.poll(0.0)
    feed.handle_ack(3, 50, 0.1)
    assert feed.add(3, "moved", 0.2)                    # the same token again: same place, new address
    assert feed.acked(3) == 50 and len(feed) == 8
    assert dict(feed.addresses())[3] == "moved"
    feed.remove(3)
    assert feed.add(99, "s99", 0.3)


def test_default_feed_serves_sixteen_spectators_each_every_frame():
    feed = SpectatorFeed()
    pushed = inputs_of(300)
    for p in pushed:
        feed.push(*p)
    watchers = [Watcher(t, f"s{t}") for t in range(16)]
    for w in watchers:
        assert feed.add(w.token, w.addr, 0.0)
    assert not feed.add(16, "s16", 0.0)
    now = 0.0
    for _ in range(20):
        out = feed.poll(now)
        assert len(out) <= feed.budget                  # the poll's budget, all spectators together
        for data, addr in out:
            w = watchers[int(str(addr)[1:])]
            w.take(data)
        for w in watchers:
            feed.handle_ack(w.token, len(w.held), now)
        now += STEP
    assert all(w.held == pushed for w in watchers)


def test_history_is_bounded_and_frames_past_it_are_counted():
    feed = SpectatorFeed(history=100)
    for p in inputs_of(130):
        feed.push(*p)
    assert feed.frames == 100 and feed.overflow == 30
    assert len(feed._inputs) == 100
    with pytest.raises(ValueError):
        feed.push(2048, 0)


def test_acks_stale_unknown_or_past_the_end_change_nothing_they_should_not():
    feed = SpectatorFeed()
    for p in inputs_of(60):
        feed.push(*p)
    feed.add(1, "a", 0.0)
    feed.handle_ack(1, 40, 0.1)
    feed.handle_ack(1, 20, 0.2)                         # reordered: an older ack
    assert feed.acked(1) == 40
    feed.handle_ack(1, 10**9, 0.3)                      # more than was ever sent: all of it
    assert feed.acked(1) == 60
    feed.handle_ack(42, 5, 0.3)                         # nobody's: ignored
    assert 42 not in feed and len(feed) == 1


def test_silent_spectators_expire():
    feed = SpectatorFeed()
    feed.add(1, "a", 0.0)
    feed.add(2, "b", 0.0)
    feed.handle_ack(2, 0, 4.0)
    assert feed.expire(5.0, 5.0) == [1]
    assert feed.addresses() == [(2, "b")]
