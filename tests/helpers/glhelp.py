"""Headless GL for render tests: one hidden window and Game per test module."""

from __future__ import annotations

import pytest


def game_env(width: int, height: int, **kw):
    """Fixture body: yields ``(pyglet, window, game)`` (``kw`` to ``open_game``, e.g.
    ``training=True``); skips the module where the GL/EGL libraries are truly absent (the
    only case; any other failure is a test failure)."""
    from game.render.boot import RenderUnavailable

    try:
        from game.render.offscreen import open_game
        pyglet, window, game = open_game(width, height, **kw)
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


def edge_samples(changed, box, project, ts) -> tuple[int, int]:
    """``(drawn, total)``: of the points at fractions ``ts`` along each edge of ``box``
    ``(2, 3)`` that ``project`` (world -> pixel ``(x, y)``) puts inside the frame, how many
    have a changed pixel (``changed``: ``(H, W)`` bool) within one pixel."""
    import numpy as np

    from game.render.overlay import box_edges

    h, w = changed.shape
    drawn = total = 0
    for a, b in box_edges(box):
        for t in ts:
            x, y = np.asarray(project(a + (b - a) * t)).round().astype(int)
            if 2 <= x < w - 2 and 2 <= y < h - 2:
                total += 1
                drawn += bool(changed[y - 1:y + 2, x - 1:x + 2].any())
    return drawn, total


def script_punch(game):
    """P1 walks forward until close, then presses LP; returns the first Hit event."""
    from game.sim import FrameInput, Hit

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
