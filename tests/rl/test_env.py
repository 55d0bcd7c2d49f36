"""RangeboxEnv: the Gymnasium API (check_env for each observation variant), the registered id,
seeding and determinism, resets, rewards, episodes, truncation, frame skip and bad arguments."""

from __future__ import annotations

import numpy as np
import pytest

from rlhelp import buttons, need_gymnasium

gymnasium = need_gymnasium()

from gymnasium.utils.env_checker import check_env  # noqa: E402

from game.rl import ENV_ID, RangeboxEnv  # noqa: E402
from game.rl.actions import ACTIONS, DiscreteActions, action_rows  # noqa: E402
from game.sim import Hit, RoundEnd  # noqa: E402
from game.sim.inputs import BUTTONS, FORWARD, GUARD, LP  # noqa: E402

JAB = buttons(LP)
NEUTRAL = buttons(0)
WALK = buttons(FORWARD)


@pytest.mark.slow
@pytest.mark.parametrize("observation", ["flat", "dict"])
def test_check_env_passes_for_each_observation_variant(observation):
    env = RangeboxEnv(observation=observation)
    check_env(env, skip_render_check=True)
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:.*different from the unwrapped version")
def test_check_env_passes_for_the_discrete_action_table():
    env = DiscreteActions(RangeboxEnv(opponent="idle"))
    check_env(env, skip_render_check=True)
    assert env.action_space.n == len(ACTIONS)


def test_the_action_table_rows_are_the_named_buttons():
    rows = action_rows()
    for (name, bits), row in zip(ACTIONS, rows):
        assert sum(int(b) << i for i, b in enumerate(row)) == bits, name
    assert len({bits for _, bits in ACTIONS}) == len(ACTIONS)
    assert dict(ACTIONS)["guard"] == 1 << BUTTONS.index("guard")


def test_make_by_the_registered_id_passes_its_arguments():
    env = gymnasium.make(ENV_ID, opponent="cpu", level="easy", frame_skip=2)
    base = env.unwrapped
    assert isinstance(base, RangeboxEnv)
    assert base.opponent.cpu == "easy" and base.frame_skip == 2
    assert env.action_space == gymnasium.spaces.MultiBinary(11)
    assert gymnasium.make("game.rl:Rangebox-v0").unwrapped.opponent.cpu == "normal"


def _run(env, actions, seed):
    obs, _ = env.reset(seed=seed)
    seen = [obs]
    for a in actions:
        obs, _, terminated, truncated, _ = env.step(a)
        seen.append(obs)
        if terminated or truncated:
            seen.append(env.reset()[0])
    return np.array(seen), env.state_hash()


@pytest.mark.slow
def test_the_same_seed_and_actions_give_the_same_observations_for_3000_steps():
    actions = np.random.default_rng(7).integers(0, 2, (3000, 11)).astype(np.int8)
    a, hash_a = _run(RangeboxEnv(level="hard"), actions, seed=11)
    b, hash_b = _run(RangeboxEnv(level="hard"), actions, seed=11)
    assert a.shape[0] >= 3001
    assert np.array_equal(a, b) and hash_a == hash_b
    c, hash_c = _run(RangeboxEnv(level="hard"), actions, seed=12)
    assert hash_c != hash_a and not np.array_equal(a[:200], c[:200])


@pytest.mark.slow
def test_a_reset_mid_match_starts_a_fresh_match():
    env, fresh = RangeboxEnv(), RangeboxEnv()
    env.reset(seed=3)
    for _ in range(40):
        env.step(WALK)
    assert env.match.frame > 100
    obs, info = env.reset(seed=5)
    want, want_info = fresh.reset(seed=5)
    assert np.array_equal(obs, want) and env.state_hash() == fresh.state_hash()
    assert info["match_seed"] == want_info["match_seed"] and env.match.frame == fresh.match.frame == 90


def test_reset_skips_the_intro_and_reports_its_events():
    env = RangeboxEnv()
    _, info = env.reset(seed=1)
    assert env.match.phase == "fight"
    assert [type(e).__name__ for e in info["events"]] == ["RoundStart", "Fight"]
    env2 = RangeboxEnv(skip_pauses=False)
    env2.reset(seed=1)
    assert env2.match.phase == "intro" and env2.match.frame == 0


@pytest.mark.slow
def test_the_seed_draws_the_side_when_side_is_random():
    sides = {RangeboxEnv(side="random").reset(seed=s)[1]["side"] for s in range(12)}
    assert sides == {0, 1}
    a, b = RangeboxEnv(side="random"), RangeboxEnv(side="random")
    assert a.reset(seed=4)[1] == b.reset(seed=4)[1]


def test_options_side_plays_p2_and_the_cpu_takes_p1():
    env = RangeboxEnv(level="easy")
    obs, info = env.reset(seed=0, options={"side": 1})
    assert info["side"] == 1 and env.match.cpu == ("easy", None)
    assert obs[env.layout.slices["match"]][2] == 1.0       # the "side" field


def _hit_until(env, action, want_attacker, limit=400):
    for _ in range(limit):
        obs, reward, term, trunc, info = env.step(action)
        hits = [e for e in info["events"] if isinstance(e, Hit)]
        if hits:
            return reward, hits
        assert not (term or trunc)
    raise AssertionError("no hit")


@pytest.mark.parametrize("side", [0, 1])
def test_a_hits_reward_is_its_damage_over_full_health(side):
    env = RangeboxEnv(opponent="idle")
    env.reset(seed=2, options={"side": side})
    health = env.match.fighters[1 - side].health
    for _ in range(300):
        _, reward, _, _, info = env.step(WALK if env.observe()[env.layout.slices["relative"]][2] > 1.3 else JAB)
        hits = [e for e in info["events"] if isinstance(e, Hit)]
        if hits:
            break
        env.step(NEUTRAL)
    (hit,) = hits
    assert hit.attacker == side and hit.damage > 0 and hit.point.shape == (3,)
    assert reward == pytest.approx(hit.damage / env.match.data.max_health)
    assert env.match.fighters[1 - side].health == health - hit.damage


@pytest.mark.slow
def test_the_opponents_hits_cost_reward_and_a_round_lost_costs_the_bonus():
    env = RangeboxEnv(opponent="cpu", level="hard", episode="round", win_bonus=2.5)
    env.reset(seed=0)
    total, damage, done, reward = 0.0, 0, False, 0.0
    while not done:
        _, reward, term, trunc, info = env.step(NEUTRAL)
        total += reward
        damage += sum(e.damage for e in info["events"] if isinstance(e, Hit) and e.defender == env.side)
        done = term or trunc
    ends = [e for e in info["events"] if isinstance(e, RoundEnd)]
    assert term and ends and ends[0].winner == 1 - env.side
    assert total == pytest.approx(-damage / 100 - 2.5)
    assert env.match.fighters[env.side].health == 0 and damage >= 100


@pytest.mark.slow
def test_a_round_episode_won_at_time_over_ends_with_the_bonus():
    env = RangeboxEnv(opponent="idle", episode="round", timer=3, win_bonus=1.0)
    env.reset(seed=0)
    total, term = 0.0, False
    while not term:
        dist = env.observe()[env.layout.slices["relative"]][2]
        _, reward, term, trunc, info = env.step(WALK if dist > 1.3 else (JAB if env.match.frame % 2 else NEUTRAL))
        total += reward
        assert not trunc
    assert any(type(e).__name__ == "TimeOver" for e in info["events"]) or env.match.fighters[1].health == 0
    assert reward >= 1.0 and total == pytest.approx(1.0 + (100 - env.match.fighters[1 - env.side].health) / 100)


def test_truncation_at_the_frame_limit():
    env = RangeboxEnv(max_frames=30, frame_skip=4)
    env.reset(seed=0)
    steps = 0
    while True:
        _, _, term, trunc, _ = env.step(buttons(GUARD))
        steps += 1
        if term or trunc:
            break
    assert trunc and not term and steps == 8 and env.match.frame == 90 + 32


def test_frame_skip_holds_the_action_for_its_frames():
    skip, single = RangeboxEnv(frame_skip=3), RangeboxEnv()
    skip.reset(seed=9)
    single.reset(seed=9)
    for a in (WALK, JAB, NEUTRAL, WALK):
        obs3, r3, *_ = skip.step(a)
        r1 = sum(single.step(a)[1] for _ in range(3))
        assert skip.match.frame == single.match.frame and r3 == pytest.approx(r1)
    assert np.array_equal(obs3, single.observe()) and skip.state_hash() == single.state_hash()


@pytest.mark.parametrize("kwargs, word", [
    ({"side": 2}, "side"), ({"observation": "pixels"}, "observation"), ({"episode": "life"}, "episode"),
    ({"rounds": 2}, "rounds"), ({"timer": 0}, "timer"), ({"max_frames": 0}, "max_frames"),
    ({"frame_skip": 0}, "frame_skip"), ({"render_mode": "human"}, "render_mode"),
    ({"render_size": (8, 8)}, "render_size"), ({"arena": "yes"}, "arena"), ({"level": "expert"}, "level"),
    ({"opponent": "bot"}, "opponent"),
    ({"opponent": "replay"}, "replay"),
])
def test_a_bad_argument_raises_value_error_naming_it(kwargs, word):
    with pytest.raises(ValueError, match=word):
        RangeboxEnv(**kwargs)


def test_a_bad_action_or_a_step_before_reset_is_refused():
    env = RangeboxEnv()
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(NEUTRAL)
    env.reset(seed=0)
    for bad in (np.full(11, 2, np.int8), np.zeros(10, np.int8), 4096, "lp", np.full(11, 0.5)):
        with pytest.raises(ValueError, match="action"):
            env.step(bad)
    env.step(np.ones(11, dtype=bool))
    env.step(np.array([1] + [0] * 10))           # int64 buttons
    env.step(1 << 6)                             # the bits as an int
