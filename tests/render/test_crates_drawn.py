"""Destructible crates as drawn (headless EGL): the hole of a punched crate in pixels, crate
meshes from compound faces (B4, B5), chips on every strike, chunks on a break (B9), a rollback
redrawing the crate.  Expectations come from the simulation's own state projected with the
renderer's camera matrices."""

from __future__ import annotations

import numpy as np
import pytest

# ---------------------------------------------------------------- debris logic (no GL)
from game.collision.compound import FILL, INNER, OUTER
from game.sim import CrateStruck, FrameInput
from simhelp import NEUTRAL

#: every test here draws in a headless GL window, for more than about half a second
pytestmark = [pytest.mark.gl, pytest.mark.slow]

W, H = 640, 360


SIDE = (-1.6, 2.5)          # where P1 waits, out of the close-up's way


AT_CRATE = (0.0, 3.72)      # just south of crate_north, facing it (as in tests/sim/test_crate_strikes.py)


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
    # (unchanged: within a fifth of the hole's own contrast, about 150; light from the shell's
    # new inner faces may brighten the wood beside it a little)
    assert np.abs(b1 - b0).sum() < 30, f"outer face changed beside the hole: {b1} vs {b0}"
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
            match = [v for v in verts
                     if np.allclose(v[:3], corner, atol=1.01 * SEAM) and np.allclose(v[3:6], faces.normals[f])]
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
