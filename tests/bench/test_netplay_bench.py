"""The netplay benchmark's pieces do what its figures claim: the rollback it times re-simulates
8 frames on every frame and lands on the state of plain stepping."""

from __future__ import annotations

import pytest

from game.bench.netplay import DEPTH, rollback_requests
from game.net.cpu_player import cpu_fight_inputs
from game.net.requests import AdvanceFrame
from game.net.runner import MatchRunner
from game.sim import FrameInput, Match


@pytest.mark.slow
def test_bench_rollback_requests_step_every_frame_again_and_end_where_plain_stepping_ends():
    inputs = cpu_fight_inputs(5, 60)
    runner = MatchRunner(Match.new(5), DEPTH + 2)
    for f in range(60):
        reqs = rollback_requests(f, inputs, DEPTH, DEPTH + 2)
        assert sum(isinstance(r, AdvanceFrame) for r in reqs) == min(f, DEPTH) + 1
        runner.carry_out(reqs)
    plain = Match.new(5)
    for p1, p2 in inputs:
        plain.step(FrameInput.from_bits(p1), FrameInput.from_bits(p2))
    assert runner.match.frame == 60 and runner.match.state_hash() == plain.state_hash()
