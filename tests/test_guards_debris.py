"""Guards for game/render/crates.py's ``Debris`` found missing by mutation testing: the
batched physics step and the per-instance rows against a per-piece loop (pyrr rotations, the
lowest of eight corners by brute force), ``hold``, the piece cap, the barrel's chips and which
way chips fly without an event normal (no GL)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pyrr
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.render import crates as cr
from game.render.crates import Debris
from game.sim import Match

_SIGNS8 = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)


_CRATES: list = []


def _crates():
    """The arena's crates as a match starts (Debris only reads them)."""
    if not _CRATES:
        _CRATES.extend(Match.new(seed=0).stage.crates)
    return _CRATES


@pytest.fixture
def stage_crates():
    return _crates()


def _rot(axis, angle):
    return pyrr.matrix33.create_from_axis_rotation(np.asarray(axis, dtype=float), float(angle)).T   # column-vector


def _event(frame, point, broke, normal=None, crate=0):
    e = SimpleNamespace(frame=frame, crate=crate, fighter=0, point=np.asarray(point, dtype=float), broke=broke)
    if normal is not None:
        e.normal = np.asarray(normal, dtype=float)
    return e


def _step_reference(rows, floor_y):
    """Debris.step one piece at a time: gravity, move, spin, push out of the floor by the
    lowest of the eight rotated corners, bounce, friction, settle the spin, age, expire."""
    prev_pos, prev_ang, keep = [], [], []
    out = []
    for r in rows:
        r = r.copy()
        prev_pos.append(r[0:3].copy())
        prev_ang.append(r[9])
        r[4] += cr.GRAVITY
        r[0:3] += r[3:6]
        r[9] += r[10]
        corners = r[0:3] + (_rot(r[6:9], r[9]) @ (_SIGNS8 * r[11:14]).T).T
        low = corners[:, 1].min()
        if low < floor_y:
            r[1] += floor_y - low
            r[4] = -r[4] * cr.RESTITUTION if r[4] < -0.01 else 0.0
            r[3] *= cr.FRICTION
            r[5] *= cr.FRICTION
            if r[1] - floor_y < 1.5 * r[11:14].min():
                r[10] *= 0.5
        r[17] += 1
        keep.append(r[17] < r[18])
        out.append(r)
    keep = np.array(keep, dtype=bool)
    return (np.array(out).reshape(-1, cr._WIDTH)[keep], np.array(prev_pos).reshape(-1, 3)[keep],
            np.array(prev_ang)[keep])


def _instances_reference(d, alpha):
    """Debris.instances one piece at a time."""
    out = []
    for r, pp, pa in zip(d.p, d.prev_pos, d.prev_angle):
        pos = pp + (r[0:3] - pp) * alpha
        ang = pa + (r[9] - pa) * alpha
        fade = min(max((r[18] - r[17] - alpha) / cr.FADE_FRAMES, 0.0), 1.0)
        rot = _rot(r[6:9], ang)
        out.append(np.concatenate([pos, rot[:, 0], rot[:, 1], rot[:, 2], r[11:14] * (0.55 + 0.45 * fade),
                                   r[14:17], [fade]]))
    return np.array(out, dtype=np.float32).reshape(-1, 19)


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 5), st.integers(0, 10_000), st.booleans(), st.sampled_from([0.0, 0.25, -0.1]),
       st.sampled_from([0.0, 0.3, 0.77, 1.0]))
def test_debris_step_and_instances_equal_a_per_piece_loop(which, frame, broke, floor_y, alpha):
    crate = _crates()[which]
    b = crate.compound.bounds
    point = np.array([b.mean(axis=0)[0], 0.9, b[0, 2]])
    d = Debris(floor_y)
    d.strike(_event(frame, point, broke, crate=which), crate, attacker_pos=point - [0, 0, 0.8])
    assert len(d) >= cr.CHIPS_PER_STRIKE
    bounced, k = 0, 0
    while len(d):
        k += 1
        want_p, want_prev, want_ang = _step_reference(d.p, floor_y)
        vy = d.p[:, 4].copy()
        d.step()
        bounced += int(((vy < -0.01) & (d.p[:, 4] > 0) if len(d.p) == len(vy) else np.zeros(1, bool)).sum())
        assert d.p.shape == want_p.shape
        assert np.allclose(d.p, want_p, rtol=1e-9, atol=1e-12)
        assert np.array_equal(d.prev_pos, want_prev) and np.array_equal(d.prev_angle, want_ang)
        if k % 4:
            continue
        got = d.instances(alpha)
        assert got.dtype == np.float32 and np.allclose(got, _instances_reference(d, alpha), rtol=1e-5, atol=1e-6)
    assert bounced > 0, "no piece bounced: the floor contact was never exercised"


def test_debris_hold_draws_the_pieces_still(stage_crates):
    c = stage_crates[0]
    d = Debris()
    d.strike(_event(3, [0.0, 0.9, 4.5], False, normal=[0.0, 0.0, -1.0]), c)
    d.step()
    assert not np.allclose(d.instances(0.0)[:, :3], d.instances(1.0)[:, :3])
    d.hold()
    assert np.array_equal(d.instances(0.0)[:, :12], d.instances(1.0)[:, :12])
    assert np.array_equal(d.instances(0.5)[:, :3], d.p[:, 0:3].astype(np.float32))


def test_debris_keeps_the_newest_pieces_up_to_the_cap(stage_crates):
    c = stage_crates[0]
    d = Debris()
    n_strikes = cr.MAX_PIECES // cr.CHIPS_PER_STRIKE + 3
    for f in range(n_strikes):
        d.strike(_event(f, [0.0, 0.9, 4.5], False, normal=[0.0, 0.0, -1.0]), c)
    assert len(d) == cr.MAX_PIECES and len(d.prev_pos) == len(d.prev_angle) == cr.MAX_PIECES
    last = Debris()
    last.strike(_event(n_strikes - 1, [0.0, 0.9, 4.5], False, normal=[0.0, 0.0, -1.0]), c)
    assert np.array_equal(d.p[-len(last):], last.p) and np.array_equal(d.prev_pos[-len(last):], last.prev_pos)


def test_B6_barrel_chips_start_at_the_struck_point_on_its_own_box(stage_crates):
    """The barrel's compound is its own box, drawn as it is: a strike at its bounds' corner
    throws chips from that corner, the drawn barrel's."""
    barrel = next(c for c in stage_crates if c.obj.kind == "barrel")
    assert np.array_equal(barrel.compound.bounds, barrel.obj.aabb)
    d = Debris()
    d.strike(_event(9, barrel.compound.bounds[1], False, normal=[1.0, 0.0, 0.0]), barrel)
    centre = d.positions().mean(axis=0)
    assert np.linalg.norm(centre - barrel.obj.aabb[1]) < 0.05


@pytest.mark.parametrize("side", [-1.0, 1.0])
def test_chips_without_an_event_normal_fly_out_of_the_face_toward_the_attacker(stage_crates, side):
    """Without the event's outward normal the struck face is the one facing the attacker: the
    chips fly out of it, back to the attacker's side (as with the normal given)."""
    c = stage_crates[0]
    point = np.array([0.0, 0.9, 4.5])
    attacker = point + [0.3 * side, 0.4, -0.8 * side]
    d = Debris()
    d.strike(_event(11, point, False), c, attacker_pos=attacker)
    toward = (attacker - point) * [1.0, 0.0, 1.0]
    v = d.p[:, 3:6]
    assert (v @ toward > 0).mean() > 0.9, "chips fly into the crate"
    given = Debris()
    given.strike(_event(11, point, False, normal=toward / np.linalg.norm(toward)), c)
    assert np.allclose(given.p, d.p)


def test_noise_table_both_blocks_are_read_only_and_an_empty_window_is_allowed():
    from game.render.noise import NORMAL_COLS, UNIFORM_COLS, NoiseTable

    t = NoiseTable(seed=1, rows=64)
    g, u = t.window(5, 3)
    for block in (g, u, t.normal, t.uniform):
        with pytest.raises(ValueError):
            block[0, 0] = 0.5
    g0, u0 = t.window(5, 0)
    assert g0.shape == (0, NORMAL_COLS) and u0.shape == (0, UNIFORM_COLS)
    # every window start 0 .. rows - n is reachable, and only those
    assert {t.offset(k, 60) for k in range(400)} == set(range(5))
    assert t.offset(7, 64) == t.offset(8, 200) == 0
