"""The example agents: the scripted one beats the easy CPU in most matches; the command runs."""

from __future__ import annotations

import pytest

from rlhelp import need_gymnasium

need_gymnasium()

from game.rl import RangeboxEnv  # noqa: E402
from game.rl.agents import RandomAgent, ScriptedAgent, main, play  # noqa: E402

pytestmark = pytest.mark.slow


def test_the_scripted_agent_beats_the_easy_cpu_more_often_than_not():
    env = RangeboxEnv(opponent="cpu", level="easy", side="random")
    agent = ScriptedAgent(env.layout)
    outcomes = [play(env, agent, seed) for seed in range(6)]
    wins = sum(o.winner == o.side for o in outcomes)
    assert {o.side for o in outcomes} == {0, 1}
    assert wins > len(outcomes) / 2, outcomes


def test_the_random_agent_plays_a_whole_round():
    env = RangeboxEnv(opponent="cpu", level="hard", episode="round")
    env.action_space.seed(0)
    out = play(env, RandomAgent(env), 0)
    assert out.frames > 90 and env.match.round == 1


def test_the_command_prints_each_match_and_the_share_won(capsys):
    assert main(["--agent", "scripted", "--level", "easy", "--episodes", "1", "--seed", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("match 1: scripted as P") and lines[-1].startswith("scripted won ")
    with pytest.raises(SystemExit) as exc:
        main(["--episodes", "0"])
    assert exc.value.code == 2
