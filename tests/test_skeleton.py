"""Forward kinematics (batched) against a per-limb, per-corner Python reference (A6)."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from game.reference.skeleton import euler_matrix as rot_ref
from game.reference.skeleton import range_boxes as fk_ref
from game.sim.data import load_game_data
from game.sim.skeleton import euler_matrices


def test_euler_matrices_match_reference():
    rng = np.random.default_rng(0)
    a = rng.uniform(-4, 4, (50, 3))
    got = euler_matrices(a)
    for i in range(50):
        assert np.allclose(got[i], rot_ref(*a[i]), atol=1e-13)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), lift=st.floats(0, 2))
def test_A6_batched_fk_range_boxes_match_per_limb_reference(seed, lift):
    sk = load_game_data().skeleton
    rng = np.random.default_rng(seed)
    n = len(sk.names)
    angles = rng.uniform(-math.pi, math.pi, (2, n, 3))
    ground = np.array([[rng.uniform(-5, 5), 0.0, rng.uniform(-5, 5)], [1.0, 0.5, -2.0]])
    th = rng.uniform(0, 2 * math.pi, 2)
    facing = np.stack((np.cos(th), np.sin(th)), axis=-1)
    _, _, boxes = sk.pose(ground, facing, euler_matrices(angles), np.array([lift, 0.0]))
    for f in range(2):
        ref = fk_ref(sk, ground[f], facing[f], angles[f], (lift, 0.0)[f])
        assert np.allclose(boxes[f], ref, atol=1e-12)
    # A1: the padded rows the match judges are the same boxes, bit for bit, with a pad lane
    # of 0 in both endpoints (it passes every A4 test)
    rot, origin, rows = sk.place(sk.body(euler_matrices(angles)), ground, facing, np.array([lift, 0.0]), padded=True)
    assert rows.shape == boxes.shape[:-1] + (4,)
    assert np.array_equal(rows[..., :3], boxes) and not rows[..., 3].any()


def test_A6_match_places_tabled_body_rows_like_posing_its_joint_rotations():
    """The match poses fighters from precomputed body-frame rows (or a fresh row on a blend
    frame); every frame its range boxes equal posing the fighters' joint rotations directly."""
    from game.sim import FrameInput, Match

    m = Match.new(seed=3, p1_cpu="hard", p2_cpu="normal")
    sk = m.data.skeleton
    checked = 0
    for _ in range(400):
        m.step(FrameInput(), FrameInput())
        a, b = m.fighters
        _, _, boxes = sk.pose(np.array([[a.x, a.ground_y, a.z], [b.x, b.ground_y, b.z]]),
                              np.array([[a.fx, a.fz], [b.fx, b.fz]]), np.stack((a.local, b.local)),
                              np.array([a.lift(), b.lift()]))
        if m.phase == "fight":
            assert np.allclose(boxes, np.stack([f.limb_boxes() for f in m.fighters]), rtol=0, atol=1e-12)
            checked += 1
    assert checked > 200
