"""Review of the controls and the command line, from a player's side: keys held through a menu,
pads unplugged mid-match, stick against d-pad, the keys the screen names, and CLI values that
cannot take effect.  Pads are fakes with the attributes of pyglet 2.1's Controller."""

from __future__ import annotations

import os

os.environ.setdefault("PYGLET_HEADLESS", "1")

import subprocess  # noqa: E402
import sys  # noqa: E402
from types import SimpleNamespace  # noqa: E402

import pyglet  # noqa: E402
import pytest  # noqa: E402
from pyglet.math import Vec2  # noqa: E402

from clihelp import (
    ROOT,  # noqa: E402
    assert_usage_error,
    run_main,
)
from game.render.controls import CONTROLS_TEXT, KEYMAP, Gamepads, intents_to_input, merge  # noqa: E402
from game.sim import MoveStarted  # noqa: E402
from game.sim.inputs import axes  # noqa: E402

RIGHT, FWD = (1.0, 0.0), (0.0, 1.0)          # camera: screen right is +x, into the screen +z
FACING_RIGHT = (1.0, 0.0)


class FakePad:
    """pyglet 2.1 Controller attributes; ``device.connected`` as evdev reports it."""

    def __init__(self, **kw):
        self.left_analog = kw.pop("left_analog", Vec2(0, 0))
        self.dpad = kw.pop("dpad", Vec2(0, 0))
        for name in ("x", "y", "a", "b", "leftshoulder", "rightshoulder", "start"):
            setattr(self, name, kw.pop(name, False))
        self.lefttrigger = kw.pop("lefttrigger", 0.0)
        self.righttrigger = kw.pop("righttrigger", 0.0)
        self.device = SimpleNamespace(connected=True)
        self.opened = False
        assert not kw

    def open(self, window=None, exclusive=False):
        self.opened = True


class FakeManager:
    """pyglet.input.ControllerManager: ``get_controllers`` and on_connect / on_disconnect."""

    def __init__(self, pads=()):
        self.pads = list(pads)
        self.handlers = {}

    def get_controllers(self):
        return [p for p in self.pads if p.device.connected]

    def push_handlers(self, **handlers):
        self.handlers.update(handlers)

    def plug(self, pad):
        self.pads.append(pad)
        self.handlers["on_connect"](pad)

    def unplug(self, pad):
        pad.device.connected = False
        self.pads.remove(pad)
        self.handlers["on_disconnect"](pad)


def fighter_input(intents):
    return intents_to_input(merge(intents), FACING_RIGHT, RIGHT, FWD)


# ------------------------------------------------------------------ gamepads
def test_pad_stick_against_dpad_cancels_as_left_plus_right_keys_do():
    """SOCD: the stick pushed one way and the d-pad the other are opposite directions held
    at once, as A+D on the keyboard: both cancel (the sim's rule), never one of them winning
    because the two were summed into one axis (-0.5 + 1 = 0.5 read as 'right')."""
    keys_lr = fighter_input({"left": True, "right": True})
    keys_ud = fighter_input({"up": True, "down": True})
    g = Gamepads(pyglet, enabled=False)
    g.pads = [FakePad(left_analog=Vec2(-0.5, 0.0), dpad=Vec2(1, 0)),
              FakePad(left_analog=Vec2(0.0, 0.5), dpad=Vec2(0, -1))]
    lr, ud = fighter_input(g.intents(0)), fighter_input(g.intents(1))
    assert axes(lr.bits) == axes(keys_lr.bits) == (0, 0, 0), (lr, keys_lr)
    assert axes(ud.bits) == axes(keys_ud.bits) == (0, 0, 0), (ud, keys_ud)
    # each on its own still moves
    one = Gamepads(pyglet, enabled=False)
    one.pads = [FakePad(left_analog=Vec2(-0.6, 0.0)), FakePad(dpad=Vec2(1, 0))]
    assert merge(one.intents(0))["left"] and merge(one.intents(1))["right"]


def test_pad_unplugged_mid_match_stops_driving_its_fighter():
    """A pad pulled out while its stick was held right and X down keeps those values in
    pyglet's Controller (nothing resets them): the fighter must not walk and punch forever."""
    pad = FakePad(left_analog=Vec2(1.0, 0.0), x=True)
    g = Gamepads(pyglet, enabled=False)
    g.pads = [pad]
    assert merge(g.intents(0))["right"]
    pad.device.connected = False                       # the device file is gone
    assert not any(merge(g.intents(0)).values())


def test_pad_hot_plug_keeps_each_players_slot():
    """Through pyglet's ControllerManager: pads present at start fill the slots in order; a
    pad unplugged frees its slot (the other player's pad stays where it was: P2 never
    suddenly drives P1); a pad plugged in mid-match is opened and takes the free slot."""
    a, b, c = FakePad(left_analog=Vec2(-1.0, 0.0)), FakePad(b=True), FakePad(y=True)
    mgr = FakeManager([a, b])
    g = Gamepads(pyglet, manager=mgr)
    assert a.opened and b.opened
    assert merge(g.intents(0))["left"] and merge(g.intents(1))["hk"]
    mgr.unplug(a)
    assert not any(merge(g.intents(0)).values())       # P1's slot is empty, not P2's pad
    assert merge(g.intents(1))["hk"]
    mgr.plug(c)
    assert c.opened
    assert merge(g.intents(0))["hp"] and merge(g.intents(1))["hk"]


def test_pads_come_from_a_controller_manager_so_hot_plug_is_seen(monkeypatch):
    """The window's Gamepads listens to a ControllerManager (not a one-off get_controllers)."""
    try:
        import pyglet.input
        import pyglet.window.xlib  # noqa: F401
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"pyglet.input unavailable here: {exc}")
    pad = FakePad(a=True)
    mgr = FakeManager([pad])
    monkeypatch.setattr(pyglet.input, "ControllerManager", lambda *a, **k: mgr)
    monkeypatch.setattr(pyglet.input, "get_controllers", lambda *a, **k: [])
    g = Gamepads(pyglet)
    assert merge(g.intents(0))["lk"]
    late = FakePad(x=True)
    mgr.plug(late)
    assert merge(g.intents(1))["lp"]


# ------------------------------------------------------------------ keyboard
def _key():
    from pyglet.window import key

    return key


def test_player_key_maps_do_not_overlap():
    one = {n for names in KEYMAP[0].values() for n in names}
    two = {n for names in KEYMAP[1].values() for n in names}
    assert not one & two


@pytest.mark.parametrize("intent, numlock_off", [
    ("in", "NUM_HOME"), ("out", "NUM_PAGE_UP"), ("lp", "NUM_LEFT"), ("hp", "NUM_BEGIN"),
    ("lk", "NUM_END"), ("hk", "NUM_DOWN"), ("guard", "NUM_INSERT"),
])
def test_p2_keypad_keys_work_with_num_lock_off(intent, numlock_off):
    """With Num Lock off the keypad sends KP_Home, KP_Left, KP_Begin, ... instead of KP_7,
    KP_4, KP_5: the keys the controls screen calls Num7, Num4, Num5 must act all the same."""
    from game.render.controls import Keyboard

    key = _key()
    state = key.KeyStateHandler()
    state.on_key_press(getattr(key, numlock_off), 0)
    held = Keyboard(key, state).intents(1)
    assert held[intent] and sum(held.values()) == 1, held


#: how the controls screen names each key of KEYMAP (Num Lock off sends another code for the
#: same keypad key: it shares the NumN label)
LABELS = {"SPACE": "Space", "LEFT": "←", "RIGHT": "→", "UP": "↑", "DOWN": "↓", "PAGEUP": "PgUp",
          "PAGEDOWN": "PgDn", "BRACKETLEFT": "[", "BRACKETRIGHT": "]", "SEMICOLON": ";", "APOSTROPHE": "'",
          "RCTRL": "RCtrl", "BACKSLASH": "\\", "NUM_HOME": "Num7", "NUM_PAGE_UP": "Num9", "NUM_LEFT": "Num4",
          "NUM_BEGIN": "Num5", "NUM_END": "Num1", "NUM_DOWN": "Num2", "NUM_INSERT": "Num0"}


@pytest.mark.parametrize("player", [0, 1])
def test_controls_screen_names_every_bound_key(player):
    line = next(t for t in CONTROLS_TEXT if t.startswith(f"P{player + 1} "))
    for intent, names in KEYMAP[player].items():
        for n in names:
            label = LABELS.get(n, n.replace("NUM_", "Num"))
            assert label in line, f"{n} ({intent}) is bound but the controls screen does not name it: {line!r}"


def test_controls_screen_names_the_gamepad_buttons():
    pad = " ".join(t for t in CONTROLS_TEXT if "pad" in t.lower())
    for word in ("stick", "d-pad", "X", "Y", "A", "B", "RB", "RT", "LB", "LT"):
        assert word in pad.split() or word in pad, (word, pad)


# ------------------------------------------------------------------ keys held through a menu
@pytest.fixture(scope="module")
def env():
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


def test_controls_screen_lines_stay_inside_their_panel(env):
    """The title screen's controls panel spans the canvas less 40 units each side: every
    line (now with the pad's) must lie inside it, not run over its edges."""
    _, _, game = env
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


def test_menu_confirm_key_held_on_resume_fires_no_move(env):
    """U (P1's LP) is also the pause menu's confirm key: choosing Resume with it must not
    throw a jab on the first frame back; once released, U punches as usual."""
    _, window, game = env
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


def test_title_start_key_held_into_the_fight_fires_no_move(env):
    """U also starts the fight from the title screen; held through the round's intro it
    must not come out as a jab on the first frame of FIGHT."""
    _, window, game = env
    _fresh(game)
    game.screen = "title"
    key = _key()
    _press(window, key.U)
    assert game.screen == "fight"
    assert _p1_moves(game, 100) == []
    _release(window, key.U)


def test_pad_button_pressed_during_the_pause_fires_no_move_on_resume(env):
    """A button pressed on P2's pad while the game is paused and still held when the menu
    closes is not a press made in the fight."""
    _, window, game = env
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


@pytest.mark.parametrize("args", [
    ["--headless", "--frames", "5", "--p2", "human", "--level", "hard"],
    ["--headless", "--frames", "5", "--p1", "human", "--p2", "human", "--level", "easy"],
])
def test_level_without_a_cpu_side_exits_2(args, tmp_path):
    p = run_main(args)
    assert_usage_error(p, "--level", "cpu")


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_screenshot_and_record_to_the_same_file_exits_2(force, tmp_path):
    """--screenshot shot.png --record shot.png: the replay would overwrite the PNG (with
    --force) or fail at the end and land in the temp folder; refused before the match."""
    p = subprocess.run([sys.executable, str(ROOT / "main.py"), "--screenshot", "shot.png", "--record",
                        "./shot.png", "--frames", "5", *force], cwd=tmp_path, capture_output=True, text=True,
                       timeout=120, check=False, env=dict(os.environ, PYGLET_HEADLESS="1"))
    assert_usage_error(p, "--screenshot shot.png", "--record ./shot.png", "same file")
    assert not (tmp_path / "shot.png").exists()


@pytest.mark.parametrize("args", [[], ["--p1", "cpu", "--p2", "cpu"], ["--record", "x.rpl"]])
def test_invisible_window_that_would_never_end_exits_2(args, tmp_path):
    """PYGLET_HEADLESS=1 (which the no-display message suggests) gives a window no one can
    see or press a key in: without --frames (or a replay, which ends) the game would run
    forever, holding the terminal.  It must say so and name the ways out."""
    e = dict(os.environ, PYGLET_HEADLESS="1")
    e.pop("DISPLAY", None)
    try:
        p = subprocess.run([sys.executable, str(ROOT / "main.py"), *args], env=e, cwd=tmp_path,
                           capture_output=True, text=True, timeout=60, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"main.py {' '.join(args)} under PYGLET_HEADLESS=1 never ended")
    if p.returncode == 2 and "not found" in p.stderr:
        pytest.skip(f"no GL libraries here: {p.stderr.strip()}")
    assert_usage_error(p, "PYGLET_HEADLESS", "--frames", "--headless")
    assert not (tmp_path / "x.rpl").exists()


@pytest.mark.parametrize("args, runner", [
    (["--headless"], "run_headless"),
    (["--frames", "10"], "run_window"),
])
def test_ctrl_c_exits_quietly(args, runner, monkeypatch, capsys):
    """Ctrl-C in the terminal ends the game with one line and status 130, not a traceback
    from wherever the frame loop happened to be."""
    sys.path.insert(0, str(ROOT))
    import main
    from game.cli import app

    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(app, runner, interrupted)
    try:
        rc = main.main(args)
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C escaped main.main as a KeyboardInterrupt (a traceback in the terminal)")
    assert rc == 130
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "interrupted" in err, err


def test_ctrl_c_keeps_the_frames_recorded_so_far(monkeypatch, tmp_path, capsys):
    """Nothing is lost: Ctrl-C during a --record run saves the replay of the frames played."""
    sys.path.insert(0, str(ROOT))
    import main
    from game.cli import headless
    from game.replay import load_replay

    make = headless.make_match

    def make_interrupted(*a, **k):
        m = make(*a, **k)
        step = m.step

        def step_then_interrupt(p1, p2):
            if m.frame == 40:
                raise KeyboardInterrupt
            return step(p1, p2)
        m.step = step_then_interrupt
        return m
    monkeypatch.setattr(headless, "make_match", make_interrupted)
    path = tmp_path / "cut.rpl"
    try:
        rc = main.main(["--headless", "--p1", "cpu", "--p2", "cpu", "--record", str(path)])
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C escaped main.main as a KeyboardInterrupt")
    assert rc == 130, capsys.readouterr().err
    assert load_replay(path).frames == 40


# ------------------------------------------------------------------ menus from a pad
def test_pad_menu_buttons_are_any_pads_start_a_b_and_vertical_directions():
    g = Gamepads(pyglet, enabled=False)
    g.pads = [FakePad(start=True, dpad=Vec2(0, 1)), None, FakePad(b=True, left_analog=Vec2(0.0, -0.9))]
    assert g.menu_buttons() == {"start", "up", "b", "down"}
    g.pads[0].device.connected = False               # an unplugged pad's last state is no press
    assert g.menu_buttons() == {"b", "down"}
    assert Gamepads(pyglet, enabled=False).menu_buttons() == set()


def _tap(game, pad, name, value=True):
    """Press a pad button for one tick, then release it for one (the game acts on the press)."""
    setattr(pad, name, value)
    game.step()
    setattr(pad, name, Vec2(0, 0) if name == "dpad" else False)
    game.step()


def test_two_players_on_pads_start_pause_choose_and_resume_without_the_keyboard(env):
    """Start leaves the title, pauses a fight and confirms; the d-pad moves in the menu; B
    closes it; A confirms.  Before, a pad could not leave the title or pause at all."""
    _, _, game = env
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


def test_numpad_enter_confirms_like_enter(env):
    _, window, game = env
    _fresh(game)
    game.screen = "title"
    _press(window, _key().NUM_ENTER)
    assert game.screen == "fight"
    _to_fight(game)
    _press(window, _key().ESCAPE)
    _press(window, _key().NUM_ENTER)                  # Resume
    assert game.menu_sel is None
