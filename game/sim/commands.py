"""Input commands: the buttons of a frame read into the command a fighter asks for.

Stage 1 of a step (A8) reads each side's input bits (a CPU side computes its own,
``ai.decide``).  A press is a button not held on the frame before.  The command it asks for
(:func:`attack_from`) is read on the frame of the press and kept in a buffer for
``BUFFER_FRAMES`` frames until the fighter can act; two-button commands (lp + hp the fireball,
lp + lk the throw) allow their second press ``PAIR_LENIENCY`` frames after the first, even
when the first has already started a move of its own (``Fighter.lone``, ``actions``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import ai
from .fighter import Fighter
from .inputs import ATTACK_BUTTONS, BY_BITS, GUARD, HK, HP, LK, LP, FrameInput, axes
from .moves import ThrowSpec

if TYPE_CHECKING:
    from .match import Match

BUFFER_FRAMES = 6          # an attack pressed this early is kept until the fighter can act
PAIR_LENIENCY = 2          # frames a two-button command's second press may come after the first
SLOT = 16                  # bits per frame in Fighter.presses (the inputs have 11)

#: Attack priority when several buttons are pressed on one frame.
ATTACK_ORDER = ((HK, "hk"), (HP, "hp"), (LK, "lk"), (LP, "lp"))
#: The buttons whose lone press starts a move that a second button may still turn into a
#: two-button command (lp + hp, lp + lk) within ``PAIR_LENIENCY`` frames (``Fighter.lone``).
LONE = {"lp": LP, "hp": HP, "lk": LK}


def read_inputs(m: Match, p1: FrameInput, p2: FrameInput) -> tuple[int, int]:
    """Stage 1: each side's input bits this frame (a CPU side's from ``ai.decide``; a player's
    must be a :class:`FrameInput`, else TypeError).  Sets ``m.last_inputs``."""
    b1 = _side_bits(m, 0, p1)
    b2 = _side_bits(m, 1, p2)
    m.last_inputs = (BY_BITS[b1], BY_BITS[b2])
    return b1, b2


def _side_bits(m: Match, i: int, given: FrameInput) -> int:
    """Side ``i``'s bits: its CPU's decision, or the player's ``given`` input."""
    level = m.cpu[i]
    if level is not None:
        return ai.decide(m, i, level)
    if not isinstance(given, FrameInput):
        raise TypeError(f"Match.step: p{i + 1} must be a FrameInput, got {type(given).__name__}")
    return given.bits


def pair_commands(throw: ThrowSpec | None) -> dict[str, int]:
    """The two-button commands and their buttons: lp + hp the fireball, lp + lk the throw
    (only where the data has one)."""
    return {"fireball": LP | HP, **({throw.move: LP | LK} if throw is not None else {})}


def read_press(f: Fighter, bits: int, throw: str) -> int:
    """A frame's buttons for ``f``: its presses (buttons not held on the frame before), the
    command they ask for put in the buffer, or the buffer counted down (not in hitstop: a
    follow-up pressed at contact is still there after it).  ``throw``: the throw's move name
    ("" where the data has none).  Returns the presses."""
    pressed = bits & ~f.prev_bits
    f.prev_bits = bits
    f.input_bits = bits
    want = attack_from(pressed, bits, f.presses, throw)
    if want:
        f.buf_move, f.buf_left = want, BUFFER_FRAMES
    elif f.buf_left > 0 and f.hitstop == 0:
        f.buf_left -= 1
        if f.buf_left == 0:
            f.buf_move = ""
    return pressed


def remember_presses(f: Fighter, pressed: int) -> None:
    """Keep this frame's presses in ``f.presses`` (the last ``PAIR_LENIENCY`` frames, newest in
    the lowest slot), and let go of a lone press that has left the pair's window or whose move
    was cut."""
    f.presses = ((f.presses << SLOT) | pressed) & ((1 << SLOT * PAIR_LENIENCY) - 1)
    if f.lone and (not pressed_within(f.presses) & f.lone or not f.move):
        f.lone = 0


def buffered(m: Match, f: Fighter) -> str:
    """The move ``f``'s buffered press starts now: the command as it was pressed (down + hk
    is the sweep, read at the press: :func:`attack_from`), except that a fireball press while
    its own fireball flies comes out as its heavy punch (one at a time)."""
    move = f.buf_move
    if move == "fireball" and m.stage is not None and \
            any(p.owner == f.index for p in m.stage.projectiles):
        return "hp"
    return move


def guard_level(bits: int) -> int:
    """``Fighter.guard`` asked for by ``bits``: 0 none, 1 standing, 2 crouching (guard + down;
    up + down cancel, as everywhere, to a standing guard)."""
    if not bits & GUARD:
        return 0
    return 2 if axes(bits)[1] < 0 else 1


def pressed_within(presses: int) -> int:
    """The buttons pressed on any frame of ``Fighter.presses`` (one ``SLOT``-bit slot per frame)."""
    out = 0
    while presses:
        out |= presses & ((1 << SLOT) - 1)
        presses >>= SLOT
    return out


def attack_from(pressed: int, bits: int, presses: int = 0, throw: str = "") -> str:
    """The attack a press asks for, read on the frame of the press: lp + hp is the fireball and
    lp + lk the throw (``throw``: its move's name; "" where the data has none) when one of the
    two is pressed now and the other now or on one of the ``PAIR_LENIENCY`` frames before
    (``presses``: ``Fighter.presses``), held since or not: a button held from long ago
    makes no pair (lp held through a jab, then hp, is the straight).  Then hk with down held
    (``bits``) the sweep, else by priority.  The buffer keeps this command: a down released
    (or pressed) between the press and the frame the move can start changes nothing."""
    if not pressed & ATTACK_BUTTONS:
        return ""
    near = pressed | pressed_within(presses)
    if pressed & (LP | HP) and near & LP and near & HP:
        return "fireball"
    if throw and pressed & (LP | LK) and near & LP and near & LK:
        return throw
    for mask, name in ATTACK_ORDER:
        if pressed & mask:
            return "hk_low" if name == "hk" and axes(bits)[1] < 0 else name
    return ""
