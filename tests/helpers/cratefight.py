"""The crate fight of the determinism tests, played by inputs alone: P2 walks round behind
``crate_north``, P1 stands south of it and beats it, from a few places, until it breaks, then
throws a fireball where it stood.  So it can be replayed, rolled back and recorded.  It is
played once per test session (:func:`crate_fight` caches it; callers must not change it)."""

from __future__ import annotations

import functools
import math

from game.sim import CrateStruck, FrameInput, Match
from simhelp import NEUTRAL


def _steer(f, tx, tz):
    """The input that moves fighter ``f`` toward (tx, tz) (walk or sidestep), None when there."""
    dx, dz = tx - f.x, tz - f.z
    if math.hypot(dx, dz) < 0.05:
        return None
    fwd = dx * f.fx + dz * f.fz
    side = dx * -f.fz + dz * f.fx                       # side_r moves along (-fz, fx)
    if abs(fwd) >= abs(side):
        return FrameInput(forward=True) if fwd > 0 else FrameInput(back=True)
    return FrameInput(side_r=True) if side > 0 else FrameInput(side_l=True)


@functools.cache
def crate_fight(limit: int = 4000):
    """Inputs of a two-player match (seed 0) in which P1 breaks ``crate_north`` by strikes
    and then throws a fireball through where it stood; ``(inputs, strike frames, break frame)``."""
    m = Match.new(seed=0)
    out, strikes, broke = [], [], None
    plan2 = [(2.2, 3.0), (2.2, 7.0), (0.0, 8.0)]        # P2 round the crate, behind it
    plan1 = [(0.0, 3.72)]                               # P1 south of it, facing it
    k = wait = 0
    while len(out) < limit and not m.over:
        a, b = m.fighters
        p1 = p2 = NEUTRAL
        if m.phase == "fight":
            if plan2:
                s = _steer(b, *plan2[0])
                p2 = s if s is not None else NEUTRAL
                if s is None:
                    plan2.pop(0)
            elif plan1:
                s = _steer(a, *plan1[0])
                p1 = s if s is not None else NEUTRAL
                if s is None:
                    plan1.pop(0)
            elif wait:
                wait -= 1
            else:
                p1 = FrameInput(**{("hp", "lk", "lp")[k % 3]: True})
                k, wait = k + 1, 40
                plan1.append((0.2 * ((k % 7) - 3), 3.72))
        if broke is not None and m.frame in (broke + 30, broke + 31):
            p1 = FrameInput(lp=True, hp=True)
        ev = m.step(p1, p2)
        out.append((p1, p2))
        for e in ev:
            if isinstance(e, CrateStruck):
                strikes.append(e.frame)
                if e.broke and broke is None:
                    broke = e.frame
        if broke is not None and m.frame > broke + 90:
            break
    return out, strikes, broke


@functools.lru_cache(maxsize=1)
def crate_fight_run() -> tuple:
    """The crate fight played once per test process: ``(inputs, strike frames, break frame,
    what each frame did)`` (``simhelp.run_frames``); the fight strikes the crate at least three
    times, breaks it and throws a fireball after."""
    from simhelp import run_frames

    inputs, strikes, broke = crate_fight()
    assert len(strikes) >= 3 and broke is not None, "the scripted fight no longer breaks the crate"
    straight = run_frames(Match.new(seed=0), inputs)
    assert any(k[0] == "ProjectileLaunched" for fr in straight[broke:] for k in fr[2])
    return inputs, strikes, broke, straight
