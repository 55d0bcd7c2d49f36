"""Rangebox as a Gymnasium environment: ``gymnasium.make("Rangebox-v0")`` (``docs/rl.md``).

Needs the optional ``rl`` extra (``pip install -e ".[rl]"``: gymnasium); the game and its
other packages never import this one.  Importing it registers ``Rangebox-v0``; a process that
has not imported it (a subprocess vector's worker, a Ray RLlib worker) finds the environment
as ``"game.rl:Rangebox-v0"``, which makes Gymnasium import this module first.

* :class:`~game.rl.env.RangeboxEnv`: the environment (MultiBinary(11) actions, the
  observation of :mod:`game.rl.layout`, rewards, episodes, opponents, rendering);
* :class:`~game.rl.actions.DiscreteActions`: a wrapper that plays one of
  :data:`~game.rl.actions.ACTIONS`, a table of button combinations, per step;
* :mod:`game.rl.agents`: a random agent and a scripted one (``python3 -m game.rl.agents``).
"""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

from .actions import ACTIONS, DiscreteActions
from .env import RangeboxEnv

#: The registered id.
ENV_ID = "Rangebox-v0"

if ENV_ID not in registry:
    register(id=ENV_ID, entry_point="game.rl.env:RangeboxEnv")

__all__ = ["ENV_ID", "RangeboxEnv", "DiscreteActions", "ACTIONS"]
