"""A CPU that plays one side of a netplay match as a player would: it reads the local match
and gives input bits, which the session sends and records like any player's.

In netplay each side supplies only its own fighter's input, and both matches are made with no
CPU side (``Match.new(seed)``), so the inputs decide everything.  The CPU here decides with
:func:`game.sim.ai.decide`, but on a view of the match whose plan and RNG are its own
(:class:`_Eyes`): the match's RNG and plans, which both sides' matches share, are never
touched, so deciding leaves the local match's state (and ``state_hash``) as it was.  It decides
from the local match as it stands, a predicted present; whatever it decides becomes that frame's
input, recorded, so both sides agree on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from game.sim import ai

if TYPE_CHECKING:
    from game.sim import Match
    from game.sim.ai.plan import CpuPlan
    from game.sim.ai.view import FighterView
    from game.sim.data import GameData
    from game.sim.moves import ProjectileSpec
    from game.sim.stage import Stage


class _Eyes:
    """A :class:`~game.sim.ai.view.MatchView` of ``match`` with its own ``rng`` and plans."""

    __slots__ = ("_m", "rng", "ai_state")

    def __init__(self, match: Match, rng: np.random.Generator, plans: Sequence[CpuPlan]) -> None:
        self._m, self.rng, self.ai_state = match, rng, plans

    @property
    def phase(self) -> str:
        return self._m.phase

    @property
    def phase_frame(self) -> int:
        return self._m.phase_frame

    @property
    def frame(self) -> int:
        return self._m.frame

    @property
    def fighters(self) -> Sequence[FighterView]:
        return self._m.fighters

    @property
    def data(self) -> GameData:
        return self._m.data

    @property
    def stage(self) -> Stage | None:
        return self._m.stage

    @property
    def bounds(self) -> np.ndarray:
        return self._m.bounds

    def launch_point(self, i: int, spec: ProjectileSpec) -> np.ndarray:
        return self._m.launch_point(i, spec)


class CpuPlayer:
    """The CPU of level ``level`` (a key of ``game.sim.ai.LEVELS``) playing fighter ``side``,
    its random choices drawn from its own generator seeded with ``seed``."""

    def __init__(self, level: str, side: int, seed: int) -> None:
        if level not in ai.LEVELS:
            raise ValueError(f"CpuPlayer: level {level!r}: choose one of {', '.join(map(repr, ai.LEVELS))}")
        self.level, self.side = level, side
        self._rng = np.random.Generator(np.random.PCG64([seed, side]))
        self._plans = [ai.initial_state(), ai.initial_state()]

    def bits(self, match: Match) -> int:
        """This frame's input bits for the CPU's fighter, decided from ``match`` (left unchanged)."""
        return ai.decide(_Eyes(match, self._rng, self._plans), self.side, self.level)


def cpu_fight_inputs(seed: int, frames: int) -> list[tuple[int, int]]:
    """Both sides' input bits, frame by frame, of a fight of a hard CPU (P1) against a normal one
    (P2) played as netplay plays it: a :class:`CpuPlayer` on each side of a match with no CPU
    side.  A benchmark's and the tests' input script."""
    from game.sim import FrameInput, Match

    m = Match.new(seed)
    cpus = (CpuPlayer("hard", 0, seed), CpuPlayer("normal", 1, seed + 1))
    out = []
    for _ in range(frames):
        bits = (cpus[0].bits(m), cpus[1].bits(m))
        out.append(bits)
        m.step(FrameInput.from_bits(bits[0]), FrameInput.from_bits(bits[1]))
    return out
