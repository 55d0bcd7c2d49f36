"""Shared by the CPU tests and the gameplay tests that place a CPU: fighters placed facing each
other on the x axis, one side stepped by a script while the other is neutral or the CPU."""

from __future__ import annotations

from game.sim import FrameInput, Hit, Match, MoveStarted, ai
from game.sim.ai.situation import OPENING
from simhelp import FIREBALL, NEUTRAL, to_fight


def cpu_placed(dist: float, seed: int = 0, p1_cpu: str | None = "hard") -> Match:
    """A match in its FIGHT phase past the round's first second (in which the CPU presses no
    attack), P1 (the CPU) at (-dist/2, 0) and P2 at (dist/2, 0); the CPU plans to stand still
    until it could have seen what P2 does next (its reaction time), so that what it does then
    answers that, not a plan of its own."""
    m = Match.new(seed=seed, p1_cpu=p1_cpu)
    to_fight(m)
    m.phase_frame = OPENING
    a, b = m.fighters
    a.x, a.z, b.x, b.z = -dist / 2, 0.0, dist / 2, 0.0
    m.step(NEUTRAL, NEUTRAL)
    if p1_cpu is not None:
        m.ai_state[0].start(bits=0, hold=ai.LEVELS[p1_cpu].reaction + 2)
    return m


def placed_facing(dist: float, seed: int = 0, cpu: int | None = None, level: str = "hard") -> Match:
    """A match in its FIGHT phase, P1 at (-dist/2, 0) and P2 at (dist/2, 0), facing each other;
    ``cpu``: the side the CPU plays (``level``), stepped until it is free, or None."""
    kw = {} if cpu is None else {("p1_cpu", "p2_cpu")[cpu]: level}
    m = Match.new(seed=seed, **kw)
    to_fight(m)
    m.step(NEUTRAL, NEUTRAL)
    while cpu is not None and (m.fighters[cpu].move or m.fighters[cpu].stun):
        m.step(NEUTRAL, NEUTRAL)
    a, b = m.fighters
    a.x, a.z, b.x, b.z = -dist / 2, 0.0, dist / 2, 0.0
    a.fx, a.fz, b.fx, b.fz = 1.0, 0.0, -1.0, 0.0
    return m


def step_side(m: Match, who: int, inp: FrameInput) -> tuple:
    """Step with fighter ``who`` pressing ``inp`` and the other side neutral (or its CPU)."""
    return m.step(inp, NEUTRAL) if who == 0 else m.step(NEUTRAL, inp)


def cpu_vs_throw(dist: float, seed: int, cpu: int):
    """The hard CPU on side ``cpu``, free and standing (its plan for the next frames), ``dist``
    from a player who throws a fireball 3 frames in: ``(jumped after the throw started, struck
    by it)``."""
    m = placed_facing(dist, seed, cpu)
    m.ai_state[cpu].start(bits=0, hold=6, tap=0)
    jumped = struck = False
    for t in range(130):
        ev = step_side(m, 1 - cpu, FIREBALL if t == 3 else NEUTRAL)
        jumped = jumped or any(isinstance(e, MoveStarted) and e.fighter == cpu and e.move == "jump" and t > 3
                               for e in ev)
        struck = struck or any(isinstance(e, Hit) and e.defender == cpu and not e.blocked for e in ev)
    return jumped, struck
