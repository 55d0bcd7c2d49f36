"""The deterministic fixed-step (60 Hz) game.  Imports ``game.collision``, never pyglet.

Public surface: ``from game.sim import Match, FrameInput``.
"""

from .events import (
    KO,
    CrateStruck,
    Event,
    Fight,
    Hit,
    MatchOver,
    MoveStarted,
    ProjectileClash,
    ProjectileImpact,
    ProjectileLaunched,
    RoundEnd,
    RoundStart,
    ThrowBreak,
    ThrowGrab,
    TimeOver,
    Whiff,
)
from .inputs import BUTTONS, FrameInput
from .match import FPS, Match

__all__ = ["Match", "FrameInput", "BUTTONS", "FPS", "Event", "Hit", "CrateStruck", "ProjectileLaunched",
           "ProjectileImpact", "ProjectileClash", "ThrowGrab", "ThrowBreak", "MoveStarted", "Whiff", "RoundStart",
           "Fight", "KO", "TimeOver", "RoundEnd", "MatchOver"]
