"""The Gymnasium environment (``game/rl``): steps per second, headless, against the CPU.

* one ``RangeboxEnv`` (flat observation, ``frame_skip=1``, the normal CPU as opponent, random
  MultiBinary actions), 500 steps from the fight's first frame, against the bare
  ``Match.step`` of the same 500 frames (the same match, snapshot and input bits) in the
  same round-robin rounds, and the environment's own cost per step (action decoded, opponent
  asked, reward, observation written and copied): a third run's time outside its
  ``Match.step`` calls, which are timed apart (the difference of the first two figures is
  within this VM's noise); then whole episodes (resets counted), the Dict observation and
  ``frame_skip=4``;
* ``AsyncVectorEnv`` of 2 workers (one process each; this machine has 2 cores) and
  ``SyncVectorEnv`` of 2 in this process: environment steps per second over both;
* ``render_mode="rgb_array"`` at 256 x 256: ms per ``render()`` (the draw through headless
  EGL and the read-back), and the step's cost with the view following the match.

Needs gymnasium (the ``rl`` extra); without it the section says so and prints nothing else.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from game.sim import FrameInput, Match

from .common import interleaved_medians, report

#: Steps per timed chunk of the single environment, and per vector run.
CHUNK = 500
VECTOR_STEPS = 1000
SEED = 3


def _actions(n: int, rows: int = 0) -> np.ndarray:
    """Random MultiBinary actions, ``(n, 11)`` int8 (or ``(n, rows, 11)``)."""
    shape = (n, 11) if rows == 0 else (n, rows, 11)
    return np.random.default_rng(SEED).integers(0, 2, shape).astype(np.int8)


class _EnvRun:
    """One environment stepped ``CHUNK`` steps a call, reset when an episode ends (resets
    counted); ``replay=True``: each call instead starts again from the fight's first frame
    (``snap``), so every call steps the same frames."""

    def __init__(self, replay: bool = False, **kwargs: Any) -> None:
        from game.rl import RangeboxEnv

        self.env = RangeboxEnv(opponent="cpu", level="normal", **kwargs)
        _, info = self.env.reset(seed=SEED)
        self.match_seed = info["match_seed"]
        assert self.env.match is not None
        self.match: Match = self.env.match
        self.snap = self.match.snapshot() if replay else None
        self.actions = list(_actions(CHUNK if replay else 4 * CHUNK))
        self.i = 0

    def __call__(self) -> None:
        env, actions = self.env, self.actions
        if self.snap is not None:
            self.match.restore(self.snap)
            self.i = 0
        for _ in range(CHUNK):
            _, _, terminated, truncated, _ = env.step(actions[self.i % len(actions)])
            self.i += 1
            if terminated or truncated:
                env.reset()


class _MatchRun:
    """The bare match the replaying :class:`_EnvRun` plays: ``Match.step`` of the same match
    (its seed, the normal CPU on P2) from the same snapshot with the same input bits on P1."""

    def __init__(self, env_run: _EnvRun) -> None:
        weights = 1 << np.arange(11)
        self.inputs = [FrameInput.from_bits(int(b)) for b in np.array(env_run.actions) @ weights]
        self.m = Match.new(env_run.match_seed, p2_cpu="normal")
        assert env_run.snap is not None
        self.snap = env_run.snap

    def __call__(self) -> None:
        m = self.m
        m.restore(self.snap)
        for p1 in self.inputs:
            m.step(p1)


class _OwnCost:
    """A replaying :class:`_EnvRun` whose ``Match.step`` calls are timed apart: ``own`` holds,
    for each call, the seconds spent outside them, the environment's own work as it runs
    between real steps (its code and data cold after each step)."""

    def __init__(self) -> None:
        self.run = _EnvRun(replay=True)
        self.inside = 0.0
        self.own: list[float] = []
        step = self.run.match.step

        def timed(p1: FrameInput, p2: FrameInput) -> tuple:
            t0 = time.perf_counter()
            events = step(p1, p2)
            self.inside += time.perf_counter() - t0
            return events

        self.run.match.step = timed                       # type: ignore[method-assign, assignment]

    def __call__(self) -> None:
        self.inside = 0.0
        t0 = time.perf_counter()
        self.run()
        self.own.append(time.perf_counter() - t0 - self.inside)


def _single(quick: bool) -> None:
    env_run = _EnvRun(replay=True)
    match_run = _MatchRun(env_run)
    own_run = _OwnCost()
    fns: list[Callable[[], object]] = [env_run, match_run, own_run]
    env_s, match_s, _ = interleaved_medians(fns, numbers=[1, 1, 1], repeat=3 if quick else 9)
    report("one env, CPU opponent: steps/s", CHUNK / env_s, "steps/s", target=">= 5000")
    report("  Match.step of the same frames: steps/s", CHUNK / match_s, "steps/s")
    report("  the env's own cost per step, between steps", statistics.median(own_run.own) / CHUNK * 1e6, "us")
    runs: list[Callable[[], object]] = [_EnvRun(), _EnvRun(observation="dict"), _EnvRun(frame_skip=4)]
    whole, named, skip = interleaved_medians(runs, numbers=[1, 1, 1], repeat=3 if quick else 5)
    report("  whole episodes, resets counted: steps/s", CHUNK / whole, "steps/s")
    report("  observation='dict': steps/s", CHUNK / named, "steps/s")
    report("  frame_skip=4: steps/s (x4 frames)", CHUNK / skip, "steps/s")


def _vector(mode: str, runs: int) -> float:
    """Environment steps per second over a vector of 2 (median of ``runs``)."""
    import gymnasium

    envs = gymnasium.make_vec("game.rl:Rangebox-v0", num_envs=2, vectorization_mode=mode, level="normal")
    try:
        envs.reset(seed=SEED)
        actions = _actions(VECTOR_STEPS, rows=2)
        envs.step(actions[0])                     # workers warm
        rates = []
        for _ in range(runs):
            t0 = time.perf_counter()
            for a in actions:
                envs.step(a)                      # autoreset: an ended episode restarts on the next step
            rates.append(2 * VECTOR_STEPS / (time.perf_counter() - t0))
        return statistics.median(rates)
    finally:
        envs.close()


def _render(quick: bool) -> None:
    from game.rl import RangeboxEnv

    env = RangeboxEnv(opponent="cpu", level="normal", render_mode="rgb_array", render_size=(256, 256))
    try:
        env.reset(seed=SEED)
        env.render()                              # first draw: shader variants, glyphs
        draws, steps = [], []
        for a in _actions(60 if quick else 240):
            t0 = time.perf_counter()
            env.step(a)
            t1 = time.perf_counter()
            frame = env.render()
            t2 = time.perf_counter()
            steps.append(t1 - t0)
            draws.append(t2 - t1)
        assert frame is not None and frame.shape == (256, 256, 3)
    finally:
        env.close()
    report("rgb_array 256x256: ms per render()", statistics.median(draws) * 1e3, "ms")
    report("  a step with the view following: us", statistics.median(steps) * 1e6, "us")


def run(args) -> None:
    try:
        import gymnasium  # noqa: F401
    except ModuleNotFoundError:
        print("  needs gymnasium, the rl extra: pip install -e '.[rl]' (scripts/setup.sh installs it)")
        return
    _single(args.quick)
    runs = 2 if args.quick else 5
    report("AsyncVectorEnv, 2 workers: env steps/s", _vector("async", runs), "steps/s")
    report("SyncVectorEnv, 2 envs: env steps/s", _vector("sync", runs), "steps/s")
    _render(args.quick)
