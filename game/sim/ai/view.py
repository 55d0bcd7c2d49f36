"""What the CPU may read of a match: the public names a player's eyes stand for.

The CPU sees only what a player sees (positions, facing, the opponent's move and its phase,
who is reeling or down), acts only through input bits, and reads no private name of the
match.  These protocols list every name it reads, so a rule that reached for more would not
type-check.  They are read-only views: the CPU writes only its own plan (``ai_state``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from ..data import GameData, Move, ProjectileSpec
    from ..stage import Stage
    from .plan import CpuPlan


class FighterView(Protocol):
    """A fighter as the CPU sees it (``Match.fighters[i]``)."""

    @property
    def x(self) -> float: ...                 # ground position (m) ...
    @property
    def z(self) -> float: ...                 # ... in the x-z plane
    @property
    def fx(self) -> float: ...                # unit facing, x ...
    @property
    def fz(self) -> float: ...                # ... and z
    @property
    def ground_y(self) -> float: ...          # height of the ground it stands on (m)
    @property
    def state(self) -> str: ...               # "idle", "attack", "hitstun", "thrown", ...
    @property
    def move(self) -> str: ...                # the move it is in, or ""
    @property
    def mframe(self) -> int: ...              # frame of that move, 0 on its first
    @property
    def move_hit(self) -> bool: ...           # that move has hit
    @property
    def stun(self) -> int: ...                # hitstun / blockstun / knockdown frames left
    @property
    def hitstop(self) -> int: ...             # freeze frames left
    @property
    def guard(self) -> int: ...               # 0 none, 1 standing, 2 crouching
    @property
    def input_bits(self) -> int: ...          # the bits it held last frame (the CPU's own guard)

    def busy_frames(self, moves: Mapping[str, Move]) -> int: ...


class MatchView(Protocol):
    """A match as the CPU reads it (:class:`~game.sim.match.Match`)."""

    @property
    def phase(self) -> str: ...                           # "fight" while the round is on
    @property
    def phase_frame(self) -> int: ...                     # frames into the phase (the fight: since "FIGHT!")
    @property
    def frame(self) -> int: ...                           # frames stepped so far
    @property
    def fighters(self) -> Sequence[FighterView]: ...      # both fighters, by index
    @property
    def data(self) -> GameData: ...                       # fighter data: skeleton, move table, throw
    @property
    def stage(self) -> Stage | None: ...                  # the arena (push-out, projectiles, line of sight)
    @property
    def bounds(self) -> np.ndarray: ...                   # (2, 2) float [[xmin, zmin], [xmax, zmax]]
    @property
    def rng(self) -> np.random.Generator: ...             # the match's seeded RNG: every random choice
    @property
    def ai_state(self) -> Sequence[CpuPlan]: ...          # each CPU's plan, by fighter index

    def launch_point(self, i: int, spec: ProjectileSpec) -> np.ndarray: ...
