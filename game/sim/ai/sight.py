"""What the CPU has seen of its opponent: a short history of looks, read a reaction time late.

A player reacts to what they saw a moment ago, not to the frame on the screen.  So each frame
the CPU takes one look at its opponent (:func:`look`: its state, move, move frame, stun, hitstop
and guard, packed into one int) and keeps the last ``reaction + 1`` looks in its plan
(``CpuPlan.eyes``, snapshotted and hashed with the match).  Its rules read the oldest of them
(:func:`sight`): the opponent as it was ``age`` frames ago, its timings (move frame, stun,
hitstop) carried forward by the frames since, as a player who knows the frame data counts on
from what they saw, but nothing of what it did since (a move it started, a guard it raised).

Where the opponent stands is read as it is: a player tracks the spacing all the time.  A round
starts with no looks; then, and after a restore into a match whose CPU had none, the first look
is the present one, and the view lags by one frame more each frame up to the level's reaction.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from ..data import GameData
from ..fighter import FighterState
from .view import FighterView

#: The fighter states by index (the look's low 4 bits).
STATES: tuple[FighterState, ...] = tuple(FighterState)
_STATE_INDEX: dict[str, int] = {s: k for k, s in enumerate(STATES)}
# Bit layout of a look: state 4, move 4, move frame 8, move_hit 1, stun 8, hitstop 6, guard 2.
_MOVE, _MFRAME, _HIT, _STUN, _STOP, _GUARD = 4, 8, 16, 17, 25, 31


@functools.lru_cache(maxsize=4)
def move_names(data: GameData) -> tuple[str, ...]:
    """The move names by index in a look: ``""`` (no move) first, then the move table's order."""
    names = ("", *data.moves)
    if len(names) > 16:
        raise ValueError(f"the CPU's look packs a move in 4 bits: {len(names) - 1} moves is too many")
    return names


@functools.lru_cache(maxsize=4)
def _move_index(data: GameData) -> dict[str, int]:
    return {n: k for k, n in enumerate(move_names(data))}


def look(data: GameData, f: FighterView) -> int:
    """One look at fighter ``f``, packed into an int (counts past a field's width are clipped)."""
    # conditional expressions rather than min(): this runs for every CPU on every frame
    mframe, stun, stop = f.mframe, f.stun, f.hitstop
    return (_STATE_INDEX[f.state] | _move_index(data)[f.move] << _MOVE
            | (mframe if mframe < 255 else 255) << _MFRAME | bool(f.move_hit) << _HIT
            | (stun if stun < 255 else 255) << _STUN | (stop if stop < 63 else 63) << _STOP
            | f.guard << _GUARD)


def remember(eyes: tuple[int, ...], seen: int, reaction: int) -> tuple[int, ...]:
    """``eyes`` with the look ``seen`` added, keeping the last ``reaction + 1`` looks."""
    eyes = (*eyes, seen)
    return eyes[-(reaction + 1):] if len(eyes) > reaction + 1 else eyes


class Sight(NamedTuple):
    """The opponent as the CPU sees it: a look ``age`` frames old, its timings carried forward
    by ``age`` frames, at the opponent's present place (:mod:`.sight`)."""

    x: float
    z: float
    fx: float
    fz: float
    ground_y: float
    state: str                # as seen
    move: str                 # as seen ("" for none)
    mframe: int               # the seen move frame, plus the frames since that were not hitstop
    move_hit: bool            # as seen
    stun: int                 # the seen stun, less the frames since that were not hitstop
    hitstop: int              # the seen hitstop, less the frames since
    guard: int                # as seen: 0 none, 1 standing, 2 crouching
    age: int                  # how old the look is (frames)
    seen_mframe: int          # the move frame as seen, not carried forward
    input_bits: int = 0       # not seen: a player sees no one else's buttons


def sight(data: GameData, f: FighterView, eyes: tuple[int, ...]) -> Sight:
    """Fighter ``f`` as seen through ``eyes`` (their oldest look), where it stands now."""
    seen = eyes[0]
    age = len(eyes) - 1
    stop = seen >> _STOP & 63
    run = age - stop if age > stop else 0                # frames since that the clock ran
    move = move_names(data)[seen >> _MOVE & 15]
    stun = seen >> _STUN & 255
    mframe = seen >> _MFRAME & 255
    # every field in order (input_bits 0 too), built as situation.read_situation builds its tuple
    return tuple.__new__(Sight, (f.x, f.z, f.fx, f.fz, f.ground_y, STATES[seen & 15], move,
                                 mframe + run if move else 0, bool(seen >> _HIT & 1),
                                 stun - run if stun > run else 0, stop - age if stop > age else 0,
                                 seen >> _GUARD & 3, age, mframe, 0))
