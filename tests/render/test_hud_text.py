"""The HUD's text as a player reads it (issue #34, point 6): one drop shadow that touches its
letters, an fps counter that can be read at a glance, and the winner called by name.
Checked in pixels, drawn headless."""

from __future__ import annotations

import os

os.environ.setdefault("PYGLET_HEADLESS", "1")

import numpy as np
import pytest

from glhelp import fresh, game_env

W, H = 1280, 720
GREY = 0.5           # the flat background the label tests draw on
BG = round(GREY * 255)


@pytest.fixture(scope="module")
def env():
    yield from game_env(W, H)


def _alone(pyglet, text, *args, **kw):
    """One HUD label (``game.render.hud._Text``, white, with its shadow) drawn alone on flat
    grey: ``(pixels (H, W, 3) int, the label)``."""
    from pyglet import gl

    from game.render.glutil import read_pixels
    from game.render.hud import _Text

    batch = pyglet.graphics.Batch()
    groups = (pyglet.graphics.Group(order=0), pyglet.graphics.Group(order=1))
    lbl = _Text(pyglet, batch, groups, *args, shadow=True, **kw)
    lbl.set(text, 200, 300)
    gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, 0)
    gl.glViewport(0, 0, W, H)
    gl.glDisable(gl.GL_DEPTH_TEST)
    gl.glClearColor(GREY, GREY, GREY, 1.0)
    gl.glClear(gl.GL_COLOR_BUFFER_BIT)
    gl.glEnable(gl.GL_BLEND)
    gl.glBlendFunc(gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA)
    batch.draw()
    return read_pixels(W, H).astype(int), lbl


def _dilate(mask: np.ndarray, r: int) -> np.ndarray:
    out = mask.copy()
    for dy in range(-r, r + 1):
        for dx in range(-r, r + 1):
            out |= np.roll(np.roll(mask, dy, axis=0), dx, axis=1)
    return out


@pytest.mark.gl
@pytest.mark.parametrize("size, bold", [(10, False), (12, False), (15, True), (22, True), (34, True), (76, True)])
def test_hud_text_has_one_drop_shadow_touching_its_letters(env, size, bold):
    """The shadow is the letters' own dark copy, offset by about a stroke's width, so it
    darkens their lower right edge.  It was 3 units off at every size: wider than a small
    label's strokes, with background between letter and shadow, so the shadow read as a
    second, dark copy of the text (the overlay's ray labels, the training read-outs).
    Every shadow pixel lies within the offset (plus one pixel of anti-aliasing) of a
    letter's pixel."""
    from game.render.hud import shadow_offset

    pyglet, _window, _game = env
    img, lbl = _alone(pyglet, "KAITO 88 fps nodes / tris", size, bold=bold)
    lum = img.mean(axis=-1)
    letters = lum > BG + 60
    shadow = lum < BG - 25
    assert letters.sum() > 50 and shadow.sum() > 20, "nothing drawn"
    off = shadow_offset(size)
    assert off <= max(1, size // 12), "an offset wider than the strokes of that size"
    near = _dilate(letters, off + 1)
    apart = shadow & ~near
    assert apart.sum() <= 0.01 * shadow.sum(), f"{apart.sum()} of {shadow.sum()} shadow pixels stand apart"


@pytest.mark.gl
def test_fps_counter_is_large_and_high_contrast(env):
    """F5's fps counter: 16-point bold bright green on its own dark panel in the top left
    corner, where it was 11-point pale green over whatever the scene had there.  Its digits
    stand at least 14 pixels tall in a 720-pixel-high window, and its text has a contrast
    ratio of at least 7:1 (WCAG's AAA) against the panel."""
    from game.render.offscreen import frame_pixels

    _, _, game = env
    fresh(game)
    game.show_fps = True
    try:
        for _ in range(5):
            game.step()
            img = frame_pixels(game).astype(int)
        lbl = game.hud.fps_lbl.label
        assert lbl.text.endswith("fps")
        x0, x1 = 4, 4 + 112
        box = img[0:40, x0:x1]
        lum = box.mean(axis=-1)
        text = lum > 110
        rows = np.nonzero(text.any(axis=1))[0]
        assert len(rows) and rows[-1] - rows[0] + 1 >= 14, "fps text under 14 pixels tall"

        def rel(c):
            c = np.asarray(c, float) / 255
            c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
            return 0.2126 * c[..., 0] + 0.7152 * c[..., 1] + 0.0722 * c[..., 2]

        fg = rel(box[text]).max()
        panel = rel(box[~_dilate(text, 2)]).mean()
        assert (fg + 0.05) / (panel + 0.05) >= 7.0, (fg, panel)
    finally:
        game.show_fps = False


@pytest.mark.gl
@pytest.mark.parametrize("winner", [0, 1])
def test_the_winner_is_called_by_the_fighters_name(env, winner):
    """The end-of-match banner says "KAITO WINS" (the fighter's name in fighters.json), not
    "P1 WINS"; so does the end of a round."""
    _, _, game = env
    fresh(game)
    m = game.match
    names = [fd["name"] for fd in m.data.fighters]
    loser = m.fighters[1 - winner]
    loser.health = 0
    for _ in range(400):
        game.step()
        game.draw(1.0)
        if m.phase == "ko" and game.hud.banner.label.text.endswith("WINS"):
            break
    assert game.hud.banner.label.text == f"{names[winner].upper()} WINS"
    assert "P1" not in game.hud.banner.label.text and "P2" not in game.hud.banner.label.text


def test_twin_fighters_are_told_apart_by_side():
    """Both sides with one name (a mirror match): the banner adds the side."""
    from types import SimpleNamespace

    from game.render.hud import Hud

    hud = SimpleNamespace(names=["Rin", "Rin"])
    assert Hud.winner_name(hud, 1) == "RIN (P2)"
    assert Hud.winner_name(SimpleNamespace(names=["Kaito", "Rin"]), 0) == "KAITO"
