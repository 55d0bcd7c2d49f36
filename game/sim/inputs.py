"""FrameInput: one player's buttons for one frame, as an immutable value.

Directions are relative to the fighter: *forward* is toward the opponent,
*side_l* / *side_r* sidestep to the fighter's own left / right.  The window
side maps keys or sticks to these; the simulation never sees key codes.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, fields

import numpy as np

#: Bit order of :attr:`FrameInput.bits` (bit i = BUTTONS[i]).
BUTTONS = ("forward", "back", "up", "down", "side_l", "side_r", "lp", "hp", "lk", "hk", "guard")
_GET_BUTTONS = operator.attrgetter(*BUTTONS)
_ALL_BOOL = frozenset((bool,))


@dataclass(frozen=True, slots=True)
class FrameInput:
    """Immutable per-frame input.  ``FrameInput()`` is neutral.

    Converts to and from a small int: every ``n`` in ``range(2 ** FrameInput.BITS)``
    is valid.  Contradictory directions (forward+back, up+down, side_l+side_r)
    are allowed and cancel when the match reads them.
    """

    forward: bool = False
    back: bool = False
    up: bool = False
    down: bool = False
    side_l: bool = False
    side_r: bool = False
    lp: bool = False
    hp: bool = False
    lk: bool = False
    hk: bool = False
    guard: bool = False

    BITS = len(BUTTONS)

    def __post_init__(self) -> None:
        # Each button is a bool: numpy's bool and the ints 0 / 1 are taken as one; anything
        # else (a string such as 'no', 2, None) would silently read as pressed or not.
        if _ALL_BOOL.issuperset(map(type, _GET_BUTTONS(self))):
            return                                   # the usual case, in one C-level pass
        for name in BUTTONS:
            v = getattr(self, name)
            if v is True or v is False:
                continue
            if isinstance(v, (np.bool_, int, np.integer)) and v in (0, 1):
                object.__setattr__(self, name, bool(v))
                continue
            raise TypeError(f"FrameInput: {name} must be True or False, got {type(v).__name__} {v!r}")

    @property
    def bits(self) -> int:
        """The buttons as an int, bit i for ``BUTTONS[i]`` (each field is a bool, so a shift of it
        is 0 or that bit)."""
        fwd, back, up, down, side_l, side_r, lp, hp, lk, hk, guard = _GET_BUTTONS(self)
        return (fwd | back << 1 | up << 2 | down << 3 | side_l << 4 | side_r << 5 | lp << 6 | hp << 7
                | lk << 8 | hk << 9 | guard << 10)

    @classmethod
    def from_bits(cls, n: int) -> "FrameInput":
        """Decode ``n`` in ``range(2 ** BITS)`` (an int, or a numpy integer such as an element
        of a ``uint16`` input array); anything else raises ValueError."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 0 <= n < (1 << len(BUTTONS)):
            raise ValueError(f"FrameInput.from_bits: expected an int in range(0, {1 << len(BUTTONS)}), got {n!r}")
        return _DECODED[n]

    def __str__(self) -> str:
        on = [f.name for f in fields(self) if getattr(self, f.name)]
        return "FrameInput(" + ("+".join(on) or "neutral") + ")"


_DECODED = tuple(
    FrameInput(**{name: bool(n >> i & 1) for i, name in enumerate(BUTTONS)}) for n in range(1 << len(BUTTONS))
)
#: The :class:`FrameInput` of every ``n`` in ``range(2 ** FrameInput.BITS)``, by ``n``: what
#: ``FrameInput.from_bits`` returns, for the match's own bits, which need no check.
BY_BITS = _DECODED

# Bit masks used by the match (plain ints: cheap to test).
FORWARD, BACK, UP, DOWN, SIDE_L, SIDE_R, LP, HP, LK, HK, GUARD = (1 << i for i in range(len(BUTTONS)))
ATTACK_BUTTONS = LP | HP | LK | HK


def axes(bits: int) -> tuple[int, int, int]:
    """``(forward, up, side)`` each in {-1, 0, 1}; contradictory pairs cancel to 0."""
    fwd = (1 if bits & FORWARD else 0) - (1 if bits & BACK else 0)
    up = (1 if bits & UP else 0) - (1 if bits & DOWN else 0)
    side = (1 if bits & SIDE_R else 0) - (1 if bits & SIDE_L else 0)
    return fwd, up, side
