"""game/sim/reach.py: the rim a blow through a hole tears (B3), on a crate struck once."""

from __future__ import annotations

import numpy as np

from game.collision import Compound, overlaps
from game.sim.reach import TEAR_REACH, reach_box, tear_box

BOUNDS = [[-0.5, 0.0, 4.5], [0.5, 1.5, 5.5]]          # crate_north's box
T = 0.08
ORIGIN = (0.0, 4.0)                                     # the attacker, south of the south face


def holed(x0=-0.2, x1=0.2, y0=0.6, y1=1.0) -> Compound:
    """The crate with one hole through its south wall: x [x0, x1], y [y0, y1]."""
    c = Compound.from_box(BOUNDS, T)
    assert c.strike([[x0, y0, 4.4], [x1, y1, 4.55]], margin=0.0) is not None
    return c


def fist(x, y, w=0.1, h=0.1):
    """A fist's range box past the south wall's outer plane, centred on (x, y)."""
    return [[x - w / 2, y - h / 2, 4.45], [x + w / 2, y + h / 2, 4.7]]


def test_B3_a_blow_through_a_hole_is_grown_to_touch_its_nearest_rim():
    c = holed()
    limb = fist(0.05, 0.8)                  # nearest rim: the right side, 0.1 m away
    reach = reach_box(BOUNDS, T, limb, ORIGIN)
    assert not overlaps(np.array(reach), c.boxes).any()
    torn = np.array(tear_box(BOUNDS, T, c.boxes, limb, ORIGIN))
    touching = overlaps(torn, c.boxes)
    assert touching.any(), "the torn box touches the rim"
    grow = torn - np.array(reach)
    assert np.allclose(grow[0, :2], -0.1) and np.allclose(grow[1, :2], 0.1)   # x and y, by the gap
    assert grow[0, 2] == grow[1, 2] == 0.0                                     # not through the wall
    vol = np.prod(np.maximum(np.minimum(torn[1], c.boxes[:, 1]) - np.maximum(torn[0], c.boxes[:, 0]), 0.0), axis=1)
    assert vol.max() < 1e-9, "it only touches the rim (A4: touching counts; TEAR_EPS past it)"


def test_B3_no_tear_for_a_rim_beyond_reach_a_blow_beside_the_face_or_one_that_touches():
    wide = holed(-0.42, 0.42, 0.1, 1.4)
    assert tear_box(BOUNDS, T, wide.boxes, fist(0.0, 0.75), ORIGIN) is None               # rim 0.37 m away
    near = holed()
    assert TEAR_REACH >= 0.15
    assert tear_box(BOUNDS, T, near.boxes, fist(0.0, 1.6), ORIGIN) is None                # above the crate
    assert tear_box(BOUNDS, T, near.boxes, fist(0.3, 0.8), ORIGIN) is None                # on the planks
    short = [[-0.05, 0.75, 4.2], [0.05, 0.85, 4.45]]                                # short of the wall
    assert tear_box(BOUNDS, T, near.boxes, short, ORIGIN) is None
