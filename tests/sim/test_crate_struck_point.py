"""``CrateStruck.point``: the A7 collision point of the two boxes the strike was judged on (A4):
the limb's reach box (its range box traced back to the wall it came through,
``stage.reach_box``, B1) and the struck small box, both as they were on the strike's frame."""

from __future__ import annotations

import numpy as np
import pytest

from game.collision import collision_point_pair
from game.sim import CrateStruck, FrameInput, Match
from simhelp import NEUTRAL, to_fight

NORTH = "crate_north"          # bounds x [-0.5, 0.5], y [0, 1.5], z [4.5, 5.5]


@pytest.mark.parametrize("button", ["lp", "lk"])
def test_A7_B1_crate_struck_point_is_from_the_reach_box_and_the_struck_small_box(button):
    """A point-blank strike, whose limb box on its first active frame is already past the wall
    facing the attacker: the event's point is A7 of the reach box and the small box struck,
    bit for bit, and not A7 of the limb's own range box (which lies centimetres deeper in)."""
    m = Match.new(seed=0)
    to_fight(m)
    i = next(i for i, c in enumerate(m.stage.crates) if c.obj.name == NORTH)
    z0 = float(m.stage.crates[i].compound.bounds[0, 2])
    for f, (x, z) in zip(m.fighters, ((0.0, z0 - 0.3), (0.0, 8.0))):
        f.x, f.z = x, z
    m.step(NEUTRAL, NEUTRAL)
    events = list(m.step(FrameInput(**{button: True}), NEUTRAL))
    for _ in range(30):
        struck = [e for e in events if isinstance(e, CrateStruck)]
        if struck:
            break
        events = list(m.step(NEUTRAL, NEUTRAL))
    assert len(struck) == 1 and struck[0].crate == i
    e = struck[0]
    (attacker, limb, crate, box, point), = m.crate_contacts      # the judged pair, this frame
    a = m.fighters[attacker]
    limb_box = a.limb_boxes()[limb]
    reach = m.stage.reach(crate, limb_box, (a.x, a.z))
    assert limb_box[1, 2] > z0 + m.stage.crates[i].compound.thickness, "the limb box is past the wall"
    assert np.array_equal(e.point, collision_point_pair(reach, box))
    assert np.array_equal(e.point, point)
    assert np.linalg.norm(e.point - collision_point_pair(limb_box, box)) > 0.01
