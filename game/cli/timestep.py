"""The window's clock: a fixed-step accumulator (Fiedler, "Fix Your Timestep").

The simulation only ever advances in whole 1/60 s steps, whatever the display does, so a
match played in a window is the same match as one stepped headless (same ``state_hash``);
drawing interpolates between the last two steps by the alpha :meth:`FixedStep.advance`
returns.  Pure Python, no clock of its own: the caller passes the elapsed time, so tests
drive it with any sequence of frame times.
"""

from __future__ import annotations

from collections.abc import Callable

SIM_STEP = 1 / 60      # the simulation's fixed step, seconds
MAX_CATCH_UP = 5       # at most this many steps per displayed frame; a longer stall is dropped
#: A longer frame time (the process was stopped, a debugger paused it) counts as this long.
MAX_FRAME_TIME = 0.25


class FixedStep:
    """Fix Your Timestep (Fiedler): real time fills an accumulator that is drained in
    fixed 1/60 s simulation steps; ``advance`` returns the render alpha in [0, 1).

    A slow frame only means several steps before the next draw (never a longer
    step), and after a stall of more than ``MAX_CATCH_UP`` steps the backlog is
    dropped, so the game slows down instead of spiralling.
    """

    def __init__(self, step: Callable[[], object], dt: float = SIM_STEP, max_steps: int = MAX_CATCH_UP):
        self.step = step            # one simulation step (its result is ignored)
        self.dt = dt                # the fixed step, seconds
        self.max_steps = max_steps  # catch-up cap: steps per advance() at most
        self.acc = 0.0              # real time owed to the simulation, seconds (less than dt after advance)

    def advance(self, elapsed: float) -> float:
        """Add ``elapsed`` seconds (a negative time, a clock stepping back, counts as none),
        run the whole steps owed (at most ``max_steps``) and return the alpha in [0, 1)."""
        self.acc += min(max(elapsed, 0.0), MAX_FRAME_TIME)
        steps = 0
        while self.acc >= self.dt and steps < self.max_steps:
            self.step()
            self.acc -= self.dt
            steps += 1
        if self.acc >= self.dt:          # catch-up cap reached: forget the rest
            self.acc %= self.dt
        return self.acc / self.dt
