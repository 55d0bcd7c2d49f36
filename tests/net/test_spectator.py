"""The spectator's session (game/net/spectator.py) fed by a server's SpectatorFeed over a
simulated lossy network: it steps every confirmed frame once, in order, a fixed delay behind
the live match, catches up from frame 0 when it joins late, and never rolls back."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.net import room_protocol as wire
from game.net.requests import AdvanceFrame, Disconnected, Interrupted, Resumed
from game.net.simnet import Conditions, SimNet
from game.net.spectator import (
    ACK_EVERY,
    ACK_MIN,
    CATCH_UP_FAR,
    CATCH_UP_SLACK,
    FAST_FORWARD,
    VERDICT_WAIT,
    SpectatorSession,
    Verdict,
)
from roomhelp import FakeRoom

SERVER, ME = "server", "spectator"
TOKEN = 1000
STEP = 1 / 60
HASH = bytes(range(32))


def inputs_of(n: int) -> list[tuple[int, int]]:
    return [((f // 3 * 7) % 2048, (f // 5 * 13 + 1) % 2048) for f in range(n)]


class Watch:
    """A spectator session and what it stepped, against a FakeRoom over a SimNet."""

    def __init__(self, room: FakeRoom, net: SimNet, now: float, **kw) -> None:
        self.room, self.net = room, net
        assert room.feed.add(TOKEN, ME, now)
        self.session = SpectatorSession(SERVER, TOKEN, now, **kw)
        self.stepped: list[AdvanceFrame] = []
        self.per_call: list[int] = []
        #: (frames stepped, the server's confirmed frames, the session's frames behind after) per call
        self.calls: list[tuple[int, int, int]] = []
        self.events: list = []
        #: (frame stepped, the server's confirmed frames then, the session's newest then) of every step
        self.lead: list[tuple[int, int, int]] = []

    def tick(self, now: float) -> None:
        room, net, s = self.room, self.net, self.session
        for data, src in net.deliver(SERVER, now):
            room.handle(data, src, now)
        for data, addr in room.poll(now):
            net.send(SERVER, addr, data, now)
        for data, src in net.deliver(ME, now):
            s.handle_datagram(data, src, now)
        reqs = s.advance(now)
        assert all(isinstance(r, AdvanceFrame) for r in reqs)     # never a save or a load
        self.stepped.extend(reqs)
        self.per_call.append(len(reqs))
        self.calls.append((len(reqs), room.feed.frames, s.behind))
        self.lead.extend((r.frame, room.feed.frames, s.newest) for r in reqs)
        for data in s.poll(now):
            net.send(ME, SERVER, data, now)
        self.events.extend(s.events())


def run(frames: int, *, join_at: int = 0, conditions: Conditions | None = None, seed: int = 1,
        until: float = 120.0, **kw) -> Watch:
    """A match of ``frames`` frames confirmed one per tick, the spectator joining at frame
    ``join_at``, the verdict sent after the last; ticked until the session ends."""
    room = FakeRoom(inputs_of(frames))
    net = SimNet(seed, conditions or Conditions())
    now, w = 0.0, None
    while now < until:
        f = int(round(now / STEP))
        if w is None and f >= join_at:
            w = Watch(room, net, now, **kw)
        room.confirm_to(f)
        if f == frames + 1:
            room.finish(wire.RoomEnd(0, 0, 1, frames, HASH))
        if w is not None:
            w.tick(now)
            if w.session.state == "ended":
                break
        now += STEP
    assert w is not None
    return w


def test_every_frame_is_stepped_once_in_order_with_the_confirmed_inputs_over_a_lossy_network():
    w = run(400, conditions=Conditions(latency=0.03, jitter=0.02, loss=0.2, duplicate=0.1, reorder=0.2))
    assert [r.frame for r in w.stepped] == list(range(400))
    assert [r.inputs for r in w.stepped] == inputs_of(400)
    s = w.session
    assert s.ending is not None and s.ending.kind == "finished" and s.ending.frames == 400
    assert Verdict("finished", 0, 1, 400, HASH.hex()) in w.events
    assert s.dropped.total() == 0


@pytest.mark.slow
@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.0, 0.3), st.floats(0.0, 0.3), st.integers(0, 500),
       st.integers(0, 60), st.sampled_from([None, 1, 30]))
def test_any_lossy_reordering_network_and_join_time_gives_every_frame_once_in_order(
        seed, loss, reorder, join_at, delay, catch_up):
    w = run(500, join_at=join_at, delay=delay, catch_up=catch_up, seed=seed,
            conditions=Conditions(latency=0.03, jitter=0.02, loss=loss, duplicate=0.05, reorder=reorder))
    assert [r.frame for r in w.stepped] == list(range(500))
    assert [r.inputs for r in w.stepped] == inputs_of(500)
    assert all(newest >= f + 1 + delay for f, live, newest in w.lead if live < 500)
    assert w.session.ending is not None and w.session.ending.kind == "finished"


def test_the_spectator_runs_the_delay_behind_the_live_match_until_the_end():
    w = run(400, delay=30, conditions=Conditions(latency=0.02, jitter=0.01))
    during = [(f, live, newest) for f, live, newest in w.lead if live < 400]
    assert during and all(newest >= f + 1 + 30 for f, _live, newest in during)   # frame f shown once f + 30 held
    assert min(newest - (f + 1) for f, _live, newest in during) == 30
    assert max(live - (f + 1) for f, live, _newest in during[60:]) <= 30 + 4    # never further behind than that
    assert [r.frame for r in w.stepped][-1] == 399                               # the end: the last frames too
    w0 = run(150, delay=0, conditions=Conditions(latency=0.02))
    assert min(newest - (f + 1) for f, _live, newest in w0.lead) == 0


def test_a_late_joiner_catches_up_from_frame_0_at_its_rate_then_steps_one_frame_a_call():
    w = run(900, join_at=600, delay=30, catch_up=30, conditions=Conditions(latency=0.02, loss=0.05))
    assert [r.frame for r in w.stepped] == list(range(900))
    assert w.stepped[0].frame == 0 and w.lead[0][1] >= 600          # from frame 0, though it came at 600
    calls = w.calls[next(i for i, c in enumerate(w.calls) if c[0]):]
    back = next(i for i, (_n, _live, behind) in enumerate(calls) if behind <= 30 + 4)
    assert max(n for n, _l, _b in calls[:back + 1]) == 30            # catching up: 30 frames a call at most
    assert 15 < back < 80                                             # ~570 frames at 29 a call net
    live_after = [n for n, live, _b in calls[back + 1:] if live < 900]
    assert live_after and max(live_after) <= FAST_FORWARD and set(live_after[10:]) == {1}   # then one a call


def _held(frames: int, delay: int, catch_up: int) -> SpectatorSession:
    """A window's session holding ``frames`` confirmed frames (the live match's newest)."""
    s = SpectatorSession(SERVER, TOKEN, 0.0, delay=delay, catch_up=catch_up)
    s.handle_datagram(wire.encode(wire.Confirmed(0, frames, 0, ((1, 2),) * min(frames, wire.MAX_CONFIRMED)),
                                  TOKEN), SERVER, 0.0)
    return s


@pytest.mark.parametrize("lag, steps", [(0, 1), (CATCH_UP_SLACK, 1), (CATCH_UP_SLACK + 1, FAST_FORWARD),
                                        (CATCH_UP_FAR, FAST_FORWARD), (CATCH_UP_FAR + 1, 30)])
def test_a_window_a_little_behind_fast_forwards_a_frame_or_two_and_only_one_far_behind_jumps(lag, steps):
    """A burst of the server's frames (or a slow window clock) puts the view a few frames past its
    delay: it plays two frames a tick until back, not a jump of all of them at once."""
    delay = 10
    s = _held(delay + lag, delay, catch_up=30)
    assert len(s.advance(0.0)) == min(steps, lag)
    if lag and steps == FAST_FORWARD:
        calls = []
        while s.newest - s.frame > delay:
            calls.append(len(s.advance(0.0)))
        assert set(calls) <= {1, FAST_FORWARD} and s.newest - s.frame == delay


def test_headless_catch_up_steps_every_frame_held_in_one_call():
    room = FakeRoom(inputs_of(2000))
    room.confirm_to(2000)
    s = SpectatorSession(SERVER, TOKEN, 0.0, delay=30, catch_up=None)
    room.feed.add(TOKEN, ME, 0.0)
    now = 0.0
    while s.received < 2000:
        for data, _addr in room.poll(now):
            s.handle_datagram(data, SERVER, now)
        for data in s.poll(now):
            room.handle(data, ME, now)
        now += 0.06
    reqs = s.advance(now)
    assert [r.frame for r in reqs] == list(range(1970))  # everything up to the delay, at once
    assert s.behind == 30
    assert s.advance(now) == []


def test_datagrams_not_from_the_server_with_our_token_are_counted_and_dropped():
    s = SpectatorSession(SERVER, TOKEN, 0.0, delay=0)
    good = wire.encode(wire.Confirmed(0, 5, 0, ((1, 2),) * 5), TOKEN)
    assert not s.handle_datagram(good, "stranger", 0.0)
    assert not s.handle_datagram(wire.encode(wire.Confirmed(0, 5, 0, ((1, 2),) * 5), TOKEN + 1), SERVER, 0.0)
    assert not s.handle_datagram(good[:-1], SERVER, 0.0)
    assert not s.handle_datagram(good[:-1] + bytes([good[-1] ^ 1]), SERVER, 0.0)
    assert not s.handle_datagram(wire.encode(wire.Relay(b"x"), TOKEN), SERVER, 0.0)
    assert s.received == 0 and s.advance(0.0) == []
    assert s.dropped == {"stranger": 1, "token": 1, "check": 2, "message": 1}
    assert s.handle_datagram(good, SERVER, 0.0)
    assert [r.inputs for r in s.advance(0.0)] == [(1, 2)] * 5


def test_frames_that_arrive_ahead_wait_for_the_gap_and_holdings_are_bounded():
    s = SpectatorSession(SERVER, TOKEN, 0.0, delay=0, history=50, catch_up=None)
    s.handle_datagram(wire.encode(wire.Confirmed(20, 60, 0, ((3, 3),) * 20), TOKEN), SERVER, 0.0)
    assert s.received == 0
    s.handle_datagram(wire.encode(wire.Confirmed(0, 60, 0, ((1, 1),) * 20), TOKEN), SERVER, 0.0)
    assert s.received == 40                               # the chunk kept aside joined on
    s.handle_datagram(wire.encode(wire.Confirmed(40, 60, 0, ((4, 4),) * 20), TOKEN), SERVER, 0.0)
    assert s.received == 50 and s.dropped["full"] == 1   # no more than history frames held
    for k in range(40):                                   # chunks kept aside are bounded too
        s.handle_datagram(wire.encode(wire.Confirmed(100 + k, 200, 0, ((1, 1),)), TOKEN), SERVER, 0.0)
    assert len(s._ahead) <= 16


def test_acks_go_on_progress_at_most_every_ack_min_and_every_ack_every_regardless():
    s = SpectatorSession(SERVER, TOKEN, 0.0)
    (ack,) = s.poll(0.0)
    assert wire.parse(ack) == (TOKEN, wire.SpectatorAck(0))
    assert s.poll(ACK_MIN / 2) == []
    s.handle_datagram(wire.encode(wire.Confirmed(0, 9, 0, ((1, 1),) * 9), TOKEN), SERVER, 0.01)
    assert s.poll(ACK_MIN / 2) == []                      # progress, but too soon after the last
    assert wire.parse(s.poll(ACK_MIN)[0]) == (TOKEN, wire.SpectatorAck(9))
    assert s.poll(ACK_MIN * 3) == []                      # no progress
    assert wire.parse(s.poll(ACK_MIN + ACK_EVERY)[0]) == (TOKEN, wire.SpectatorAck(9))


def test_silence_interrupts_then_ends_the_session_and_a_word_resumes_it():
    s = SpectatorSession(SERVER, TOKEN, 0.0, timeout=2.0, interrupt_after=0.5)
    alive = wire.encode(wire.Confirmed(0, 0, 0, ()), TOKEN)
    s.advance(0.6)
    assert [type(e) for e in s.events()] == [Interrupted]
    s.handle_datagram(alive, SERVER, 0.7)
    assert [type(e) for e in s.events()] == [Resumed]
    s.advance(2.0)
    assert [type(e) for e in s.events()] == [Interrupted] and s.state == "watching"
    s.advance(2.71)
    assert s.state == "ended" and s.ending is not None and s.ending.kind == "timeout"
    assert any(isinstance(e, Disconnected) and e.reason == "timeout" for e in s.events())


def test_an_ended_match_whose_verdict_never_comes_ends_without_one():
    s = SpectatorSession(SERVER, TOKEN, 0.0, delay=30, catch_up=None)
    s.handle_datagram(wire.encode(wire.Confirmed(0, 10, 1, ((1, 1),) * 10), TOKEN), SERVER, 0.0)
    assert len(s.advance(0.0)) == 10                      # over: the delay no longer holds frames back
    s.advance(VERDICT_WAIT / 2)
    assert s.state == "watching"
    s.handle_datagram(wire.encode(wire.Confirmed(10, 10, 1, ()), TOKEN), SERVER, VERDICT_WAIT / 2)
    s.advance(VERDICT_WAIT + 0.01)
    assert s.ending is not None and s.ending.kind == "no verdict" and s.ending.verdict is None


def test_close_sends_a_leave_and_ends():
    s = SpectatorSession(SERVER, TOKEN, 0.0)
    s.close(1.0)
    (leave,) = s.poll(1.0)
    assert wire.parse(leave) == (TOKEN, wire.Leave(0))
    assert s.state == "ended" and s.poll(1.1) == [] and s.advance(1.1) == []


def test_bad_settings_are_refused():
    with pytest.raises(ValueError):
        SpectatorSession(SERVER, TOKEN, 0.0, delay=-1)
    with pytest.raises(ValueError):
        SpectatorSession(SERVER, TOKEN, 0.0, catch_up=0)
    with pytest.raises(ValueError):
        SpectatorSession(SERVER, TOKEN, 0.0, timeout=0.5, interrupt_after=0.5)
