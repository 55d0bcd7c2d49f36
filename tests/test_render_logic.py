"""The render side's pure logic (no GL): fixed-step loop, camera, input mapping,
sparks, frame meter, overlay.  Each is checked against the simulation itself
or a simple reference."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.sim import FrameInput, Hit, Match
from simhelp import make_hit


# ---------------------------------------------------------------- the loop (game/cli/timestep.py)
@pytest.mark.parametrize("pattern", ["steady", "jittery", "stalls"])
def test_render_fixed_step_slow_frames_do_not_change_the_simulation(pattern):
    from game.cli.timestep import SIM_STEP, FixedStep

    rng = np.random.default_rng(1)
    elapsed = {"steady": np.full(400, 1 / 60),
               "jittery": rng.uniform(0.001, 0.05, 400),
               "stalls": np.where(rng.random(400) < 0.05, 0.2, 0.004)}[pattern]
    m = Match.new(seed=3, p1_cpu="hard", p2_cpu="normal")
    loop = FixedStep(lambda: m.step())
    alphas = [loop.advance(e) for e in elapsed]
    assert all(0.0 <= a < 1.0 for a in alphas)
    ref = Match.new(seed=3, p1_cpu="hard", p2_cpu="normal")
    for _ in range(m.frame):
        ref.step()
    assert m.frame > 0 and m.state_hash() == ref.state_hash()
    if pattern != "stalls":   # no stall beyond the cap: every whole step of real time was simulated
        assert m.frame == int(np.floor(elapsed.sum() / SIM_STEP + 1e-9))


def test_render_fixed_step_caps_catch_up():
    from game.cli.timestep import MAX_CATCH_UP, FixedStep

    n = [0]
    loop = FixedStep(lambda: n.__setitem__(0, n[0] + 1))
    loop.advance(3.0)              # a 3 s hitch
    assert n[0] == MAX_CATCH_UP
    loop.advance(1 / 60)
    assert n[0] == MAX_CATCH_UP + 1     # the backlog is gone: one frame's time, one step


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0.0, 0.3, allow_nan=False), min_size=1, max_size=120))
def test_render_fixed_step_counts_and_alpha_against_a_per_frame_reference(elapsed):
    """FixedStep with a fake step counter against the plain bookkeeping of real time: after
    every displayed frame, steps done + alpha (in steps) = all time so far, less what the
    catch-up cap dropped; a frame runs at most MAX_CATCH_UP steps, and whole steps only
    go missing on a frame that hit the cap (then less than one step is kept)."""
    from game.cli.timestep import MAX_CATCH_UP, SIM_STEP, FixedStep

    n = [0]
    loop = FixedStep(lambda: n.__setitem__(0, n[0] + 1))
    owed = 0.0                                   # reference: steps of real time not yet run
    for e in elapsed:
        before = n[0]
        alpha = loop.advance(e)
        ran = n[0] - before
        owed += e / SIM_STEP
        assert 0 <= ran <= MAX_CATCH_UP and 0.0 <= alpha < 1.0
        if ran < MAX_CATCH_UP:                   # no cap: every whole step owed was run
            assert owed - ran == pytest.approx(alpha, abs=1e-6)
        else:                                    # the cap: the rest is dropped, never run later
            assert owed - ran >= alpha - 1e-6
        owed = alpha


# ---------------------------------------------------------------- camera
def test_render_camera_frames_both_fighters_and_follows_a_sidestep():
    from game.render.camera import FightCamera
    from game.render.projection import project

    m = Match.new(seed=0)
    cam = FightCamera(m.fighters[0].position, m.fighters[1].position)
    side = FrameInput(side_l=True)
    while m.phase != "fight":
        m.step()
    seen_dirs = []
    for _ in range(400):               # P1 circles around P2 by sidestepping
        m.step(side, FrameInput())
        cam.update(m.fighters[0].position, m.fighters[1].position, m.frame)
        seen_dirs.append(cam.dir.copy())
    a, b = m.fighters[0].position, m.fighters[1].position
    line = (b - a)[[0, 2]]
    line /= np.linalg.norm(line)
    start_line = np.array([1.0, 0.0])
    assert abs(line @ start_line) < 0.9, "the sidestep did not turn the fighters' line"
    assert abs(cam.dir @ line) < 0.2, "camera is not looking across the fighters' line"
    steps = np.array(seen_dirs)
    assert (np.einsum("ij,ij->i", steps[1:], steps[:-1]) > 0.99).all(), "camera direction jumped"
    view, proj, _ = cam.matrices(16 / 9)
    px = project(np.stack([a + [0, 1, 0], b + [0, 1, 0]]), proj @ view, 1280, 720)
    assert ((px > [0, 0]) & (px < [1280, 720])).all(), "a fighter is off screen"


# ---------------------------------------------------------------- input mapping
@pytest.mark.parametrize("fighter", [0, 1])
def test_render_screen_directions_map_to_fighter_relative_input(fighter):
    """'right' walks toward screen-right and 'in' sidesteps away from the camera, for either side."""
    from game.render.camera import FightCamera
    from game.render.controls import intents_to_input
    from game.render.projection import project

    for intent, axis, sign in (("right", 0, +1), ("left", 0, -1), ("in", 1, -1), ("out", 1, +1)):
        m = Match.new(seed=0)
        while m.phase != "fight":
            m.step()
        cam = FightCamera(m.fighters[0].position, m.fighters[1].position)
        right, fwd = cam.screen_axes()
        view, proj, eye = cam.matrices(16 / 9)
        f = m.fighters[fighter]
        before = f.position.copy()
        for _ in range(10):
            inp = intents_to_input({intent: True}, f.facing, right, fwd)
            m.step(*((inp, FrameInput()) if fighter == 0 else (FrameInput(), inp)))
        moved = f.position - before
        if axis == 0:   # screen x
            x0, x1 = project(np.stack([before, f.position]), proj @ view, 1280, 720)[:, 0]
            assert np.sign(x1 - x0) == sign, f"{intent} moved fighter {fighter} the wrong way on screen"
        else:           # depth: toward (+) or away from (-) the camera
            d0 = np.linalg.norm(before - eye)
            d1 = np.linalg.norm(f.position - eye)
            assert np.sign(d0 - d1) == sign and np.linalg.norm(moved) > 0.1, intent


# ---------------------------------------------------------------- sparks
_hit = make_hit


def test_render_sparks_burst_fade_and_differ_by_kind():
    from game.render.sparks import Sparks

    rows = {}
    for name, kw in (("light", {}), ("heavy", {"heavy": True, "hitstop": 10}), ("block", {"blocked": True})):
        s = Sparks()
        s.spawn(_hit(**kw))
        first = s.instances()
        rows[name] = first
        assert np.allclose(first[:, :3].mean(axis=0), [0, 1.3, 0], atol=0.05)
        frames = 0
        while len(s):
            s.step()
            frames += 1
        assert frames <= kw.get("hitstop", 6) + 20, "sparks outlive the hit"
        assert s.flash[1, 3] == 0.0
    assert len(rows["heavy"]) > len(rows["light"])
    assert np.abs(rows["heavy"][:, 6]).max() > np.abs(rows["light"][:, 6]).max()
    blue = lambda r: (r[:, 9] - r[:, 7]).mean()  # noqa: E731 - blue minus red
    assert blue(rows["block"]) > 0 > blue(rows["light"])
    assert (rows["block"][:, 6] < 0).any(), "a blocked hit draws a shield ring"


def test_render_sparks_crawl_during_hitstop_then_burst():
    from game.render.sparks import Sparks

    s = Sparks()
    s.spawn(_hit(hitstop=8))
    spark = s.p[:, 13] == 0
    start = s.p[spark, :3].copy()
    for _ in range(8):
        s.step()
    crawl = np.linalg.norm(s.p[spark, :3] - start, axis=1).mean()
    mid = s.p[spark, :3].copy()
    for _ in range(3):
        s.step()
    alive = s.p[:, 13] == 0
    burst = np.linalg.norm(s.p[alive, :3] - mid[: alive.sum()], axis=1).mean()
    assert burst / 3 > 2 * crawl / 8, "sparks should move much faster once hitstop ends"


# ---------------------------------------------------------------- training
def _exchange(guard: bool, mash_after_hit: bool):
    """P1 walks in and jabs P2 (guarding or not); returns (match log, hit, meter, first MoveStarted per side)."""
    from game.render.training import FrameMeter
    from game.sim import MoveStarted

    m = Match.new(seed=0)
    meter = FrameMeter()
    hit, starts, n = None, {}, 0
    while m.frame < 600:
        a, b = m.fighters
        close = abs(b.x - a.x) < 0.95
        n += 1
        if hit is None:
            p1, p2 = FrameInput(forward=not close, lp=close and n % 2 == 0), FrameInput(guard=guard)
        elif mash_after_hit:      # both press LK every other frame: the buffer starts it on the first free frame
            p1 = p2 = FrameInput(lk=n % 2 == 0)
        else:
            p1, p2 = FrameInput(), FrameInput(guard=guard)
        events = m.step(p1, p2)
        meter.record(tuple(f.frame_phase() for f in m.fighters), events)
        for e in events:
            if isinstance(e, Hit) and hit is None:
                hit = e
            elif isinstance(e, MoveStarted) and hit is not None and e.fighter not in starts:
                starts[e.fighter] = e.frame
        if hit is not None and (len(starts) == 2 if mash_after_hit else not meter.active):
            break
    return hit, meter, starts


@pytest.mark.parametrize("guard", [False, True])
def test_render_frame_meter_advantage_matches_who_can_act_first(guard):
    """The meter's advantage equals the difference of the two sides' first possible attacks."""
    hit, meter, _ = _exchange(guard, mash_after_hit=False)
    hit2, _, starts = _exchange(guard, mash_after_hit=True)
    assert hit is not None and hit.blocked == guard and hit2.frame == hit.frame
    truth = starts[1] - starts[0]
    assert meter.advantage == truth, (meter.advantage, truth)
    rows = [list(r) for r in meter.rows]
    assert "startup" in rows[0] and "active" in rows[0] and "recovery" in rows[0]
    assert ("blockstun" if guard else "hitstun") in rows[1]


def test_render_input_history_merges_held_frames():
    from game.render.training import InputHistory

    h = InputHistory()
    for inp in [FrameInput(forward=True)] * 5 + [FrameInput(forward=True, lp=True)] + [FrameInput()] * 3:
        h.record(inp)
    assert [r[1] for r in h.rows] == [3, 1, 5]
    assert InputHistory.describe(FrameInput(forward=True, lp=True).bits) == "→ LP"
    assert InputHistory.describe(FrameInput(down=True, back=True, guard=True).bits) == "↙ G"


# ---------------------------------------------------------------- overlay
def test_render_overlay_implements_the_debug_draw_protocol_and_filters_by_prefix():
    from game.render.overlay import DEFAULT_COLOR, DebugOverlay, color_of
    from game.sim.debug import DebugDraw

    ov = DebugOverlay()
    for name in ("box", "point", "segment", "quad", "rect_xz", "text"):
        assert callable(getattr(ov, name)) and hasattr(DebugDraw, name)
    ov.box(np.array([[0, 0, 0], [1, 2, 3]]), "hurt")
    ov.box(np.array([[0, 0, 0], [1, 1, 1]]), "crate_slab")
    ov.point(np.zeros(3), "collision")
    ov.segment(np.zeros(3), np.ones(3), "ray_nearest")
    ov.quad(np.eye(4, 3), "crate_face")
    ov.rect_xz(np.array([[0, 0], [1, 1]]), 0.0, "quadtree")
    ov.text(np.zeros(3), "hello", "label")
    ov.box(np.array([[0, 0, 0], [1, 1, 1]]), "something_new")
    segs = ov.segments()
    assert len(segs) == 12 + 12 + 7 + 1 + 4 + 4 + 12 and len(ov.colors()) == len(segs)
    assert color_of("something_new") == DEFAULT_COLOR and color_of("crate_slab") == color_of("crate")
    hurt = segs[(ov.colors() == color_of("hurt")).all(axis=1)]     # drawn in layer order: found by colour
    assert (hurt.reshape(-1, 3).max(axis=0) == [1, 2, 3]).all()
    from game.render.overlay import box_edges
    assert np.allclose(hurt, box_edges(np.array([[0, 0, 0], [1, 2, 3]])))        # batched == per-box reference
    ov.clear()
    ov.show["crates"] = ov.show["rays"] = ov.show["quadtree"] = False
    ov.box(np.zeros((2, 3)), "crate_slab")
    ov.segment(np.zeros(3), np.ones(3), "ray_any")
    ov.rect_xz(np.zeros((2, 2)), 0.0, "quadtree")
    ov.box(np.zeros((2, 3)), "hit")
    assert len(ov.segments()) == 12


def test_render_A4_A7_overlay_draws_what_the_match_describes():
    from game.render.overlay import DebugOverlay
    from game.sim.debug import RecordingDraw

    m = Match.new(seed=2, p1_cpu="hard", p2_cpu="hard")
    for _ in range(900):
        m.step()
        if m.contacts:
            break
    rec, ov = RecordingDraw(), DebugOverlay()
    m.debug_draw(rec)
    m.debug_draw(ov)
    n_boxes = len(rec.of("box"))
    assert len(ov.segments()) >= 12 * n_boxes


def test_render_B2_B5_overlay_tells_the_last_strike_apart_from_the_crate_slabs():
    """F1/F2 show a crate's slabs with its last strike's target face, interaction region and
    fill faces (README).  All four kinds share the 'crate' prefix and used to get its one
    orange, so the strike vanished among the slab edges: each now has its own colour."""
    from game.render.overlay import DebugOverlay, color_of
    from game.sim import CrateStruck, FrameInput

    m = Match.new(seed=0)
    while m.phase != "fight":
        m.step(FrameInput(), FrameInput())
    f1, f2 = m.fighters
    f1.x, f1.z = 0.0, 3.72                # just south of crate_north, facing it
    f2.x, f2.z = 0.0, 8.0
    m.step(FrameInput(), FrameInput())
    struck = []
    m.step(FrameInput(hp=True), FrameInput())
    for _ in range(40):
        struck += [e for e in m.step(FrameInput(), FrameInput()) if isinstance(e, CrateStruck)]
    assert struck, "the scripted straight never reached the crate"
    ov = DebugOverlay()
    m.stage.debug_draw(ov)
    segs, cols = ov.segments(), ov.colors()
    kinds = ("crate_slab", "crate_target_face", "crate_region", "crate_fill_face")
    rgb = {k: tuple(color_of(k)[:3]) for k in kinds}
    assert len(set(rgb.values())) == 4, rgb
    for k in kinds:                       # each kind is in the drawn segments, in its colour
        n = int((np.abs(cols[:, :3] - rgb[k]).max(axis=1) < 1e-9).sum())
        assert n >= 4, (k, n)
    assert len(segs) == len(cols)


def test_render_pure_modules_do_not_import_pyglet():
    code = ("import sys; import game.render.camera, game.render.sparks, game.render.overlay, "
            "game.render.training, game.render.controls, game.render.geometry; "
            "print('pyglet' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_render_overlay_culling_keeps_every_visible_segment():
    """The line pass's frustum cull against a per-segment reference (sampled points on screen)."""
    from game.render.camera import FightCamera
    from game.render.passes import cull_segments

    rng = np.random.default_rng(4)
    segs = rng.uniform([-15, 0, -15], [15, 4, 15], size=(400, 2, 3))
    cols = rng.random((400, 4))
    cam = FightCamera()
    view, proj, _ = cam.matrices(16 / 9)
    vp = proj @ view
    kept, kcols = cull_segments(segs, cols, vp)
    kept_set = {s.tobytes() for s in kept}
    for s in segs:          # reference: a segment with any sampled point inside the view must be kept
        pts = s[0] + (s[1] - s[0]) * np.linspace(0, 1, 200)[:, None]
        h = np.concatenate([pts, np.ones((200, 1))], axis=1) @ vp.T
        inside = (h[:, 3] > 0.05) & (np.abs(h[:, 0]) <= h[:, 3]) & (np.abs(h[:, 1]) <= h[:, 3])
        if inside.any():
            assert s.tobytes() in kept_set
    assert len(kept) < len(segs) and len(kcols) == len(kept)


def test_render_C7_camera_collision_ray_keeps_a_pillar_out_of_the_view():
    """C7 camera collision: with the fighters beside a pillar, the eye leaves the blocked spot
    (pulled in front of the pillar, or, as now, swung round to a view that frames them: the
    pulled-in eye sat 1.6 m from fighters 3 m apart, both off the screen), and no scene
    triangle (nearest-hit reference over the whole scene) lies between eye and target."""
    from game.render.camera import FightCamera
    from game.render.geometry import camera_ray
    from game.sim.arena import load_arena

    scene = load_arena().scene
    pillar = next(o for o in load_arena().objects if o.kind == "pillar").aabb
    cx, cz = (pillar[0, 0] + pillar[1, 0]) / 2, (pillar[0, 2] + pillar[1, 2]) / 2
    # fighters side by side along x, 2.5 m in front (-z side) of the pillar: the free camera sits behind it
    p1, p2 = np.array([cx - 1.5, 0, cz - 2.6]), np.array([cx + 1.5, 0, cz - 2.6])
    free = FightCamera(p1, p2)              # looks from +z (the fighters' line runs along +x)
    eye_free, tgt = free.eye_target()
    d = eye_free - tgt
    assert scene.cast_nearest(tgt, d / np.linalg.norm(d), np.linalg.norm(d), level=1) is not None
    cam = FightCamera(p1, p2, ray=camera_ray(scene))
    eye, tgt = cam.eye_target()
    d = eye - tgt
    assert np.linalg.norm(eye - eye_free) > 0.5
    assert scene.cast_nearest(tgt, d / np.linalg.norm(d), np.linalg.norm(d), level=1) is None


def test_render_fighter_mesh_is_outward_wound_so_back_faces_can_be_culled():
    """The fighters pass culls back faces (GL_CULL_FACE, counter-clockwise front): safe
    only if every triangle of every limb is wound counter-clockwise seen from outside,
    i.e. its geometric normal agrees with the mesh's outward vertex normals."""
    from game.render.geometry import fighter_mesh

    m = Match.new(seed=0)
    for detail in (None, 1):        # the drawn mesh and the shadows' coarser one
        _assert_outward(*fighter_mesh(m.data.skeleton, list(m.data.fighters),
                                      **({} if detail is None else {"detail": detail})))


def _assert_outward(verts, idx):
    tri = idx.reshape(-1, 3)
    p = verts[:, :3].astype(float)[tri]                                   # (T, 3, 3)
    n = verts[:, 3:6].astype(float)[tri].sum(axis=1)                      # (T, 3)
    geo = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    area = np.linalg.norm(geo, axis=1)
    real = area > 1e-12
    assert real.sum() > 0.9 * len(tri)
    cos = np.einsum("ij,ij->i", geo[real], n[real]) / (area[real] * np.linalg.norm(n[real], axis=1))
    assert cos.min() > 0.0, f"{int((cos <= 0).sum())} inward-wound triangles"


def test_render_coarse_floor_covers_exactly_the_scene_floor_facing_up():
    """The drawn floor is the scene's 1 m-tile floor model re-cut into ~3 m squares: the
    same rectangle, no gap or overlap (every sample point inside exactly one triangle),
    every triangle facing up; a floor that is not a flat rectangle is left as it is."""
    from game.render.geometry import coarse_floor
    from game.sim.arena import load_arena

    arena = load_arena()
    floor = next(o for o in arena.objects if o.kind == "floor")
    tiles = np.asarray(arena.scene.models[floor.model].world_triangles, dtype=float)
    grid = coarse_floor(tiles)
    assert len(grid) * 4 < len(tiles)
    lo, hi = tiles.reshape(-1, 3).min(axis=0), tiles.reshape(-1, 3).max(axis=0)
    np.testing.assert_array_equal(grid.reshape(-1, 3).min(axis=0), lo)
    np.testing.assert_array_equal(grid.reshape(-1, 3).max(axis=0), hi)
    n = np.cross(grid[:, 1] - grid[:, 0], grid[:, 2] - grid[:, 0])
    assert (n[:, 1] > 0).all() and np.abs(n[:, [0, 2]]).max() == 0
    # per-point reference: how many triangles hold each of a lattice of points (edges avoided)
    pts = np.stack(np.meshgrid(np.linspace(lo[0], hi[0], 41)[:-1] + 0.013,
                               np.linspace(lo[2], hi[2], 37)[:-1] + 0.017), -1).reshape(-1, 2)
    a, b, c = (grid[:, k, [0, 2]] for k in range(3))
    def side(p, q, r):
        return (q[None, :, 0] - p[None, :, 0]) * (r[:, None, 1] - p[None, :, 1]) - \
               (q[None, :, 1] - p[None, :, 1]) * (r[:, None, 0] - p[None, :, 0])
    s1, s2, s3 = side(a, b, pts), side(b, c, pts), side(c, a, pts)
    inside = ((s1 >= 0) & (s2 >= 0) & (s3 >= 0)) | ((s1 <= 0) & (s2 <= 0) & (s3 <= 0))
    assert (inside.sum(axis=1) == 1).all()
    # not a flat rectangle: unchanged
    tilted = tiles.copy()
    tilted[0, 0, 1] = 0.5
    np.testing.assert_array_equal(coarse_floor(tilted), tilted)
    np.testing.assert_array_equal(coarse_floor(tiles[:-1]), tiles[:-1])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(-50, 50), min_size=9, max_size=9))
def test_render_look_at_equals_pyrr_create_look_at_transposed(coords):
    """The per-frame look_at on floats gives pyrr's matrix (the reference), transposed."""
    from pyrr import matrix44

    from game.render.projection import look_at
    eye, target, up = np.array(coords[:3]), np.array(coords[3:6]), np.array(coords[6:])
    d = target - eye
    if np.linalg.norm(d) < 1e-2 or np.linalg.norm(up) < 1e-2 or \
            np.linalg.norm(np.cross(d, up)) < 1e-2 * np.linalg.norm(d) * np.linalg.norm(up):
        return                                            # no view direction, or up along it
    ref = matrix44.create_look_at(eye, target, up, dtype=float).T
    got = look_at(eye, target, up)
    assert got.shape == (4, 4) and got.dtype == np.float64 and got.flags.c_contiguous
    assert np.allclose(got, ref, rtol=1e-12, atol=1e-12 * (1.0 + np.abs(eye).max()))
    assert np.array_equal(look_at(list(eye), tuple(target), list(up)), got)      # any sequence of 3


def test_render_look_at_without_a_view_direction_says_so():
    from game.render.projection import look_at
    for eye, target, up in (((1.0, 2.0, 3.0), (1.0, 2.0, 3.0), (0.0, 1.0, 0.0)),    # eye on the target
                            ((0.0, 0.0, 0.0), (0.0, 5.0, 0.0), (0.0, 1.0, 0.0))):   # looking straight up
        with pytest.raises(ValueError, match="no view direction"):
            look_at(eye, target, up)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-20, 20), min_size=6, max_size=6), st.floats(20, 90), st.floats(0.5, 3.0))
def test_render_camera_matrices_follow_opengl_conventions(coords, fovy, aspect):
    """look_at puts the eye at the origin looking down -z with +y up; perspective maps the
    near plane to NDC depth -1, the far plane to +1 and the view cone's edge to +-1."""
    from game.render.projection import FAR, NEAR, look_at, perspective
    eye, target = np.array(coords[:3]), np.array(coords[3:])
    d = target - eye
    if np.linalg.norm(d) < 1e-3 or np.linalg.norm(np.cross(d, [0.0, 1.0, 0.0])) < 1e-3 * np.linalg.norm(d):
        return                                           # no view direction, or looking straight up or down
    v = look_at(eye, target)
    assert v.flags.c_contiguous and v.shape == (4, 4)
    assert np.allclose(v @ [*eye, 1.0], [0, 0, 0, 1], atol=1e-9)
    t = v @ [*target, 1.0]
    assert np.allclose(t[:2], 0, atol=1e-9) and t[2] == pytest.approx(-np.linalg.norm(d))
    assert np.allclose(v[:3, :3] @ v[:3, :3].T, np.eye(3), atol=1e-12)        # a rigid motion
    assert (v @ [*(eye + [0.0, 1.0, 0.0]), 1.0])[1] > 0                          # world up stays up
    p = perspective(fovy, aspect)
    half = np.tan(np.radians(fovy) / 2)
    for z, depth in ((NEAR, -1.0), (FAR, 1.0)):
        h = p @ [aspect * half * z, half * z, -z, 1.0]           # the cone's top-right edge at distance z
        assert h[:3] / h[3] == pytest.approx([1.0, 1.0, depth])


def _settled_camera(p1, p2, frames: int = 120):
    """The game's camera (arena obstacles, the scene's C7 ray) settled on fighters standing
    at ``p1`` / ``p2`` (x, z): ``(eye, target, arena)``."""
    from game.render.camera import FightCamera
    from game.render.geometry import camera_obstacles, camera_ray
    from game.sim.arena import load_arena

    arena = load_arena()
    a, b = np.array([p1[0], 0.0, p1[1]]), np.array([p2[0], 0.0, p2[1]])
    cam = FightCamera(a, b, obstacles=camera_obstacles(arena), ray=camera_ray(arena.scene))
    for f in range(frames):
        cam.update(a, b, f)
    eye, tgt = cam.eye_target()
    return eye, tgt, arena


def _view_problems(eye, tgt, fighters, arena) -> list[str]:
    """What a player would see wrong: the eye in a pillar or wall (20 cm or more inside its
    box: the pillars are octagons in theirs), a fighter hidden behind one (C7 ray from the eye
    to the torso and the head), or a fighter's torso off a 16:9 screen."""
    from game.render.camera import FOV_Y
    from game.render.projection import look_at, perspective, project

    scene = arena.scene
    out = []
    inset = np.array([0.2, 0.0, 0.2])
    for o in arena.objects:
        if o.kind in ("pillar", "wall") and ((o.aabb[0] + inset < eye) & (eye < o.aabb[1] - inset)).all():
            out.append(f"eye {np.round(eye, 2)} inside {o.name}")
    vp = perspective(FOV_Y, 16 / 9) @ look_at(eye, tgt)
    for i, (x, z) in enumerate(fighters):
        for h in (0.95, 1.5):
            p = np.array([x, h, z])
            d = p - eye
            if scene.cast_nearest_distance(eye, d / np.linalg.norm(d), np.linalg.norm(d), level=1) is not None:
                out.append(f"fighter {i + 1} hidden at height {h}")
        px, py = project(np.array([x, 0.95, z]), vp, 1280, 720)
        if not (0 <= px < 1280 and 0 <= py < 720):
            out.append(f"fighter {i + 1} off screen at ({px:.0f}, {py:.0f})")
    return out


@pytest.mark.parametrize("where, p1, p2", [
    ("beside a pillar", (5.2, 6.9), (6.03, 5.3)),        # the pillar 0.8 m from their midpoint
    ("a pillar between them", (7.0, 5.6), (7.0, 8.4)),   # their midpoint inside the pillar
    ("along the north wall", (-1.0, 14.3), (1.0, 14.3)),  # the eye's side is the wall
])
def test_render_C7_camera_never_sits_in_a_pillar_and_keeps_both_fighters_in_view(where, p1, p2):
    """Fighters next to a pillar or a wall: the eye pulled toward the target used to stop at
    30 % of its distance even when the obstacle was nearer, inside the pillar (a screen of
    stone), looking at the pillar from 1.6 m, or at the floor from the wall; the camera now
    swings round to a clear side, so both fighters stay visible."""
    eye, tgt, arena = _settled_camera(p1, p2)
    assert _view_problems(eye, tgt, (p1, p2), arena) == [], where


def test_render_camera_keeps_its_view_where_nothing_is_in_the_way():
    """With no obstacle near, the camera still looks straight across the fighters' line."""
    from game.render.camera import FightCamera

    eye, tgt, _ = _settled_camera((-2.0, -1.5), (-2.0, 1.5))
    free_eye, free_tgt = FightCamera(np.array([-2.0, 0, -1.5]), np.array([-2.0, 0, 1.5])).eye_target()
    assert np.allclose(eye, free_eye) and np.allclose(tgt, free_tgt)


def test_render_camera_swing_round_a_pillar_pans_smoothly():
    """Walking up to a pillar: the swing that keeps the fighters in view turns the view at
    most MAX_TURN a frame (a pan, not a whip), and the eye never enters the pillar meanwhile."""
    from game.render.camera import MAX_TURN, FightCamera
    from game.render.geometry import camera_obstacles, camera_ray
    from game.sim.arena import load_arena

    arena = load_arena()
    cam = FightCamera(np.array([3.2, 0, 4.9]), np.array([4.03, 0, 3.3]),
                      obstacles=camera_obstacles(arena), ray=camera_ray(arena.scene))
    pillar = next(o for o in arena.objects if o.name == "pillar_en").aabb
    turns = []
    for f in range(150):
        k = min(f / 60.0, 1.0)            # the pair walks 2 m toward the pillar in a second
        a, b = np.array([3.2 + 2 * k, 0, 4.9 + 2 * k]), np.array([4.03 + 2 * k, 0, 3.3 + 2 * k])
        before = cam.dir.copy()
        cam.update(a, b, f)
        turns.append(np.arccos(np.clip(before @ cam.dir, -1.0, 1.0)))
        eye = cam.current[0]
        assert not ((pillar[0] + [0.2, 0, 0.2] < eye) & (eye < pillar[1] - [0.2, 0, 0.2])).all(), (f, eye)
    assert max(turns) <= MAX_TURN + 1e-9
    assert sum(turns) > np.radians(20), "the camera swung round the pillar"
    eye, tgt = cam.eye_target()
    assert _view_problems(eye, tgt, ((5.2, 6.9), (6.03, 5.3)), arena) == []


def _arena_camera(p1, p2, rays: list | None = None):
    """The game's camera on the shipped arena; ``rays`` collects one entry per ray cast."""
    from game.render.camera import FightCamera
    from game.render.geometry import camera_obstacles, camera_ray
    from game.sim.arena import load_arena

    arena = load_arena()
    cast = camera_ray(arena.scene)
    if rays is not None:
        def cast(o, d, m, _cast=cast):
            rays.append(1)
            return _cast(o, d, m)
    return FightCamera(np.array([p1[0], 0, p1[1]]), np.array([p2[0], 0, p2[1]]),
                       obstacles=camera_obstacles(arena), ray=cast)


def test_render_C7_camera_swing_search_casts_a_bounded_number_of_rays_per_frame():
    """A swing search spreads its turns over frames: one update scores the goal view, the
    kept turn and SEARCH_STEP turns (each at most 5 rays: 2 to look out of a pillar, 1 along
    the view, 1 per fighter) plus the eye's pull-in (3), not all 16 turns (up to 8 ms)."""
    from game.render.camera import SEARCH_STEP, SWING

    rays: list = []
    cam = _arena_camera((3.2, 4.9), (4.03, 3.3), rays)
    per_frame, searched = [], 0
    for f in range(150):
        k = min(f / 60.0, 1.0)            # the pair walks 2 m toward pillar_en, then stays
        a, b = np.array([3.2 + 2 * k, 0, 4.9 + 2 * k]), np.array([4.03 + 2 * k, 0, 3.3 + 2 * k])
        rays.clear()
        cam.update(a, b, f)
        per_frame.append(len(rays))
        searched += cam._scores is not None
    bound = 5 * (2 + SEARCH_STEP) + 3
    assert max(per_frame) <= bound < 5 * len(SWING)
    assert searched > 0, "the walk made the camera search for a clear view"


@pytest.mark.parametrize("p1, p2, came_from", [((5.2, 6.9), (6.03, 5.3), (-2.0, -2.0)),
                                               ((6.0, 5.2), (8.0, 5.2), (0.0, -3.0)),
                                               ((-1.0, 14.3), (1.0, 14.3), (0.0, -4.0))])
def test_render_C7_camera_search_spread_over_frames_settles_where_one_full_search_does(p1, p2, came_from):
    """The reference is the search done whole in each update (search_step None): the pair
    walks in a second from open floor to a pillar or a wall and stands there; both cameras
    settle on the same view, and the spread one did have to search on the way."""
    start = [np.array([x + came_from[0], 0, z + came_from[1]]) for x, z in (p1, p2)]
    cams = [_arena_camera(*[(q[0], q[2]) for q in start]) for _ in range(2)]
    cams[1].search_step = None
    searched = 0
    for f in range(240):
        k = min(f / 60.0, 1.0)
        a, b = (np.array([x + (1 - k) * came_from[0], 0, z + (1 - k) * came_from[1]]) for x, z in (p1, p2))
        for cam in cams:
            cam.update(a, b, f)
        searched += cams[0]._scores is not None
    (e0, t0), (e1, t1) = (cam.eye_target() for cam in cams)
    assert searched > 0
    assert np.allclose(e0, e1, atol=1e-3) and np.allclose(t0, t1, atol=1e-3)
    from game.sim.arena import load_arena

    assert _view_problems(e0, t0, (p1, p2), load_arena()) == []


def test_render_C7_camera_swing_pruned_scores_pick_the_turn_every_ray_would():
    """The swing's scores stop casting once a turn cannot win; the reference scores every
    turn with all its rays (view along the turn, then each fighter to where the eye stops and
    rises) and takes the first best by the same rule (the goal view's head start SWING_GAIN, a
    turn past 90 degrees weighted by FLIP_COST).
    Pairs of fighters around pillar_en (centre (7, 7)), seeded, kept where the camera has to
    swing."""
    from game.render.camera import FLIP_COST, OBSTACLE_MARGIN, SWING, SWING_GAIN, _turn

    rng = np.random.default_rng(5)
    cases = turned = 0
    while cases < 40:
        r, phi = rng.uniform(0.0, 3.0), rng.uniform(0, 2 * np.pi)
        angle, sep = rng.uniform(0, np.pi), rng.uniform(0.8, 3.5)
        c = np.array([7.0 + r * np.cos(phi), 7.0 + r * np.sin(phi)])
        d = np.array([np.cos(angle), np.sin(angle)]) * sep / 2
        p1, p2 = tuple(c - d), tuple(c + d)
        cam = _arena_camera(p1, p2)
        a, b = np.array([p1[0], 0, p1[1]]), np.array([p2[0], 0, p2[1]])
        target, n, dist = cam._goal(a, b)
        bodies = [np.array([p[0], target[1], p[2]]) for p in (a, b)]

        def full(deg, n=n, cam=cam, target=target, a=a, b=b, dist=dist, bodies=bodies):
            # this iteration's pair, bound now (the closure is called only within the iteration)
            u = _turn(n, deg)
            need = cam._need(target, u, (a, b))
            reach = max(dist, need)
            eye = cam._place(target, u, reach, clamp=False)
            clear, length, _ = cam._clear(target, eye)
            framed = min(min(clear, length) / length * reach / need, 1.0)
            if clear < length:
                eye = target + (eye - target) * (max(clear - OBSTACLE_MARGIN, 0.5 * clear) / length)
            eye[1] += cam._rise_for(np.hypot(eye[0] - target[0], eye[2] - target[2]), need)
            hidden = sum(not cam._sees(q, eye) for q in bodies)
            return framed * abs(np.cos(np.radians(deg))) * 0.5 ** hidden, hidden

        v, hidden = full(0)
        if v >= 1.0 - 1e-6 and not hidden:
            continue                          # a view that frames them: no swing to compare
        first = 1 if n[0] * cam.dir[1] - n[1] * cam.dir[0] >= 0.0 else -1
        expect, best = 0, v * SWING_GAIN
        for deg in (s * first for s in SWING):
            score = full(deg)[0] * (FLIP_COST if abs(deg) > 90 else 1.0)    # round to the other side costs
            if score > best + 1e-6:
                expect, best = deg, score
        cam._offset, cam._scores, cam._flipped = 0, None, 0
        got = cam._swing(target, n, dist, (a, b))
        assert np.allclose(got, _turn(n, expect)), (p1, p2, expect, got)
        cases += 1
        turned += expect != 0
    assert turned >= 8


def test_render_camera_looks_over_a_crate_between_it_and_the_fighters():
    """Fighters 5 m apart across the arena's centre put crate_north 2 m in front of the eye:
    the eye used to stay at 1.55 m with the crate hiding the middle of the fight.  It rises
    until its line to the fighters' middle (0.95 m) clears the crate, and no higher."""
    from game.render.camera import EYE_HEIGHT, OVER_CLEAR, OVER_MAX, TARGET_HEIGHT
    from game.render.sightlines import first_blocker

    eye, _tgt, arena = _settled_camera((-2.5, 0.0), (2.5, 0.0), frames=240)
    crate = next(o for o in arena.objects if o.name == "crate_north").aabb
    middle = np.array([0.0, TARGET_HEIGHT, 0.0])
    assert first_blocker(eye, middle, crate[None]) >= 1.0                       # the middle is in sight
    raised = crate + np.array([[0, 0, 0], [0, OVER_CLEAR + 0.01, 0]])          # a crate 16 cm taller
    assert first_blocker(eye, middle, raised[None]) < 1.0                      # as low as it can be
    assert EYE_HEIGHT < eye[1] < OVER_MAX


def test_render_camera_eye_height_matches_a_sampled_reference():
    """``_wanted_eye_y`` (Python floats, slab entry of the target -> eye segment) against a
    reference that walks the segment in 1e-4 steps to find where it first enters each low
    box: the near-eye lift and the look-over height agree to 5 mm.  Seeded views from 1-5 m
    beside each low obstacle, looking at it (and some away), at every eye distance."""
    from game.render.camera import EYE_HEIGHT, LIFT_CLEAR, LIFT_REACH, OVER_CLEAR, OVER_MAX, OVER_MIN, TARGET_HEIGHT

    cam = _arena_camera((-1.5, 0.0), (1.5, 0.0))
    rng = np.random.default_rng(11)
    raised = 0
    for _ in range(160):
        lo, hi = cam.low[rng.integers(len(cam.low))]
        centre = (lo + hi)[[0, 2]] / 2
        phi = rng.uniform(0, 2 * np.pi)
        target = centre + rng.uniform(1.0, 5.0) * np.array([np.cos(phi), np.sin(phi)])
        towards = centre - target
        angle = np.arctan2(towards[1], towards[0]) + rng.normal(0.0, 0.3) + (np.pi if rng.random() < 0.2 else 0.0)
        cam.target = np.array([target[0], TARGET_HEIGHT, target[1]])
        cam.dir, cam.dist = np.array([np.cos(angle), np.sin(angle)]), rng.uniform(4.3, 10.0)
        eye = target + cam.dir * cam.dist
        t = np.arange(0.0, 1.0, 1e-4)
        path = target + t[:, None] * (eye - target)
        want = EYE_HEIGHT
        for blo, bhi in cam.low:
            gap = np.maximum(np.maximum(blo[[0, 2]] - eye, eye - bhi[[0, 2]]), 0.0)
            if np.hypot(*gap) < LIFT_REACH:
                want = max(want, bhi[1] + LIFT_CLEAR)
            inside = ((blo[[0, 2]] <= path) & (path <= bhi[[0, 2]])).all(axis=1)
            if inside.any() and bhi[1] + OVER_CLEAR > TARGET_HEIGHT:
                t0 = t[np.argmax(inside)]
                if t0 >= OVER_MIN:
                    want = max(want, min(TARGET_HEIGHT + (bhi[1] + OVER_CLEAR - TARGET_HEIGHT) / t0, OVER_MAX))
        assert cam._wanted_eye_y() == pytest.approx(want, abs=5e-3)
        raised += want > EYE_HEIGHT
    assert raised >= 30


@pytest.mark.parametrize("sep,toward", [(1.0, False), (1.0, True), (2.2, False), (3.0, True)])
def test_render_camera_keeps_a_jumper_below_the_health_bars_and_the_other_fighter_s_feet_on_screen(sep, toward):
    """The jump's apex lifts every limb 1.25 m (over a fireball): the camera rises and backs off
    with it, so the jumper's highest range box corner stays under the HUD's bars (the top tenth
    of the screen) and the fighter on the ground keeps its feet in view, on every frame of the jump."""
    from game.render.camera import FightCamera
    from game.render.projection import project

    m = Match.new(seed=0)
    while m.phase != "fight":
        m.step()
    f1, f2 = m.fighters
    cam = FightCamera(f1.position, f2.position)

    def step(a):
        m.step(a, FrameInput())
        top = max((float(f.limb_boxes()[:, 1, 1].max()) for f in (f1, f2) if f.airborne), default=None)
        cam.update(f1.position, f2.position, m.frame, top)     # as Game.step does

    while np.linalg.norm(f1.position - f2.position) > sep:
        step(FrameInput(forward=True))
    for _ in range(60):
        step(FrameInput())
    step(FrameInput(up=True, forward=toward))
    highest, lowest, apex = np.inf, -np.inf, 0.0
    for _ in range(45):
        step(FrameInput())
        view, proj, _ = cam.matrices(16 / 9)
        b = np.concatenate([f1.limb_boxes(), f2.limb_boxes()])
        apex = max(apex, float(f1.limb_boxes()[:, 0, 1].min()))
        corners = np.stack([b[:, [i, j, k], [0, 1, 2]] for i in (0, 1) for j in (0, 1) for k in (0, 1)], 1)
        px = project(corners.reshape(-1, 3), proj @ view, 1280, 720)
        highest, lowest = min(highest, px[:, 1].min()), max(lowest, px[:, 1].max())
    assert apex > 1.0, "the scripted jump did not leave the ground"
    assert highest >= 0.1 * 720, \
        f"the jumper's top reached pixel row {highest:.0f}: under the health bars or off screen"
    assert lowest <= 720, f"a fighter's feet left the bottom of the screen (row {lowest:.0f})"
