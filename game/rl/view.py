"""``render_mode="rgb_array"``: the environment's match drawn by the game's own renderer,
headless (EGL, no screen), into a hidden window of the caller's size.

The view's :class:`~game.render.game.Game` shows the environment's match: the environment
steps the match through the game (:meth:`EnvView.step`, the game's ``step`` with the frame's
inputs as its input source), so the camera, sparks, crate debris and HUD follow every frame as
in the window; a frame is drawn only when :meth:`EnvView.frame` asks.  Drawing only reads the
match: the same seed and actions give the same ``state_hash()`` with or without the view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from game.sim import FrameInput, Match


class EnvView:
    """A hidden ``width`` x ``height`` EGL window with a game that shows the environment's match;
    raises ``game.render.boot.RenderUnavailable`` where there is no GL."""

    def __init__(self, width: int, height: int) -> None:
        from game.render.offscreen import open_game

        # two players: the game never makes a CPU decide nor restarts a match (attract mode)
        self.pyglet, self.window, self.game = open_game(width, height, p1="human", p2="human")
        self._inputs: tuple[FrameInput, FrameInput] | None = None
        self.game.input_source = self._next

    def _next(self) -> tuple[FrameInput, FrameInput]:
        assert self._inputs is not None, "EnvView: the game stepped without the environment's inputs"
        return self._inputs

    def watch(self, match: Match) -> None:
        """Show ``match`` from where it stands: effects cleared, the camera framed afresh (what
        ``Game.new_match`` does for a match of its own)."""
        from game.render.geometry import camera_ray

        g = self.game
        g.match = match
        g.sparks.clear()
        g.debris.clear()
        g.occluders.clear()
        g.over_frames = 0
        g.view_rays.clear()
        g.camera.ray = camera_ray(match.stage.scene, record=g.view_rays) if match.stage is not None else None
        g.hud.reset()
        g.reset_view()

    def step(self, p1: FrameInput, p2: FrameInput) -> tuple:
        """One ``match.step(p1, p2)`` through the game; the step's events."""
        self._inputs = (p1, p2)
        self.game.step()
        self._inputs = None
        return self.game.last_events

    def frame(self) -> np.ndarray:
        """The match as it stands, drawn: ``(height, width, 3)`` uint8, top row first."""
        from game.render.offscreen import frame_pixels

        self.window.switch_to()
        return frame_pixels(self.game, 1.0)

    def close(self) -> None:
        self.window.close()
