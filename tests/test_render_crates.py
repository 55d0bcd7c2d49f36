"""Destructible crates as drawn (headless EGL): the hole of a punched crate in pixels,
crate meshes from compound faces (B4/B5), chips on every strike and chunks on a break.

Expectations come from the simulation's own state (the strike's hole corners, the
compound's faces) projected with the renderer's matrices; nothing is a stored image.
"""

from __future__ import annotations

import os

os.environ.setdefault("PYGLET_HEADLESS", "1")

import numpy as np
import pytest

from game.collision.compound import FILL, INNER, OUTER
from game.sim import CrateStruck, FrameInput
from simhelp import make_hit

W, H = 640, 360
NEUTRAL = FrameInput()
SIDE = (-1.6, 2.5)          # where P1 waits, out of the close-up's way
AT_CRATE = (0.0, 3.72)      # just south of crate_north, facing it (as in tests/test_stage.py)


@pytest.fixture(scope="module")
def env():
    from game.render.boot import RenderUnavailable

    try:
        from game.render.offscreen import open_game
        pyglet, window, game = open_game(W, H, p1="human", p2="human")
    except RenderUnavailable as exc:  # only when the GL/EGL libraries are truly absent
        pytest.skip(f"no headless GL here: {exc}")
    yield pyglet, window, game
    window.close()


@pytest.fixture
def game(env):
    """A fresh match in the FIGHT phase, P2 behind crate_north, inputs scripted by ``press``."""
    _, _, g = env
    g.overlay.enabled = False
    g.training = None
    g.p1 = g.p2 = "human"
    g.new_match(0)
    g.script = [NEUTRAL]
    g.input_source = lambda: (g.script[0], NEUTRAL)
    while g.match.phase != "fight":
        g.step()
    place(g, SIDE)
    g.match.fighters[1].x, g.match.fighters[1].z = 0.0, 8.0
    for _ in range(90):                   # past the FIGHT! banner
        g.step()
    yield g
    g.__dict__.pop("matrices", None)
    g.input_source = None


def place(g, xz) -> None:
    f = g.match.fighters[0]
    f.x, f.z = float(xz[0]), float(xz[1])
    g.step()


def crate(g, name="crate_north"):
    return next(i for i, c in enumerate(g.match.stage.crates) if c.obj.name == name)


def punch(g, button="hp", frames=40) -> list:
    """P1 presses ``button`` and waits; the CrateStruck events."""
    g.script[0] = FrameInput(**{button: True})
    g.step()
    events = list(g.last_events)
    g.script[0] = NEUTRAL
    for _ in range(frames):
        g.step()
        events += g.last_events
    return [e for e in events if isinstance(e, CrateStruck)]


def close_up(g) -> None:
    """A camera in front of crate_north's south face (a fixed placement for the test)."""
    from game.render.projection import look_at, perspective

    eye = np.array([0.35, 1.15, 2.7])
    g.matrices = lambda alpha, aspect: (look_at(eye, (0.0, 0.85, 4.5)), perspective(45.0, aspect), eye)


def pixels(g) -> np.ndarray:
    from game.render.offscreen import frame_pixels

    return frame_pixels(g).astype(int)


def project(g, p) -> np.ndarray:
    from game.render.projection import project as proj

    return proj(np.asarray(p, dtype=float), g.view_proj, W, H).round().astype(int)


def patch(img, xy, r=3) -> np.ndarray:
    x, y = xy
    return img[y - r:y + r + 1, x - r:x + r + 1].reshape(-1, 3).mean(axis=0)


def test_render_B4_B5_punched_crate_shows_its_hole_and_outer_wood_beside_it(game):
    g = game
    close_up(g)
    intact = pixels(g)
    place(g, AT_CRATE)
    struck = punch(g)
    assert len(struck) == 1 and struck[0].name == "crate_north" and not struck[0].broke
    c = g.match.stage.crates[struck[0].crate]
    place(g, SIDE)
    for _ in range(130):                  # chips settled and gone
        g.step()
    after = pixels(g)
    corners = np.asarray(c.last_strike.target_vertices, dtype=float)
    centre = corners.mean(axis=0)
    half_w = 0.5 * (corners[:, 0].max() - corners[:, 0].min())
    assert half_w > 0.03
    xy = project(g, centre)
    assert 10 <= xy[0] < W - 10 and 10 <= xy[1] < H - 10
    # through the hole: the dark inside of the shell instead of the outer face
    seen, was = patch(after, xy), patch(intact, xy)
    assert np.abs(seen - was).sum() > 30, f"hole not visible at {xy}: {seen} vs intact {was}"
    assert seen.sum() < was.sum(), "the inside seen through the hole should be darker than the outer face"
    # beside the hole (15 cm past its edge, on the same face) the outer wood is unchanged
    beside = project(g, centre + [half_w + 0.15, 0.0, 0.0])
    b0, b1 = patch(intact, beside), patch(after, beside)
    assert np.abs(b1 - b0).sum() < 12, f"outer face changed beside the hole: {b1} vs {b0}"
    assert b1[0] > b1[2] + 10, "outer face should read as wood (red over blue)"


def test_render_B5_crate_mesh_is_built_from_compound_faces_and_only_the_struck_crate_rebuilds(game):
    from game.render.crates import SEAM, crate_mesh, wood

    g = game
    w = g.world
    pixels(g)
    arena_vao, arena_count = w._arena_version, w.world.count
    i = crate(g)
    builds = w.crates.builds
    place(g, AT_CRATE)
    struck = punch(g)
    assert struck
    pixels(g)
    pixels(g)
    assert w.crates.builds == builds + 1, "only the struck crate's mesh is rebuilt, once"
    assert (w._arena_version, w.world.count) == (arena_vao, arena_count), "the arena mesh must not change"
    c = g.match.stage.crates[i]
    faces = c.compound.faces
    assert (faces.kinds == FILL).any() and (faces.kinds == INNER).any()
    verts = w.crates._verts[i]
    assert len(verts) == 6 * faces.count
    assert np.array_equal(verts, crate_mesh(faces, "crate")[0])
    # reference, per face: its corners (to the seam overlap) are in the mesh with its normal
    # and its kind's colour
    cols = wood("crate")
    for f in range(faces.count):
        kind = int(faces.kinds[f])
        for corner in faces.vertices[f]:
            match = [v for v in verts if np.allclose(v[:3], corner, atol=1.01 * SEAM) and np.allclose(v[3:6], faces.normals[f])]
            assert match, f"face {f}: corner {corner} missing from the mesh"
            if kind != FILL:          # fill faces carry a per-face tint of the fill colour
                assert any(np.allclose(v[6:9], cols[kind], atol=1e-5) for v in match)
    assert {int(k) for k in faces.kinds} == {OUTER, FILL, INNER}


def test_render_crate_strike_throws_chips_that_are_gone_within_two_seconds(game):
    g = game
    place(g, AT_CRATE)
    pixels(g)                         # every crate's mesh built for this match
    g.script[0] = FrameInput(hp=True)
    g.step()
    g.script[0] = NEUTRAL
    for _ in range(40):
        g.step()
        struck = [e for e in g.last_events if isinstance(e, CrateStruck)]
        if struck:
            break
    assert struck
    builds = g.world.crates.builds
    pixels(g)                         # the strike's frame: its mesh waits (the sim paid for the strike)
    assert g.world.crates.builds == builds
    pixels(g)                         # the next frame builds it, once
    pixels(g)
    assert g.world.crates.builds == builds + 1
    e = struck[0]
    n = len(g.debris)
    assert n >= 10, "a strike throws wood chips"
    start = g.debris.positions()
    assert np.linalg.norm(start - np.asarray(e.point), axis=1).max() < 0.2    # from the collision point
    for _ in range(8):
        g.step()
    moved = g.debris.positions()[:n] - start
    normal = g.match.stage.crates[e.crate].last_strike.target_faces[0].normal
    assert (moved @ normal).mean() > 0.05, "chips fly out of the struck face"
    img = pixels(g)
    assert img.std() > 10
    for _ in range(120):
        g.step()
    assert len(g.debris) == 0, "all chips gone after 2 s"


def test_render_B6_barrel_strike_spark_and_chips_come_from_the_drawn_barrel(game, monkeypatch):
    """The barrel's compound is its own box, drawn as it is: the strike's spark bursts at the
    event's A7 point, at the barrel's struck face as drawn, not in the air in front of it (the
    chips start there too: tests/test_guards_debris.py)."""
    g = game
    bursts = []
    real = g.sparks.burst
    monkeypatch.setattr(g.sparks, "burst", lambda point, *a, **k: (bursts.append(np.array(point, float)),
                                                                     real(point, *a, **k)))
    g.match.fighters[1].x, g.match.fighters[1].z = 5.0, 6.6       # P2 behind the barrel
    place(g, (5.0, 3.85))                     # P1 south of it, facing it
    struck = punch(g, "hp", frames=30)
    assert struck and struck[0].name == "barrel", [e.name for e in struck]
    e = struck[0]
    barrel = g.match.stage.crates[e.crate]
    pixels(g)
    pixels(g)
    drawn = g.world.crates._verts[e.crate][:, :3]
    lo, hi = drawn.min(axis=0), drawn.max(axis=0)
    # A7 divides the line between the reach box's centre and the slab's by their diagonals: a
    # few centimetres off the face, as on a crate (the cube around the sphere was 0.33 m off)
    assert ((lo - 0.05 <= e.point) & (e.point <= hi + 0.05)).all(), "the point lies at the drawn barrel"
    assert abs(e.point[2] - lo[2]) <= barrel.compound.thickness + 0.05, "at its struck (south) face"
    assert any(np.allclose(b, e.point) for b in bursts), (bursts, e.point)


def test_render_B7_fireball_stopped_by_its_cube_on_a_crate_bursts_at_the_A7_point(game, monkeypatch):
    """A fireball's cube meets a crate's slab before its centre ray does (B7, A2-A4): the
    event carries the A7 point, and the impact spark is drawn there, between the fireball and
    the wall, not at the fireball's centre or on a far wall the centre ray may reach."""
    from game.sim import ProjectileImpact

    g = game
    bursts = []
    real = g.sparks.burst
    monkeypatch.setattr(g.sparks, "burst", lambda point, *a, **k: (bursts.append((np.array(point, float), a)),
                                                                     real(point, *a, **k)))
    place(g, (0.0, 1.2))                      # facing crate_north, a few metres off
    g.script[0] = FrameInput(lp=True, hp=True)
    impacts = []
    for _ in range(90):
        g.step()
        g.script[0] = NEUTRAL
        impacts += [e for e in g.last_events if isinstance(e, ProjectileImpact)]
        if impacts:
            break
    assert impacts and impacts[0].point is not None
    e = impacts[0]
    c = g.match.stage.crates[crate(g)]
    # A7: on the line from the fireball's centre to the slab's, past the centre, short of the far side
    assert e.end[2] < e.point[2] <= c.obj.aabb[0][2] + c.compound.thickness
    spark = [b for b, a in bursts if a and a[1] == "impact"]
    assert spark and np.allclose(spark[-1], e.point)


def test_render_B9_broken_crate_falls_apart_in_pieces_that_fall_and_vanish(game):
    g = game
    i = crate(g)
    c = g.match.stage.crates[i]
    broke = None
    for k in range(40):
        place(g, (0.2 * ((k % 7) - 3), AT_CRATE[1]))
        struck = punch(g, ("hp", "lk", "lp")[k % 3], frames=0)
        for _ in range(40):
            if struck:
                break
            g.step()
            struck = [e for e in g.last_events if isinstance(e, CrateStruck)]
        if any(e.broke for e in struck):
            broke = next(e for e in struck if e.broke)
            break
        for _ in range(20):
            g.step()
    assert broke is not None and c.broken
    rows = g.debris.p
    chunks = rows[:, 11:14].max(axis=1) > 0.1        # the shell's boxes, not the chips
    assert chunks.sum() >= 4
    y0 = rows[chunks, 1].copy()
    pixels(g)
    assert len(g.world.crates._verts[i]) == 0, "a broken crate is not drawn"
    for _ in range(45):
        g.step()
    rows = g.debris.p
    still = rows[:, 11:14].max(axis=1) > 0.1
    assert still.sum() == chunks.sum()
    assert rows[still, 1].mean() < y0.mean() - 0.1, "the pieces fall"
    assert rows[still, 1].min() > -0.05, "and stop on the floor"
    for _ in range(60):
        g.step()
    assert len(g.debris) == 0, "the pieces fade out within ~1.7 s"


def test_render_rollback_restores_the_drawn_crate_with_or_without_its_hole(game):
    """A rollback installs restored compounds (version 0 again even when struck): the drawn
    mesh follows the restored boxes, never the intact-crate cache."""
    g = game
    m = g.match
    i = crate(g)
    pixels(g)
    intact_mesh = g.world.crates._verts[i]
    before = m.snapshot()
    place(g, AT_CRATE)
    assert punch(g)
    struck = m.snapshot()
    pixels(g)
    holed = g.world.crates._verts[i]
    assert len(holed) > len(intact_mesh)
    m.restore(before)
    pixels(g)
    assert np.array_equal(g.world.crates._verts[i], intact_mesh)
    m.restore(struck)
    assert m.stage.crates[i].compound.version == 0            # restored: the counter starts over
    pixels(g)
    assert np.array_equal(g.world.crates._verts[i], holed)


# ---------------------------------------------------------------- debris logic (no GL)
from hypothesis import given, settings, strategies as st  # noqa: E402


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


def _same_distribution(got: np.ndarray, want: np.ndarray, what: str) -> None:
    """Per column: the same range, mean and deciles within a few percent of the column's spread."""
    assert got.shape[1] == want.shape[1]
    for j in range(got.shape[1]):
        g, w = got[:, j], want[:, j]
        spread = max(w.max() - w.min(), 1e-12)
        tol = 0.03 * spread + 1e-12
        assert g.min() >= w.min() - tol and g.max() <= w.max() + tol, f"{what}: column {j} leaves its range"
        assert abs(g.mean() - w.mean()) < tol, f"{what}: column {j} mean {g.mean()} vs {w.mean()}"
        for q in (10, 40, 60, 90):     # away from the steps of the discrete picks (25, 33, 50, 67, 75 %)
            assert abs(np.percentile(g, q) - np.percentile(w, q)) < 2 * tol, f"{what}: column {j} {q}th percentile"


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
    _same_distribution(got, want, "chips")
    assert 0.45 < (got[:, 10] > 0).mean() < 0.55, "chips spin both ways, evenly"
    # each chip is one wood colour times one brightness: outer 1/4, fill (splinter) 1/2, inner 1/4
    ratio = got[:, None, 14:17] / cols[None]                                  # (n, 3 kinds, rgb)
    one = (np.ptp(ratio, axis=2) < 1e-9) & (ratio[..., 0] >= 0.8 - 1e-9) & (ratio[..., 0] <= 1.15 + 1e-9)
    assert one.any(axis=1).all()
    share = one.mean(axis=0)
    assert np.allclose(share, [0.25, 0.5, 0.25], atol=0.02), share


def test_render_spark_bursts_batched_draw_has_the_per_column_distributions():
    """Sparks.spawn / Sparks.burst read their randoms from the effects' noise table; over many
    frames (each its own window) every particle column matches the per-column reference."""
    from game.render.sparks import CRATE_COLORS, HEAVY_COLORS, Sparks

    def spawn_ref(frame, point, stop):        # a heavy unblocked hit, as first written
        rng = np.random.default_rng(frame * 7919)
        n = 34
        d = rng.normal(size=(n, 3))
        d /= np.linalg.norm(d, axis=1, keepdims=True)
        d[:, 1] = np.abs(d[:, 1]) * 0.8 + 0.15
        speed = rng.uniform(0.05, 0.15, size=(n, 1)) * 1.5
        size = rng.uniform(0.010, 0.018, size=n) * 1.5
        col = HEAVY_COLORS[rng.integers(0, 3, size=n)] * rng.uniform(1.0, 1.6, size=(n, 1))
        life = rng.uniform(8, 14, size=n) * 1.2 + stop
        return np.column_stack([d * speed, size, col, life])

    def burst_ref(frame, big):
        rng = np.random.default_rng(frame * 104729 + 7)
        n = 40 if big else 16
        d = rng.normal(size=(n, 3))
        d /= np.linalg.norm(d, axis=1, keepdims=True)
        d[:, 1] = np.abs(d[:, 1]) * 0.9 + 0.1
        v = d * rng.uniform(0.04, 0.16 if big else 0.12, size=(n, 1))
        size = rng.uniform(0.012, 0.03, size=n)
        col = CRATE_COLORS[rng.integers(0, 3, size=n)] * 0.9
        return np.column_stack([v, size, col, rng.uniform(10, 18, size=n)])

    point = np.array([0.2, 1.1, -0.4])
    for big in (False, True):
        got, want = [], []
        for frame in range(1, 700):
            s = Sparks()
            s.burst(point, frame, "crate", big=big)
            sp = s.p[:-1]                                           # the last row is the flash
            assert np.all(sp[:, 0:3] == point)
            got.append(np.column_stack([sp[:, 3:6], sp[:, 6], sp[:, 7:10], sp[:, 10]]))
            want.append(burst_ref(frame + 5000, big))
        _same_distribution(np.concatenate(got), np.concatenate(want), f"crate burst, big={big}")
    got, want = [], []
    for frame in range(1, 700):
        s = Sparks()
        s.spawn(make_hit(frame=frame, point=point, heavy=True, hitstop=10))
        sp = s.p[:-2]                                               # flash and ring last
        got.append(np.column_stack([sp[:, 3:6], sp[:, 6], sp[:, 7:10], sp[:, 10]]))
        want.append(spawn_ref(frame + 5000, point, 10))
    _same_distribution(np.concatenate(got), np.concatenate(want), "heavy hit")


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
    _same_distribution(np.concatenate(got), np.concatenate(want), "chunks")


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


def _spark_instances_reference(s, alpha):
    """``Sparks.instances`` as first written, with masked passes for the flash and ring rows."""
    from game.render.sparks import KIND_FLASH, KIND_RING

    p = s.p
    out = np.zeros((len(p), 11), dtype=np.float32)
    if not len(p):
        return out
    pos = s.prev_pos + (p[:, 0:3] - s.prev_pos) * alpha
    age, life, delay, kind = p[:, 11] + alpha, p[:, 10], p[:, 12], p[:, 13]
    t = np.clip(1.0 - (life - age) / np.maximum(life - p[:, 14], 1.0), 0.0, 1.0)
    size, tail = p[:, 6].copy(), p[:, 3:6] * 2.6
    flash, ring = kind == KIND_FLASH, kind == KIND_RING
    size[flash] *= np.where(delay[flash] > 0, 1.0 + 0.08 * np.sin(age[flash] * 2.0), 1.0 - 0.5 * t[flash])
    tail[flash | ring] = 0.0
    size[ring] = -(size[ring] * (1.0 + 2.2 * np.clip(age / life, 0, 1)[ring]))
    out[:, 0:3], out[:, 3:6], out[:, 6], out[:, 7:10], out[:, 10] = pos, tail, size, p[:, 7:10], (1.0 - t) ** 1.5
    return out


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["hit", "heavy", "block", "crate", "impact", "wait"]),
                          st.integers(0, 12)), min_size=1, max_size=12),
       st.sampled_from([1.0, 0.5, 0.137]))
def test_render_spark_rows_equal_the_masked_reference(script, alpha):
    """``Sparks.instances`` (every row as a spark, then the flash and ring rows on floats)
    gives the masked reference's rows, and ``Sparks.step`` (unmasked passes, the body flash on
    floats) the masked reference's state bit for bit, through bursts of every kind, hitstop
    and fading."""
    from game.render.sparks import Sparks

    s = Sparks()
    ref = {"p": s.p, "prev": s.prev_pos, "flash": s.flash.copy(), "left": np.zeros(2), "base": np.zeros(2)}
    point = np.array([0.1, 1.2, -0.3])
    for frame, (what, hitstop) in enumerate(script):
        n = len(s)
        if what in ("hit", "heavy", "block"):
            hit = make_hit(frame=frame, point=point, heavy=what == "heavy", blocked=what == "block", hitstop=hitstop)
            s.spawn(hit)
            ref["flash"][1] = s.flash[1]
            ref["left"][1], ref["base"][1] = 6, s.flash[1, 3]
        elif what in ("crate", "impact"):
            s.burst(point, frame, what, big=hitstop > 6)
        ref["p"] = np.vstack([ref["p"], s.p[n:]])
        ref["prev"] = np.vstack([ref["prev"], s.prev_pos[n:]])
        for _ in range(1 + hitstop % 4):
            assert np.array_equal(s.p, ref["p"]) and np.array_equal(s.prev_pos, ref["prev"])
            assert np.array_equal(s.flash, ref["flash"])
            got, want = s.instances(alpha), _spark_instances_reference(s, alpha)
            assert got.shape == want.shape and np.allclose(got, want, rtol=1e-6, atol=1e-7)
            assert np.array_equal(np.signbit(got[:, 6]), np.signbit(want[:, 6]))   # rings stay rings
            s.step()
            _spark_step_reference(ref)


def _spark_step_reference(r):
    """``Sparks.step`` as first written (masked passes, the flash on arrays), on a dict state."""
    from game.render.sparks import DRAG, FLASH_FRAMES, GRAVITY, HITSTOP_SPEED, KIND_SPARK

    r["left"] = np.maximum(r["left"] - 1, 0)
    r["flash"][:, 3] = r["base"] * (r["left"] / FLASH_FRAMES) ** 2
    p = r["p"].copy()
    if not len(p):
        return
    r["prev"] = p[:, 0:3].copy()
    frozen = p[:, 12] > 0
    k = np.where(frozen, HITSTOP_SPEED, 1.0)[:, None]
    spark = p[:, 13] == KIND_SPARK
    p[spark, 0:3] += p[spark, 3:6] * k[spark]
    p[spark & ~frozen, 4] += GRAVITY
    p[spark & ~frozen, 3:6] *= DRAG
    p[:, 12] = np.maximum(p[:, 12] - 1, 0)
    p[:, 11] += 1
    alive = p[:, 11] < p[:, 10]
    r["p"], r["prev"] = p[alive], r["prev"][alive]


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
