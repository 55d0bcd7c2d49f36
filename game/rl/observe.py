"""Filling the observation of one side from a match: a preallocated float32 vector per side.

Each step writes the scalar blocks from one list of Python floats (``ObsLayout.scalars``) and
copies both fighters' range boxes (A6) from the match's own ``(2, L, 2, 3)`` array; the crate
rows are rewritten only when a crate is struck.  The vector is the observer's: the
environment hands out a copy.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .layout import (
    FIGHTER_FIELDS,
    MOVE_PHASES,
    PER_FRAME,
    PHASES,
    PROJECTILE_FIELDS,
    STATES,
    ObsLayout,
    make_layout,
)

if TYPE_CHECKING:
    from game.sim import Match
    from game.sim.fighter import Fighter

#: ``state_time`` is capped at this many frames (10 s).
STATE_TIME_CAP = 600
_STATE_INDEX = {s: i for i, s in enumerate(STATES)}
_PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}
_N_FIGHTER = len(FIGHTER_FIELDS)
_N_PROJECTILE = len(PROJECTILE_FIELDS)


def layout_of(match: Match) -> ObsLayout:
    """The observation layout of ``match``'s fighters, moves and arena."""
    crates = 0 if match.stage is None else len(match.stage.crates)
    return make_layout(len(match.data.skeleton.names), tuple(match.data.moves), crates)


class Observer:
    """The observation of side ``side`` (0: P1, 1: P2) of matches laid out as ``layout``.

    ``buf`` : (N,) float32, the last observation written (:meth:`fill`);
    ``crates_stale`` : the crate rows are to be rewritten at the next fill (a reset, a strike)."""

    def __init__(self, layout: ObsLayout, side: int) -> None:
        self.layout = layout
        self.side = side
        self.buf = np.zeros(layout.size, dtype=np.float32)
        self._scalars = layout.scalars
        # both fighters' boxes, self's then the opponent's: the two blocks are contiguous, so one
        # copy from the match's (2, L, 2, 3) array (reversed along its first axis for P2) fills both
        assert layout.slices["self_limbs"].stop == layout.slices["opponent_limbs"].start
        both = slice(layout.slices["self_limbs"].start, layout.slices["opponent_limbs"].stop)
        self._limbs = self.buf[both].reshape(2, layout.limbs, 2, 3)
        self._crates = self.buf[layout.slices["crates"]].reshape(layout.crates, -1)
        self._move_index = {name: i for i, name in enumerate(layout.moves)}
        self._n_states = len(STATES)
        self._n_moves = len(layout.moves)
        self.crates_stale = True

    def fill(self, m: Match, state_frames: tuple[int, int]) -> np.ndarray:
        """Write the observation of ``m`` into ``buf`` and return ``buf``.

        ``state_frames``: frames each fighter (P1, P2) has been in its current state."""
        me = self.side
        a, b = m.fighters[me], m.fighters[1 - me]
        values = self._fighter(m, a, state_frames[me]) + self._fighter(m, b, state_frames[1 - me])
        dx, dz = b.x - a.x, b.z - a.z
        values += (dx * a.fx + dz * a.fz, dx * a.fz - dz * a.fx, math.sqrt(dx * dx + dz * dz))
        values += self._projectiles(m)
        phase = [0.0] * len(PHASES)
        phase[_PHASE_INDEX[m.phase]] = 1.0
        values += [m.timer / m.round_frames, max(m.round - 1, 0), me, *phase]
        self.buf[self._scalars] = values
        boxes = m.limbs.boxes
        np.copyto(self._limbs, boxes if me == 0 else boxes[::-1])
        if self.crates_stale:
            if m.stage is not None:
                self._write_crates(m)
            self.crates_stale = False
        return self.buf

    def _fighter(self, m: Match, f: Fighter, state_frames: int) -> list[float]:
        """One fighter block: :data:`FIGHTER_FIELDS` and the state, move and move-phase one-hots."""
        moves = m.data.moves
        move = f.move
        out = [0.0] * (_N_FIGHTER + self._n_states + self._n_moves + len(MOVE_PHASES))
        out[:_N_FIGHTER] = (
            f.x, f.ground_y, f.z, f.fx, f.fz, f.vx, f.vz, f.lift(), f.health / f.max_health, f.wins,
            f.stun * PER_FRAME, f.hitstop * PER_FRAME, f.busy_frames(moves) * PER_FRAME,
            min(state_frames, STATE_TIME_CAP) * PER_FRAME, f.mframe * PER_FRAME if move else 0.0,
            f.guard, f.combo, 1.0 if f.move_hit else 0.0, 1.0 if f.airborne else 0.0)
        out[_N_FIGHTER + _STATE_INDEX[f.state]] = 1.0
        if move:
            at = _N_FIGHTER + self._n_states
            out[at + self._move_index[move]] = 1.0
            out[at + self._n_moves + MOVE_PHASES.index(moves[move].phase(f.mframe))] = 1.0
        return out

    def _projectiles(self, m: Match) -> list[float]:
        """Two slots: the learner's projectile in flight, then the opponent's (zeros: none)."""
        out = [0.0] * (2 * _N_PROJECTILE)
        if m.stage is not None:
            for p in m.stage.projectiles:
                at = 0 if p.owner == self.side else _N_PROJECTILE
                out[at:at + _N_PROJECTILE] = (1.0, p.x, p.y, p.z, p.vx, p.vz, p.age * PER_FRAME)
        return out

    def _write_crates(self, m: Match) -> None:
        """Each crate's row: whole / struck / broken, material left, the centre of its box at load."""
        assert m.stage is not None
        rows = []
        for crate in m.stage.crates:
            comp = crate.compound
            left = 0.0 if crate.broken else min(1.0, float(comp.box_volumes().sum()) / comp.volume0)
            struck = not crate.broken and left < 1.0 - 1e-9
            lo, hi = crate.obj.aabb.tolist()
            rows.append((1.0 if not (struck or crate.broken) else 0.0, 1.0 if struck else 0.0,
                         1.0 if crate.broken else 0.0, left,
                         0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])))
        self._crates[:] = rows
