"""Vectorised use: SyncVectorEnv and AsyncVectorEnv (2 worker processes) step RangeboxEnv, and a
fresh interpreter (what a subprocess vector's or a Ray worker's is) finds it by
``"game.rl:Rangebox-v0"``.  Every test here starts matches or processes: slow."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from clihelp import ROOT
from rlhelp import need_gymnasium

gymnasium = need_gymnasium()

import game.rl  # noqa: E402,F401  (registers Rangebox-v0)

pytestmark = pytest.mark.slow


def _steps(envs, n=60):
    obs, infos = envs.reset(seed=[5, 6])
    rng = np.random.default_rng(0)
    for _ in range(n):
        obs, rewards, term, trunc, infos = envs.step(rng.integers(0, 2, (2, 11)).astype(np.int8))
    return obs, rewards, infos


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_vector_of_two_steps_each_match_as_a_single_env_would(mode):
    envs = gymnasium.make_vec("Rangebox-v0", num_envs=2, vectorization_mode=mode, level="easy")
    try:
        obs, rewards, infos = _steps(envs)
    finally:
        envs.close()
    single = []
    rng = np.random.default_rng(0)
    actions = [rng.integers(0, 2, (2, 11)).astype(np.int8) for _ in range(60)]
    for k, seed in enumerate((5, 6)):
        env = gymnasium.make("Rangebox-v0", level="easy")
        env.reset(seed=seed)
        for a in actions:
            o, *_ = env.step(a[k])
        single.append(o)
    assert obs.shape == (2, envs.single_observation_space.shape[0]) and obs.dtype == np.float32
    assert np.array_equal(obs, np.array(single))
    assert "events" in infos and len(infos["events"]) == 2


def test_async_vector_in_spawned_workers_finds_the_env_by_module_and_id():
    """Spawned workers import nothing of the parent: "game.rl:Rangebox-v0" imports game.rl."""
    envs = gymnasium.make_vec("game.rl:Rangebox-v0", num_envs=2, vectorization_mode="async",
                              vector_kwargs={"context": "spawn"})
    try:
        obs, _ = envs.reset(seed=1)
        obs, *_ = envs.step(np.zeros((2, 11), np.int8))
    finally:
        envs.close()
    assert obs.shape[0] == 2 and np.isfinite(obs).all()


def test_a_fresh_interpreter_makes_the_env_by_module_and_id():
    code = ("import gymnasium; e = gymnasium.make('game.rl:Rangebox-v0', opponent='idle'); o, _ = e.reset(seed=0); "
            "print(type(e.unwrapped).__name__, o.shape[0])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[0] == "RangeboxEnv"
