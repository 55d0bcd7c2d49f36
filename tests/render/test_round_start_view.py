"""Screen directions stay true from the first frame of every round (issue #34, point 1).

The fighters go back to their starts at each round, and the camera must go back with them:
one left on the side it had swung round to shows P1 on the right, and the keyboard's
"right" (which the window turns into forward or back from the camera) then walks P1 away.
Every test here plays through ``Game.step`` with keys held in the window's key state, as
the window gives them: screen directions, never ``FrameInput(forward=True)``.
"""

from __future__ import annotations

import numpy as np
import pytest

from glhelp import game_env

pytestmark = pytest.mark.gl

#: P1's and P2's keys (pyglet.window.key names) for the screen intents these tests use
KEYS = {0: {"left": "A", "right": "D", "in": "Q", "hk": "K"},
        1: {"left": "LEFT", "right": "RIGHT", "in": "PAGEUP", "hk": "APOSTROPHE"}}
WALK = 30          # frames of "right" held to see which way P1 goes
SWING_MAX = 900    # frames of sidestep allowed for the camera to swing round to the other side


@pytest.fixture(scope="module")
def env():
    yield from game_env(320, 180, p1="human", p2="human")


def _key(player: int, intent: str) -> int:
    from pyglet.window import key

    return getattr(key, KEYS[player][intent])


def _steps(game, n: int, player: int | None = None, intent: str | None = None) -> None:
    """``n`` ticks of the game with ``player``'s ``intent`` key held (none: no key)."""
    code = _key(player, intent) if player is not None and intent is not None else None
    if code is not None:
        game.keys.on_key_press(code, 0)
    for _ in range(n):
        game.step()
    if code is not None:
        game.keys.on_key_release(code, 0)


def _gap(game) -> float:
    a, b = game.match.fighters
    return float(np.hypot(*(b.position - a.position)[[0, 2]]))


def _walk_right_closes(game) -> tuple[float, float]:
    """The gap before and after P1 holds the keyboard's "right" for WALK frames."""
    before = _gap(game)
    _steps(game, WALK, 0, "right")
    return before, _gap(game)


def _swing_camera_round(game) -> None:
    """P1 sidesteps round P2 until the camera looks from the other side of the arena than
    it did (the view's side vector reversed), as a fight that circles does."""
    start = np.array(game.camera.side, float)
    for _ in range(SWING_MAX):
        if float(np.asarray(game.camera.side) @ start) < -0.8:
            return
        _steps(game, 1, 0, "in")
    pytest.fail("the camera never swung round to the other side: the case under test was not reached")


def _toward(game, player: int) -> str:
    """The screen key that walks ``player`` toward the other, read off the screen (as a
    player does): the side of the screen the opponent stands on."""
    right, _fwd = game.camera.screen_axes()
    me, other = (game.match.fighters[k].position for k in (player, 1 - player))
    return "right" if float((other - me)[[0, 2]] @ right) > 0 else "left"


def _knock_out(game, winner: int) -> None:
    """``winner`` walks in (by the screen) and roundhouses the idle other until the round ends."""
    for _ in range(3000):
        if game.match.phase != "fight":
            return
        _steps(game, 1, winner, _toward(game, winner) if _gap(game) > 1.3 else "hk")
    pytest.fail("the round did not end")


def _to_fight(game) -> None:
    while game.match.phase != "fight":
        game.step()


@pytest.mark.slow
def test_walk_right_closes_the_distance_in_every_round_and_after_a_rematch(env):
    """Three rounds (P1, P2, P1 win them), in each of which P1 circles until the camera has
    swung round: from the first frame of every round, and of the rematch after Enter, P1's
    "right" closes the distance, and P1 stands on the left of the screen."""
    pyglet, window, game = env
    game.input_source, game.training, game.menu_sel, game.screen = None, None, None, "fight"
    game.p1 = game.p2 = "human"
    game.keys.data.clear()
    game.new_match(0)
    seen = []
    for winner in (0, 1, 0):
        _to_fight(game)
        assert _toward(game, 0) == "right", f"round {game.match.round}: P1 starts on the right of the screen"
        before, after = _walk_right_closes(game)
        seen.append((game.match.round, before, after))
        assert after < before - 0.5, \
            f"round {game.match.round}: P1's 'right' walked from {before:.2f} m to {after:.2f} m"
        _swing_camera_round(game)
        _knock_out(game, winner)
    while not game.match.over:
        game.step()
    assert [r for r, _b, _a in seen] == [1, 2, 3] and [f.wins for f in game.match.fighters] == [2, 1]
    from pyglet.window import key

    window.dispatch_event("on_key_press", key.ENTER, 0)        # the rematch
    window.dispatch_events()
    assert game.match.frame == 0 and not game.match.over
    _to_fight(game)
    assert _toward(game, 0) == "right"
    before, after = _walk_right_closes(game)
    assert after < before - 0.5, f"rematch: P1's 'right' walked from {before:.2f} m to {after:.2f} m"


def test_no_interpolation_from_the_last_round_on_the_first_frame_of_the_next(env):
    """The step that starts a round leaves nothing to swing from: the bodies drawn between
    the last two steps are the start positions (previous pose = current pose), and the
    camera's previous eye is its current one."""
    from game.sim import RoundStart

    pyglet, window, game = env
    game.input_source, game.training, game.menu_sel, game.screen = None, None, None, "fight"
    game.keys.data.clear()
    game.new_match(0)
    _to_fight(game)
    _knock_out(game, 0)
    for _ in range(400):
        game.step()
        if any(isinstance(e, RoundStart) for e in game.last_events):
            break
    else:
        pytest.fail("no second round started")
    assert game.match.round == 2
    prev, cur = game._prev, game.pose
    assert all(np.array_equal(a, b) for a, b in zip(prev, cur))
    assert np.allclose(cur.feet[:, [0, 2]], [f.position[[0, 2]] for f in game.match.fighters])
    assert all(np.allclose(a, b) for a, b in zip(game.camera.prev, game.camera.current))


def test_training_reset_puts_right_back_to_forward(env):
    """Training's R after the camera has swung round: P1 back on the left, "right" forward."""
    from pyglet.window import key

    from game.render.training import TrainingMode

    pyglet, window, game = env
    game.input_source, game.menu_sel, game.screen = None, None, "fight"
    game.keys.data.clear()
    game.training = TrainingMode()
    game.new_match(0)
    _swing_camera_round(game)
    window.dispatch_event("on_key_press", key.R, 0)
    window.dispatch_events()
    assert _toward(game, 0) == "right"
    before, after = _walk_right_closes(game)
    assert after < before - 0.5, f"after R: P1's 'right' walked from {before:.2f} m to {after:.2f} m"
    game.training = None
