"""The CPU opponent: decides a fighter's input bits each frame, as a player would.

It sees only what a player sees (positions, the opponent's pose and move phase; the names
it reads are listed in :mod:`.view`), and sees the opponent's actions a reaction time late
(:mod:`.sight`); it acts only through the input bits a player could press, lands no hit in a
round's first second, and draws every random choice, its mistakes included, from the match's
own seeded RNG.  Its small plan (:class:`CpuPlan`, with its last looks at the opponent) lives
in ``match.ai_state`` so snapshots include it.  ``docs/cpu.md`` describes the levels.

The package, by concept:

* :mod:`.levels`: :class:`CpuLevel`, the chances of each level, and :data:`LEVELS`;
* :mod:`.plan`: :class:`CpuPlan`, what a CPU carries from frame to frame;
* :mod:`.view`: the protocols of what it may read of a match and a fighter;
* :mod:`.sight`: its looks at the opponent, and the opponent as it sees it, a reaction time late;
* :mod:`.measure`: what it knows of the fighter data (reaches, the projectile's lanes);
* :mod:`.situation`: the frame's situation, read once, and the arena looks;
* :mod:`.moves`: which attack or jump to press, and its bits;
* :mod:`.rules`: the rules in priority order (:data:`RULES`) and :func:`decide`.
"""

from __future__ import annotations

from .choices import PLAN_CHOICES
from .levels import LEVELS, CpuLevel
from .measure import (
    body_front,
    jump_heights,
    longest_reach,
    move_reach,
    projectile_geometry,
    projectile_lanes,
    projectile_move,
)
from .plan import CpuPlan, initial_state
from .rules import RULES, decide

__all__ = [
    "LEVELS", "CpuLevel", "CpuPlan", "initial_state", "decide", "RULES", "PLAN_CHOICES",
    "move_reach", "longest_reach", "body_front", "projectile_move", "projectile_lanes", "projectile_geometry",
    "jump_heights",
]
