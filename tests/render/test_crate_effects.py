"""Crate strike effects without GL (game/render/crates.py): debris physics and instance rows
against per-piece loops, chips and break chunks with the per-column distributions of their
first, per-generator form, the effects' noise table, the barrel's chips from its own box, and the crate
meshes against their row-sorted reference (B5)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pyrr
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from distributions import same_distribution
from game.collision.compound import FILL, INNER, OUTER
from game.render import crates as cr
from game.render.crates import Debris
from game.sim import Match

# ---------------------------------------------------------------- debris logic (no GL)
from simhelp import make_hit

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


@pytest.mark.slow
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


def crate(g, name="crate_north"):
    return next(i for i, c in enumerate(g.match.stage.crates) if c.obj.name == name)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(-1, 1), st.floats(-1, 1), st.floats(-1, 1), st.floats(-7, 7)),
                min_size=1, max_size=8))
def test_render_debris_rotations_match_pyrr_per_element(rows):
    import pyrr

    from game.render.crates import rotations

    ax = np.array([r[:3] for r in rows], dtype=float)
    ax[np.linalg.norm(ax, axis=1) < 1e-3] = (0.0, 1.0, 0.0)
    ax /= np.linalg.norm(ax, axis=1, keepdims=True)
    ang = np.array([r[3] for r in rows])
    got = rotations(ax, ang)
    for a, t, r in zip(ax, ang, got):
        ref = pyrr.matrix33.create_from_axis_rotation(a, t).T      # pyrr is row-vector
        assert np.allclose(r, ref, atol=1e-9)


@pytest.mark.slow
@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.booleans())
def test_render_debris_pieces_never_sink_into_the_floor_and_all_expire(seed, broke):
    """Every corner of every piece (brute force: its 8 rotated corners) stays above the floor."""
    from types import SimpleNamespace

    from game.render.crates import CHUNK_LIFE, Debris, rotations
    from game.sim import Match

    m = Match.new(seed=0)
    c = m.stage.crates[seed % len(m.stage.crates)]
    b = c.compound.bounds
    point = np.array([b.mean(axis=0)[0], 0.9, b[0, 2]])
    e = SimpleNamespace(frame=seed, crate=0, fighter=0, point=point, broke=broke)
    d = Debris()
    d.strike(e, c, attacker_pos=point - [0, 0, 0.8])
    assert len(d) > 0
    signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
    for _ in range(int(CHUNK_LIFE[1]) + 1):
        d.step()
        if not len(d):
            break
        r = rotations(d.p[:, 6:9], d.p[:, 9])
        corners = d.p[:, None, 0:3] + np.einsum("nij,nkj->nki", r, signs * d.p[:, None, 11:14])
        assert corners[..., 1].min() > -1e-9
    assert len(d) == 0


def test_render_chip_tangent_frame_matches_the_cross_products():
    """The chips' face frame (plain-float cross products) against numpy's, for any face normal."""
    from game.render.crates import _tangents

    rng = np.random.default_rng(5)
    normals = np.concatenate([np.eye(3), -np.eye(3), rng.normal(size=(50, 3))])
    for n in normals / np.linalg.norm(normals, axis=1, keepdims=True):
        t1, t2 = _tangents(n)
        up = [0.0, 1.0, 0.0] if abs(n[1]) < 0.9 else [1.0, 0.0, 0.0]
        want1 = np.cross(n, up)
        want1 /= np.linalg.norm(want1)
        assert np.allclose(t1, want1, atol=1e-12) and np.allclose(t2, np.cross(n, want1), atol=1e-12)
        assert abs(t1 @ n) < 1e-12 and abs(t2 @ n) < 1e-12 and abs(np.linalg.norm(t2) - 1) < 1e-12


# --------------------------------------------------- effect draws vs per-column reference
def _chips_per_column(rng, point, normal, n, cols):
    """The chips as first written: one generator call per column (the reference for the
    batched draw in ``Debris._chips``, which must give the same distributions)."""
    from game.render.crates import _PICK, _SIGNS, _WIDTH, CHIP_LIFE, _tangents

    rows = np.zeros((n, _WIDTH))
    t1, t2 = _tangents(normal)
    spread = rng.normal(size=(n, 2)) * 0.45
    d = normal + spread[:, :1] * t1 + spread[:, 1:] * t2
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    speed = rng.uniform(0.025, 0.075, size=(n, 1))
    rows[:, 0:3] = point + rng.normal(size=(n, 3)) * 0.02
    rows[:, 3:6] = d * speed + [0.0, 1.0, 0.0] * rng.uniform(0.01, 0.045, size=(n, 1))
    ax = rng.normal(size=(n, 3))
    rows[:, 6:9] = ax / np.linalg.norm(ax, axis=1, keepdims=True)
    rows[:, 9] = rng.uniform(0, 2 * np.pi, size=n)
    rows[:, 10] = rng.uniform(0.15, 0.5, size=n) * _SIGNS[rng.integers(0, 2, size=n)]
    rows[:, 11:14] = np.stack([rng.uniform(0.018, 0.05, n), rng.uniform(0.006, 0.012, n),
                               rng.uniform(0.01, 0.024, n)], axis=1)
    rows[:, 14:17] = cols[_PICK[rng.integers(0, 4, size=n)]] * rng.uniform(0.8, 1.15, size=(n, 1))
    rows[:, 18] = rng.uniform(*CHIP_LIFE, size=n)
    return rows


@pytest.mark.parametrize("normal", [(1.0, 0.0, 0.0), (0.0, 0.0, -1.0), (0.0, 1.0, 0.0)])
def test_render_chips_batched_draw_has_the_per_column_distributions(normal):
    """Debris._chips maps one block of normals and one of uniforms: every column (position,
    velocity, spin axis and rate, size, colour, life) is distributed as the per-column reference's."""
    from game.render.crates import Debris, wood

    n = 20_000
    point, normal, cols = np.array([0.5, 0.9, -2.0]), np.array(normal), wood("crate")
    rng = np.random.default_rng(1)
    got = Debris._chips(rng.standard_normal((n, 8)), rng.random((n, 11)), point, normal, cols)
    want = _chips_per_column(np.random.default_rng(2), point, normal, n, cols)
    same_distribution(got, want, "chips")
    assert 0.45 < (got[:, 10] > 0).mean() < 0.55, "chips spin both ways, evenly"
    # each chip is one wood colour times one brightness: outer 1/4, fill (splinter) 1/2, inner 1/4
    ratio = got[:, None, 14:17] / cols[None]                                  # (n, 3 kinds, rgb)
    one = (np.ptp(ratio, axis=2) < 1e-9) & (ratio[..., 0] >= 0.8 - 1e-9) & (ratio[..., 0] <= 1.15 + 1e-9)
    assert one.any(axis=1).all()
    share = one.mean(axis=0)
    assert np.allclose(share, [0.25, 0.5, 0.25], atol=0.02), share


def _chunks_per_column(rng, crate, normal, cols):
    """The break chunks as first written, one generator call per column (the reference for
    ``Debris._chunks``, which maps one window of the effects' noise table)."""
    from game.render.crates import _SIGNS, _WIDTH, CHUNK_LIFE

    boxes = np.asarray(crate.compound.boxes, dtype=float)
    k = len(boxes)
    rows = np.zeros((k, _WIDTH))
    centre = np.asarray(crate.obj.aabb, dtype=float).mean(axis=0)
    c = boxes.mean(axis=1)
    out = c - centre
    out[:, 1] = 0.0
    out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-6)
    rows[:, 0:3] = c
    rows[:, 3:6] = (out * rng.uniform(0.006, 0.022, size=(k, 1)) - normal * 0.012
                    + [0.0, 1.0, 0.0] * rng.uniform(0.0, 0.03, size=(k, 1)))
    ax = rng.normal(size=(k, 3)) * [1.0, 0.3, 1.0]
    rows[:, 6:9] = ax / np.linalg.norm(ax, axis=1, keepdims=True)
    rows[:, 10] = rng.uniform(0.03, 0.08, size=k) * _SIGNS[rng.integers(0, 2, size=k)]
    rows[:, 11:14] = (boxes[:, 1] - boxes[:, 0]) * 0.5
    rows[:, 14:17] = cols[0] * rng.uniform(0.85, 1.1, size=(k, 1))
    rows[:, 18] = rng.uniform(*CHUNK_LIFE, size=k)
    return rows


@pytest.mark.slow
def test_render_break_chunks_have_the_per_column_distributions():
    """Debris._chunks (one noise-table window per break): over many breaks every column of
    the chunks (position, velocity, spin axis and rate, size, colour, life) is distributed as
    the per-column reference's, and the geometric columns are equal row for row."""
    from game.render.crates import Debris, wood
    from game.sim import Match

    crate = Match.new(seed=0).stage.crates[0]
    normal, cols = np.array([0.0, 0.0, -1.0]), wood("crate")
    got, want = [], []
    for key in range(600):
        g = Debris._chunks(key, crate, normal, cols)
        w = _chunks_per_column(np.random.default_rng(key + 9000), crate, normal, cols)
        assert np.array_equal(g[:, 0:3], w[:, 0:3]) and np.array_equal(g[:, 11:14], w[:, 11:14])
        got.append(g)
        want.append(w)
    same_distribution(np.concatenate(got), np.concatenate(want), "chunks")


def test_render_noise_table_windows_are_fixed_per_key_and_spread_over_the_table():
    """The effects' noise table: a key always reads the same rows; nearby keys (frame numbers)
    read unrelated windows spread evenly over the table; a window longer than the table
    repeats it; the table is read-only; its columns are standard normal and uniform [0, 1)."""
    from game.render.noise import EFFECTS, NoiseTable

    t = NoiseTable(seed=3, rows=4096)
    g1, u1 = t.window(12345, 40)
    g2, u2 = t.window(12345, 40)
    assert g1.shape == (40, 8) and u1.shape == (40, 12)
    assert np.array_equal(g1, g2) and np.array_equal(u1, u2)
    offsets = np.array([t.offset(k, 40) for k in range(20_000)])
    assert offsets.min() >= 0 and offsets.max() <= 4096 - 40
    counts = np.bincount(offsets * 16 // (4096 - 40 + 1), minlength=16)
    assert counts.min() > 0.8 * 20_000 / 16 and counts.max() < 1.2 * 20_000 / 16, counts
    assert np.mean(np.diff(offsets) == 0) < 0.01, "consecutive keys must not share a window"
    g, u = t.window(7, 4096 + 10)
    assert np.array_equal(g[4096:], t.normal[:10]) and np.array_equal(u[:4096], t.uniform)
    with pytest.raises(ValueError):
        g1[0, 0] = 1.0
    with pytest.raises(ValueError, match="n"):
        t.window(1, -1)
    assert abs(EFFECTS.normal.mean()) < 0.02 and abs(EFFECTS.normal.std() - 1.0) < 0.02
    assert EFFECTS.uniform.min() >= 0.0 and EFFECTS.uniform.max() < 1.0 and abs(EFFECTS.uniform.mean() - 0.5) < 0.01


def test_render_strike_effects_are_the_same_for_the_same_event():
    """A given match always looks the same: the same CrateStruck (or Hit) gives the same
    chips, chunks and sparks, and another frame's event gives different ones."""
    from types import SimpleNamespace

    from game.render.crates import Debris
    from game.render.sparks import Sparks
    from game.sim import Match

    crate = Match.new(seed=0).stage.crates[1]
    point = crate.compound.bounds.mean(axis=0)

    def effects(frame):
        e = SimpleNamespace(frame=frame, crate=1, fighter=0, point=point, broke=True, normal=np.array([1.0, 0, 0]))
        d, s = Debris(), Sparks()
        d.strike(e, crate)
        s.burst(point, frame, "crate", big=True)
        s.spawn(make_hit(frame=frame, point=point, heavy=True, hitstop=10))
        return d.p, s.p

    a, b, c = effects(40), effects(40), effects(41)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not any(np.array_equal(x, y) for x, y in zip(a, c))


def _crate_vertices_reference(faces, kind):
    """``crate_mesh``'s vertices as first written: build every row in face order, then sort the
    rows by (material, kind) (the reference for ``crate_mesh``, which orders the faces first)."""
    from game.render.crates import KIND_MATERIAL, SEAM, outer_material, wood

    q = np.asarray(faces.vertices, dtype=float)
    q = q + np.sign(q - q.mean(axis=1, keepdims=True)) * SEAM
    kinds = np.asarray(faces.kinds, dtype=np.int64)
    out = np.zeros((len(q), 6, 10), dtype=np.float32)
    out[:, :, :3] = q[:, [0, 1, 2, 0, 2, 3]]
    out[:, :, 3:6] = np.asarray(faces.normals, dtype=float)[:, None, :]
    cols = wood(kind)[kinds]
    fill = kinds == FILL
    if fill.any():
        h = np.abs(np.sin(q[fill].mean(axis=1) @ np.array([127.1, 311.7, 74.7]))) % 1.0
        cols[fill] *= (0.82 + 0.3 * h)[:, None]
    out[:, :, 6:9] = cols[:, None, :]
    mats = np.array([outer_material(kind) if k == OUTER else KIND_MATERIAL[k] for k in (OUTER, FILL, INNER)],
                    dtype=float)[kinds]
    out[:, :, 9] = mats[:, None]
    return out[np.lexsort((kinds, mats))].reshape(-1, 10)


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(0, 40), st.sampled_from(["crate", "barrel"]))
def test_render_B5_crate_mesh_equals_the_row_sorted_reference_and_its_ranges(seed, strikes, kind):
    """``crate_mesh`` (faces put in draw order first, ranges from the per-kind counts) gives
    the reference's vertices bit for bit, for crates and the barrel (its own outer material),
    and the draw ranges ``material_ranges`` finds in them."""
    from game.collision.compound import Compound
    from game.render.crates import crate_mesh
    from game.render.geometry import material_ranges

    rng = np.random.default_rng(seed)
    c = Compound.from_box([[0.0, 0.0, 0.0], [1.0, 0.8, 1.2]], 0.1)
    for _ in range(strikes):
        p = rng.uniform(c.bounds[0] - 0.05, c.bounds[1] + 0.05)
        h = rng.uniform(0.02, 0.2, 3)
        c.strike(np.array([p - h, p + h]), margin=0.02)
    verts, runs = crate_mesh(c.faces, kind)
    want = _crate_vertices_reference(c.faces, kind)
    assert verts.dtype == np.float32 and np.array_equal(verts, want)
    assert runs == material_ranges(verts)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0, 3, 8]), max_size=12), max_size=6))
def test_render_crate_meshes_grouped_by_material_equal_a_stable_sort(mats):
    """CrateMeshes joins the per-crate meshes by material from slices: the same vertices and
    draw ranges as the reference, a stable sort of the concatenation by material."""
    from game.render.crates import by_material
    from game.render.geometry import material_ranges

    parts = []
    for i, ms in enumerate(mats):
        v = np.zeros((len(ms), 10), np.float32)
        v[:, 0] = i                                   # which part
        v[:, 1] = np.arange(len(ms))                  # which row of it
        v[:, 9] = ms
        parts.append(v)
    got, ranges = by_material(parts, [material_ranges(v) if len(v) else [] for v in parts])
    cat = np.concatenate(parts) if parts else np.zeros((0, 10), np.float32)
    want = cat[np.argsort(cat[:, 9], kind="stable")]
    assert np.array_equal(got, want)
    assert ranges == (material_ranges(want) if len(want) else [])
