"""Keys and pads in the running game (headless GL): presses move P1 through the real input path,
a key or button held through a menu or the round's intro is no press in the fight, and two
players can work the menus with pads alone."""

from __future__ import annotations

import pytest
from pyglet.math import Vec2

from game.render.controls import CONTROLS_TEXT
from game.sim import (
    FrameInput,
    MoveStarted,
)
from glhelp import fresh, game_env
from padhelp import FakePad

#: every test here draws in a headless GL window, for more than about half a second
pytestmark = [pytest.mark.gl, pytest.mark.slow]

W, H = 640, 360


@pytest.fixture(scope="module")
def env():
    yield from game_env(W, H)


def test_render_key_presses_move_p1_through_the_real_input_path(env):
    pyglet, window, game = env
    from pyglet.window import key

    fresh(game)
    while game.match.phase != "fight":
        game.step()
        window.dispatch_events()
    x0 = game.match.fighters[0].x
    window.dispatch_event("on_key_press", key.D, 0)     # screen-right = forward for P1 on the left
    window.dispatch_events()
    for _ in range(30):
        game.step()
        window.dispatch_events()
    x1 = game.match.fighters[0].x
    assert game.match.last_inputs[0].forward and not game.match.last_inputs[0].back
    assert x1 > x0 + 0.5, f"P1 did not walk forward: {x0:.3f} -> {x1:.3f}"
    window.dispatch_event("on_key_release", key.D, 0)
    window.dispatch_event("on_key_press", key.A, 0)     # screen-left = back
    window.dispatch_events()
    for _ in range(20):
        game.step()
        window.dispatch_events()
    assert game.match.last_inputs[0].back
    assert game.match.fighters[0].x < x1 - 0.3
    window.dispatch_event("on_key_release", key.A, 0)
    window.dispatch_events()
    game.step()
    assert game.match.last_inputs[0] == FrameInput()


def test_render_player_inputs_read_keys_for_human_sides_only(env):
    """Held keys reach each human side's input; a CPU side gets the neutral input (the match
    decides it) whatever is held, and with two CPU sides nothing is read."""
    pyglet, window, game = env
    from pyglet.window import key

    held = (key.U, key.W, key.NUM_4, key.UP)          # P1: LP and jump; P2: LP and jump
    try:
        for p1, p2 in (("human", "cpu"), ("cpu", "human"), ("human", "human"), ("cpu", "cpu")):
            fresh(game, p1=p1, p2=p2)
            for k in held:
                window.dispatch_event("on_key_press", k, 0)
            window.dispatch_events()
            inputs = game.player_inputs()
            for side, who in enumerate((p1, p2)):
                if who == "human":
                    assert inputs[side].lp and inputs[side].up, (p1, p2, side)
                else:
                    assert inputs[side] == FrameInput(), (p1, p2, side)
            for k in held:
                window.dispatch_event("on_key_release", k, 0)
            window.dispatch_events()
            assert game.player_inputs() == (FrameInput(), FrameInput())
    finally:
        for k in held:
            window.dispatch_event("on_key_release", k, 0)
        window.dispatch_events()


# ------------------------------------------------------------------ keyboard
def _key():
    from pyglet.window import key

    return key


# ------------------------------------------------------------------ keys held through a menu
@pytest.fixture(scope="module")
def small_env():
    from game.render.boot import RenderUnavailable

    try:
        from game.render.offscreen import open_game
        pyglet_, window, game = open_game(320, 180)
    except RenderUnavailable as exc:
        pytest.skip(f"no headless GL here: {exc}")
    yield pyglet_, window, game
    window.close()


def _fresh(game, p2="human"):
    game.input_source = None
    game.training = None
    game.menu_sel = None
    game.screen = "fight"
    game.p1, game.p2 = "human", p2
    game.keys.data.clear()
    game.pads.pads = []
    game.new_match(0)
    return game


def _press(window, symbol):
    window.dispatch_event("on_key_press", symbol, 0)
    window.dispatch_events()


def _release(window, symbol):
    window.dispatch_event("on_key_release", symbol, 0)
    window.dispatch_events()


def _p1_moves(game, frames):
    started = []
    for _ in range(frames):
        game.step()
        started += [e.move for e in game.last_events if isinstance(e, MoveStarted) and e.fighter == 0]
    return started


def _to_fight(game):
    while game.match.phase != "fight":
        game.step()


def test_controls_screen_lines_stay_inside_their_panel(small_env):
    """The title screen's controls panel spans the canvas less 40 units each side: every
    line (the pad's too) must lie inside it, not run over its edges."""
    _, _, game = small_env
    _fresh(game)
    game.screen = "title"
    try:
        game.draw(1.0)
        W, _, _ = game.hud.canvas(game.window.get_size())
        shown = [t.label for t in game.hud.lines if t.label.text and t.label.x > -500]
        assert len(shown) == len(CONTROLS_TEXT)
        for lab in shown:
            left = lab.x - lab.content_width / 2
            assert 40 <= left and left + lab.content_width <= W - 40, (lab.text, left, left + lab.content_width, W)
    finally:
        _fresh(game)


def test_menu_confirm_key_held_on_resume_fires_no_move(small_env):
    """U (P1's LP) is also the pause menu's confirm key: choosing Resume with it must not
    throw a jab on the first frame back; once released, U punches as usual."""
    _, window, game = small_env
    _fresh(game)
    key = _key()
    _to_fight(game)
    _press(window, key.ESCAPE)
    assert game.menu_sel == 0
    _press(window, key.U)                       # "Resume", and U is now held
    assert game.menu_sel is None
    assert _p1_moves(game, 5) == []
    _release(window, key.U)
    game.step()
    _press(window, key.U)
    assert _p1_moves(game, 2) == ["lp"]
    _release(window, key.U)


def test_title_start_key_held_into_the_fight_fires_no_move(small_env):
    """U also starts the fight from the title screen; held through the round's intro it
    must not come out as a jab on the first frame of FIGHT."""
    _, window, game = small_env
    _fresh(game)
    game.screen = "title"
    key = _key()
    _press(window, key.U)
    assert game.screen == "fight"
    assert _p1_moves(game, 100) == []
    _release(window, key.U)


def test_pad_button_pressed_during_the_pause_fires_no_move_on_resume(small_env):
    """A button pressed on P2's pad while the game is paused and still held when the menu
    closes is not a press made in the fight."""
    _, window, game = small_env
    _fresh(game)
    key = _key()
    pad = FakePad()
    game.pads.pads = [None, pad] if hasattr(game.pads, "connect") else [FakePad(), pad]
    _to_fight(game)
    _press(window, key.ESCAPE)
    pad.x = True
    _press(window, key.ESCAPE)                  # close the menu
    moves = []
    for _ in range(5):
        game.step()
        moves += [e.move for e in game.last_events if isinstance(e, MoveStarted) and e.fighter == 1]
    assert moves == []
    pad.x = False
    game.pads.pads = []


def _tap(game, pad, name, value=True):
    """Press a pad button for one tick, then release it for one (the game acts on the press)."""
    setattr(pad, name, value)
    game.step()
    setattr(pad, name, Vec2(0, 0) if name == "dpad" else False)
    game.step()


def test_two_players_on_pads_start_pause_choose_and_resume_without_the_keyboard(small_env):
    """Start leaves the title, pauses a fight and confirms; the d-pad moves in the menu; B
    closes it; A confirms: two pads play with no keyboard at all."""
    _, _, game = small_env
    _fresh(game)
    pad = FakePad()
    game.pads.pads = [pad, FakePad()]
    game.screen = "title"
    _tap(game, pad, "start")
    assert game.screen == "fight"
    _to_fight(game)
    _tap(game, pad, "start")                          # pause
    assert game.menu_sel == 0
    frame = game.match.frame
    _tap(game, pad, "dpad", Vec2(0, -1))              # down: Restart
    assert game.menu_sel == 1 and game.match.frame == frame      # paused: no step
    _tap(game, pad, "b")                              # back: resume
    assert game.menu_sel is None
    game.step()
    assert game.match.frame > frame
    _tap(game, pad, "start")
    _tap(game, pad, "dpad", Vec2(0, -1))
    _tap(game, pad, "a")                              # confirm Restart: a new match
    assert game.menu_sel is None and game.match.frame <= 2
    # A is the light kick in a fight: it opens nothing there
    _to_fight(game)
    _tap(game, pad, "a")
    assert game.menu_sel is None
    game.pads.pads = []


def test_numpad_enter_confirms_like_enter(small_env):
    _, window, game = small_env
    _fresh(game)
    game.screen = "title"
    _press(window, _key().NUM_ENTER)
    assert game.screen == "fight"
    _to_fight(game)
    _press(window, _key().ESCAPE)
    _press(window, _key().NUM_ENTER)                  # Resume
    assert game.menu_sel is None
