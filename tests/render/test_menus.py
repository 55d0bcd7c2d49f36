"""The menus a player expects (issue #34): the pause menu's move list and the options screen,
driven as the window drives them (``Game.on_key_press`` with pyglet's key codes, ``Game.step``,
``Game.draw``), with the settings file in a tmp folder."""

from __future__ import annotations

import json

import numpy as np
import pytest
from pyglet.window import key as K

from game.render.menus import MENU_ITEMS
from game.render.movelist import MoveList
from game.render.options import OptionsScreen
from game.sim.data import ASSETS
from glhelp import fresh, game_env

pytestmark = pytest.mark.gl


@pytest.fixture(scope="module")
def env():
    yield from game_env(640, 360, p1="human", p2="cpu")


@pytest.fixture
def game(env, tmp_path):
    _, _, g = env
    fresh(g)
    g.panel, g.menu_sel, g.screen = None, None, "fight"
    g.settings_path = tmp_path / "settings.json"
    from game.settings import Settings

    g.settings = Settings()                         # each test starts from the default options
    g.keyboard.bind(g.settings.bindings)
    g.level, g.rounds, g.timer = "normal", 3, 60
    return g


def press(game, *symbols):
    for s in symbols:
        game.on_key_press(s, 0)


def open_move_list(game):
    for _ in range(3):
        game.step()
    press(game, K.ESCAPE)
    press(game, *[K.DOWN] * MENU_ITEMS.index("Move list"), K.ENTER)
    assert isinstance(game.panel, MoveList)


def test_move_list_lists_every_move_of_moves_json(game):
    """Every move of assets/moves.json is a row, with its figures read from the file."""
    open_move_list(game)
    frame = game.match.frame
    game.step()
    assert game.match.frame == frame                # the match holds while the list is shown
    raw = json.loads((ASSETS / "moves.json").read_text())["moves"]
    rows = {r.name: r for r in game.panel.rows}
    assert list(rows) == list(raw)
    for name, mv in raw.items():
        r = rows[name]
        assert r.label == mv["label"]
        assert r.frames.split(" / ")[0] == str(mv["startup"]) and r.frames.split(" / ")[2] == str(mv["recovery"])
        if mv["hit_limbs"] and mv["hitstun"]:
            assert r.height == mv["height"] and r.damage == str(mv["damage"])
            left = mv["active"] + mv["recovery"]
            assert r.advantage == f"{mv['hitstun'] - left:+d} / {mv['blockstun'] - left:+d}"
    assert rows["hk_low"].input == "down + HK" and rows["fireball"].input == "LP + HP"
    assert rows["throw"].input == "LP + LK" and rows["throw"].advantage.startswith("+18")


def test_move_list_is_drawn_readable_and_closes_back_to_the_menu(game):
    open_move_list(game)
    from game.render.offscreen import frame_pixels

    img = frame_pixels(game).astype(int)
    drawn = {lbl.label.text for row in game.menu_panel.cells for lbl in row}
    for row in game.panel.rows:
        assert row.label in drawn and row.advantage in drawn
    h, w, _ = img.shape
    body = img[h // 4: h * 3 // 4, w // 10: w * 9 // 10]
    # an opaque dark panel with bright text on it: the text is readable over any scene
    assert np.median(body.sum(axis=2)) < 120
    assert (body.min(axis=2) > 200).mean() > 0.005
    press(game, K.ESCAPE)
    assert game.panel is None and game.menu_sel == MENU_ITEMS.index("Move list")
    press(game, K.ESCAPE)
    assert game.menu_sel is None


def test_move_list_scrolls_when_it_does_not_fit(game):
    open_move_list(game)
    panel = game.panel
    panel.fit(4)
    press(game, K.DOWN, K.DOWN)
    assert panel.top == 2
    press(game, K.PAGEDOWN, K.PAGEDOWN, K.PAGEDOWN)
    assert panel.top == len(panel.rows) - 4              # never past the last row
    panel.visible = 4
    game.menu_panel._moves(__import__("game.render.passes", fromlist=["Rects"]).Rects(), panel, 0, 1000, 600)
    shown = [row[1].label.text for row in game.menu_panel.cells[1:5]]
    assert shown == [r.label for r in panel.rows[-4:]]


def open_options_from_title(game):
    game.screen = "title"
    press(game, K.O)
    assert isinstance(game.panel, OptionsScreen)
    return game.panel


def select(panel, game, kind, name, player=-1):
    for _ in range(len(panel.rows)):
        row = panel.rows[panel.sel]
        if row.kind == kind and row.name == name and row.player == player:
            return
        press(game, K.DOWN)
    raise AssertionError(f"no row {kind} {name}")


def test_remap_a_key_conflict_refused_and_saved(game):
    """O on the title opens the options; Enter on P1 LP then K (P1's HK) is refused with a
    message, F1 too (the game's key); O is taken, the keyboard reads it at once, and leaving
    saves it to the settings file."""
    panel = open_options_from_title(game)
    select(panel, game, "key", "lp", 0)
    press(game, K.ENTER, K.K)
    assert "already P1's HK" in panel.message and game.settings.bindings[0]["lp"] == ("U",)
    press(game, K.ENTER, K.F1)
    assert "game's own keys" in panel.message
    press(game, K.ENTER, K.RIGHT)                       # P2's walk right
    assert "already P2's walk right" in panel.message
    press(game, K.ENTER, K.ESCAPE)                      # Esc cancels the wait, the screen stays
    assert game.panel is panel and "unchanged" in panel.message
    press(game, K.ENTER, K.O)
    assert game.settings.bindings[0]["lp"] == ("O",)
    game.keys.on_key_press(K.O, 0)                      # the window's key state: O held
    try:
        assert game.keyboard.intents(0)["lp"]
    finally:
        game.keys.on_key_release(K.O, 0)
    assert not game.settings_path.exists()              # saved on leaving
    press(game, K.ESCAPE)
    assert game.panel is None and game.screen == "title"
    assert json.loads(game.settings_path.read_text())["bindings"]["p1"]["lp"] == ["O"]
    game.draw(1.0)                                      # the title's controls name the new key
    shown = [t.label.text for t in game.hud.lines if t.label.text.startswith("P1 ")]
    assert shown and "LP O " in shown[0], shown


def test_keypad_key_binds_both_num_lock_names(game):
    panel = open_options_from_title(game)
    select(panel, game, "key", "hk", 1)
    press(game, K.ENTER, K.NUM_6)
    assert game.settings.bindings[1]["hk"] == ("NUM_6", "NUM_RIGHT")
    assert panel.value_text(panel.rows[panel.sel]) == "Num6"
    press(game, K.ESCAPE)


def test_level_rounds_and_timer_make_the_next_match(game):
    """Changed on the title, the CPU level, rounds and timer are the match that starts."""
    panel = open_options_from_title(game)
    select(panel, game, "value", "rounds")
    press(game, K.LEFT)                                  # best of 3 -> 1
    select(panel, game, "value", "timer")
    press(game, K.LEFT)                                  # 60 -> 45 s
    select(panel, game, "value", "level")
    press(game, K.LEFT)                                  # normal -> medium
    press(game, K.ESCAPE, K.ENTER)                       # back to the title, then fight
    assert game.screen == "fight"
    m = game.match
    assert (m.rounds, m.rounds_to_win, m.round_frames, m.cpu[1]) == (1, 1, 45 * 60, "medium")
    saved = json.loads(game.settings_path.read_text())
    assert (saved["rounds"], saved["timer"], saved["level"]) == (1, 45, "medium")
    game.rounds, game.timer, game.level = 3, 60, "normal"


def test_options_from_the_pause_menu_and_volume(game):
    for _ in range(2):
        game.step()
    press(game, K.ESCAPE, *[K.DOWN] * MENU_ITEMS.index("Options"), K.ENTER)
    panel = game.panel
    assert isinstance(panel, OptionsScreen)
    select(panel, game, "value", "volume")
    press(game, K.LEFT, K.LEFT)
    assert game.settings.volume == 80
    press(game, K.ESCAPE)
    assert game.panel is None and game.menu_sel == MENU_ITEMS.index("Options")
    assert json.loads(game.settings_path.read_text())["volume"] == 80


def test_options_screen_is_drawn(game):
    open_options_from_title(game)
    from game.render.offscreen import frame_pixels

    frame_pixels(game)
    texts = {lbl.label.text for row in game.menu_panel.cells for lbl in row}
    assert {"CPU level", "Rounds", "Round timer", "Sound volume", "Fullscreen", "Player 1 keys"} <= texts
    assert game.menu_panel.heading.label.text == "OPTIONS"
    press(game, K.ESCAPE)


def test_a_pad_changes_an_option_and_leaves(game):
    """The pad's d-pad right changes the selected value, B leaves the screen (and saves)."""
    from types import SimpleNamespace

    from pyglet.math import Vec2

    pad = SimpleNamespace(left_analog=Vec2(0, 0), dpad=Vec2(0, 0), start=False, a=False, b=False,
                          device=SimpleNamespace(connected=True))
    saved_pads = game.pads.pads
    game.pads.pads = [pad]
    try:
        open_options_from_title(game)                    # the first row: CPU level
        pad.dpad = Vec2(1, 0)
        game.step()
        pad.dpad = Vec2(0, 0)
        game.step()
        assert game.settings.level == "hard"
        pad.b = True
        game.step()
        pad.b = False
        assert game.panel is None and json.loads(game.settings_path.read_text())["level"] == "hard"
    finally:
        game.pads.pads = saved_pads
        game.level = "normal"
