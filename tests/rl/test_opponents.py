"""The opponents: the built-in CPU at each level (deterministic under the seed), a replay's
inputs, a policy (self-play, seeing its own side) and the idle dummy."""

from __future__ import annotations

import numpy as np
import pytest

from rlhelp import buttons, need_gymnasium

need_gymnasium()

from game.replay import ReplayRecorder, decode  # noqa: E402
from game.rl import RangeboxEnv  # noqa: E402
from game.rl.opponents import action_bits  # noqa: E402
from game.sim import FrameInput, Match  # noqa: E402
from game.sim.ai import LEVELS  # noqa: E402
from game.sim.inputs import FORWARD, GUARD, LP  # noqa: E402


@pytest.mark.slow
@pytest.mark.parametrize("level", list(LEVELS))
def test_the_cpu_plays_the_other_side_at_its_level_the_same_for_the_same_seed(level):
    runs = []
    for _ in range(2):
        env = RangeboxEnv(opponent="cpu", level=level)
        env.reset(seed=21)
        for _ in range(200):
            env.step(buttons(0))
        runs.append((env.state_hash(), [f.x for f in env.match.fighters]))
    assert env.match.cpu == (None, level)
    assert runs[0] == runs[1]
    assert Match.new(0).fighters[1].x != env.match.fighters[1].x, "the CPU never moved"


def test_the_idle_opponent_stands_still():
    env = RangeboxEnv(opponent="idle")
    env.reset(seed=0)
    start = (env.match.fighters[1].x, env.match.fighters[1].z)
    for _ in range(40):
        env.step(buttons(0))
    assert (env.match.fighters[1].x, env.match.fighters[1].z) == start
    assert env.match.fighters[1].state == "idle"


@pytest.mark.slow
def test_a_replay_opponent_plays_the_recorded_inputs_of_its_side():
    m = Match.new(seed=3)
    rec = ReplayRecorder.for_match(m)
    script = [(FrameInput.from_bits(FORWARD), FrameInput.from_bits(LP if i % 20 == 0 else FORWARD))
              for i in range(200)]
    for p1, p2 in script:
        m.step(p1, p2)
        rec.record(m)
    env = RangeboxEnv(opponent="replay", replay=decode(rec.to_bytes()), skip_pauses=False)
    env.reset(seed=0)
    for p1, _ in script:
        env.step(buttons(p1.bits))
    assert [(f.x, f.z, f.state, f.move) for f in env.match.fighters] == \
        [(f.x, f.z, f.state, f.move) for f in m.fighters]
    env.step(buttons(0))
    assert env.match.fighters[1].input_bits == 0, "past its end a replay plays no buttons"


def test_a_replay_opponent_reads_a_file(tmp_path):
    m = Match.new(seed=0)
    rec = ReplayRecorder.for_match(m)
    for _ in range(5):
        m.step()
        rec.record(m)
    path = tmp_path / "a.rpl"
    rec.save(str(path))
    env = RangeboxEnv(opponent="replay", replay=str(path), replay_side=0)
    assert env.opponent.replay.frames == 5
    with pytest.raises(ValueError, match="replay"):
        RangeboxEnv(opponent="replay", replay=str(tmp_path / "missing.rpl"))
    with pytest.raises(ValueError, match="replay_side"):
        RangeboxEnv(opponent="replay", replay=str(path), replay_side=3)


def test_a_policy_opponent_sees_its_own_side_and_its_action_is_held_for_the_step():
    seen = []

    def policy(obs):
        seen.append(obs.copy())
        return buttons(GUARD)

    env = RangeboxEnv(opponent=policy, frame_skip=4)
    env.reset(seed=0)
    for _ in range(5):
        env.step(buttons(0))
    lay = env.layout
    assert len(seen) == 5, "called once an environment step"
    assert all(o[lay.slices["match"]][2] == 1.0 for o in seen), "the policy's observation is P2's"
    start = Match.new(0).fighters[1]
    assert seen[0][lay.slices["self"]][:3].tolist() == pytest.approx([start.x, start.ground_y, start.z])
    assert env.match.fighters[1].state == "block_stand" and env.match.cpu == (None, None)


def test_self_play_mirrors_one_policy_on_both_sides():
    """The same policy on both sides of a self-play match: each side sees itself as "self"."""
    def walk(obs):
        return buttons(FORWARD)

    env = RangeboxEnv(opponent=walk)
    obs, _ = env.reset(seed=0)
    d0 = obs[env.layout.slices["relative"]][2]
    for _ in range(20):
        obs, *_ = env.step(walk(obs))
    assert obs[env.layout.slices["relative"]][2] < d0 - 0.5
    assert [f.state for f in env.match.fighters] == ["walk_fwd", "walk_fwd"]


def test_a_policys_bad_action_is_named():
    env = RangeboxEnv(opponent=lambda obs: "punch")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="opponent policy"):
        env.step(buttons(0))
    assert action_bits(np.array([0, 1] + [0] * 9, dtype=np.uint8)) == 2
