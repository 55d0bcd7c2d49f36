"""The fighter's state as values: its scalars are plain attributes (a restore writes them in one
call), and its pose arrays are read-only, kept by a holder and copied when assigned."""

from __future__ import annotations

import numpy as np
import pytest

from game.sim import FrameInput, Match
from simhelp import blending, fight

POSE_ARRAYS = ("pose", "pose_from", "local", "body")


# ================================================================ 2. no writable view of live state
def test_fighter_pose_arrays_are_read_only_on_table_and_blend_frames():
    """``f.pose[...] = x`` must not write the match's live array (state_hash() and the next
    poses would change)."""
    m = blending(Match.new(seed=1, arena=False))
    for frame in range(2):                       # a blend frame, then (BLEND_FRAMES later) table rows
        h = m.state_hash()
        for f in m.fighters:
            for name in POSE_ARRAYS:
                a = getattr(f, name)
                assert isinstance(a, np.ndarray) and not a.flags.writeable, (frame, f.index, name)
                with pytest.raises(ValueError, match="read-only"):
                    a[...] += 0.25
        assert m.state_hash() == h
        for _ in range(6):
            m.step()


def test_a_pose_held_by_a_renderer_keeps_its_frames_value():
    """A live array changed under its holder: interpolating between the last two steps'
    poses got the same array twice."""
    m = blending(Match.new(seed=1, arena=False))
    f = m.fighters[0]
    held = f.pose
    value = np.array(held)
    for _ in range(3):
        m.step(FrameInput(hp=True), FrameInput())
    assert not np.array_equal(f.pose, value)
    np.testing.assert_array_equal(held, value)


def test_assigning_a_pose_stores_a_read_only_copy_of_the_right_shape():
    a, b = fight(Match.new(seed=0, arena=False)), fight(Match.new(seed=0, arena=False))
    mine = a.fighters[0].pose + 0.1
    a.fighters[0].pose = mine
    b.fighters[0].pose = mine.copy()
    mine[...] = 0.0                              # the tool's own array: no longer the match's
    assert a.state_hash() == b.state_hash()
    assert not a.fighters[0].pose.flags.writeable
    with pytest.raises(ValueError, match=r"Fighter.pose: expected shape \(11, 3\)"):
        a.fighters[0].pose = np.zeros((3, 11))
    with pytest.raises(ValueError, match="Fighter.body: expected shape"):
        a.fighters[1].body = np.zeros(4)


def test_fighter_scalars_are_plain_attributes_so_set_scalars_may_write_the_dict():
    """``Fighter.set_scalars`` (every restore) writes the instance dict in one call: right
    only while no name of ``SCALARS`` is a property or a slot with its own setter; and a
    round trip through ``scalars`` / ``set_scalars`` gives the values back."""
    from game.sim.fighter import SCALARS, Fighter

    assert not [n for n in SCALARS if hasattr(Fighter, n)], "a class attribute would shadow or bypass set_scalars"
    m = Match.new(seed=2)
    for _ in range(90):
        m.step()
    f, g = m.fighters
    vals = f.scalars()
    assert len(vals) == len(SCALARS) and vals == tuple(vars(f)[n] for n in SCALARS)
    g.set_scalars(vals)
    assert g.scalars() == vals


def test_blend_memo_hands_back_the_blend_a_fresh_computation_gives():
    """posing.BlendMemo: a blend found again has the bits of computing it afresh, in fresh
    read-only arrays (its slot is written again later); a full memo forgets all and goes on."""
    from game.sim.data import load_game_data
    from game.sim.posing import BlendMemo, _blend

    d = load_game_data(None)
    start, target = d.poses["stance"], d.poses["crouch"]
    memo = BlendMemo(len(d.skeleton.names))
    want = _blend(d, start, target, 2)
    first = memo.blend(d, start, target, 2)
    again = memo.blend(d, start.copy(), target.copy(), 2)
    for a, b, w in zip(first, again, want):
        assert a.tobytes() == b.tobytes() == w.tobytes() and a is not b and not b.flags.writeable
    other = memo.blend(d, start, target, 1)
    assert other[0].tobytes() != first[0].tobytes()
    for k in range(1, BlendMemo.KEPT + 1):           # fills the rest, then clears and reuses slots
        memo.blend(d, start + k, target, 0)
    for a, w in zip(first + memo.blend(d, start, target, 2), want + want):
        assert a.tobytes() == w.tobytes()         # what was handed out is unchanged
    got = memo.blend(d, start, target, 2)
    assert all(a.tobytes() == w.tobytes() for a, w in zip(got, want))


def test_a_blend_frames_rotations_and_body_are_made_when_read_with_the_bits_of_computing_them():
    """posing.PendingBlend: a blend frame's angles are set at once (state), its rotations and
    body-frame FK when first read, and then they are the arrays the blend computes."""
    from game.sim.posing import BLEND_FRAMES, _blend

    m = blending(Match.new(seed=2))
    f = m.fighters[0]
    assert f._pending is not None and 0 <= f.blend_left < BLEND_FRAMES and f.move   # blending into a move
    target = m.data.moves[f.move].angles[f.mframe]
    angles, local, body = _blend(m.data, f.pose_from, target, f.blend_left)
    assert f.placed_body() is f._pending
    got_local, got_body = f.local, f.body
    assert f._pending is None and f.placed_body() is got_body
    assert not got_local.flags.writeable and not got_body.flags.writeable
    assert (f.pose.tobytes(), got_local.tobytes(), got_body.tobytes()) == \
        (angles.tobytes(), local.tobytes(), body.tobytes())
    snap = m.snapshot()                         # a snapshot holds the made arrays
    assert snap.poses[0][3] is got_body
