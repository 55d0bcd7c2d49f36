"""The CPU's levels: one frozen :class:`CpuLevel` of chances and timings per level name.

A level is data, not code: every rule reads its chances from here, so the three levels differ
only in these numbers (the match validates a level name against :data:`LEVELS`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CpuLevel:
    """The chances (0..1, drawn from the match's RNG) and hold times of one CPU level."""

    #: chance per frame to notice an incoming attack (or a projectile on its way)
    notice: float
    #: chance to guard a noticed attack at the right height (else it guesses the wrong one)
    guard: float
    #: attack eagerness when a new plan is drawn in range
    attack: float
    #: chance to throw an attack from out of range (a whiff)
    whiff: float
    #: ``(lo, hi)`` frames a decision is held, drawn inclusively
    hold: tuple[int, int]
    #: chance to mix up against a guard: a low or a mid under a crouch, a sweep or a throw
    #: against a standing guard, a mid against a crouching one
    mix: float
    #: chance, on a new plan out of range, to zone with a fireball
    zone: float
    #: chance to sidestep out of a noticed projectile's line (when there is time) rather than guard it
    dodge: float
    #: chance per frame to hit an opponent stuck in a move (a whiffed heavy's recovery, a slow
    #: wind-up) with an attack that lands in time
    punish: float
    #: chance, on a frame it notices a projectile and a jump timed now would clear it, to jump over
    #: it (neutral or toward the thrower)
    jump: float
    #: chance to read a heavy attack's wind-up that will reach it (one roll per attack) and answer
    #: it (stand off, back out of its reach, interrupt with a faster move, or guard it) instead of
    #: walking or pressing a slow move into it
    read: float
    #: chance, when its attack has hit (the opponent reels in hitstun, as a player sees), to cancel
    #: it into a follow-up that combos (one roll per hit); the only way the CPU cancels
    confirm: float
    #: chance, when it has knocked the opponent down, to time an attack whose active frames meet
    #: the opponent's first free frame (one roll per knockdown; otherwise it attacks nothing while
    #: the opponent is down: nothing strikes a fighter on the ground)
    meaty: float
    #: chance, when it is grabbed by a throw, to break it (lp + lk) inside the tech window (one roll
    #: per grab, pressed after a reaction drawn from :data:`~.rules.TECH_DELAY`)
    tech: float


#: The levels by name, easiest first.
LEVELS: dict[str, CpuLevel] = {
    "easy": CpuLevel(notice=0.10, guard=0.35, attack=0.30, whiff=0.25, hold=(14, 26), mix=0.2, zone=0.02,
                     dodge=0.15, punish=0.02, jump=0.0, read=0.15, confirm=0.0, meaty=0.0, tech=0.0),
    "normal": CpuLevel(notice=0.22, guard=0.60, attack=0.45, whiff=0.15, hold=(8, 16), mix=0.5, zone=0.05,
                       dodge=0.45, punish=0.06, jump=0.10, read=0.45, confirm=0.35, meaty=0.40, tech=0.30),
    "hard": CpuLevel(notice=0.45, guard=0.85, attack=0.60, whiff=0.06, hold=(4, 9), mix=0.8, zone=0.08,
                     dodge=0.85, punish=0.30, jump=0.40, read=0.85, confirm=0.75, meaty=0.85, tech=0.60),
}
