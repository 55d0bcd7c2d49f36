"""Headless render tests (EGL, llvmpipe): what the window draws, checked in pixels.

Every expectation is computed from the simulation's own state projected with
the renderer's camera matrices; nothing is a stored image.
"""

from __future__ import annotations

import os

os.environ.setdefault("PYGLET_HEADLESS", "1")

import numpy as np
import pytest

from game.sim import FrameInput, Hit
from glhelp import edge_samples, fresh, game_env

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


def test_render_A6_overlay_draws_along_a_limb_range_box_edge(env):
    from game.render.offscreen import frame_pixels

    _, _, game = env
    fresh(game)
    for _ in range(20):
        game.step()
    off = frame_pixels(game).astype(int)
    game.overlay.enabled = True
    on = frame_pixels(game).astype(int)
    game.overlay.enabled = False
    diff = np.abs(on - off).sum(axis=-1) > 40
    f = game.match.fighters[0]
    box = f.limb_boxes()[f.limb_names.index("torso")]
    hits, total = edge_samples(diff, box, lambda p: _project(game, p), np.linspace(0.2, 0.8, 7))
    assert total > 40
    assert hits / total > 0.8, f"overlay changed only {hits}/{total} samples along the torso box edges"
    # and far from every fighter nothing changed (the overlay only draws what the sim described)
    assert not diff[: H // 6, : W // 8].any()


def _script_punch(game):
    """P1 walks forward until close, then presses LP; returns the first Hit event."""
    state = {"n": 0}

    def inputs():
        m = game.match
        state["n"] += 1
        if m.phase != "fight":
            return FrameInput(), FrameInput()
        a, b = m.fighters
        close = abs(b.x - a.x) < 0.95
        press = close and state["n"] % 2 == 0
        return FrameInput(forward=not close, lp=press), FrameInput()

    game.input_source = inputs
    for _ in range(400):
        game.step()
        hits = [e for e in game.last_events if isinstance(e, Hit)]
        if hits:
            return hits[0]
    raise AssertionError("the scripted punch never connected")


def test_render_A8_hit_spark_appears_at_the_A7_collision_point(env):
    from game.render.offscreen import frame_pixels

    _, _, game = env
    fresh(game, p2="human")
    hit = _script_punch(game)
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


def test_render_key_presses_move_p1_through_the_real_input_path(env):
    pyglet, window, game = env
    from pyglet.window import key

    fresh(game)
    while game.match.phase != "fight":
        game.step()
        window.dispatch_events()
    x0 = game.match.fighters[0].x
    window.dispatch_event("on_key_press", key.D, 0)     # screen-right = forward for P1 on the left
    window.dispatch_events()
    for _ in range(30):
        game.step()
        window.dispatch_events()
    x1 = game.match.fighters[0].x
    assert game.match.last_inputs[0].forward and not game.match.last_inputs[0].back
    assert x1 > x0 + 0.5, f"P1 did not walk forward: {x0:.3f} -> {x1:.3f}"
    window.dispatch_event("on_key_release", key.D, 0)
    window.dispatch_event("on_key_press", key.A, 0)     # screen-left = back
    window.dispatch_events()
    for _ in range(20):
        game.step()
        window.dispatch_events()
    assert game.match.last_inputs[0].back
    assert game.match.fighters[0].x < x1 - 0.3
    window.dispatch_event("on_key_release", key.A, 0)
    window.dispatch_events()
    game.step()
    assert game.match.last_inputs[0] == FrameInput()


def test_render_player_inputs_read_keys_for_human_sides_only(env):
    """Held keys reach each human side's input; a CPU side gets the neutral input (the match
    decides it) whatever is held, and with two CPU sides nothing is read."""
    pyglet, window, game = env
    from pyglet.window import key

    held = (key.U, key.W, key.NUM_4, key.UP)          # P1: LP and jump; P2: LP and jump
    try:
        for p1, p2 in (("human", "cpu"), ("cpu", "human"), ("human", "human"), ("cpu", "cpu")):
            fresh(game, p1=p1, p2=p2)
            for k in held:
                window.dispatch_event("on_key_press", k, 0)
            window.dispatch_events()
            inputs = game.player_inputs()
            for side, who in enumerate((p1, p2)):
                if who == "human":
                    assert inputs[side].lp and inputs[side].up, (p1, p2, side)
                else:
                    assert inputs[side] == FrameInput(), (p1, p2, side)
            for k in held:
                window.dispatch_event("on_key_release", k, 0)
            window.dispatch_events()
            assert game.player_inputs() == (FrameInput(), FrameInput())
    finally:
        for k in held:
            window.dispatch_event("on_key_release", k, 0)
        window.dispatch_events()


def test_render_training_freeze_and_frame_step(env):
    """Training: P freezes the match (frames identical whatever the loop's alpha), '.' steps one frame."""
    from pyglet.window import key

    from game.render.offscreen import frame_pixels
    from game.render.training import TrainingMode

    pyglet, window, game = env
    fresh(game)
    game.training = TrainingMode()
    game.new_match(0)
    assert game.match.phase == "fight"        # training starts at FIGHT, at the start positions
    game.input_source = lambda: (FrameInput(forward=True), FrameInput())   # moving: alpha would matter
    for _ in range(5):
        game.step()
    game.on_key_press(key.P, 0)
    frame = game.match.frame
    game.step()
    game.step()
    assert game.match.frame == frame
    a = frame_pixels(game, 0.1)
    b = frame_pixels(game, 0.9)
    assert np.array_equal(a, b)
    game.on_key_press(key.PERIOD, 0)
    game.step()
    game.step()
    assert game.match.frame == frame + 1
    game.on_key_press(key.P, 0)
    game.step()
    assert game.match.frame == frame + 2
    assert not np.array_equal(frame_pixels(game, 0.1), frame_pixels(game, 0.9)), "running: alpha interpolates"
    game.training = None
    game.input_source = None


def test_render_A7_overlay_marks_the_collision_point_of_a_contact(env):
    """On the contact frame the overlay draws the A7 collision point (white diamond) where it projects."""
    from game.render.offscreen import frame_pixels

    _, _, game = env
    fresh(game, p2="human")
    hit = _script_punch(game)
    assert game.match.contacts, "the Hit frame has its contact recorded for the overlay"
    game.sparks.p, game.sparks.prev_pos = game.sparks.p[:0], game.sparks.prev_pos[:0]
    game.overlay.enabled = True
    on = frame_pixels(game).astype(int)
    game.overlay.enabled = False
    off = frame_pixels(game).astype(int)
    x, y = _project(game, hit.point).round().astype(int)
    patch_on, patch_off = on[y - 4:y + 5, x - 4:x + 5], off[y - 4:y + 5, x - 4:x + 5]
    white = (patch_on.min(axis=-1) > 200) & (np.abs(patch_on - patch_off).sum(axis=-1) > 60)
    assert white.sum() >= 3, f"no collision marker drawn at ({x}, {y})"


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
    """The shadow pass blends its colour but keeps the framebuffer's alpha at 1: it used to
    write alpha 0.75 under every shadow, so a saved frame (``--screenshot``, the colour
    buffer's PNG) showed the shadows washed out over whatever a viewer puts behind it, and a
    crate chunk drawn later over a shadow kept that alpha (a pale fighter-shaped streak)."""
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


@pytest.mark.parametrize("size", [(1280, 720), (1280, 800), (1024, 768), (1280, 1024), (2560, 1080)])
def test_render_hud_rows_fit_windows_of_any_aspect(env, size):
    """The HUD is laid out on a canvas scaled to the window.  Its widest rows, the title's
    control lines (about 1,200 units) and the training frame meter (972), used to run off
    the sides of a window narrower than 16:9 (16:10, 4:3, 5:4: a canvas only 900-1150 units
    wide): every label and rectangle of the title and training screens must lie on the canvas."""
    from game.render.controls import CONTROLS_TEXT
    from game.render.training import TrainingMode

    _, _, game = env
    fresh(game)
    hud = game.hud
    W, H, s = hud.canvas(size)
    assert W * s == pytest.approx(size[0]) and H * s == pytest.approx(size[1])
    assert H >= 720 - 1e-9
    training = TrainingMode()
    training.meter.advantage = -12
    training.meter.last_hit = "P1 HK hit (high)"
    info = {"versus": "Kaito (Player)   vs   Rin (CPU)", "controls": CONTROLS_TEXT}
    try:
        for screen, tr in (("title", None), ("fight", training)):
            rects, _ = hud.build(size, game.match, screen=screen, fps=None, training=tr, title_info=info)
            r = rects.array()
            assert (r[:, 0] >= -1e-6).all() and (r[:, 0] + r[:, 2] <= W + 1e-6).all(), (screen, size)
            for t in hud._all_texts():
                lab = t.label
                if not lab.text or lab.x < -500:
                    continue
                w = lab.content_width
                left = {"left": lab.x, "center": lab.x - w / 2, "right": lab.x - w}[lab.anchor_x]
                assert -1 <= left and left + w <= W + 1, (screen, size, lab.text, left, left + w, W)
                assert 0 <= lab.y <= H, (screen, size, lab.text, lab.y, H)
    finally:
        fresh(game)
        game.draw(1.0)


def test_render_hud_glyphs_are_in_the_atlas_before_the_first_frame_and_cover_what_it_shows(env):
    """A glyph drawn for the first time is uploaded mid-frame, which stalls llvmpipe (10-35 ms
    seen): Hud.warm_glyphs (which the game loop calls before its first frame) renders every
    character of GLYPHS in each of the HUD's fonts.
    Then a CPU match (banners, timer, KO), the overlay's labels, training read-outs, the
    pause menu and the title only ever show characters of GLYPHS, and no frame adds a glyph
    (not even after a garbage collection: the HUD holds its 12 fonts; pyglet holds only 4)."""
    import pyglet.image

    from game.render.hud import GLYPHS, Hud, _Text
    from game.render.training import TrainingMode

    pyglet, window, game = env
    hud = Hud(pyglet, list(game.match.data.fighters))         # a fresh HUD, warmed as the game loop does
    assert hud.warm_glyphs() == 12
    for t in hud._all_texts():
        font = t.label.document.get_font(0, dpi=t.label.dpi)
        missing = [c for c in GLYPHS if c not in font.glyphs]
        assert not missing, f"{font.name} {font.size}: {missing[:5]}"
    shown, blits = set(), []
    orig_set, orig_blit = _Text.set, pyglet.image.Texture.blit_into

    def record(self, text, *a, **kw):
        shown.update(text)
        return orig_set(self, text, *a, **kw)

    def count(self, *a, **kw):
        blits.append(a)
        return orig_blit(self, *a, **kw)

    import gc

    gc.collect()           # pyglet itself keeps only its last 4 fonts alive: the HUD must hold its own
    _Text.set, pyglet.image.Texture.blit_into = record, count
    try:
        fresh(game, p1="cpu", p2="cpu", seed=11)
        game.overlay.enabled = True
        for k in range(1500):                      # intro banners, the timer, hits, a KO
            game.step()
            if k % 3 == 0:
                game.draw(1.0)
            if game.match.over:
                break
        game.overlay.enabled = False
        game.training = TrainingMode()
        game.new_match(0)
        game.input_source = lambda: (FrameInput(forward=True, lp=True), FrameInput())
        for _ in range(90):
            game.step()
            game.draw(1.0)
        game.training, game.input_source = None, None
        game.menu_sel = 0                          # the pause menu
        game.draw(1.0)
        game.menu_sel = None
        game.screen = "title"
        game.draw(1.0)
        game.screen = "fight"
    finally:
        _Text.set, pyglet.image.Texture.blit_into = orig_set, orig_blit
    assert len(shown) > 40, "the HUD showed text"
    assert not (shown - set(GLYPHS)), f"characters outside GLYPHS: {sorted(shown - set(GLYPHS))}"
    assert not blits, f"{len(blits)} glyph uploads during frames"


_FORMATS = [("R", "BGRA"), ("L", "RGBA"), ("LA", "RGBA"), ("RGB", "RGBA"), ("A", "RGBA"), ("R", "RGB"),
            ("RGBA", "RGBA"), ("BGRA", "RGB")]


def test_render_glyph_expansion_equals_pyglets_own_loop(env):
    """boot.expand_to_rgba (numpy, installed in pyglet's FreeType renderer) against pyglet's own
    per-pixel loop, kept as the reference: the same bytes for every format pair and size."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from game.render import boot

    assert boot.PYGLET_EXPAND is not None, "load_pyglet installs the numpy expansion"

    @settings(max_examples=150, deadline=None)
    @given(st.sampled_from(_FORMATS), st.binary(max_size=600))
    def check(formats, raw):
        src, dst = formats
        raw = raw[: len(raw) // len(src) * len(src)]
        want = boot.PYGLET_EXPAND(None, raw, src, dst)
        got = boot.expand_to_rgba(raw, src, dst)
        assert bytes(got) == bytes(want)

    check()
    import ctypes  # what FreeType hands over: a ctypes byte array
    arr = (ctypes.c_ubyte * 12)(*range(0, 240, 20))
    assert boot.expand_to_rgba(arr, "R", "BGRA") == boot.PYGLET_EXPAND(None, arr, "R", "BGRA")


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


def test_render_training_input_history_shows_every_row_and_lays_out_one_label_per_new_input(env):
    """Training's input history: every row of both players' histories is shown with its text,
    place (newest on top, 18 units apart) and fade, as the rows say; and a new input lays out
    only its own label (the others keep theirs and only move: a relayout of all 14 rows cost
    ~8 ms in the frame of the input)."""
    import itertools

    from game.render.hud import _Text
    from game.render.training import HISTORY_LEN, InputHistory, TrainingMode

    _, _, game = env
    fresh(game)
    game.training = TrainingMode()
    game.new_match(0)
    seq = itertools.cycle([FrameInput(forward=True)] * 6 + [FrameInput(lp=True)] + [FrameInput()] * 5
                          + [FrameInput(down=True, hk=True)] + [FrameInput(back=True)] * 4)
    game.input_source = lambda: (next(seq), FrameInput())
    hud = game.hud
    layouts = []
    orig = _Text.set

    def counting(self, text, *a, **kw):
        if self._state is None or self._state[0] != text:
            layouts.append(self)
        return orig(self, text, *a, **kw)

    _Text.set = counting
    try:
        new_rows = 0
        for frame in range(120):
            tops = [h.rows[0] if h.rows else None for h in game.training.history]
            game.step()
            layouts.clear()
            game.draw(1.0)
            W, H, _ = hud.canvas(game.window.get_size())
            for p, h in enumerate(game.training.history):
                rows = list(h.rows)
                shown = sorted((lbl._state for lbl in hud.hist_lbl[p] if lbl._state and lbl._state[0]),
                               key=lambda st: -st[2])
                want = []
                for k, (bits, held) in enumerate(rows):
                    t = InputHistory.describe(bits)
                    text = f"{min(held, 99):>2}  {t}" if p == 0 else f"{t}  {min(held, 99):>2}"
                    want.append((text, round(16 if p == 0 else W - 16), round(H * 0.62 - k * 18),
                                 (255, 255, 255, 255 - k * 12)))
                assert shown == want, (frame, p)
                assert len(rows) <= HISTORY_LEN
            mine = [lbl for lbl in layouts if any(lbl in col for col in hud.hist_lbl)]
            fresh_rows = sum(1 for h, top in zip(game.training.history, tops) if h.rows and h.rows[0] is not top)
            new_rows += fresh_rows
            assert len(mine) <= 2, (frame, len(mine))     # at most each player's newest row
    finally:
        _Text.set = orig
        game.training, game.input_source = None, None
    assert new_rows >= 15, "the inputs made new history rows (the case under test)"


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


# ---------------------------------------------------------------- training mode
def test_render_training_reset_frames_the_start_positions_at_once_with_no_fight_banner(env):
    """R puts the fighters back at their start and the view with them: the camera frames the
    start positions as it did when training began (it used to stay where a sidestep had
    swung it and drift back over a second or more, so a frozen reset showed P1 filling the
    screen), and no FIGHT! banner covers the fighters (R rewinds to the first FIGHT frame)."""
    from pyglet.window import key

    from game.render.training import TrainingMode

    game = fresh(env[2])
    game.training = TrainingMode()
    game.new_match(0)
    start_pos = [(f.x, f.z) for f in game.match.fighters]
    start_cam = tuple(np.array(v) for v in game.camera.current)
    neutral = FrameInput()
    try:
        game.input_source = lambda: (FrameInput(side_l=True), game.training.p2_input(game.match, neutral))
        for _ in range(120):
            game.step()
        game.input_source = lambda: (neutral, game.training.p2_input(game.match, neutral))
        game.step()
        moved = tuple(np.array(v) for v in game.camera.current)
        assert not np.allclose(moved[0], start_cam[0], atol=0.05), "the case under test: the camera had swung"
        game.on_key_press(key.P, 0)                      # frozen, as a player labbing would be
        game.on_key_press(key.R, 0)
        assert [(f.x, f.z) for f in game.match.fighters] == start_pos
        game.draw(1.0)
        for now, then in zip(game.camera.current, start_cam):
            assert np.allclose(now, then, atol=1e-9), (now, then)
        assert game.hud.banner.label.text == ""
        game.on_key_press(key.P, 0)
        game.step()
        game.draw(1.0)
        assert game.match.phase == "fight" and game.match.phase_frame < 40
        assert game.hud.banner.label.text == ""
    finally:
        game.training, game.input_source = None, None


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
