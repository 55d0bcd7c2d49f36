"""Fixtures of the render tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def gl_window():
    """``(pyglet, window)``: an invisible 1280 x 720 window on headless GL, one per module
    (skipped where there is none)."""
    from game.render.boot import RenderUnavailable

    try:
        from game.render.boot import check_fonts, load_pyglet, make_window

        pyglet = load_pyglet(True)
        window = make_window(pyglet, width=1280, height=720, visible=False)
        check_fonts(pyglet)
    except RenderUnavailable as exc:
        pytest.skip(f"no headless GL here: {exc}")
    yield pyglet, window
    window.close()
