"""Two netplay sides with CPU players on real matches over a simulated network (nethelp.play):
both sides' final states agree frame by frame and equal an offline run of the confirmed
inputs, rollbacks stay within the window, and time sync keeps the sides together."""

from __future__ import annotations

import pytest

from game.net.simnet import Conditions
from nethelp import offline_hashes, play

#: name: (conditions, side tick rates, session arguments)
CONDITIONS = {
    "lan 2ms": (Conditions(0.001), (60.0, 60.0), {}),
    "20ms": (Conditions(0.010, 0.002), (60.0, 60.0), {}),
    "40ms jitter": (Conditions(0.020, 0.008, duplicate=0.02), (60.0, 60.0), {}),
    "60ms 2% loss delay 0": (Conditions(0.030, 0.005, loss=0.02), (60.0, 60.0), {"input_delay": 0}),
    "100ms 5% loss dup": (Conditions(0.050, 0.010, loss=0.05, duplicate=0.05), (60.0, 60.0), {}),
    "140ms reorder drift": (Conditions(0.070, 0.020, loss=0.03, reorder=0.1), (60.0, 60.4), {}),
    "200ms 40ms jitter 10% loss": (Conditions(0.100, 0.040, loss=0.10), (60.0, 60.0), {}),
    "200ms all of it delay 4": (Conditions(0.100, 0.040, loss=0.10, duplicate=0.05, reorder=0.05),
                                (59.8, 60.2), {"input_delay": 4}),
}


def _check(frames, conditions, rates, session_args, seed):
    a, b, net = play(conditions, frames, seed=seed, rates=rates, **session_args)
    assert a.session.state == b.session.state == "running", (a.events, b.events)
    n = min(len(a.confirmed), len(b.confirmed))
    assert n >= frames and a.confirmed[:n] == b.confirmed[:n]
    common = sorted(set(a.hashes) & set(b.hashes))
    assert len(common) >= frames - 8 and common == list(range(len(common)))
    assert all(a.hashes[f] == b.hashes[f] for f in common)
    offline = offline_hashes(seed, a.confirmed[:n])
    assert all(offline[f] == a.hashes[f] for f in common if f in offline)
    for p in (a, b):
        st = p.session.stats(10.0)
        assert p.worst_rollback <= p.session.max_rollback and st.rollback_max <= p.session.max_rollback
        assert st.conflicts == 0 and st.packets_invalid == 0
    return a, b, net


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CONDITIONS))
def test_netplay_sides_agree_every_confirmed_frame_over_3600_frames(name):
    conditions, rates, args = CONDITIONS[name]
    a, b, _ = _check(3600, conditions, rates, args, seed=3)
    # the CPUs fought: inputs of both sides changed many times
    assert len({c[1] for c in a.confirmed}) > 5 and len({c[2] for c in a.confirmed}) > 5
    # time sync: the two sides stay within a few frames of each other
    assert max(a.worst_gap, b.worst_gap) <= 4
    # the inputs cross in a few kB a second
    assert max(p.session.stats(p.session.frame / 60).bytes_per_second for p in (a, b)) < 4000


@pytest.mark.parametrize("name", ["lan 2ms", pytest.param("200ms 40ms jitter 10% loss", marks=pytest.mark.slow)])
def test_netplay_sides_agree_over_a_short_match_start(name):
    conditions, rates, args = CONDITIONS[name]
    _check(150, conditions, rates, args, seed=1)
