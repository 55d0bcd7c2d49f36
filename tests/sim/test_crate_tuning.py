"""How many blows break a crate, and which holes a fireball passes (the tuning of
``STRIKE_MARGIN``, ``HEAVY_STRIKE_MARGIN`` and ``BREAK_WALL`` in ``game/sim/stage.py``), in
play: P1 walks into crate_north (P2 waits behind it) and strikes it through ``Match.step``."""

from __future__ import annotations

import itertools

import pytest

from game.sim import CrateStruck, FrameInput, Match, ProjectileImpact
from game.sim.stage import Projectile
from simhelp import NEUTRAL, to_fight

BLOWS = {"lp": FrameInput(lp=True), "hp": FrameInput(hp=True), "lk": FrameInput(lk=True),
         "hk": FrameInput(hk=True)}
NORTH = "crate_north"          # bounds x [-0.5, 0.5], y [0, 1.5], z [4.5, 5.5]


def at_crate() -> Match:
    """A match in its FIGHT phase with P1 walked up against crate_north's south face."""
    m = Match.new(seed=0)
    to_fight(m)
    for f, (x, z) in zip(m.fighters, ((0.0, 3.2), (0.0, 7.5))):
        f.x, f.z = x, z
    for _ in range(40):
        m.step(FrameInput(forward=True), NEUTRAL)
    m.step(NEUTRAL, NEUTRAL)
    return m


def blow(m: Match, press: FrameInput, frames: int = 50) -> list:
    """P1 presses and the move plays out: the step's events."""
    events = list(m.step(press, NEUTRAL))
    for _ in range(frames):
        events += m.step(NEUTRAL, NEUTRAL)
    return events


def north(m: Match):
    return next(c for c in m.stage.crates if c.obj.name == NORTH)


@pytest.mark.slow
def test_B3_B9_every_blow_at_one_spot_strikes_and_a_crate_breaks_in_five_to_seven():
    """Jab, straight, front kick and roundhouse, in each of the 24 orders and then again, from
    where P1 stands against the crate: every blow strikes it (one through a hole tears the
    hole's rim, B3), the crate stands after four blows and is broken by the seventh."""
    for order in itertools.permutations(BLOWS):
        m = at_crate()
        crate = north(m)
        broke_at = None
        for k, name in enumerate(order * 2):
            struck = [e for e in blow(m, BLOWS[name]) if isinstance(e, CrateStruck)]
            assert len(struck) == 1 and struck[0].removed > 0, f"{order}: blow {k + 1} ({name}) struck nothing"
            if struck[0].broke:
                broke_at = k + 1
                break
        assert broke_at is not None and 5 <= broke_at <= 7, f"{order}: broke at blow {broke_at}"
        assert crate.broken


@pytest.mark.parametrize("name, passes", [("hp", True), ("lk", False)])
def test_B3_B7_a_heavy_blows_hole_lets_a_fireball_through_and_a_light_ones_does_not(name, passes):
    """A straight tears a hole the fireball's cube (0.28 m, A2-A4 against the slabs, B7) flies
    through: aimed at the hole's middle, it bursts on the far wall, inside the crate.  A front
    kick's hole is smaller than the cube: the fireball bursts at its rim.  (A fireball thrown
    from the stance flies 0.77-1.05 m up, below the middle of the level straight's hole.)"""
    m = at_crate()
    crate = north(m)
    assert [e for e in blow(m, BLOWS[name]) if isinstance(e, CrateStruck)]
    tunnel = next(t for t in crate.last_strike.tunnels if t[0, 2] == crate.compound.bounds[0, 2])  # the near wall's
    middle = (tunnel[0] + tunnel[1]) / 2
    m.fighters[0].x, m.fighters[0].z = -6.0, -2.0          # out of the fireball's way
    m.stage.projectiles = (Projectile(0, float(middle[0]), float(middle[1]), 3.0, 0.0, 0.16, 0),)
    impacts = []
    for _ in range(80):
        impacts += [e for e in m.step(NEUTRAL, NEUTRAL) if isinstance(e, ProjectileImpact)]
    assert len(impacts) == 1
    z0 = float(crate.compound.bounds[0, 2])
    t = crate.compound.thickness
    start = impacts[0].start[2]           # where the fireball was before the step that stopped it
    if passes:
        assert start > z0 + t, f"stopped from z {start:.2f}: short of the hole"
    else:
        assert start < z0, f"stopped from z {start:.2f}: past the near wall"
