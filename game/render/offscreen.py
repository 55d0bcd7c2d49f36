"""Headless helpers for tests, benchmarks and tools: a hidden EGL window with a
:class:`~game.render.game.Game`, and read-back of what it drew."""

from __future__ import annotations

import numpy as np

from .boot import HEIGHT, WIDTH, check_fonts, load_pyglet, make_window


def open_game(width: int = WIDTH, height: int = HEIGHT, **game_kwargs):
    """``(pyglet, window, game)`` with no screen; raises ``RenderUnavailable`` without GL."""
    pyglet = load_pyglet(True)
    window = make_window(pyglet, width=width, height=height, visible=False)
    check_fonts(pyglet)
    from .game import Game

    game_kwargs.setdefault("title", False)
    return pyglet, window, Game(pyglet, window, **game_kwargs)


def frame_pixels(game, alpha: float = 1.0) -> np.ndarray:
    """Draw one frame and read it back: ``(height, width, 3) uint8``, top row first."""
    from .glutil import read_pixels

    game.draw(alpha)
    w, h = game.window.get_framebuffer_size()
    return read_pixels(w, h)
