"""The window's game of a spectator: :class:`SpectateGame`, a :class:`~game.render.game.Game`
that ticks a :class:`~game.online.spectate.Spectator` instead of stepping a match of its own.

Screens: ``"title"`` while the join runs (the title's slow camera sway, "joining room R on
HOST:PORT as a spectator"; Esc cancels), then ``"fight"``, the spectator's match drawn as the
offline game draws its match, with a label at the bottom, "SPECTATING R  ·  N frames behind".
One :meth:`SpectateGame.step` per fixed 1/60 s step of the window loop ticks the Spectator once:
it steps one frame a tick a fixed delay behind the live match, two a tick when a little
behind, or up to :data:`~game.online.spectate.WINDOW_CATCH_UP` a tick while catching up from
afar (a spectator joining mid-match replays the match from frame 0 fast, silently: sounds only
play for a tick of at most :data:`~game.net.spectator.FAST_FORWARD` frames).  The frames'
effects go through :class:`~game.render.rollback_fx.RollbackPresenter`, as netplay's do (a
spectator never rolls back, so each effect starts once).

Esc leaves at once (the server is told).  When watching ends (the server's verdict, the
server gone, the join refused) a message says why, with the verdict and whether this
spectator's state agrees with the referee's, and the window closes after
:data:`~game.render.net_game.END_SECONDS` (Enter or Esc sooner).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from pyglet import gl

from game.net.spectator import FAST_FORWARD

from .game import Game
from .hud import GOLD, _rgba255, _Text
from .net_game import END_SECONDS, RED
from .net_panel import Message, NetPanel
from .rollback_fx import RollbackPresenter

if TYPE_CHECKING:
    from game.online.spectate import Spectator

#: the end message's heading per ``SpectateEnding.kind``
END_HEADINGS = {"finished": "MATCH OVER", "stopped": "STOPPED", "no verdict": "MATCH OVER", "left": "YOU LEFT",
                "disconnected": "SERVER GONE", "refused": "REFUSED", "no answer": "NO ANSWER"}
SPECTATE_KEYS = "Esc leave  ·  F1 debug overlay  ·  F5 fps  ·  F11 fullscreen  ·  M sound on/off"


def spectating_line(room: str, behind: int, delay: int) -> str:
    """The label's text: the room and how far behind the live match the view is."""
    catching = "   ·   catching up" if behind > delay + 4 else ""
    return f"SPECTATING {room}   ·   {behind} frames behind{catching}"


class SpectateGame(Game):
    """The window's side of one spectator (see the module docstring).

    ``room``: the room's name; ``where``: the waiting screen's line; ``clock``: seconds,
    monotonic (the Spectator's time).  The Spectator comes with :meth:`attach`."""

    def __init__(self, pyglet, window, *, room: str, where: str, clock: Callable[[], float] = time.monotonic,
                 **kwargs) -> None:
        self.room, self.where, self.clock = room, where, clock
        self._spectator: Spectator | None = None
        super().__init__(pyglet, window, p1="human", p2="human", title=True, **kwargs)
        self.screen = "title"
        self.panel_net = NetPanel(pyglet)
        self.presenter = RollbackPresenter(self.sparks, self.debris, self.camera)
        self.label_batch = pyglet.graphics.Batch()
        groups = (pyglet.graphics.Group(order=0), pyglet.graphics.Group(order=1))
        self.label = _Text(pyglet, self.label_batch, groups, 14, bold=True, anchor_x="center", shadow=True)
        #: True when the spectator cancelled the join (nothing was watched)
        self.cancelled = False
        self._end_at: float | None = None

    def attach(self, spectator: Spectator) -> None:
        """The Spectator this window shows."""
        self._spectator = spectator

    @property
    def spectator(self) -> Spectator:
        assert self._spectator is not None, "SpectateGame.attach gives the Spectator before the first step"
        return self._spectator

    def leave(self, now: float) -> None:
        """However the run ends: the Spectator, if any, leaves (the server is told)."""
        if self._spectator is not None:
            self._spectator.close(now)

    @property
    def attract(self) -> bool:
        """No "Enter: rematch" under the match's result."""
        return True

    # ------------------------------------------------------------------ tick
    def step(self) -> None:
        """One fixed step: one Spectator tick, then the frames it stepped shown."""
        self.ticks += 1
        w = self.spectator
        joining = w.state == "joining"
        stepped = w.tick(self.clock())
        if joining and w.match is not None:
            self._begin()
        if self.screen == "fight" and stepped:
            self._held = False
            self.view_rays.clear()
            # no burst of sounds catching up from afar; a fast-forward of a frame or two keeps them
            self.presenter.audio = self.audio if len(stepped) <= FAST_FORWARD else None
            self._defer_crates = self.presenter.present(self.match, stepped, self.view_rays)
            self.last_events = tuple(self.presenter.last_started)
            self._follow(self.last_events)
        else:
            self._hold()
        if w.state == "ended":
            if self._end_at is None:
                self._end_at = self.clock() + END_SECONDS
            elif self.clock() >= self._end_at:
                self.quit = True

    def _begin(self) -> None:
        m = self.spectator.match
        assert m is not None
        self.match = m
        self.screen, self.menu_sel = "fight", None
        self.reset_view(effects=True)

    def new_match(self, seed: int | None = None) -> None:
        """Only the placeholder the waiting screen sways over: the match is the Spectator's."""
        if self._spectator is None or self._spectator.match is None:
            super().new_match(seed)

    # ------------------------------------------------------------------ screens
    def title_info(self) -> dict:
        return {"versus": self.where, "hint": "JOINING AS A SPECTATOR   ·   Esc: cancel",
                "controls": ("A spectator watches the room's confirmed inputs, a fixed delay behind the live match",
                             SPECTATE_KEYS)}

    def message(self) -> Message | None:
        """The message box now: the end, the server silent, or None."""
        w = self._spectator
        ending = w.ending if w is not None else None
        if ending is not None:
            left = max(0.0, (self._end_at or self.clock()) - self.clock())
            lines = [ending.detail] if ending.detail else []
            if ending.agrees is not None:
                lines.append("your view agrees with the referee's" if ending.agrees else
                             "your view DIFFERS from the referee's")
            lines.append(f"closing in {left:.0f} s   ·   Enter: close now")
            good = ending.kind in ("finished", "stopped", "no verdict", "left") and ending.agrees is not False
            return Message(END_HEADINGS.get(ending.kind, ending.kind.upper()), tuple(lines[-3:]),
                           _rgba255((1.0, 0.80, 0.25)) if good else RED)
        if w is not None and w.session is not None and w.session.interrupted:
            return Message("SERVER SILENT", ("nothing heard from the server: waiting for it",), RED)
        return None

    def _draw_hud(self, vp) -> None:
        super()._draw_hud(vp)
        W, H, _s = self.hud.canvas(self.window.get_size())
        rects = self.panel_net.build(W, H, None, self.message())
        w = self._spectator
        if self.screen == "fight" and w is not None and w.state != "ended":
            text = spectating_line(self.room, w.behind, w.delay)
            width = 11.0 * len(text) + 40
            rects.add(W / 2 - width / 2, 14, width, 34, (0.0, 0.0, 0.0, 0.62))
            rects.add(W / 2 - width / 2, 45, width, 3, GOLD)
            self.label.set(text, W / 2, 25, _rgba255(GOLD))
        else:
            self.label.hide()
        gl.glColorMask(gl.GL_TRUE, gl.GL_TRUE, gl.GL_TRUE, gl.GL_FALSE)
        if rects.rows:
            self.rects.draw((W, H), rects.array())
        gl.glEnable(gl.GL_BLEND)
        gl.glBlendFunc(gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA)
        self.panel_net.draw()
        self.label_batch.draw()
        gl.glColorMask(gl.GL_TRUE, gl.GL_TRUE, gl.GL_TRUE, gl.GL_TRUE)

    # ------------------------------------------------------------------ keys
    def _on_key_press(self, symbol) -> None:
        k = self.key
        if symbol in (k.F1, k.F2, k.F3, k.F4, k.F5, k.F11, k.M):
            super()._on_key_press(symbol)
        elif self.spectator.state == "ended":
            if symbol in (k.ENTER, k.RETURN, k.NUM_ENTER, k.ESCAPE, k.SPACE):
                self.quit = True
        elif symbol == k.ESCAPE:
            if self.screen == "title":
                self.cancelled = True
            self.spectator.close(self.clock())
            self.quit = True

