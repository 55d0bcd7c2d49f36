"""The pause menu's move list: every move of ``assets/moves.json`` with its input, height,
frame data, damage and frame advantage, and the scrolling panel that shows them.

The rows are read from the loaded move table (``GameData.moves``, ``GameData.throw``), never
written out here; the inputs come from the command rules (``game/sim/commands.py``: a button
each, lp + hp the fireball, lp + lk the throw, down + hk the sweep, up the jump).  "On hit /
on block" is ``Hit.advantage`` of a hit on the move's first active frame: the defender's
hitstun or blockstun less the move's active and recovery frames (docs/game-rules.md, Moves);
a fireball's depends on how far it flew, so it has none here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from game.sim.commands import ATTACK_ORDER, pair_commands
from game.sim.inputs import HK, HP, LK, LP

if TYPE_CHECKING:
    from game.sim.data import GameData

#: the buttons' names on the screen, in the order a two-button command names them
BUTTON_NAMES = ((LP, "LP"), (HP, "HP"), (LK, "LK"), (HK, "HK"))
#: the column headings (MoveRow's fields after the name)
COLUMNS = ("input", "move", "height", "start / active / recovery", "damage", "on hit / block")
NONE = "–"


class MoveRow(NamedTuple):
    """One move as the list shows it (every figure a string, ``–`` where there is none)."""

    name: str           # its key in moves.json
    input: str          # what the player presses ("LP", "down + HK", "LP + HP", ...)
    label: str          # its name for people (moves.json's ``label``)
    height: str         # "high", "mid", "low", "throw", or –
    frames: str         # "startup / active / recovery"
    damage: str         # health points a hit takes
    advantage: str      # "on hit / on block" frame advantage


def _buttons(bits: int) -> str:
    return " + ".join(name for bit, name in BUTTON_NAMES if bits & bit)


def _signed(v: int) -> str:
    return f"{v:+d}" if v else "0"


def move_inputs(data: GameData) -> dict[str, str]:
    """Each move's input, from the command rules (moves without one: a follow-up, e.g. the throw's hold)."""
    out = {name: _buttons(mask) for mask, name in ATTACK_ORDER}
    out["hk_low"] = "down + HK"                      # attack_from: hk with down held
    out.update({name: _buttons(bits) for name, bits in pair_commands(data.throw).items()})
    out["jump"] = "up"
    if data.throw is not None:
        out[data.throw.hold] = "(after the grab)"
    return out


def move_rows(data: GameData) -> list[MoveRow]:
    """Every move of the table, in moves.json's order."""
    inputs = move_inputs(data)
    throw = data.throw
    rows = []
    for name, mv in data.moves.items():
        strikes = bool(mv.hit_limbs) and mv.hitstun > 0
        left = mv.active + mv.recovery
        advantage = f"{_signed(mv.hitstun - left)} / {_signed(mv.blockstun - left)}" if strikes else NONE
        damage = mv.damage if strikes else 0
        height = mv.height if strikes else NONE
        if mv.projectile is not None:
            damage, height = mv.projectile.damage, mv.projectile.height
        if throw is not None and name == throw.move:
            hold = data.moves[throw.hold]
            advantage = f"{_signed(throw.frames - (hold.startup + hold.active + hold.recovery))} / {NONE}"
            damage, height = throw.damage, "throw"
        active = str(mv.active) if mv.active else NONE
        rows.append(MoveRow(name, inputs.get(name, NONE), mv.label, height,
                            f"{mv.startup} / {active} / {mv.recovery}", str(damage) if damage else NONE, advantage))
    return rows


class MoveList:
    """The move list panel's state: its rows and how far it is scrolled.  Up / down (W / S, the
    pad's d-pad) scroll a line, Page Up / Page Down a page; Esc, Enter or the pad's B close it."""

    def __init__(self, data: GameData, key) -> None:
        self.key = key
        self.rows = move_rows(data)
        self.top = 0            # the first row shown
        self.visible = len(self.rows)   # rows that fit (set by the panel's layout each frame)

    def fit(self, visible: int) -> None:
        """The layout shows ``visible`` rows: keep the scroll within the list."""
        self.visible = max(1, visible)
        self.top = max(0, min(self.top, len(self.rows) - self.visible))

    @property
    def scrollable(self) -> bool:
        return len(self.rows) > self.visible

    def on_key(self, symbol: int) -> bool:
        """A key while the list is shown; False: close it."""
        k = self.key
        if symbol in (k.ESCAPE, k.ENTER, k.RETURN, k.NUM_ENTER, k.BACKSPACE):
            return False
        step = {k.UP: -1, k.W: -1, k.DOWN: 1, k.S: 1, k.PAGEUP: -self.visible, k.PAGEDOWN: self.visible}
        if symbol in step:
            self.top += step[symbol]
            self.fit(self.visible)
        return True
