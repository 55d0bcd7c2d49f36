"""Training mode logic (pure, no pyglet): the training dummy."""

from .dummy import GUARDS, MAX_RECORD_FRAMES, MODES, REVERSALS, STANCES, DummyController

__all__ = ["DummyController", "MODES", "STANCES", "GUARDS", "REVERSALS", "MAX_RECORD_FRAMES"]
