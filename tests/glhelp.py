"""Headless GL for render tests: one hidden window and Game per test module."""

from __future__ import annotations

import pytest


def game_env(width: int, height: int):
    """Fixture body: yields ``(pyglet, window, game)``; skips the module where the GL/EGL
    libraries are truly absent (the only case; any other failure is a test failure)."""
    from game.render.boot import RenderUnavailable

    try:
        from game.render.offscreen import open_game
        pyglet, window, game = open_game(width, height)
    except RenderUnavailable as exc:
        pytest.skip(f"no headless GL here: {exc}")
    yield pyglet, window, game
    window.close()
