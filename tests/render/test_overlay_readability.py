"""The debug overlay reads at a glance (issue #34, point 6): every colour of its key is told
apart from every other, and its text labels never sit on top of each other."""

from __future__ import annotations

import itertools
import math
import os

os.environ.setdefault("PYGLET_HEADLESS", "1")

import pytest

from game.sim import FrameInput
from glhelp import fresh, game_env

W, H = 1280, 720


@pytest.fixture(scope="module")
def env():
    yield from game_env(W, H)


# ------------------------------------------------------------------ colour difference
def srgb_to_lab(rgb) -> tuple[float, float, float]:
    """CIELAB (D65) of an sRGB colour with channels in 0..1."""
    def lin(u):
        return u / 12.92 if u <= 0.04045 else ((u + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(float(v)) for v in rgb[:3])
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t):
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def delta_e2000(lab1, lab2) -> float:
    """CIEDE2000 colour difference (Sharma, Wu and Dalal's formulation)."""
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    cbar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(cbar ** 7 / (cbar ** 7 + 25 ** 7)))
    a1p, a2p = a1 * (1 + g), a2 * (1 + g)
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dlp, dcp = l2 - l1, c2p - c1p
    dh = 0.0 if c1p * c2p == 0 else (h2p - h1p + 180) % 360 - 180
    dhp = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    lbp, cbp = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        hbp = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hbp = (h1p + h2p) / 2
    else:
        hbp = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(hbp - 30)) + 0.24 * math.cos(math.radians(2 * hbp))
         + 0.32 * math.cos(math.radians(3 * hbp + 6)) - 0.20 * math.cos(math.radians(4 * hbp - 63)))
    dtheta = 30 * math.exp(-((hbp - 275) / 25) ** 2)
    rc = 2 * math.sqrt(cbp ** 7 / (cbp ** 7 + 25 ** 7))
    sl = 1 + 0.015 * (lbp - 50) ** 2 / math.sqrt(20 + (lbp - 50) ** 2)
    sc, sh = 1 + 0.045 * cbp, 1 + 0.015 * cbp * t
    rt = -math.sin(math.radians(2 * dtheta)) * rc
    return math.sqrt((dlp / sl) ** 2 + (dcp / sc) ** 2 + (dhp / sh) ** 2 + rt * (dcp / sc) * (dhp / sh))


@pytest.mark.parametrize("lab1, lab2, want", [
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),     # Sharma et al.'s test data, pairs 1, 7, 17
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.5, 0.0), (56.0, -27.0, -3.0), 31.9030),
])
def test_delta_e2000_matches_the_published_test_data(lab1, lab2, want):
    assert delta_e2000(lab1, lab2) == pytest.approx(want, abs=5e-4)


def test_overlay_key_colours_are_pairwise_distinct():
    """The sixteen colours the key names are at least LEGEND_MIN_DELTA_E (20) apart in
    CIEDE2000, every pair.  Red, salmon and pink (hit box, struck slab, target face: 14 and
    17 apart), cyan and light blue (ray, fill face: 19), and two yellows (overlap,
    interaction region: 8) read as one colour on a thin line or a 10-pixel swatch."""
    from game.render.overlay import LEGEND, LEGEND_MIN_DELTA_E, color_of

    assert LEGEND_MIN_DELTA_E >= 20.0
    labs = {label: srgb_to_lab(color_of(kind)) for label, kind in LEGEND}
    close = [(round(delta_e2000(labs[a], labs[b]), 1), a, b) for a, b in itertools.combinations(labs, 2)
             if delta_e2000(labs[a], labs[b]) < LEGEND_MIN_DELTA_E]
    assert not close, close


@pytest.mark.gl
def test_overlay_key_swatches_on_screen_are_pairwise_distinct(env):
    """The same, read back from the drawn key: each swatch's centre pixel."""
    from game.render.offscreen import frame_pixels
    from game.render.overlay import LEGEND_MIN_DELTA_E

    _, _, game = env
    fresh(game)
    game.overlay.enabled = True
    try:
        game.step()
        img = frame_pixels(game)
        s = game.hud.canvas((W, H))[2]
        labels = [lbl.label for lbl in game.hud.ov_legend_lbl]
        px = [img[round(H - (lb.y + 5) * s), round((lb.x - 10) * s)] / 255.0 for lb in labels]
    finally:
        game.overlay.enabled = False
    assert len(px) == 16
    labs = [srgb_to_lab(p) for p in px]
    worst = min(delta_e2000(a, b) for a, b in itertools.combinations(labs, 2))
    assert worst >= LEGEND_MIN_DELTA_E - 1.0, worst          # less a little for 8-bit rounding


# ------------------------------------------------------------------ labels
def _overlaps(rects) -> list:
    return [(a, b) for a, b in itertools.combinations(rects, 2)
            if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]]


def test_clear_of_moves_a_label_below_every_one_it_would_cover():
    from game.render.hud import clear_of

    placed: list = []
    for _ in range(4):                       # four labels at one anchor
        y = clear_of(placed, 100, 300, 120, 14)
        placed.append((100, y, 220, y + 14))
    assert not _overlaps(placed)
    assert [r[1] for r in placed] == [300, 285, 270, 255]
    assert clear_of(placed, 400, 300, 50, 14) == 300          # beside them: where it was


@pytest.mark.gl
def test_overlay_ray_labels_never_sit_on_top_of_each_other(env, monkeypatch):
    """A fireball's path (its ray is labelled at the fireball) and the camera's and the
    impact spark's casts (labelled together) start from nearly one point on the screen: their
    labels were drawn one over the other, unreadable.  Now a label that would cover another
    goes below it.  The frame is found by drawing each frame with the labels at their
    anchors (the old layout) until two of them overlap; then the real layout of that frame
    shows every label, none on another."""
    import game.render.hud as hud

    _, _, game = env
    fresh(game, p2="human")
    fireball = FrameInput(lp=True, hp=True)
    ticks = [0]

    def script():
        ticks[0] += 1
        press = game.match.phase == "fight" and ticks[0] % 50 == 0
        return (fireball if press else FrameInput()), FrameInput()

    game.input_source = script
    game.overlay.enabled = True
    real = hud.clear_of
    try:
        monkeypatch.setattr(hud, "clear_of", lambda placed, x, y, w, h: y)     # labels at their anchors
        for _ in range(400):
            game.step()
            game.draw(1.0)
            if _overlaps(game.hud.text_rects):
                break
        at_anchors = list(game.hud.text_rects)
        assert _overlaps(at_anchors), "the case under test: two labels at one place"
        monkeypatch.setattr(hud, "clear_of", real)
        game.draw(1.0)
        laid = game.hud.text_rects
        assert len(laid) == len(at_anchors)
        assert not _overlaps(laid), laid
        shown = [t.label.text for t in game.hud.texts if t.label.text]
        assert any("presentation" in t for t in shown) and any("nodes" in t and ":" not in t for t in shown)
    finally:
        game.overlay.enabled = False
        game.input_source = None
