"""A Discrete action space over a table of sensible button combinations.

``RangeboxEnv`` takes MultiBinary(11) actions: any of the 2048 combinations of the 11 buttons
(``game.sim.inputs.BUTTONS``), contradictory ones included.  :class:`DiscreteActions` wraps
it so an action is an index into :data:`ACTIONS`: a direction or a guard held, or one move's
buttons.  An attack is read when its button is pressed (``docs/game-rules.md``): holding the
same attack over two steps presses it once, so an agent repeats a move by choosing another
action in between (``neutral`` will do).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from game.sim.inputs import BACK, DOWN, FORWARD, GUARD, HK, HP, LK, LP, SIDE_L, SIDE_R, UP, FrameInput

#: (name, input bits) of each discrete action, in index order.
ACTIONS: tuple[tuple[str, int], ...] = (
    ("neutral", 0),
    ("forward", FORWARD),               # walk toward the opponent
    ("back", BACK),                     # walk away
    ("jump", UP),
    ("jump_forward", UP | FORWARD),
    ("jump_back", UP | BACK),
    ("crouch", DOWN),
    ("sidestep_left", SIDE_L),
    ("sidestep_right", SIDE_R),
    ("guard", GUARD),                   # standing block
    ("guard_low", GUARD | DOWN),        # crouching block
    ("jab", LP),
    ("straight", HP),
    ("front_kick", LK),
    ("roundhouse", HK),
    ("sweep", DOWN | HK),
    ("fireball", LP | HP),
    ("throw", LP | LK),                 # also breaks a throw in the 12 frames after a grab
)


def action_rows() -> np.ndarray:
    """``(len(ACTIONS), 11)`` int8: each action's MultiBinary buttons."""
    return np.array([[(bits >> i) & 1 for i in range(FrameInput.BITS)] for _, bits in ACTIONS], dtype=np.int8)


class DiscreteActions(gymnasium.ActionWrapper):
    """``Discrete(len(ACTIONS))`` actions over a ``RangeboxEnv`` (or a wrapper of one)."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        self._rows = action_rows()
        self.action_space = spaces.Discrete(len(ACTIONS))

    def action(self, action: Any) -> np.ndarray:
        """The MultiBinary buttons of table entry ``action``; IndexError names a bad index."""
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < len(ACTIONS):
            raise IndexError(f"DiscreteActions: action {action!r}: an int in range({len(ACTIONS)}) "
                             f"(game.rl.actions.ACTIONS)")
        return self._rows[int(action)]
