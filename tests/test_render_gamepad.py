"""Gamepads through pyglet.input: the mapping from a controller's state to intents,
and the guard that lets a machine with no devices play (no GL needed)."""

import os

os.environ.setdefault("PYGLET_HEADLESS", "1")

import pyglet  # noqa: E402
from pyglet.math import Vec2  # noqa: E402

from game.render.controls import Gamepads, merge  # noqa: E402


class FakePad:
    """The attributes pyglet 2.1's Controller exposes (sticks as Vec2, buttons as bools)."""

    def __init__(self, **kw):
        self.left_analog = kw.pop("left_analog", Vec2(0, 0))
        self.dpad = kw.pop("dpad", Vec2(0, 0))
        for name in ("x", "y", "a", "b", "leftshoulder", "rightshoulder"):
            setattr(self, name, kw.pop(name, False))
        self.lefttrigger = kw.pop("lefttrigger", 0.0)
        self.righttrigger = kw.pop("righttrigger", 0.0)
        assert not kw


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
