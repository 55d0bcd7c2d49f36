"""Training mode in the window (headless EGL): what R (reset) does to the view."""

from __future__ import annotations

import os

os.environ.setdefault("PYGLET_HEADLESS", "1")

import numpy as np
import pytest

from game.sim import FrameInput

W, H = 640, 360


@pytest.fixture(scope="module")
def env():
    from game.render.boot import RenderUnavailable

    try:
        from game.render.offscreen import open_game
        pyglet, window, game = open_game(W, H)
    except RenderUnavailable as exc:  # only when the GL/EGL libraries are truly absent
        pytest.skip(f"no headless GL here: {exc}")
    yield pyglet, window, game
    window.close()


def test_render_training_reset_frames_the_start_positions_at_once_with_no_fight_banner(env):
    """R puts the fighters back at their start and the view with them: the camera frames the
    start positions as it did when training began (it used to stay where a sidestep had
    swung it and drift back over a second or more, so a frozen reset showed P1 filling the
    screen), and no FIGHT! banner covers the fighters (R rewinds to the first FIGHT frame)."""
    from pyglet.window import key

    from game.render.training import TrainingMode

    _, _, game = env
    game.overlay.enabled = False
    game.p1, game.p2 = "human", "cpu"
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
