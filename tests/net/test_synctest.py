"""SyncTestSession (game/net/synctest.py) and ``--sync-test N --headless``: every frame rolled
back and stepped again, each re-simulated state hash compared with the first run's."""

from __future__ import annotations

import json

import pytest

from clihelp import assert_usage_error, run_main
from game.net.requests import AdvanceFrame, LoadState, SaveState
from game.net.runner import MatchRunner
from game.net.synctest import SyncTestSession
from game.sim import Match
from nethelp import FakeGame


@pytest.mark.parametrize("check", [1, 2, 8])
def test_every_frame_is_stepped_again_check_times_from_a_load(check):
    s = SyncTestSession(check)
    game = FakeGame(s.slots)
    steps = []
    for f in range(30):
        reqs = s.advance(f, 2 * f)
        steps.append([r.frame for r in reqs if isinstance(r, AdvanceFrame)])
        loads = [r for r in reqs if isinstance(r, LoadState)]
        assert loads == ([LoadState(f + 1 - check, (f + 1 - check) % s.slots)] if f + 1 >= check else [])
        game.carry_out(reqs)
    flat = [g for frames in steps for g in frames]
    # once straight, then once in each of the next ``check`` rollbacks (none reach before frame 0)
    assert all(flat.count(g) == check + 1 for g in range(check - 1, 30 - check))
    assert game.state == tuple((f, 2 * f) for f in range(30))


class _Forgetful(FakeGame):
    """A stand-in whose load loses frame 12's input: the state after a rollback past it differs."""

    def carry_out(self, reqs, session=None):
        for r in reqs:
            super().carry_out([r], None)
            if isinstance(r, LoadState) and r.frame > 12:
                self.state = self.state[:12] + ((99, 99),) + self.state[13:]
            if isinstance(r, SaveState) and session is not None:
                session.saved(r.frame, self.hash_of(self.state).hex())


def test_a_state_the_load_does_not_restore_is_found_at_its_first_frame():
    s = SyncTestSession(2)
    g = _Forgetful(s.slots)
    for f in range(40):
        g.carry_out(s.advance(f, f), s)
    assert s.mismatch is not None and s.mismatch.frame == 14       # the first state saved after such a load
    assert s.advance(0, 0) == []


@pytest.mark.slow
def test_a_real_match_rolled_back_every_frame_agrees_with_its_first_run():
    m = Match.new(4, p1_cpu="hard", p2_cpu="normal")
    s = SyncTestSession(3)
    runner = MatchRunner(m, s.slots)
    while m.frame < 130:                    # into the fight (the intro is 90 frames)
        runner.carry_out(s.advance(0, 0), s.saved)
    assert s.mismatch is None and s.compared >= 3 * 125


def test_sync_test_flags_out_of_range_or_without_headless_exit_2_with_one_line(capsys):
    from game.cli import main

    for args, words in ((["--sync-test", "0", "--headless"], "1 to 8"), (["--sync-test", "9", "--headless"], "1 to 8"),
                        (["--sync-test", "2"], "--headless"),
                        (["--sync-test", "2", "--headless", "--record", "x.rpl"], "--record")):
        assert main(args) == 2
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and "--sync-test" in err[0] and words in err[0]


def test_a_sync_test_that_finds_a_difference_exits_1_naming_the_frame(capsys, monkeypatch):
    from game.cli import main

    real = Match.restore

    def leaky(self, snap):                  # a restore that leaves the RNG one draw on
        real(self, snap)
        self.rng.random()
    monkeypatch.setattr(Match, "restore", leaky)
    assert main(["--sync-test", "1", "--headless", "--p1", "cpu", "--p2", "cpu", "--frames", "20"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "frame 1 differs" in err[0]


def _crate_fight_replay(tmp_path):
    from cratefight import crate_fight_run
    from game.replay import ReplayRecorder

    inputs, strikes, broke, _ = crate_fight_run()
    m = Match.new(seed=0)
    rec = ReplayRecorder.for_match(m)
    for p1, p2 in inputs:
        m.step(p1, p2)
        rec.record(m)
    path = tmp_path / "crates.rpl"
    rec.save(str(path))
    return path, strikes


@pytest.mark.slow
@pytest.mark.parametrize("check", [1, 2, 8])
def test_the_cli_sync_test_of_the_crate_fight_agrees_on_every_frame(check, tmp_path):
    path, strikes = _crate_fight_replay(tmp_path)
    p = run_main(["--sync-test", str(check), "--headless", "--replay", str(path)], timeout=300)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["frames"] > strikes[-1] and out["compared"] >= (check + 1) * (out["frames"] - check)


@pytest.mark.slow
@pytest.mark.parametrize("seed, check", [(0, 1), (1, 2), (2, 8)])
def test_the_cli_sync_test_of_cpu_matches_agrees_on_every_frame(seed, check):
    p = run_main(["--sync-test", str(check), "--headless", "--p1", "cpu", "--p2", "cpu", "--level", "hard",
                  "--seed", str(seed), "--frames", "700"], timeout=300)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["frames"] == 700


@pytest.mark.slow
def test_sync_test_usage_error_from_a_child_process():
    assert_usage_error(run_main(["--sync-test", "3"]), "--sync-test", "--headless")


@pytest.mark.slow
@pytest.mark.parametrize("check", [1, 2, 8])
def test_a_cpu_match_that_strikes_a_crate_rolled_back_every_frame_agrees_with_its_first_run(check):
    """Seed 5, hard against hard, begun on either side of crate_north: the CPUs strike it by
    frame 806; rolled back ``check`` frames on every frame, every re-simulated state equals the
    first run's (the crate's re-split boxes and scene included)."""
    from game.sim import CrateStruck
    from simhelp import place, to_fight

    m = Match.new(5, p1_cpu="hard", p2_cpu="hard")
    to_fight(m)
    place(m, (0.0, 3.5), (0.0, 6.5))
    s = SyncTestSession(check, start=m.frame)
    runner = MatchRunner(m, s.slots)
    strikes = 0
    while m.frame < 1000:
        for _frame, events in runner.carry_out(s.advance(0, 0), s.saved):
            strikes += sum(isinstance(e, CrateStruck) for e in events)
    assert strikes >= 1, "no crate struck: pick another seed"
    assert s.mismatch is None and s.compared >= check * 500
