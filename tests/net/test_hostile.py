"""A live session under hostile datagrams: random bytes, mutated and oversized copies of real
datagrams, well-formed inputs for frames far in the past or future, and a flood from a second
address.  The session counts and ignores them: no exception, no desync, the same confirmed
inputs on both sides, and every internal buffer stays under a bound."""

from __future__ import annotations

import random

import pytest

from game.net import protocol as wire
from game.net.session import P2PSession
from game.net.simnet import Conditions, SimNet
from nethelp import ADDRS, FakeGame

KEY = 0x5EED
#: No internal buffer of a session ever holds more entries than this.
BUFFER_BOUND = 256


def _hostile(rng: random.Random, genuine: list[bytes], victim: P2PSession) -> tuple[bytes, bool]:
    """One hostile datagram for ``victim`` and whether it must be refused as invalid (False: a
    replayed genuine one, or a well-formed conflicting repeat, which are valid but harmless)."""
    kind = rng.randrange(9)
    if kind == 0:                                        # random bytes
        return rng.randbytes(rng.randrange(0, 80)), True
    if kind == 1 and genuine:                            # a genuine datagram, one or more bytes changed
        d = bytearray(rng.choice(genuine))
        for _ in range(rng.randrange(1, 4)):
            d[rng.randrange(len(d))] ^= rng.randrange(1, 256)
        return bytes(d), True
    if kind == 2 and genuine:                            # cut short or lengthened
        d = rng.choice(genuine)
        return (d[:rng.randrange(len(d))] if rng.random() < 0.5 else d + rng.randbytes(rng.randrange(1, 20))), True
    if kind == 3:                                        # oversized
        return rng.randbytes(rng.randrange(wire.MAX_DATAGRAM + 1, 4000)), True
    far = victim.frame + rng.choice([200, 5000, 2**30])
    if kind == 4:                                        # inputs far in the future
        return wire.encode(wire.Inputs(far, far, -1, 0, (1, 2, 3)), rng.randrange(1 << 16), KEY), True
    if kind == 5 and victim.remote.last > 700:           # a resend from far in the past
        return wire.encode(wire.Inputs(0, victim.frame, -1, 0, (0,)), 0, KEY), True
    if kind == 6:                                        # an ack of frames never sent, a hash far ahead
        if rng.random() < 0.5:
            return wire.encode(wire.Inputs(0, 0, victim.local.last + 50, 0, ()), 0, KEY), True
        return wire.encode(wire.HashReport(far - far % 30, bytes(32)), 0, KEY), True
    if kind == 7 and victim.remote.last >= 10:           # a well-formed repeat that disagrees
        f = rng.randrange(max(0, victim.remote.last - 60), victim.remote.last)
        return wire.encode(wire.Inputs(f, victim.frame, -1, 0, ((victim.remote.predict(f) + 1) % 2048,)), 0,
                           KEY), False
    if genuine:                                          # a genuine one again (a replay attack)
        return rng.choice(genuine), False
    return b"", True


def _stranger(rng: random.Random, victim: P2PSession) -> bytes:
    """A datagram from another address that the peer itself could have sent."""
    f = victim.remote.last + 1
    return rng.choice([
        wire.encode(wire.Inputs(max(f, 0), victim.frame, -1, 0, (rng.randrange(2048),) * 8), 0, KEY),
        wire.encode(wire.Goodbye(0), 0, KEY),
        wire.encode(wire.DesyncNotice(30, bytes(32), bytes(32)), 0, KEY),
    ])


@pytest.mark.slow
def test_a_session_under_hostile_datagrams_ignores_them_and_plays_on():
    rng = random.Random(7)
    net = SimNet(5, Conditions(0.02, 0.01, loss=0.05))
    a, b = P2PSession(0, ADDRS[1], 0.0, key=KEY), P2PSession(1, ADDRS[0], 0.0, key=KEY)
    games = {0: FakeGame(a.slots), 1: FakeGame(b.slots)}
    confirmed: dict[int, list] = {0: [], 1: []}
    genuine: list[bytes] = []
    invalid = strangers = sent = 0
    worst = dict.fromkeys(a.buffer_sizes(), 0)
    for f in range(1200):
        for s in (a, b):
            now = f / 60 + 0.003 * s.side
            for data, src in net.deliver(ADDRS[s.side], now):
                s.handle_datagram(data, src, now)
            if s is a:
                for _ in range(12):
                    data, bad = _hostile(rng, genuine, a)
                    a.handle_datagram(data, ADDRS[1], now)
                    invalid += bad
                    sent += 1
                a.handle_datagram(_stranger(rng, a), "stranger:7000", now)
                strangers += 1
            games[s.side].carry_out(s.advance(rng.randrange(2048) if f % 11 == 0 else f % 3, now), s)
            for data in s.poll(now):
                net.send(ADDRS[s.side], ADDRS[1 - s.side], data, now)
                if s is b:
                    genuine = (genuine + [data])[-50:]
            confirmed[s.side] += s.drain_confirmed()
        for k, n in a.buffer_sizes().items():
            worst[k] = max(worst[k], n)
    total = sent + strangers
    assert total >= 10_000
    assert a.state == b.state == "running", (a.events(), b.events())
    st = a.stats(20.0)
    assert st.strangers == strangers
    assert st.packets_invalid == invalid, dict(a.counters.invalid)
    assert st.conflicts > 0 and b.stats(20.0).packets_invalid == 0
    n = min(len(confirmed[0]), len(confirmed[1]))
    assert n > 1100 and confirmed[0][:n] == confirmed[1][:n]
    for s in (a, b):
        g = games[s.side]
        assert g.slots[s.final_frame % s.slots] == tuple((p1, p2) for _, p1, p2 in confirmed[s.side][:s.final_frame])
    assert a.last_agreed >= 1000 and b.last_agreed >= 1000         # the desync check ran, and agreed
    assert max(worst.values()) <= BUFFER_BOUND, worst
