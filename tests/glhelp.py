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


def fresh(game, **kw):
    """``game`` reset for a test: no input script, overlay off with every kind shown, no
    training, no patched matrices, a new match (``p1``/``p2`` sides, ``seed``)."""
    game.input_source = None
    game.overlay.enabled = False
    game.overlay.show = {k: True for k in game.overlay.show}
    game.training = None
    game.__dict__.pop("matrices", None)
    game.p1, game.p2 = kw.get("p1", "human"), kw.get("p2", "cpu")
    game.new_match(kw.get("seed", 0))
    return game
