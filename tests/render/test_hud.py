"""The HUD in pixels (headless EGL): its rows fit windows of any aspect, every glyph it shows is
in the font atlas before the first frame, and the glyph expansion equals pyglet's own."""

from __future__ import annotations

import pytest

from game.sim import FrameInput
from glhelp import fresh, game_env

#: every test here draws in a headless GL window, for more than about half a second
pytestmark = [pytest.mark.gl, pytest.mark.slow]

W, H = 640, 360


@pytest.fixture(scope="module")
def env():
    yield from game_env(W, H)


@pytest.mark.parametrize("size", [(1280, 720), (1280, 800), (1024, 768), (1280, 1024), (2560, 1080)])
def test_render_hud_rows_fit_windows_of_any_aspect(env, size):
    """The HUD is laid out on a canvas scaled to the window.  Its widest rows, the title's
    control lines (about 1,200 units) and the training frame meter (972), are wider than the
    canvas of a window narrower than 16:9 (16:10, 4:3, 5:4: only 900-1150 units wide) unless
    laid out for it: every label and rectangle of the title and training screens must lie on the canvas."""
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
