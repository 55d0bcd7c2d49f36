"""Scripted players for the CPU ladder (``python3 -m game.tools.ladder``).

Each is a plain deterministic input policy for one side of a :class:`~game.sim.Match`: called
once a frame with the match, it returns that side's :class:`~game.sim.FrameInput`, which the
caller passes to ``Match.step``.  It sees the match as a player sees the screen (the fighters'
positions, the opponent's state, move and move frame, its own stun) and draws its random choices
from its own generator, seeded from the match seed, never from the match's RNG.  So a match
between a scripted player and a CPU is decided by its seed alone.

The players, weakest first (:data:`PLAYERS`):

* ``masher``: walks about (mostly forward) and presses random attack buttons, one every few
  frames; never guards.
* ``combo``: the walk-in combo loop: walks in to kicking range and runs the same two strings
  (front kick -> roundhouse, jab -> straight), pressed blind, over and over; never guards.
* ``poke``: guard-and-poke: walks in, then holds a standing guard and lets go of it for a jab or
  a front kick every half second or so.
* ``punisher``: walk in, block and punish, the best of them: walks in, guards, blocks, and
  punishes what it sees is punishable: a blocked heavy, a whiffed attack's recovery (seen
  :data:`REACTION` frames late, as a player's eyes are), with the heaviest attack that lands in
  time and a jab -> straight when only the jab does (too late for that, it pokes half the
  time: its turn); pokes out of its guard as ``poke`` does (front kicks mostly: a mid hits a
  crouching guard), guards low as often as the opponent's attacks have been lows (and mostly
  low on waking), breaks half the throws, and throws a turtling opponent now and then.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from game.sim import FrameInput, Match
from game.sim.inputs import BACK, DOWN, FORWARD, GUARD, HK, HP, LK, LP, UP

#: A scripted player: the match in, this frame's input out.
Policy = Callable[[Match], FrameInput]
#: A mix of the seed, so a player's stream differs from the match's own (which is seeded with it).
SALT = 0x5C1
#: How many frames late the punisher sees the opponent's moves (a quick human's reaction).
REACTION = 12
#: Centre-to-centre distances (m) the players space by: a jab reaches about 1.35 m, the kicks 1.5 m.
KICK_RANGE = 1.45
JAB_RANGE = 1.30
NEUTRAL_STATES = ("idle", "walk_fwd", "walk_back", "sidestep", "crouch", "block_stand", "block_crouch")


def _bits(n: int) -> FrameInput:
    return FrameInput.from_bits(n)


def _dist(m: Match) -> float:
    a, b = m.fighters
    return math.hypot(b.x - a.x, b.z - a.z)


def _free(f) -> bool:
    return f.state in NEUTRAL_STATES and not f.move and f.stun == 0


class Masher:
    """Random buttons, one press every few frames (released between presses, so each counts),
    and a random direction held for a while: forward most of the time."""

    DIRECTIONS = (FORWARD, 0, BACK, DOWN, UP | FORWARD)
    DIRECTION_P = (0.55, 0.2, 0.1, 0.1, 0.05)
    BUTTONS = (LP, HP, LK, HK, LP | HP, LP | LK)
    BUTTON_P = (0.24, 0.24, 0.24, 0.18, 0.05, 0.05)

    def __init__(self, seed: int, side: int) -> None:
        self.rng = np.random.default_rng([seed, side, SALT])
        self.side = side
        self.dir, self.left, self.last = 0, 0, 0

    def __call__(self, m: Match) -> FrameInput:
        rng = self.rng
        if self.left <= 0:
            self.dir = self.DIRECTIONS[int(rng.choice(len(self.DIRECTIONS), p=self.DIRECTION_P))]
            self.left = int(rng.integers(8, 31))
        self.left -= 1
        press = 0
        if not self.last and rng.random() < 0.3:
            press = self.BUTTONS[int(rng.choice(len(self.BUTTONS), p=self.BUTTON_P))]
        self.last = press
        return _bits(self.dir | press)


class ComboLoop:
    """Walks in to kicking range, then runs its strings blind: front kick -> roundhouse, then
    jab -> straight, each second button pressed inside the light's cancel window, over and over."""

    STRINGS = (((0, LK), (11, HK)), ((0, LP), (8, HP)))

    def __init__(self, seed: int, side: int) -> None:
        self.rng = np.random.default_rng([seed, side, SALT])
        self.side = side
        self.t = -1          # frame of the string under way, -1: none
        self.k = 0           # which string

    def __call__(self, m: Match) -> FrameInput:
        me = m.fighters[self.side]
        if self.t >= 0:
            string = self.STRINGS[self.k]
            press = next((b for t, b in string if t == self.t), 0)
            self.t += 1
            if self.t > string[-1][0] and _free(me):
                self.t, self.k = -1, (self.k + 1) % len(self.STRINGS)
            return _bits(press)
        if _dist(m) > KICK_RANGE:
            return _bits(FORWARD)
        if _free(me):
            self.t = 1
            return _bits(self.STRINGS[self.k][0][1])
        return _bits(0)


class GuardPoke:
    """Walks in to jabbing range, then holds a standing guard and pokes out of it (a jab or a
    front kick) every 20-40 frames."""

    def __init__(self, seed: int, side: int) -> None:
        self.rng = np.random.default_rng([seed, side, SALT])
        self.side = side
        self.wait = int(self.rng.integers(20, 41))

    def __call__(self, m: Match) -> FrameInput:
        me = m.fighters[self.side]
        if _dist(m) > KICK_RANGE + 0.05 and _free(me):
            return _bits(FORWARD)
        self.wait -= 1
        if self.wait <= 0 and _free(me):
            self.wait = int(self.rng.integers(20, 41))
            return _bits(LP if self.rng.random() < 0.5 else LK)
        return _bits(GUARD)


class Seen(NamedTuple):
    """What the punisher saw of the opponent on one frame."""

    state: str
    move: str
    mframe: int


class Punisher:
    """Walk in, block and punish (the module docstring)."""

    #: chance per frame to throw an opponent it sees guarding standing, close enough to grab
    TURTLE = 0.04
    #: share of its pokes in jabbing range that are jabs (the rest front kicks, mids)
    JAB = 0.3
    #: chance to poke when it sees a blocked or whiffed move too late to punish: its turn
    TURN = 0.5

    def __init__(self, seed: int, side: int) -> None:
        self.rng = np.random.default_rng([seed, side, SALT])
        self.side = side
        self.eyes: deque[Seen] = deque(maxlen=REACTION + 1)
        self.crouch = False        # the guard height it holds this spell
        self.spell = 0             # frames left of this guard spell
        self.tech = -1             # the frame of a throw it will break, -1 none
        self.last = 0              # last frame's attack buttons (a press needs a release first)
        self.blocked = ""          # the move it last blocked, while in blockstun
        self.queue: list[int] = []  # buttons to press on the next frames (a punish string)
        self.lows, self.attacks = 0, 0  # the opponent's attacks seen, and how many were lows
        self.down = False          # knocked down, its waking guard chosen
        self.wait = 20             # frames to its next poke

    def __call__(self, m: Match) -> FrameInput:
        bits = self._decide(m)
        if bits & (LP | HP | LK | HK) & self.last:
            bits &= ~self.last                  # release first: a held button is no press
        self.last = bits & (LP | HP | LK | HK)
        return _bits(bits)

    def _decide(self, m: Match) -> int:
        me, op = m.fighters[self.side], m.fighters[1 - self.side]
        self.eyes.append(Seen(str(op.state), op.move, op.mframe))
        seen = self.eyes[0]
        late = len(self.eyes) - 1               # how old that look is
        rng, moves, dist = self.rng, m.data.moves, _dist(m)
        if seen.move in moves and seen.mframe == 0 and moves[seen.move].hit_limbs:
            self.attacks += 1
            self.lows += moves[seen.move].height == "low"
        if m.phase != "fight":
            self.queue, self.blocked, self.tech = [], "", -1
            return 0
        if self.queue:
            return self.queue.pop(0)
        if me.state == "thrown":
            since = m.data.throw.frames - me.stun if m.data.throw is not None else 99
            if since == 0:
                self.tech = int(rng.integers(6, 11)) if rng.random() < 0.5 else -1
            return LP | LK if since == self.tech else 0
        if me.state in ("knockdown", "hitstun"):
            if me.state == "knockdown" and not self.down:
                self.down = True
                self.crouch = rng.random() < 0.6      # a meaty is often a low: wake crouching, mostly
                self.spell = me.stun + me.hitstop + 12  # and hold it a moment after
            return GUARD | (DOWN if self.crouch else 0)
        self.down = False
        if me.state == "blockstun":
            if op.move:
                self.blocked = op.move
            return me.input_bits & (GUARD | DOWN)
        # punish what it sees: a blocked move, or a whiff's recovery, with frames to spare
        if _free(me) and seen.move and seen.move in moves and seen.move not in ("jump", "throw_slam"):
            mv = moves[seen.move]
            left = mv.total - (seen.mframe + late)
            if seen.mframe >= mv.startup + mv.active or self.blocked == seen.move:
                punish = self._punish(dist, left)
                if not punish and left > 0 and dist <= KICK_RANGE and rng.random() < self.TURN:
                    punish = LP if dist <= JAB_RANGE else LK     # too late to punish: take the turn
                if punish:
                    self.blocked = ""
                    return punish
        self.blocked = ""
        if op.state in ("knockdown", "thrown"):
            return FORWARD if dist > JAB_RANGE else GUARD
        if op.state == "block_stand" and dist < 1.05 and _free(me) and rng.random() < self.TURTLE:
            return LP | LK                       # a turtle: throw it
        if dist > KICK_RANGE + 0.05 and _free(me):
            return FORWARD
        self.wait -= 1
        if self.wait <= 0 and _free(me):
            self.wait = int(rng.integers(20, 41))
            # a poke out of its guard: the front kick (a mid) mostly, the quicker jab close in
            return LP if dist <= JAB_RANGE and rng.random() < self.JAB else LK
        if self.spell <= 0:      # a new guard spell (also on waking)
            # it learns: the more of the opponent's attacks were lows, the more it guards low
            self.crouch = rng.random() < min(0.5, max(0.0, self.lows / (self.attacks + 3) - 0.2))
            self.spell = int(rng.integers(15, 41))
        self.spell -= 1
        return GUARD | (DOWN if self.crouch else 0)

    def _punish(self, dist: float, left: int) -> int:
        """The first buttons of the punish that lands in ``left`` frames from ``dist``, or 0."""
        if left >= 16 and 1.28 < dist <= 1.48:
            return HK
        if left >= 12 and dist <= 1.28:
            return HP
        if left >= 8 and dist <= 1.30:
            self.queue = [0] * 7 + [HP]          # jab -> straight: the cancel comes out on a hit
            return LP
        return 0


#: The players by name, weakest first: each a factory ``(seed, side) -> policy``.
PLAYERS: dict[str, Callable[[int, int], Policy]] = {
    "masher": Masher,
    "combo": ComboLoop,
    "poke": GuardPoke,
    "punisher": Punisher,
}
