"""Two agents for ``RangeboxEnv``, and a command that plays them against the CPU:

    python3 -m game.rl.agents [--agent random|scripted] [--level easy] [--episodes 10] [--seed 0]

* :class:`RandomAgent`: a uniformly random MultiBinary action each step (``action_space.sample``).
* :class:`ScriptedAgent`: reads only the observation (``game.rl.layout``): walks in to kicking
  range, then runs two strings blind, front kick -> roundhouse and jab -> straight, the second
  button pressed inside the first move's cancel window.  It beats the easy CPU most matches.

Each episode is one match; the command prints each match's winner and the learner's share of
matches won.  Exit 2 with one line on a bad flag.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, NamedTuple

import gymnasium
import numpy as np

from game.sim.ai import LEVELS
from game.sim.inputs import HK, HP, LK, LP

from .env import RangeboxEnv
from .layout import FIGHTER_FIELDS, RELATIVE_FIELDS, ObsLayout

#: Centre-to-centre distance (m) the scripted agent closes to: the kicks reach about 1.45 m.
KICK_RANGE = 1.45


class RandomAgent:
    """A random action each step, drawn from the action space (seed it with ``action_space.seed``)."""

    def __init__(self, env: gymnasium.Env) -> None:
        self.space = env.action_space

    def reset(self) -> None:
        """A new episode (nothing to forget)."""

    def __call__(self, obs: Any) -> Any:
        return self.space.sample()


class ScriptedAgent:
    """Walk in, then front kick -> roundhouse and jab -> straight in turn, from the flat
    observation of ``layout``; one action per match frame (``frame_skip=1``)."""

    #: (frame of the string, button pressed) of each string.
    STRINGS = (((0, LK), (11, HK)), ((0, LP), (8, HP)))

    def __init__(self, layout: ObsLayout) -> None:
        names = [f[0] for f in FIGHTER_FIELDS]
        me = layout.slices["self"].start
        self._busy = me + names.index("busy")
        self._distance = layout.slices["relative"].start + [f[0] for f in RELATIVE_FIELDS].index("distance")
        self._forward = np.zeros(11, dtype=np.int8)
        self._forward[0] = 1
        self.t, self.k = -1, 0

    def reset(self) -> None:
        """A new episode: no string under way."""
        self.t, self.k = -1, 0

    def _press(self, bits: int) -> np.ndarray:
        return np.array([(bits >> i) & 1 for i in range(11)], dtype=np.int8)

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        free = obs[self._busy] <= 0.0
        if self.t >= 0:
            string = self.STRINGS[self.k]
            press = next((b for t, b in string if t == self.t), 0)
            self.t += 1
            if self.t > string[-1][0] and free:
                self.t, self.k = -1, (self.k + 1) % len(self.STRINGS)
            return self._press(press)
        if obs[self._distance] > KICK_RANGE:
            return self._forward
        if free:
            self.t = 1
            return self._press(self.STRINGS[self.k][0][1])
        return self._press(0)


class Outcome(NamedTuple):
    """One episode: the learner's side, who won (``None`` a draw), the summed reward, frames."""

    side: int
    winner: int | None
    reward: float
    frames: int


def play(env: RangeboxEnv, agent: RandomAgent | ScriptedAgent, seed: int) -> Outcome:
    """One episode of ``agent`` in ``env`` from ``reset(seed=seed)``."""
    obs, info = env.reset(seed=seed)
    agent.reset()
    total, done = 0.0, False
    while not done:
        obs, reward, terminated, truncated, info = env.step(agent(obs))
        total += reward
        done = terminated or truncated
    m = env.match
    assert m is not None
    return Outcome(env.side, m.winner, total, m.frame)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m game.rl.agents", description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", choices=("random", "scripted"), default="scripted")
    parser.add_argument("--level", choices=tuple(LEVELS), default="easy", help="the CPU's level")
    parser.add_argument("--episodes", type=int, default=10, help="matches to play (1 to 10000)")
    parser.add_argument("--seed", type=int, default=0, help="episode i is reset with seed SEED + i")
    args = parser.parse_args(argv)
    if not 1 <= args.episodes <= 10_000:
        parser.error(f"--episodes {args.episodes}: choose 1 to 10000")
    if args.seed < 0:
        parser.error(f"--seed {args.seed}: choose a whole number >= 0")
    env = RangeboxEnv(opponent="cpu", level=args.level, side="random")
    env.action_space.seed(args.seed)
    agent = RandomAgent(env) if args.agent == "random" else ScriptedAgent(env.layout)
    wins = 0
    for i in range(args.episodes):
        out = play(env, agent, args.seed + i)
        result = "draw" if out.winner is None else ("won" if out.winner == out.side else "lost")
        wins += result == "won"
        print(f"match {i + 1}: {args.agent} as P{out.side + 1} {result} against the {args.level} CPU "
              f"({out.frames} frames, reward {out.reward:+.2f})")
    print(f"{args.agent} won {wins} of {args.episodes} matches ({100 * wins / args.episodes:.0f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
