"""``python3 -m game.bench rl``: the environment run and the bare-match run it compares step the
same frames, so their difference is the environment's own cost."""

from __future__ import annotations

import pytest

from rlhelp import need_gymnasium

need_gymnasium()

from game.bench.rl import CHUNK, _EnvRun, _MatchRun  # noqa: E402


@pytest.mark.slow
def test_the_env_run_and_the_match_run_step_the_same_frames():
    env_run = _EnvRun(replay=True)
    match_run = _MatchRun(env_run)
    for _ in range(2):                       # each call starts again from the same snapshot
        env_run()
        match_run()
        assert env_run.match.frame == match_run.m.frame == 90 + CHUNK
        assert env_run.match.state_hash() == match_run.m.state_hash()
