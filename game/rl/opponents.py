"""Who the learner fights: the built-in CPU, a replay's inputs, a policy (self-play) or nobody.

An opponent plays the side the learner does not.  Each frame the environment asks it for that
side's input bits (:meth:`Opponent.bits`); the CPU's are ignored, as the match's own CPU plays
that side (``Match.new(p1_cpu=...)``: deterministic, its random choices drawn from the match's
RNG, which the environment seeds from ``reset(seed=...)``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from game.replay import Replay, load_replay
from game.sim import FrameInput
from game.sim.ai import LEVELS

#: A self-play policy: the observation of its own side (the environment's format) in, its
#: action out (MultiBinary ``(11,)`` of 0/1, or the input bits as an int).
Policy = Callable[[Any], Any]
#: Bit weights of the MultiBinary action: element i is bit i (``game.sim.inputs.BUTTONS``).
BIT_WEIGHTS = np.array([1 << i for i in range(FrameInput.BITS)], dtype=np.int64)
#: The bytes of every MultiBinary action of one-byte elements (int8, uint8, bool) -> its bits:
#: the usual action (``MultiBinary.sample()`` is int8) is decoded and checked by one lookup.
_BYTES_TO_BITS = {bytes((n >> i) & 1 for i in range(FrameInput.BITS)): n for n in range(1 << FrameInput.BITS)}


def action_bits(action: Any, name: str = "action") -> int:
    """A MultiBinary action ``(11,)`` of 0/1 (or an int in ``range(2048)``) as input bits;
    anything else raises ValueError naming ``name``."""
    if type(action) is np.ndarray and action.itemsize == 1 and action.shape == (FrameInput.BITS,):
        bits = _BYTES_TO_BITS.get(action.tobytes())
        if bits is not None:
            return bits
    elif isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        if 0 <= action < 1 << FrameInput.BITS:
            return int(action)
    else:
        a = np.asarray(action)
        if a.shape == (FrameInput.BITS,) and a.dtype.kind in "biu" and bool(((a == 0) | (a == 1)).all()):
            return int(a.astype(np.int64) @ BIT_WEIGHTS)
    raise ValueError(f"{name}: expected {FrameInput.BITS} buttons of 0 or 1 (MultiBinary({FrameInput.BITS}), "
                     f"game.sim.inputs.BUTTONS order) or an int in range({1 << FrameInput.BITS}), got {action!r}")


class Opponent:
    """No one at the controls: the opponent's side stands still (a training dummy).

    ``cpu``: the level the match's own CPU plays this side at, or None (the bits given play)."""

    cpu: str | None = None
    name = "idle"

    def reset(self, side: int) -> None:
        """A new match; the opponent plays side ``side`` (0: P1, 1: P2)."""

    def bits(self, frame: int, fresh: bool, observe: Callable[[], Any]) -> int:
        """The input bits for match frame ``frame``; ``fresh``: the first frame of an environment
        step; ``observe()``: the opponent side's observation (only a policy asks)."""
        return 0


class CpuOpponent(Opponent):
    """The built-in CPU at ``level`` (``game.sim.ai.LEVELS``: easy, medium, normal, hard)."""

    name = "cpu"

    def __init__(self, level: str) -> None:
        if level not in LEVELS:
            raise ValueError(f"RangeboxEnv: level {level!r}: choose one of {', '.join(map(repr, LEVELS))}")
        self.cpu = level


class ReplayOpponent(Opponent):
    """A replay's recorded inputs of side ``replay_side`` (None: the side the opponent plays),
    frame by frame from the match's first frame; neutral once the replay has ended."""

    name = "replay"

    def __init__(self, replay: Replay | str | os.PathLike, replay_side: int | None = None) -> None:
        self.replay = replay if isinstance(replay, Replay) else load_replay(replay)
        if replay_side not in (None, 0, 1):
            raise ValueError(f"RangeboxEnv: replay_side {replay_side!r}: choose 0 (P1), 1 (P2) or None "
                             f"(the side the opponent plays)")
        self.replay_side = replay_side
        self._inputs: list[int] = []

    def reset(self, side: int) -> None:
        column = side if self.replay_side is None else self.replay_side
        self._inputs = self.replay.inputs[:, column].tolist()

    def bits(self, frame: int, fresh: bool, observe: Callable[[], Any]) -> int:
        return self._inputs[frame] if frame < len(self._inputs) else 0


class PolicyOpponent(Opponent):
    """A policy (self-play): called once an environment step with its own side's observation;
    its action is held for the step's frames, as the learner's is."""

    name = "policy"

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self._held = 0

    def reset(self, side: int) -> None:
        self._held = 0

    def bits(self, frame: int, fresh: bool, observe: Callable[[], Any]) -> int:
        if fresh:
            self._held = action_bits(self.policy(observe()), "opponent policy's action")
        return self._held


def make_opponent(opponent: object, level: str, replay: Replay | str | os.PathLike | None,
                  replay_side: int | None) -> Opponent:
    """The opponent the environment's arguments name: ``"cpu"`` (at ``level``), ``"replay"``
    (``replay``: a :class:`~game.replay.Replay` or a replay file's path), ``"idle"``, or a
    callable (a :data:`Policy`)."""
    if callable(opponent):
        return PolicyOpponent(opponent)
    if opponent == "cpu":
        return CpuOpponent(level)
    if opponent == "idle":
        return Opponent()
    if opponent == "replay":
        if replay is None:
            raise ValueError("RangeboxEnv: opponent='replay' needs replay=PATH (a .rpl file) or a Replay")
        return ReplayOpponent(replay, replay_side)
    raise ValueError(f"RangeboxEnv: opponent {opponent!r}: choose 'cpu', 'replay', 'idle' or a policy "
                     f"(a callable: observation in, action out)")
