"""The options screen: key bindings of both players, CPU level, rounds, timer, volume, fullscreen.

Reached from the title (O) and the pause menu (Options).  Up / down choose a row, left /
right (or Enter) change a value; Enter on a key row waits for the new key, which is refused
with a message when another intent has it or the game uses it (Esc, Enter, F1-F12, M and
training's P, R and "."); Esc cancels the wait, and Esc or Back leaves the screen.  A pad
does the same with its d-pad, A and B.  Every change is applied at once through
``on_change`` (the keys, the volume, fullscreen; the CPU level, rounds and timer from the
next match, which is where a match's settings are fixed); leaving the screen saves the
settings (``game/settings.py``) when anything changed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from game import settings as saved

#: key names the game itself uses in a fight: never a player's binding
RESERVED = frozenset({"ESCAPE", "RETURN", "ENTER", "NUM_ENTER", "M", "P", "R", "PERIOD",
                      *(f"F{n}" for n in range(1, 13))})
#: the keypad's two names of one key (Num Lock on, off): binding one binds both
KEYPAD_TWINS = {"NUM_7": "NUM_HOME", "NUM_8": "NUM_UP", "NUM_9": "NUM_PAGE_UP", "NUM_4": "NUM_LEFT",
                "NUM_5": "NUM_BEGIN", "NUM_6": "NUM_RIGHT", "NUM_1": "NUM_END", "NUM_2": "NUM_DOWN",
                "NUM_3": "NUM_PAGE_DOWN", "NUM_0": "NUM_INSERT", "NUM_DECIMAL": "NUM_DELETE"}
_TWIN_OF = {**KEYPAD_TWINS, **{v: k for k, v in KEYPAD_TWINS.items()}}
#: how a key is named on the screen (others: pyglet's name, NUM_4 as Num4)
KEY_LABELS = {"LEFT": "←", "RIGHT": "→", "UP": "↑", "DOWN": "↓", "SPACE": "Space", "RCTRL": "Right Ctrl",
              "LCTRL": "Left Ctrl", "RSHIFT": "Right Shift", "LSHIFT": "Left Shift", "BRACKETLEFT": "[",
              "BRACKETRIGHT": "]", "SEMICOLON": ";", "APOSTROPHE": "'", "BACKSLASH": "\\", "PAGEUP": "PgUp",
              "PAGEDOWN": "PgDn", "COMMA": ",", "SLASH": "/", "MINUS": "-", "EQUAL": "=", "GRAVE": "`"}
#: each intent's name on the screen
INTENT_LABELS = {"left": "walk left", "right": "walk right", "up": "jump", "down": "crouch",
                 "in": "sidestep in", "out": "sidestep out", "lp": "LP", "hp": "HP", "lk": "LK", "hk": "HK",
                 "guard": "guard"}
#: the choices of each value row, in order
CHOICES: dict[str, tuple] = {"level": saved.LEVELS, "rounds": saved.ROUNDS, "timer": saved.TIMERS,
                             "volume": tuple(range(0, 101, saved.VOLUME_STEP)), "fullscreen": (False, True)}
ROW_NAMES = {"level": "CPU level", "rounds": "Rounds", "timer": "Round timer", "volume": "Sound volume",
             "fullscreen": "Fullscreen"}


class Row(NamedTuple):
    """One line of the options screen."""

    kind: str           # "value" (a setting), "key" (a binding), "action" ("reset" / "back"), "head" (a heading)
    name: str           # the setting's field, the intent, the action's name, or the heading's text
    player: int = -1    # the binding's player (0, 1), else -1


def key_label(name: str) -> str:
    """A key name as the screen shows it (``NUM_4`` -> ``Num4``, ``BRACKETLEFT`` -> ``[``)."""
    if name in KEY_LABELS:
        return KEY_LABELS[name]
    if name.startswith("NUM_"):
        return "Num" + name[4:].title().replace("_", " ")
    return name.title() if len(name) > 1 else name


def keys_label(names: tuple[str, ...]) -> str:
    """A binding's keys, each once (a keypad key's Num-Lock-off twin left out)."""
    shown = [n for n in names if not (n in _TWIN_OF and _TWIN_OF[n] in names and not n[4:].isdigit())]
    return " / ".join(key_label(n) for n in shown)


def _rows() -> list[Row]:
    rows = [Row("value", name) for name in CHOICES]
    for p in (0, 1):
        rows.append(Row("head", f"Player {p + 1} keys"))
        rows.extend(Row("key", intent, p) for intent in saved.INTENTS)
    rows += [Row("action", "reset"), Row("action", "back")]
    return rows


class OptionsScreen:
    """The options screen's state.  ``settings`` is changed in place (a copy of the game's is
    given); ``on_change(settings)`` is called after every change, ``save(settings)`` once on
    leaving if anything changed (it returns a line to show when the save failed, else None)."""

    def __init__(self, settings: saved.Settings, key, on_change: Callable[[saved.Settings], None],
                 save: Callable[[saved.Settings], str | None]) -> None:
        self.settings, self.key = settings, key
        self.on_change, self.save = on_change, save
        self.rows = _rows()
        self.sel = 0                     # the selected row (never a heading)
        self.top = 0                     # the first row shown
        self.visible = len(self.rows)    # rows that fit (set by the panel's layout)
        self.capturing = False           # waiting for the new key of the selected binding
        self.message = ""                # the last refusal or hint, shown under the rows
        self.changed = False

    def fit(self, visible: int) -> None:
        """The layout shows ``visible`` rows: scroll so that the selection is among them."""
        self.visible = max(1, visible)
        self.top = max(0, min(self.top, self.sel, len(self.rows) - self.visible))
        if self.sel >= self.top + self.visible:
            self.top = self.sel - self.visible + 1

    def value_text(self, row: Row) -> str:
        s = self.settings
        if row.kind == "key":
            if self.capturing and row == self.rows[self.sel]:
                return "press a key..."
            return keys_label(s.bindings[row.player][row.name])
        if row.kind != "value":
            return ""
        v = getattr(s, row.name)
        return {"rounds": f"best of {v}", "timer": f"{v} s", "volume": f"{v} %",
                "fullscreen": "on" if v else "off"}.get(row.name, str(v))

    def label(self, row: Row) -> str:
        if row.kind == "value":
            return ROW_NAMES[row.name]
        if row.kind == "key":
            return INTENT_LABELS[row.name]
        return {"reset": "Reset keys to the defaults", "back": "Back"}.get(row.name, row.name)

    # ------------------------------------------------------------------ keys
    def on_key(self, symbol: int) -> bool:
        """A key while the screen is shown; False: it closes (saved if anything changed)."""
        k = self.key
        if self.capturing:
            self._capture(symbol)
            return True
        row = self.rows[self.sel]
        if symbol == k.ESCAPE or (symbol in (k.ENTER, k.RETURN, k.NUM_ENTER) and row.name == "back"):
            return self._leave()
        if symbol in (k.UP, k.W, k.DOWN, k.S):
            self._move(-1 if symbol in (k.UP, k.W) else 1)
        elif symbol in (k.LEFT, k.A, k.RIGHT, k.D) and row.kind == "value":
            self._cycle(row, -1 if symbol in (k.LEFT, k.A) else 1)
        elif symbol in (k.ENTER, k.RETURN, k.NUM_ENTER, k.SPACE):
            if row.kind == "value":
                self._cycle(row, 1)
            elif row.kind == "key":
                self.capturing = True
                self.message = f"Press the new key for P{row.player + 1} {INTENT_LABELS[row.name]} (Esc: cancel)"
            elif row.name == "reset":
                self.settings.bindings = saved.Settings().bindings
                self.message = "Both players' keys are the defaults again"
                self._changed()
        return True

    def _move(self, delta: int) -> None:
        n = len(self.rows)
        sel = (self.sel + delta) % n
        while self.rows[sel].kind == "head":
            sel = (sel + delta) % n
        self.sel = sel
        self.message = ""
        self.fit(self.visible)

    def _cycle(self, row: Row, delta: int) -> None:
        options = CHOICES[row.name]
        now = getattr(self.settings, row.name)
        i = options.index(now) if now in options else 0
        setattr(self.settings, row.name, options[(i + delta) % len(options)])
        if row.name in ("level", "rounds", "timer"):
            self.message = "CPU level, rounds and timer apply from the next match"
        self._changed()

    def _capture(self, symbol: int) -> None:
        """The key pressed for the selected binding: taken, or refused with a message."""
        k = self.key
        row = self.rows[self.sel]
        self.capturing = False
        if symbol == k.ESCAPE:
            self.message = "Cancelled: the key is unchanged"
            return
        name = k.symbol_string(symbol)
        if not name or not hasattr(k, name) or getattr(k, name) != symbol:
            self.message = "That key has no name the game knows: choose another"
            return
        if name in RESERVED:
            self.message = f"{key_label(name)} is one of the game's own keys: choose another"
            return
        names = (name, _TWIN_OF[name]) if name in _TWIN_OF else (name,)
        for n in names:
            other = saved.key_conflict(self.settings.bindings, n, row.player, row.name)
            if other is not None:
                self.message = (f"{key_label(name)} is already P{other[0] + 1}'s {INTENT_LABELS[other[1]]}: "
                                f"choose another key, or change that one first")
                return
        self.settings.bindings[row.player][row.name] = names
        self.message = f"P{row.player + 1} {INTENT_LABELS[row.name]}: {key_label(name)}"
        self._changed()

    def _changed(self) -> None:
        self.changed = True
        self.on_change(self.settings)

    def _leave(self) -> bool:
        if self.changed:
            failed = self.save(self.settings)
            self.changed = False
            if failed:
                self.message = failed
        return False
