"""Bodies do not pass into each other: a pose that leans its trunk (hips, torso, head) out
past its pushbox circle (a crouch, the sweep) pushes the pair apart so the two trunks only
meet (``movement.keep_trunks_apart``; issue #34, point 6)."""

import numpy as np
import pytest

from game.sim import FrameInput, Match
from game.sim.movement import TRUNK, trunk_radius

NEUTRAL = FrameInput()
SWEEP = FrameInput(hk=True, down=True)
CROUCH = FrameInput(down=True)


def _placed(dist: float, arena: bool = False) -> Match:
    m = Match.new(seed=0, arena=arena)
    while m.phase != "fight":
        m.step(NEUTRAL, NEUTRAL)
    a, b = m.fighters
    a.x, b.x = -dist / 2, dist / 2
    m.step(NEUTRAL, NEUTRAL)
    return m


def _trunk_overlap(m: Match) -> float:
    """The deepest overlap (m, the smallest extent of the overlap box) of a trunk range box of
    one fighter with one of the other's; 0 when none overlaps."""
    a, b = m.fighters
    ia = [a.limb_names.index(n) for n in TRUNK]
    A, B = a.limb_boxes()[ia], b.limb_boxes()[ia]
    lo = np.maximum(A[:, None, 0], B[None, :, 0])
    hi = np.minimum(A[:, None, 1], B[None, :, 1])
    depth = (hi - lo).min(axis=-1)                       # (3, 3): < 0 where a pair is apart
    return float(max(depth.max(), 0.0))


@pytest.mark.parametrize("arena", [False, True])
def test_a_point_blank_sweep_keeps_the_sweepers_head_out_of_the_standing_body(arena):
    """Swept from pushbox contact: the sweep's low pose leans the sweeper's head and torso
    0.56 m ahead of its centre, into the standing opponent's hips (17 cm deep), while the
    pushbox circles (0.3 m) still touched.  Now the pair stands apart so the trunks only
    meet, on every frame of the sweep and the knockdown."""
    m = _placed(0.6, arena)
    hits = []
    for t in range(70):
        hits += m.step(SWEEP if t == 0 else NEUTRAL, NEUTRAL)
        assert _trunk_overlap(m) < 1e-6, (t, m.fighters[0].mframe)
    assert any(type(e).__name__ == "Hit" for e in hits), "the sweep must still land at point blank"


def test_walking_into_a_crouch_stops_where_the_trunks_meet():
    """A standing fighter walking into a crouching one (head 0.56 m ahead of its centre)
    stops where its torso meets that head, not at the pushboxes' 0.6 m."""
    m = _placed(2.0)
    for _ in range(8):
        m.step(NEUTRAL, CROUCH)
    for _ in range(60):
        m.step(FrameInput(forward=True), CROUCH)
        assert _trunk_overlap(m) < 1e-6
    a, b = m.fighters
    gap = abs(b.x - a.x)
    assert 0.7 < gap < 0.85, gap          # stopped by the trunks, well inside walking range


def test_standing_fighters_still_meet_at_their_pushboxes():
    """Upright poses keep their trunks inside the pushbox circle: walking into each other
    stops at the pushboxes' 0.6 m as before, and the trunk test is skipped by its bound."""
    m = _placed(2.0)
    d = m.data
    for key in ("stance", "l:walk_fwd", "block_stand"):
        assert trunk_radius(d, key) <= d.pushbox_radius
    for _ in range(60):
        m.step(FrameInput(forward=True), FrameInput(forward=True))
    a, b = m.fighters
    assert abs(b.x - a.x) == pytest.approx(2 * d.pushbox_radius)


def test_trunk_radius_bounds_every_pose_of_its_source():
    """The skip test's bound: no frame of the crouch or the sweep reaches further, in any
    direction of the floor, than ``trunk_radius`` of its source."""
    m = _placed(3.0)
    f = m.fighters[0]
    ti = [f.limb_names.index(n) for n in TRUNK]
    seen = set()
    for t in range(45):
        m.step(SWEEP if t == 10 else CROUCH, NEUTRAL)
        boxes = f.limb_boxes()[ti]                        # facing +x: x is along the facing
        assert np.abs(boxes[:, :, 0] - f.x).max() <= trunk_radius(m.data, f.pose_key) + 1e-9
        seen.add(f.pose_key)
    assert {"crouch", "m:hk_low"} <= seen
