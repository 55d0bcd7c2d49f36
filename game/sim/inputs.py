"""FrameInput: one player's buttons for one frame, as an immutable value.

Directions are relative to the fighter: *forward* is toward the opponent,
*side_l* / *side_r* sidestep to the fighter's own left / right.  The window
side maps keys or sticks to these; the simulation never sees key codes.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

#: Bit order of :attr:`FrameInput.bits` (bit i = BUTTONS[i]).
BUTTONS = ("forward", "back", "up", "down", "side_l", "side_r", "lp", "hp", "lk", "hk", "guard")


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

    @property
    def bits(self) -> int:
        n = 0
        for i, name in enumerate(BUTTONS):
            if getattr(self, name):
                n |= 1 << i
        return n

    @classmethod
    def from_bits(cls, n: int) -> "FrameInput":
        """Decode ``n`` in ``range(2 ** BITS)``; anything else raises ValueError."""
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n < (1 << len(BUTTONS)):
            raise ValueError(f"FrameInput.from_bits: expected an int in range(0, {1 << len(BUTTONS)}), got {n!r}")
        return _DECODED[n]

    def __str__(self) -> str:
        on = [f.name for f in fields(self) if getattr(self, f.name)]
        return "FrameInput(" + ("+".join(on) or "neutral") + ")"


_DECODED = tuple(
    FrameInput(**{name: bool(n >> i & 1) for i, name in enumerate(BUTTONS)}) for n in range(1 << len(BUTTONS))
)

# Bit masks used by the match (plain ints: cheap to test).
FORWARD, BACK, UP, DOWN, SIDE_L, SIDE_R, LP, HP, LK, HK, GUARD = (1 << i for i in range(len(BUTTONS)))
ATTACK_BUTTONS = LP | HP | LK | HK


def axes(bits: int) -> tuple[int, int, int]:
    """``(forward, up, side)`` each in {-1, 0, 1}; contradictory pairs cancel to 0."""
    fwd = (1 if bits & FORWARD else 0) - (1 if bits & BACK else 0)
    up = (1 if bits & UP else 0) - (1 if bits & DOWN else 0)
    side = (1 if bits & SIDE_R else 0) - (1 if bits & SIDE_L else 0)
    return fwd, up, side
