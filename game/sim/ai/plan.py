"""The CPU's plan: the small mutable state one CPU carries from frame to frame.

It lives in ``match.ai_state[i]`` so that a snapshot copies it and ``state_hash`` covers it.
A plan is plain ints and one tuple of ints, the looks it has taken at the opponent
(:mod:`.sight`): picklable, as snapshots are pickled, and immutable, so a copy may share it.
:meth:`CpuPlan.hash_items` gives the ``(name, value)`` pairs sorted by name that the match hashes.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass, fields


@dataclass(slots=True)
class CpuPlan:
    """What one CPU is doing, what it has seen and what it has already rolled for (every field
    0, and no looks, at the start)."""

    #: the input bits held while the plan lasts
    bits: int = 0
    #: frames the plan is held for after this one
    hold: int = 0
    #: bits pressed on one frame only, the plan's first (an attack button)
    tap: int = 0
    #: the sidestep (SIDE_L / SIDE_R) it keeps taking around an obstacle in its way, or 0
    detour: int = 0
    #: 1 while the plan is a sidestep out of a projectile's line or a jump over it
    dodge: int = 0
    #: the opponent's heavy attack last seen winding up: the frame it started, plus 1 (0: none)
    seen: int = 0
    #: whether this CPU reads that heavy: 0 no, 1 yes, 2 yes and answered
    read: int = 0
    #: 1 once the hit of its current move has been rolled for a confirm
    combo: int = 0
    #: while the opponent is knocked down: 0 not yet rolled, 1 no meaty (wait), 2 a meaty,
    #: 3 no meaty (wait, then guard its waking)
    down: int = 0
    #: the meaty's move, as its index in the move table
    meaty: int = 0
    #: 1 once its own knockdown has been rolled for a guard on waking
    floor: int = 0
    #: while held by a throw: 0 not yet rolled, 1 no break, ``2 + k`` a break pressed ``k`` frames
    #: after the grab
    held: int = 0
    #: the opponent's attack last noticed (its guard height rolled): the frame it started, plus 1
    noticed: int = 0
    #: while it reels from a hit: 0 not yet rolled, 1 no guard after, 2 a guard after
    reel: int = 0
    #: the frame its current move's contact was first felt (its own state: no reaction), or 0
    contact: int = 0
    #: 1 while its current light is to be followed blind by a cancel (a string, rolled at the press)
    string: int = 0
    #: the opponent's move last rolled for a punish: the frame it started, plus 1 (0: none)
    chance: int = 0
    #: that roll: 1 punish it, 0 let it go
    punish: int = 0
    #: the opponent's attack last tallied: the frame it started, plus 1 (0: none)
    tallied: int = 0
    #: the opponent's attacks seen this round, and how many of them were lows
    attacks: int = 0
    lows: int = 0
    #: the opponent's projectile throws seen this round (its habit: :func:`~.moves.next_launch`)
    zoned: int = 0
    #: its last looks at the opponent, oldest first (:func:`~.sight.look`), at most reaction + 1
    eyes: tuple[int, ...] = ()

    def copy(self) -> CpuPlan:
        """An independent copy (for a snapshot, or a restore from one)."""
        return CpuPlan(*_GET_ALL(self))

    def hash_items(self) -> list[tuple[str, int]]:
        """``(name, value)`` of every field, sorted by name: what the match's ``state_hash`` reads."""
        return list(zip(_SORTED_NAMES, _GET_SORTED(self)))

    def clear(self) -> None:
        """Back to the start: no plan, nothing rolled, nothing seen."""
        for n in _INTS:
            setattr(self, n, 0)
        self.eyes = ()

    def start(self, bits: int, hold: int, tap: int = 0) -> None:
        """A new course: ``bits`` held for ``hold`` frames after this one, ``tap`` on this one only."""
        self.bits = bits
        self.hold = hold
        self.tap = tap

    def press(self) -> int:
        """This frame's bits: the held bits plus the tap, which is then spent."""
        bits = self.bits | self.tap
        self.tap = 0
        return bits


_NAMES = tuple(f.name for f in fields(CpuPlan))
_INTS = tuple(n for n in _NAMES if n != "eyes")
_SORTED_NAMES = tuple(sorted(_NAMES))
_GET_ALL = operator.attrgetter(*_NAMES)              # every field, in order, in one C-level call
_GET_SORTED = operator.attrgetter(*_SORTED_NAMES)    # and sorted by name
# the text of one plan's hash_items(), its fields' values left to fill: ('name', {!r}) each
_ITEMS_FORMAT = "[" + ", ".join(f"({n!r}, {{!r}})" for n in _SORTED_NAMES) + "]"


#: Each plan's text by its values (a pure function of them; cleared when it holds MEMO_SIZE).
_TEXTS: dict[tuple, str] = {}
MEMO_SIZE = 4096


def hash_text(plans: Sequence[CpuPlan]) -> str:
    """``repr([p.hash_items() for p in plans])``, the same text, filled into one format string
    per plan and remembered by the plan's values: the match hashes its plans after every frame
    (a replay's tag, the server's referee), and a plan often holds still for many frames (a
    side without a CPU, always)."""
    parts = []
    for p in plans:
        values = _GET_SORTED(p)
        text = _TEXTS.get(values)
        if text is None:
            if len(_TEXTS) >= MEMO_SIZE:
                _TEXTS.clear()
            text = _TEXTS[values] = _ITEMS_FORMAT.format(*map(_plain, values))
        parts.append(text)
    return "[" + ", ".join(parts) + "]"


def _plain(v: int | tuple[int, ...]) -> int | tuple[int, ...]:
    """A field's value as Python ints: a numpy integer set by a tool is the same state as the
    int it equals (as ``state_hash`` reads a fighter's numpy scalars), and so the same text
    whichever of the two filled the memo first."""
    if type(v) is int:
        return v
    return tuple(int(x) for x in v) if isinstance(v, tuple) else int(v)


def initial_state() -> CpuPlan:
    """A CPU's plan at the start of a match: nothing planned, nothing rolled."""
    return CpuPlan()
