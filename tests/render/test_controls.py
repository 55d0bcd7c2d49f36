"""Keyboard and gamepads (game/render/controls.py) without a window: keys and pads map to the
fighter-relative input the simulation takes, opposite directions cancel, pads plug and unplug
mid-match, and the controls screen names every bound key and button.  Pads are fakes with the
attributes of pyglet 2.1's Controller."""

from __future__ import annotations

import numpy as np
import pyglet
import pytest
from pyglet.math import Vec2

from game.render.controls import CONTROLS_TEXT, KEYMAP, Gamepads, intents_to_input, merge
from game.sim import FrameInput, Match
from game.sim.inputs import axes
from padhelp import FakeManager, FakePad


def pads(*ps):
    g = Gamepads(pyglet, enabled=False)
    g.pads = list(ps)
    return g


def test_no_devices_means_no_pads_and_empty_intents():
    g = Gamepads(pyglet)              # this machine has no /dev/input devices: must not raise
    assert isinstance(g.pads, list)
    assert pads().intents(0) == {}


def test_stick_dpad_buttons_and_triggers_map_to_intents():
    g = pads(FakePad(left_analog=Vec2(0.9, 0.0), x=True, righttrigger=0.8),
             FakePad(dpad=Vec2(0, -1), b=True, leftshoulder=True))
    one = merge(g.intents(0))
    assert one["right"] and not one["left"] and one["lp"] and one["guard"] and not one["hk"]
    two = merge(g.intents(1))
    assert two["down"] and two["hk"] and two["in"] and not two["up"] and not two["lp"]
    # inside the dead zone nothing moves
    assert not any(merge(pads(FakePad(left_analog=Vec2(0.3, -0.3))).intents(0)).values())


# ---------------------------------------------------------------- input mapping
@pytest.mark.slow
@pytest.mark.parametrize("fighter", [0, 1])
def test_render_screen_directions_map_to_fighter_relative_input(fighter):
    """'right' walks toward screen-right and 'in' sidesteps away from the camera, for either side."""
    from game.render.camera import FightCamera
    from game.render.controls import intents_to_input
    from game.render.projection import project

    for intent, axis, sign in (("right", 0, +1), ("left", 0, -1), ("in", 1, -1), ("out", 1, +1)):
        m = Match.new(seed=0)
        while m.phase != "fight":
            m.step()
        cam = FightCamera(m.fighters[0].position, m.fighters[1].position)
        right, fwd = cam.screen_axes()
        view, proj, eye = cam.matrices(16 / 9)
        f = m.fighters[fighter]
        before = f.position.copy()
        for _ in range(10):
            inp = intents_to_input({intent: True}, f.facing, right, fwd)
            m.step(*((inp, FrameInput()) if fighter == 0 else (FrameInput(), inp)))
        moved = f.position - before
        if axis == 0:   # screen x
            x0, x1 = project(np.stack([before, f.position]), proj @ view, 1280, 720)[:, 0]
            assert np.sign(x1 - x0) == sign, f"{intent} moved fighter {fighter} the wrong way on screen"
        else:           # depth: toward (+) or away from (-) the camera
            d0 = np.linalg.norm(before - eye)
            d1 = np.linalg.norm(f.position - eye)
            assert np.sign(d0 - d1) == sign and np.linalg.norm(moved) > 0.1, intent


RIGHT, FWD = (1.0, 0.0), (0.0, 1.0)          # camera: screen right is +x, into the screen +z


FACING_RIGHT = (1.0, 0.0)


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


@pytest.mark.gl  # pyglet.input loads the GL libraries
def test_pads_come_from_a_controller_manager_so_hot_plug_is_seen(monkeypatch):
    """The window's Gamepads listens to a ControllerManager (not a one-off get_controllers)."""
    try:
        import pyglet.input
        import pyglet.window.xlib
    except Exception as exc:
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


@pytest.mark.gl  # pyglet.window's key codes load the GL libraries
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
    from game.render.controls import controls_text
    from game.render.options import key_label

    line = next(t for t in controls_text(KEYMAP) if t.startswith(f"P{player + 1} "))
    for intent, names in KEYMAP[player].items():
        for n in names:
            label = LABELS.get(n, n.replace("NUM_", "Num"))
            assert label in line or key_label(n) in line, \
                f"{n} ({intent}) is bound but the controls screen does not name it: {line!r}"


def test_controls_screen_names_remapped_keys():
    """The title's lines are made from the bindings in use: a key remapped on the options
    screen is the one named, for the move and for the throw."""
    from game.render.controls import controls_text

    bindings = {p: dict(m) for p, m in KEYMAP.items()}
    bindings[0]["lp"] = ("O",)
    lines = controls_text(bindings)
    assert "LP O  HP I" in lines[0] and "LP U" not in lines[0]
    assert "P1 O+J" in lines[-1]


def test_controls_screen_names_the_gamepad_buttons():
    pad = " ".join(t for t in CONTROLS_TEXT if "pad" in t.lower())
    for word in ("stick", "d-pad", "X", "Y", "A", "B", "RB", "RT", "LB", "LT"):
        assert word in pad.split() or word in pad, (word, pad)


# ------------------------------------------------------------------ menus from a pad
def test_pad_menu_buttons_are_any_pads_start_a_b_and_vertical_directions():
    g = Gamepads(pyglet, enabled=False)
    g.pads = [FakePad(start=True, dpad=Vec2(0, 1)), None, FakePad(b=True, left_analog=Vec2(0.0, -0.9))]
    assert g.menu_buttons() == {"start", "up", "b", "down"}
    g.pads[0].device.connected = False               # an unplugged pad's last state is no press
    assert g.menu_buttons() == {"b", "down"}
    assert Gamepads(pyglet, enabled=False).menu_buttons() == set()
