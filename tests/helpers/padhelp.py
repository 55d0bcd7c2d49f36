"""Stand-ins for pyglet's game controllers, for the pad tests: a pad with the attributes of a
pyglet 2.1 ``Controller``, and a ``ControllerManager`` that connects and disconnects them."""

from __future__ import annotations

from types import SimpleNamespace

from pyglet.math import Vec2


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
