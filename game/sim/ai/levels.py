"""The CPU's levels: one frozen :class:`CpuLevel` of chances and timings per level name.

A level is data, not code: every rule reads its reaction time and chances from here, so the
levels differ only in these numbers (the match validates a level name against :data:`LEVELS`).
``docs/cpu.md`` describes each level and the ladder that measures them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CpuLevel:
    """The reaction time, chances (0..1, drawn from the match's RNG) and hold times of one CPU level.

    Each chance below 1 is a mistake made on purpose at the rate ``1 - chance``: a guard at the
    wrong height (``guard``), a punish passed up (``punish``), a heavy walked into (``read``), a
    swing from out of reach (``whiff``, the one chance that is the mistake itself)."""

    #: frames its view of the opponent lags (:mod:`.sight`): it answers what it saw that long ago
    reaction: int
    #: chance per frame to notice an attack it has seen coming (or a projectile on its way)
    notice: float
    #: chance to guard a noticed attack at the right height (else it guesses the wrong one)
    guard: float
    #: of the new plans drawn in the opponent's reach that are no attack, the share that raise a
    #: guard and hold it, at a guessed height (mostly standing), before anything is seen
    block: float
    #: attack eagerness when a new plan is drawn in range
    attack: float
    #: chance to throw an attack from out of range (a whiff)
    whiff: float
    #: chance that an attack in neutral (no mix-up, no read) is the quickest that reaches, which
    #: a poke is least likely to stop, rather than any that reaches
    quick: float
    #: ``(lo, hi)`` frames a decision is held, drawn inclusively
    hold: tuple[int, int]
    #: chance to mix up against a guard: a low or a mid under a crouch, a sweep or a throw
    #: against a standing guard, a mid against a crouching one
    mix: float
    #: chance, on a new plan out of range, to zone with a fireball
    zone: float
    #: chance to sidestep out of a noticed projectile's line (when there is time) rather than guard it
    dodge: float
    #: chance to punish an opponent seen stuck in a move (a whiffed or blocked attack's recovery,
    #: a slow wind-up) with an attack that lands in time: one roll per move it sees so
    punish: float
    #: chance, on a frame it notices a projectile and a jump timed now would clear it, to jump over
    #: it (neutral or toward the thrower)
    jump: float
    #: chance to read a heavy attack's wind-up that will reach it (one roll per attack, once seen)
    #: and answer it (stand off, back out of its reach, interrupt with a faster move, or guard it)
    #: instead of walking or pressing a slow move into it
    read: float
    #: chance, when it sees its attack has hit (the opponent reels in hitstun), to cancel it into
    #: a follow-up that combos (one roll per hit; only where its reaction leaves time to); and,
    #: decided at the press, to follow a light pressed at an opponent seen with no guard up, or
    #: a light that punishes, with its cancel once it makes contact
    confirm: float
    #: chance, when it presses a light attack at an opponent seen guarding, to follow it blind
    #: with a cancel once it makes contact, hit or block (a string: a combo on hit, punishable on
    #: block)
    string: float
    #: chance, when it has knocked the opponent down, to time an attack whose active frames meet
    #: the opponent's first free frame (one roll per knockdown; otherwise it attacks nothing while
    #: the opponent is down: nothing strikes a fighter on the ground)
    meaty: float
    #: chance, when it is grabbed by a throw, to break it (lp + lk) inside the tech window (one roll
    #: per grab, pressed after a delay drawn from :data:`~.rules.TECH_DELAY`)
    tech: float


#: The levels by name, easiest first.
LEVELS: dict[str, CpuLevel] = {
    "easy": CpuLevel(
        reaction=24, notice=0.30, guard=0.35, block=0.20, attack=0.35, whiff=0.25, quick=0.0, hold=(14, 26),
        mix=0.2, zone=0.02, dodge=0.15, punish=0.20, jump=0.0, read=0.15, confirm=0.0, string=0.0, meaty=0.0,
        tech=0.0),
    "medium": CpuLevel(
        reaction=20, notice=0.45, guard=0.55, block=0.55, attack=0.38, whiff=0.15, quick=0.3, hold=(10, 18),
        mix=0.35, zone=0.03, dodge=0.35, punish=0.50, jump=0.05, read=0.30, confirm=0.15, string=0.15, meaty=0.30,
        tech=0.15),
    "normal": CpuLevel(
        reaction=15, notice=0.58, guard=0.75, block=0.87, attack=0.30, whiff=0.10, quick=0.5, hold=(7, 14),
        mix=0.58, zone=0.06, dodge=0.52, punish=0.70, jump=0.15, read=0.60, confirm=0.50, string=0.30, meaty=0.55,
        tech=0.40),
    "hard": CpuLevel(
        reaction=10, notice=0.70, guard=0.85, block=0.90, attack=0.30, whiff=0.05, quick=0.7, hold=(4, 9),
        mix=0.8, zone=0.08, dodge=0.85, punish=0.85, jump=0.40, read=0.85, confirm=0.75, string=0.25, meaty=0.85,
        tech=0.60),
}
