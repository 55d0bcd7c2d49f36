"""Netplay's presentation under rollback (game/render/rollback_fx.py): every effect starts once
however often its frame is stepped again, and an effect whose event a rollback removed is
taken off the screen (its sparks, chips and sound) at once.  No network, no GL: a match rolled
back on every frame (SyncTestSession), and two P2PSessions over a simulated network, against
an offline run of the same inputs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from game.audio.player import AudioPlayer
from game.audio.synth import NAMES
from game.net.cpu_player import cpu_fight_inputs
from game.net.runner import MatchRunner
from game.net.simnet import Conditions
from game.net.synctest import SyncTestSession
from game.render.camera import FightCamera
from game.render.crates import Debris
from game.render.rollback_fx import HORIZON, EffectLedger, RollbackPresenter, effect_key
from game.render.sparks import Sparks
from game.sim import FrameInput, Hit, Match


class FakeVoices:
    """The audio backend, recording what it was asked to play and stop."""

    def __init__(self) -> None:
        self.played: list[str] = []
        self.stopped: list[int] = []
        self.durations = dict.fromkeys(NAMES, 0.01)

    def play(self, voice, sample, volume, pan):
        self.played.append(sample)

    def stop(self, voice):
        self.stopped.append(voice)


def _presenter() -> tuple[RollbackPresenter, FakeVoices]:
    backend = FakeVoices()
    ticks = iter(range(10**9))
    audio = AudioPlayer(backend, clock=lambda: float(next(ticks)))   # every voice free again at once
    return RollbackPresenter(Sparks(), Debris(), FightCamera(), audio), backend


def _offline(seed: int, inputs) -> tuple[list[tuple], list[str]]:
    """Every event's key of an offline run of ``inputs``, and the sounds it plays."""
    m = Match.new(seed)
    backend = FakeVoices()
    ticks = iter(range(10**9))
    audio = AudioPlayer(backend, clock=lambda: float(next(ticks)))
    keys = []
    for p1, p2 in inputs:
        events = m.step(FrameInput.from_bits(p1), FrameInput.from_bits(p2))
        keys.extend(effect_key(e) for e in events)
        audio.on_step(m, events)
    return keys, backend.played


def test_effect_key_names_the_frame_and_cause_not_the_point():
    a = Hit(frame=7, attacker=0, defender=1, move="jab", attack_limb="hand_r", struck_limb="head",
            point=np.array([0.0, 1.5, 0.0]), damage=5, blocked=False, height="high", heavy=False, hitstop=8,
            advantage=2)
    b = Hit(**{**a.__dict__, "point": np.array([0.01, 1.5, 0.0])})
    assert effect_key(a) == effect_key(b)
    assert effect_key(a)[:2] == ("Hit", 7)
    assert effect_key(Hit(**{**a.__dict__, "blocked": True})) != effect_key(a)


@dataclass(frozen=True)
class _Ev:
    """A stand-in event (real ones are dataclasses too)."""

    frame: int
    cause: str


def test_ledger_starts_a_repeated_frame_once_and_takes_back_a_vanished_event():
    ledger = EffectLedger()
    r = ledger.reconcile([(5, [_Ev(5, "hit")])])
    assert [e.cause for _i, e in r.started] == ["hit"] and not r.taken_back
    first_id = r.started[0][0]
    r = ledger.reconcile([(5, [_Ev(5, "hit")]), (6, [])])       # frame 5 again, the same hit
    assert not r.started and not r.taken_back
    r = ledger.reconcile([(5, [_Ev(5, "whiff")]), (6, []), (7, [])])   # the hit was a wrong guess
    assert r.taken_back == [first_id] and [e.cause for _i, e in r.started] == ["whiff"]
    assert first_id not in ledger.live and len(ledger.live) == 1


def test_sparks_and_chips_of_a_taken_back_effect_go_at_once():
    presenter, _ = _presenter()
    sparks = presenter.sparks
    sparks.tag = 1
    sparks.burst((0.0, 1.0, 0.0), 3, "impact")
    sparks.tag = 2
    sparks.burst((1.0, 1.0, 0.0), 3, "dust")
    n2 = int((sparks.tags == 2).sum())
    sparks.take_back([1])
    assert len(sparks) == n2 and set(sparks.tags.tolist()) == {2}
    assert len(sparks.instances(0.5)) == n2


@pytest.mark.slow
def test_a_rollback_of_8_frames_on_every_frame_starts_each_effect_and_sound_once():
    seed, frames = 4, 900
    inputs = cpu_fight_inputs(seed, frames)
    want_keys, want_sounds = _offline(seed, inputs)
    assert sum(k[0] == "Hit" for k in want_keys) >= 3           # the fight has hits to show
    presenter, backend = _presenter()
    sync = SyncTestSession(8)
    runner = MatchRunner(Match.new(seed), sync.slots)
    steps = 0
    for p1, p2 in inputs:
        stepped = runner.carry_out(sync.advance(p1, p2))
        steps += len(stepped)
        presenter.present(runner.match, stepped, [])
    assert steps > 8 * frames                                   # every frame was stepped again
    ledger = presenter.ledger
    assert ledger.started_count == len(set(want_keys)) and ledger.taken_back_count == 0
    assert set(ledger.keys()) == {k for k in want_keys if k[1] >= ledger.top - HORIZON}
    assert backend.played == want_sounds and not backend.stopped


@pytest.mark.slow
def test_over_a_laggy_network_effects_match_the_confirmed_match_and_none_is_left_from_a_wrong_guess():
    from nethelp import play

    seed = 3
    shown: dict = {}

    def wrap(peer):
        presenter, backend = _presenter()
        real = peer.runner.carry_out
        taken: set[int] = set()

        def carry_out(reqs, report=None):
            stepped = real(reqs, report)
            presenter.present(peer.runner.match, stepped, [])
            taken.update(presenter.last_taken_back)
            # no particle or chip on the screen belongs to an effect taken back
            assert not taken & set(presenter.sparks.tags.tolist())
            assert not taken & set(presenter.debris.tags.tolist())
            return stepped

        peer.runner.carry_out = carry_out
        shown[peer.side] = (presenter, backend)

    import nethelp

    made = nethelp.make_peer

    def make_peer(side, *args, **kwargs):
        peer = made(side, *args, **kwargs)
        wrap(peer)
        return peer

    nethelp.make_peer = make_peer
    try:
        a, b, _ = play(Conditions(0.060, 0.020, loss=0.05), 900, seed=seed, levels=("hard", "hard"))
    finally:
        nethelp.make_peer = made
    confirmed = [(p1, p2) for _f, p1, p2 in a.confirmed]
    want_keys, _ = _offline(seed, confirmed)
    for p in (a, b):
        presenter, backend = shown[p.side]
        ledger = presenter.ledger
        final = p.session.final_frame - 1
        recent = {k for k in want_keys if ledger.top - 60 <= k[1] <= final}
        have = {k for k in ledger.keys(final) if k[1] >= ledger.top - 60}
        assert have == recent                       # the live effects of settled frames are the confirmed match's
    # wrong guesses were shown, then taken back
    assert sum(shown[side][0].ledger.taken_back_count for side in (0, 1)) > 0
