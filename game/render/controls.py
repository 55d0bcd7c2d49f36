"""Keyboard and gamepad -> :class:`~game.sim.FrameInput`.

Keys give screen-relative *intents* (left, right, up, down, in = sidestep into
the screen, out = sidestep toward the camera, and the buttons);
:func:`intents_to_input` turns them into the fighter-relative input the sim
wants, from the fighter's facing and the camera's screen axes, so "right"
walks forward for the fighter on the left of the screen and back for the one
on the right, whichever way the camera has swung.  :class:`PlayerInputs` reads
both players' keys and pads into each frame's two inputs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

import numpy as np

from game.settings import DEFAULT_BINDINGS
from game.sim import FrameInput

if TYPE_CHECKING:
    from game.sim import Match

    from .camera import FightCamera
    from .training import TrainingMode

INTENTS = ("left", "right", "up", "down", "in", "out", "lp", "hp", "lk", "hk", "guard")
#: intents the match acts on when pressed (attacks, jump): one held when play resumes from the
#: title screen or the pause menu (U and Space confirm there) must be released before it counts
PRESS_INTENTS = ("up", "lp", "hp", "lk", "hk")
#: the input given to a CPU side (the match decides that side's input itself)
_NEUTRAL = FrameInput()

#: the default key names (pyglet.window.key attributes) per player and intent
#: (``game.settings.DEFAULT_BINDINGS``; the options screen remaps them)
KEYMAP = DEFAULT_BINDINGS

#: the title screen's lines past the two players' own (made by :func:`controls_text`)
OTHER_CONTROLS = (
    ("Pad  move stick / d-pad  ·  LP X  HP Y  LK A  HK B  ·  guard RB / RT  ·  sidestep LB (in) LT (out)  ·  "
     "Start start / pause (menu: A ok, B back)"),
    ("Esc pause menu  ·  F1 debug overlay (F2 crates, F3 quadtree, F4 rays)  ·  F5 fps  ·  F11 fullscreen  ·  "
     "M sound on/off  ·  F10 network (netplay)"),
    ("Training  P freeze  ·  . step one frame  ·  R reset  ·  F6 dummy stance/guard  ·  F9 dummy reversal  ·  "
     "F7 record  ·  F8 playback"),
)


def controls_text(bindings: dict[int, dict[str, tuple[str, ...]]]) -> tuple[str, ...]:
    """The title screen's lines: each player's keys and the throw's, read from ``bindings``
    (the options screen's remapping shows at once), and :data:`OTHER_CONTROLS`."""
    from .options import key_label, keys_label

    def line(p: int) -> str:
        # an intent's keys apart by a space, in short names: the line fits the title's panel
        k = {intent: " ".join(keys_label(names).split(" / ")).replace("Right Ctrl", "RCtrl")
             for intent, names in bindings[p].items()}
        return (f"P{p + 1}   move {k['left']} {k['right']} · jump {k['up']} · crouch {k['down']} · "
                f"sidestep in {k['in']} out {k['out']} · LP {k['lp']}  HP {k['hp']}  LK {k['lk']}  "
                f"HK {k['hk']} · guard {k['guard']}")

    def throw(p: int) -> str:
        return key_label(bindings[p]["lp"][0]) + "+" + key_label(bindings[p]["lk"][0])

    return (line(0), line(1), *OTHER_CONTROLS,
            f"Throw  LP + LK together (P1 {throw(0)}  ·  P2 {throw(1)}  ·  pad X+A)  ·  "
            "grabbed? LP + LK at once breaks it  ·  fireball LP + HP")


#: the title screen's lines with the default bindings
CONTROLS_TEXT = controls_text(DEFAULT_BINDINGS)


def intents_to_input(held: dict, facing, cam_right, cam_fwd) -> FrameInput:
    """Screen intents -> fighter-relative input.

    held : intent name -> bool; facing : (2,) x-z unit vector of the fighter;
    cam_right, cam_fwd : (2,) x-z unit vectors of the camera's screen right
    and into-the-screen directions.
    """
    facing = np.asarray(facing, dtype=float)
    toward_right = float(facing @ np.asarray(cam_right)) >= 0.0
    right_side = np.array([-facing[1], facing[0]])               # the fighter's own right
    right_is_in = float(right_side @ np.asarray(cam_fwd)) >= 0.0
    left, right = held.get("left", False), held.get("right", False)
    sin, sout = held.get("in", False), held.get("out", False)
    fwd, back = (right, left) if toward_right else (left, right)
    side_r, side_l = (sin, sout) if right_is_in else (sout, sin)
    return FrameInput(forward=fwd, back=back, up=held.get("up", False), down=held.get("down", False),
                      side_l=side_l, side_r=side_r, lp=held.get("lp", False), hp=held.get("hp", False),
                      lk=held.get("lk", False), hk=held.get("hk", False), guard=held.get("guard", False))


class Keyboard:
    """Reads a pyglet ``KeyStateHandler`` through a binding table (key names per player and
    intent, :data:`KEYMAP` unless given; :meth:`bind` takes a new one, as the options screen does)."""

    def __init__(self, key_module, state, bindings: dict | None = None):
        self.state = state
        self.key_module = key_module
        self.bind(KEYMAP if bindings is None else bindings)

    def bind(self, bindings: dict) -> None:
        """Read the keys of ``bindings`` from now on (names pyglet does not know are skipped)."""
        k = self.key_module
        self.codes = {p: {i: tuple(getattr(k, n) for n in names if hasattr(k, n))
                          for i, names in m.items()} for p, m in bindings.items()}

    def intents(self, player: int) -> dict:
        s = self.state
        return {i: any(s[c] for c in codes) for i, codes in self.codes[player].items()}


class Gamepads:
    """pyglet.input controllers, guarded: no devices (or no /dev/input) means none.

    ``pads[i]`` is slot i's controller or None (slot 0 is the first human side's).  A
    ``ControllerManager`` reports hot-plugging: a pad plugged in mid-match is opened into
    the first free slot, and one unplugged frees its slot at once (the other pad keeps its
    own, so P2's pad never starts driving P1).  pyglet keeps an unplugged Controller's last
    state (a stick held right, a button down), so a pad whose device is gone reads as
    nothing even before the manager says so.
    """

    DEAD = 0.45
    SLOTS = 2

    def __init__(self, pyglet, enabled: bool = True, manager=None):
        self.pads: list = []            # the open controllers by slot (None: a slot emptied by a disconnect)
        self.manager = None
        if not enabled:
            return
        try:
            importlib.import_module("pyglet.window.xlib")     # pyglet.input needs it when headless
        except Exception:  # not there (another platform) or no X libraries: pads may still work
            pass
        try:
            if manager is None:
                import pyglet.input

                manager = pyglet.input.ControllerManager()
            manager.push_handlers(on_connect=self.connect, on_disconnect=self.disconnect)
            self.manager = manager
            for c in manager.get_controllers():
                self.connect(c)
        except Exception:  # FileNotFoundError without /dev/input, AttributeError headless: no pads
            self.pads = []

    def connect(self, c) -> None:
        """A controller (present at start or plugged in): opened into the first free slot."""
        if c in self.pads or (None not in self.pads and len(self.pads) >= self.SLOTS):
            return
        try:
            c.open()
        except Exception:  # a busy or vanished device is just skipped
            return
        if None in self.pads:
            self.pads[self.pads.index(None)] = c
        else:
            self.pads.append(c)

    def disconnect(self, c) -> None:
        """A controller unplugged: its slot is free (the others keep theirs)."""
        self.pads = [None if p is c else p for p in self.pads]

    def intents(self, index: int) -> dict:
        c = self.pads[index] if index < len(self.pads) else None
        if c is None or getattr(getattr(c, "device", None), "connected", True) is False:
            return {}

        def g(name, default=0.0):
            return getattr(c, name, default) or default

        stick = getattr(c, "left_analog", None)          # pyglet 2.1: Vec2, y up
        dpad = getattr(c, "dpad", None)                  # Vec2 of -1/0/1
        sx, sy = (stick.x, stick.y) if stick is not None else (0.0, 0.0)
        dx, dy = (dpad.x, dpad.y) if dpad is not None else (0.0, 0.0)
        # stick and d-pad are two sources of directions, as two keys are: held against each
        # other they are both held and cancel in the match (never summed into one axis)
        d = self.DEAD
        return {"left": sx < -d or dx < -0.5, "right": sx > d or dx > 0.5,
                "up": sy > d or dy > 0.5, "down": sy < -d or dy < -0.5,
                "in": bool(g("leftshoulder", False)), "out": g("lefttrigger") > 0.5,
                "lp": bool(g("x", False)), "hp": bool(g("y", False)), "lk": bool(g("a", False)),
                "hk": bool(g("b", False)), "guard": bool(g("rightshoulder", False)) or g("righttrigger") > 0.5}


    def menu_buttons(self) -> set:
        """The menu buttons held on any pad: ``start``, ``a`` (confirm), ``b`` (back) and the
        d-pad or stick ``up`` / ``down`` / ``left`` / ``right`` (either player may start, pause and
        choose; left / right change a value on the options screen)."""
        held = set()
        for c in self.pads:
            if c is None or getattr(getattr(c, "device", None), "connected", True) is False:
                continue
            for name in ("start", "a", "b"):
                if getattr(c, name, False):
                    held.add(name)
            stick, dpad = getattr(c, "left_analog", None), getattr(c, "dpad", None)
            y = (stick.y if stick is not None else 0.0), (dpad.y if dpad is not None else 0.0)
            if y[0] > self.DEAD or y[1] > 0.5:
                held.add("up")
            if y[0] < -self.DEAD or y[1] < -0.5:
                held.add("down")
            x = (stick.x if stick is not None else 0.0), (dpad.x if dpad is not None else 0.0)
            if x[0] > self.DEAD or x[1] > 0.5:
                held.add("right")
            if x[0] < -self.DEAD or x[1] < -0.5:
                held.add("left")
        return held


def merge(*dicts) -> dict:
    out = {i: False for i in INTENTS}
    for d in dicts:
        for k, v in d.items():
            out[k] = out[k] or bool(v)
    return out


class PlayerInputs:
    """Both players' keys and pads -> each frame's two :class:`~game.sim.FrameInput`.

    Player 0 reads P1's keys, player 1 P2's (:data:`KEYMAP`); the pads go to the human sides
    in slot order (slot 0 to P2 when P1 is a CPU).  An attack or jump (:data:`PRESS_INTENTS`)
    held when play resumes was pressed for the menu, not the fight: :meth:`resume` latches
    whatever is held at the next played frame, and each latched intent counts again once
    released.
    """

    def __init__(self, keyboard: Keyboard, pads: Gamepads) -> None:
        self.keyboard, self.pads = keyboard, pads
        #: per player, the press intents held when play resumed; None: take them at the next
        #: played frame (the key that resumed is only in the key state after it)
        self._latched: list[set[str]] | None = [set(), set()]

    def raw_intents(self, player: int, p1_human: bool) -> dict[str, bool]:
        """Keys and pad of one player (``p1_human``: whether P1 is a person, who then has pad slot 0)."""
        pad_index = player if p1_human else player - 1
        return merge(self.keyboard.intents(player), self.pads.intents(pad_index) if pad_index >= 0 else {})

    def intents(self, player: int, p1_human: bool) -> dict[str, bool]:
        """Keys and pad of one player, less the press intents latched when play resumed
        (each counts again once released)."""
        held = self.raw_intents(player, p1_human)
        latched = self._latched[player] if self._latched is not None else None
        if latched:
            latched.intersection_update(i for i in PRESS_INTENTS if held[i])
            for i in latched:
                held[i] = False
        return held

    def resume(self) -> None:
        """Play resumes (title -> fight, pause menu closed, a new match from a key): whatever
        attack or jump is held then was pressed for the menu, not the fight (taken at the next
        played frame, when the key that resumed is in the key state)."""
        self._latched = None

    def _latch(self, p1_human: bool) -> None:
        if self._latched is None:
            self._latched = [{i for i in PRESS_INTENTS if self.raw_intents(p, p1_human)[i]} for p in (0, 1)]

    def local_input(self, fighter, camera: FightCamera) -> FrameInput:
        """Netplay: the one player at this machine, on P1's keys and the first pad, playing
        ``fighter`` (either side's), relative to ``camera``'s screen axes."""
        self._latch(True)
        right, fwd = camera.screen_axes()
        return intents_to_input(self.intents(0, True), fighter.facing, right, fwd)

    def frame_inputs(self, match: Match, camera: FightCamera, p1_human: bool,
                     training: TrainingMode | None = None) -> tuple[FrameInput, FrameInput]:
        """This frame's inputs of both sides, relative to ``camera``'s screen axes.  A CPU side
        gets a neutral input without reading them: the match ignores it and decides that side
        itself.  In ``training`` P2 is the dummy: its input comes from the training mode (P1's
        keys drive it while a recording is made)."""
        self._latch(p1_human)
        if training is None:
            human = [level is None for level in match.cpu]
            if not any(human):
                return _NEUTRAL, _NEUTRAL
            right, fwd = camera.screen_axes()
            f1, f2 = match.fighters
            return (intents_to_input(self.intents(0, p1_human), f1.facing, right, fwd) if human[0] else _NEUTRAL,
                    intents_to_input(self.intents(1, p1_human), f2.facing, right, fwd) if human[1] else _NEUTRAL)
        right, fwd = camera.screen_axes()
        f1, f2 = match.fighters
        i1, i2 = self.intents(0, p1_human), self.intents(1, p1_human)
        p1 = intents_to_input(i1, f1.facing, right, fwd)
        p2 = intents_to_input(i2, f2.facing, right, fwd)
        if training.recording:          # P1's keys drive the dummy while recording
            live = intents_to_input(i1, f2.facing, right, fwd)
            p1 = _NEUTRAL
        else:
            live = p2
        return p1, training.p2_input(match, live)
