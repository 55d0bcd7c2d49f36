"""What the window draws (headless EGL, llvmpipe), checked in pixels: both fighters, the hit
spark at the A7 point, shadows, the floor's tiles, the fighters' level of detail, the loop at
irregular frame times, dynamic resolution, and GL's uniforms.  Every expectation is computed
from the simulation's own state projected with the renderer's camera matrices."""

from __future__ import annotations

import numpy as np
import pytest

from glhelp import fresh, game_env, script_punch

#: every test here draws in a headless GL window
pytestmark = pytest.mark.gl

W, H = 640, 360


@pytest.fixture(scope="module")
def env():
    yield from game_env(W, H)


def _project(game, pts):
    from game.render.projection import project

    return project(np.asarray(pts, dtype=float), game.view_proj, W, H)


def _limb_centre(game, fighter: int, limb: str) -> np.ndarray:
    m = game.match
    f = m.fighters[fighter]
    li = f.limb_names.index(limb)
    rot, origin = f.limb_frames()
    return origin[li] + rot[li] @ m.data.skeleton.center[li]


@pytest.mark.slow
def test_render_frame_not_blank_and_shows_both_fighters_colours(env):
    from game.render.offscreen import frame_pixels

    _, _, game = env
    fresh(game)
    for _ in range(20):
        game.step()
    img = frame_pixels(game).astype(int)
    assert img.std() > 20, "frame is (nearly) uniform"
    # around each torso's projected centre, pixels must carry that fighter's primary colour
    for fi, dominant in ((0, 0), (1, 2)):
        primary = np.array(game.match.data.fighters[fi]["colors"]["primary"])
        assert int(np.argmax(primary)) == dominant
        x, y = _project(game, _limb_centre(game, fi, "torso")).astype(int)
        patch = img[max(y - 12, 0):y + 12, max(x - 12, 0):x + 12]
        others = [c for c in range(3) if c != dominant]
        tinted = ((patch[..., dominant] > patch[..., others[0]] + 40)
                  & (patch[..., dominant] > patch[..., others[1]] + 40))
        assert tinted.mean() > 0.2, f"fighter {fi + 1}'s torso colour not found at ({x}, {y})"


@pytest.mark.slow
def test_render_A8_hit_spark_appears_at_the_A7_collision_point(env):
    from game.render.offscreen import frame_pixels

    _, _, game = env
    fresh(game, p2="human")
    hit = script_punch(game)
    assert hit.attacker == 0 and hit.move == "lp"
    game.step()                       # one frame into hitstop: flash + sparks
    with_sparks = frame_pixels(game).astype(int)
    saved = game.sparks.p, game.sparks.prev_pos
    game.sparks.p, game.sparks.prev_pos = saved[0][:0], saved[1][:0]     # particles off, body flash kept
    without = frame_pixels(game).astype(int)
    game.sparks.p, game.sparks.prev_pos = saved
    x, y = _project(game, hit.point).round().astype(int)
    brighter = (with_sparks - without).sum(axis=-1) > 90
    yy, xx = np.mgrid[0:H, 0:W]
    near = (xx - x) ** 2 + (yy - y) ** 2 <= 25 ** 2
    assert brighter[near].sum() > 30, f"no spark pixels near the projected collision point ({x}, {y})"
    assert brighter[~near].sum() < brighter[near].sum(), "spark pixels are mostly away from the hit"
    # a plain hit is warm (orange/yellow): red gains more than blue where it brightened
    gain = (with_sparks - without)[near & brighter]
    assert gain[:, 0].mean() > gain[:, 2].mean()


@pytest.mark.slow
@pytest.mark.parametrize("pattern", ["jittery", "stalls"])
def test_render_game_loop_at_irregular_frame_times_matches_fixed_stepping(env, pattern):
    """main.py's loop with the real Game: FixedStep turns irregular frame times into
    ``game.step()`` calls, and every displayed frame is drawn at its alpha with the debug
    overlay on (``match.debug_draw``, crate meshes, sparks, HUD).  Each tick is one match
    step, and the match ends in the same ``state_hash`` as a bare match stepped as often."""
    from game.cli.timestep import FixedStep
    from game.sim import Match

    _pyglet, _window, game = env
    fresh(game, p1="cpu", p2="cpu", seed=5)
    game.screen = "fight"
    game.overlay.enabled = True
    rng = np.random.default_rng(11)
    elapsed = {"jittery": rng.uniform(0.001, 0.05, 150),
               "stalls": np.where(rng.random(150) < 0.1, 0.3, 0.006)}[pattern]
    ticks = [0]

    def tick():
        ticks[0] += 1
        game.step()

    loop = FixedStep(tick)
    for e in elapsed:
        game.draw(loop.advance(e))
    m = game.match
    assert not m.over and m.frame == ticks[0] > 60
    ref = Match.new(seed=5, p1_cpu=game.level, p2_cpu=game.level)
    for _ in range(m.frame):
        ref.step()
    assert m.state_hash() == ref.state_hash()
    game.overlay.enabled = False


@pytest.mark.slow
def test_render_shadow_pass_culls_back_faces_and_casts_the_same_shadow(env):
    """Culling the shadow triangles that face away from the sun keeps every shadow pixel:
    against the reference (all triangles drawn) nothing differs by more than the height
    tint of the other side of a limb, while the shadows themselves are far darker than that."""
    from game.render.offscreen import frame_pixels

    _, _, game = env
    fresh(game, p1="cpu", p2="cpu", seed=3)
    world = game.world
    count = world.shadow_mesh.count
    try:
        for _ in range(4):
            for _ in range(45):
                game.step()
            assert world.cull_shadow_back_faces
            culled = frame_pixels(game).astype(int)
            world.cull_shadow_back_faces = False
            every = frame_pixels(game).astype(int)
            world.shadow_mesh.count = 0
            none = frame_pixels(game).astype(int)
            world.shadow_mesh.count, world.cull_shadow_back_faces = count, True
            shadow = (none - every).sum(axis=-1) > 45
            assert shadow.sum() > 200, "no fighter shadow in view"
            assert np.abs(culled - every).max() <= 8
            assert ((none - culled).sum(axis=-1) > 45).sum() >= shadow.sum() * 0.99
    finally:
        world.shadow_mesh.count, world.cull_shadow_back_faces = count, True


def test_render_saved_frame_is_opaque_where_the_fighters_shadows_fall(env):
    """The shadow pass blends its colour but keeps the framebuffer's alpha at 1: an alpha of
    0.75 under every shadow would show a saved frame (``--screenshot``, the colour buffer's
    PNG) with the shadows washed out over whatever a viewer puts behind it, and a crate chunk
    drawn later over a shadow would keep that alpha (a pale fighter-shaped streak)."""
    import ctypes

    from pyglet import gl

    from game.render.offscreen import frame_pixels

    _, _, game = env
    fresh(game, p1="cpu", p2="cpu", seed=3)
    for _ in range(45):
        game.step()
    count = game.world.shadow_mesh.count
    game.world.shadow_mesh.count = 0
    try:
        none = frame_pixels(game).astype(int)
    finally:
        game.world.shadow_mesh.count = count
    with_shadows = frame_pixels(game).astype(int)
    rgba = np.empty((H, W, 4), dtype=np.uint8)
    gl.glPixelStorei(gl.GL_PACK_ALIGNMENT, 1)
    gl.glReadPixels(0, 0, W, H, gl.GL_RGBA, gl.GL_UNSIGNED_BYTE, rgba.ctypes.data_as(ctypes.c_void_p))
    alpha = rgba[::-1, :, 3]
    shadow = (none - with_shadows).sum(axis=-1) > 45
    assert shadow.sum() > 200, "no fighter shadow in view"
    assert (alpha[shadow] == 255).all(), f"alpha {np.unique(alpha[shadow])} under the shadows"
    assert (alpha == 255).all()


@pytest.mark.parametrize("full, half, keeps", [(0.0167, None, None), (0.025, 0.024, False), (0.025, 0.015, True),
                                               (0.040, 0.035, True), (0.030, 0.028, False)])
def test_render_dynamic_resolution_is_kept_only_where_it_makes_frames_faster(env, full, half, keeps):
    """Game._adapt_scale against the rule it states, on synthetic frame clocks: full-resolution
    frames slower than 22 ms start a half-resolution trial; the next 45 frames keep it only if
    they come at least 10 % faster, else full resolution returns; then it never changes again.
    (On llvmpipe the upscale costs what the smaller 3D saves: a blind switch ran slower.)"""
    from collections import deque

    _, _, game = env
    saved = game.adaptive, game.render_scale, game._frame_times, game._full_res_period
    try:
        game.adaptive, game.render_scale, game._frame_times = True, 1.0, deque(maxlen=60)
        game._full_res_period = 0.0
        clock = [0.0]

        def frames(n, period):
            for _ in range(n):
                clock[0] += period
                game._frame_times.append(clock[0])
                game._adapt_scale()

        n = 0
        while game.render_scale == 1.0 and n < 300:
            frames(1, full)
            n += 1
        if half is None:                        # a healthy frame rate: no trial at all
            assert game.render_scale == 1.0 and game.adaptive
            return
        assert game.render_scale == 0.5 and game.adaptive, "slow frames start a half-resolution trial"
        assert n == 46, "after 45 frame periods"
        frames(45, half)
        assert game.render_scale == 0.5 and game.adaptive, "the trial waits for 45 frames of its own"
        frames(1, half)
        assert game.render_scale == (0.5 if keeps else 1.0)
        assert not game.adaptive
        frames(200, full * 2)                   # settled: even much slower frames change nothing
        assert game.render_scale == (0.5 if keeps else 1.0)
    finally:
        game.adaptive, game.render_scale, game._frame_times, game._full_res_period = saved


def test_render_uniform_setters_store_what_they_are_given(env):
    """``Program.mat4`` / ``Program.vec`` (every draw sets a few) leave in GL exactly the float32
    values given, read back with ``glGetUniformfv``; a vector of the wrong size is refused."""
    from pyglet import gl

    _, _, game = env
    rng = np.random.default_rng(11)

    def read(prog, name, n):
        out = (gl.GLfloat * n)()
        gl.glGetUniformfv(prog.id, gl.glGetUniformLocation(prog.id, name.encode()), out)
        return np.array(out, dtype=np.float32)

    fighter, world, sky = game.world.lit_fighter, game.world.lit_world[1], game.world.sky
    try:
        fighter.use()
        for _ in range(2):                     # twice: a second call must not keep the first values
            limbs, vp = rng.normal(size=(32, 4, 4)), rng.normal(size=(4, 4))
            fighter.mat4("u_limb", limbs)
            fighter.mat4("u_view_proj", vp)
            for i in (0, 5, 31):                 # uploaded row-major (transpose): GL reads back columns
                assert np.array_equal(read(fighter, f"u_limb[{i}]", 16), limbs[i].astype(np.float32).T.ravel())
            assert np.array_equal(read(fighter, "u_view_proj", 16), vp.astype(np.float32).T.ravel())
        for eye in (rng.normal(size=3), tuple(rng.normal(size=3)), list(rng.normal(size=3).astype(np.float32))):
            fighter.vec("u_eye", eye)
            assert np.array_equal(read(fighter, "u_eye", 3), np.asarray(eye, dtype=np.float32))
        with pytest.raises(ValueError, match="u_eye"):
            fighter.vec("u_eye", [1.0, 2.0, 3.0, 4.0, 5.0])
        world.use()
        for a in (0.00123, np.float32(0.25), np.float64(1.0 / 3.0), 2):
            world.vec("u_pixel_angle", a)
            assert read(world, "u_pixel_angle", 1)[0] == np.float32(a)
        sky.use()
        scale = (np.float64(0.7), np.float64(0.4))
        sky.vec("u_proj_scale", scale)
        assert np.array_equal(read(sky, "u_proj_scale", 2), np.asarray(scale, dtype=np.float32))
    finally:
        gl.glUseProgram(0)


@pytest.mark.slow
def test_render_floor_tiles_each_carry_their_own_tint_and_grout_between(env):
    """The floor's 1 m tiles (drawn per pixel by lit.frag's integer tile hash) each have one
    flat tint, the tints differ from tile to tile, and grout lines darken their borders.
    Seen from straight above an empty stretch of floor (x 9..13, z -4..1: no fighter, prop,
    shadow or ring there), sampled at the projected tile centres and borders."""
    from game.render.offscreen import frame_pixels
    from game.render.projection import look_at, perspective

    _, _, game = env
    fresh(game, p2="human")
    for _ in range(135):              # past the round's banners (no input: nobody moves)
        game.step()
    eye = np.array([11.0, 9.0, -1.5])
    game.matrices = lambda alpha, aspect: (look_at(eye, (11.0, 0.0, -1.5), up=(0.0, 0.0, 1.0)),
                                           perspective(45.0, aspect), eye)
    try:
        img = frame_pixels(game).astype(float).mean(axis=2)          # (H, W) brightness
    finally:
        del game.matrices
    means, spreads, grout = [], [], []
    for x in range(9, 13):
        for z in range(-4, 1):
            inner = np.array([[x + 0.5 + dx, 0.0, z + 0.5 + dz]
                              for dx in np.linspace(-0.3, 0.3, 5) for dz in np.linspace(-0.3, 0.3, 5)])
            px = _project(game, inner).round().astype(int)
            vals = img[px[:, 1], px[:, 0]]
            means.append(vals.mean())
            spreads.append(vals.max() - vals.min())
            edge = _project(game, [[x + 0.5, 0.0, z + 0.0]]).round().astype(int)[0]
            grout.append(img[edge[1] - 1:edge[1] + 2, edge[0] - 1:edge[0] + 2].min())
    means, spreads, grout = map(np.array, (means, spreads, grout))
    assert spreads.max() < 8, f"a tile is not one flat tint (brightness spread {spreads.max():.1f})"
    assert (grout < means - 15).all(), "grout lines do not darken the tile borders"
    # A tint changes in a step at each tile border; light and fog change smoothly.  Compare the
    # step across each x border (0.1 m either side of the grout) with the change over the same
    # 0.2 m inside a tile.
    def bright(p):
        q = _project(game, p).round().astype(int)
        return img[q[:, 1], q[:, 0]]
    across, inside = [], []
    for x in range(10, 13):
        for z in np.arange(-3.7, 0.8, 0.5):
            a, b = bright([[x - 0.1, 0.0, z], [x + 0.1, 0.0, z]])
            c, d = bright([[x + 0.4, 0.0, z], [x + 0.6, 0.0, z]])
            across.append(abs(b - a))
            inside.append(abs(d - c))
    across, inside = np.median(across), np.median(inside)
    assert across > 3.0 and across > 3.0 * inside + 1.0, \
        f"no tint steps between tiles: median step {across:.1f} across borders, {inside:.1f} inside"


@pytest.mark.slow
def test_render_fighters_thin_limbs_in_one_rim_segment_look_as_in_two(env):
    """The fighters' level of detail (``geometry.FINE_RIM``): the arms' and legs' rounded
    edges in one segment, the hips', torso's and head's in two, costs under 60 % of the
    triangles of every limb in two, and the frame stays close to that reference: within the
    fighters, less than 70 % of the difference every limb in one segment makes, and a few
    pixel values on average (the thin limbs' outlines move by a pixel here and there)."""
    from game.render.geometry import fighter_mesh
    from game.render.glutil import VertexArray
    from game.render.offscreen import frame_pixels

    _, _, game = env
    fresh(game, p1="cpu", p2="cpu", seed=3)
    world = game.world
    data = game.match.data

    def mesh(**kw):
        v, i = fighter_mesh(data.skeleton, list(data.fighters), **kw)
        vao = VertexArray([(0, 3), (1, 3), (2, 3), (3, 1)], indexed=True)
        vao.set_vertices(v)
        vao.set_indices(i)
        return vao

    ours, full, coarse = world.fighters, mesh(fine_rim=0.0), mesh(detail=1)
    assert ours.count < 0.6 * full.count and coarse.count < ours.count
    ratios = []
    try:
        for _ in range(3):
            for _ in range(60):
                game.step()
            img = {}
            for name, vao in (("ours", ours), ("full", full), ("coarse", coarse)):
                world.fighters = vao
                img[name] = frame_pixels(game).astype(int)
            world.fighters = ours
            n = ours.count
            ours.count = 0
            none = frame_pixels(game).astype(int)
            ours.count = n
            body = np.abs(img["full"] - none).sum(axis=-1) > 30
            assert body.sum() > 2000, "no fighter in view"
            d_ours = np.abs(img["ours"] - img["full"]).max(axis=-1)[body].mean()
            d_coarse = np.abs(img["coarse"] - img["full"]).max(axis=-1)[body].mean()
            assert d_ours < 6.0
            ratios.append(d_ours / d_coarse)
    finally:
        world.fighters = ours
    assert max(ratios) < 0.7, ratios
