"""The window's game of a netplay match: :class:`NetGame`, a :class:`~game.render.game.Game`
that ticks a :class:`~game.online.netmatch.NetMatch` instead of stepping a match of its own.

Screens: ``"title"`` while the handshake runs (the title's slow camera sway, with
"waiting for an opponent on UDP port P" or "connecting to HOST:PORT"; Esc cancels), then
``"fight"``, the NetMatch's live match (the predicted present) drawn as the offline game
draws its match.  One :meth:`NetGame.step` per fixed 1/60 s step of the window loop ticks
the NetMatch once with the local player's input: the primary keyboard layout (P1's keys)
and the first pad, whichever side this player is, as a player at their own machine expects
(``docs/netplay.md``, "Playing in the window").  The effects of the frames a tick stepped go
through :class:`~game.render.rollback_fx.RollbackPresenter` (each started once, one taken
back removed at once); the camera and bodies follow the live match once per tick.

The simulation never pauses (the opponent plays on): Esc opens a "leave the match?"
confirmation over the running fight.  There is no rematch, training, restart or replay
viewer.  When the NetMatch ends (the match played, the opponent gone, a desync, the
handshake refused) a message says why, and the window closes after :data:`END_SECONDS`
(Enter or Esc sooner); the command line then ends as headless netplay ends (exit status,
replay saved: ``game/cli/window_net.py``).  F10 shows the network display (``net_panel.py``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from pyglet import gl

from game.net.requests import Interrupted, Resumed

from .controls import OTHER_CONTROLS, controls_text
from .game import Game
from .hud import _rgba255
from .menus import pad_menu
from .net_panel import Message, NetPanel
from .rollback_fx import RollbackPresenter

if TYPE_CHECKING:
    from game.online.netmatch import NetMatch

#: Seconds the end message stays before the window closes by itself.
END_SECONDS = 4.0
#: Ticks (5 s) the start's notice ("you are P2 ...") stays in the HUD's corner.
START_NOTICE_TICKS = 300
LEAVE_ITEMS = ("Keep playing", "Leave the match")
RED = (255, 105, 85, 255)
#: the waiting screen's line of the keys a netplay match has
NET_KEYS = ("Esc leave the match  ·  F10 network display  ·  F1 debug overlay  ·  F5 fps  ·  F11 fullscreen  ·  "
            "M sound on/off")
#: the end message's heading per ``Ending.kind``
END_HEADINGS = {"finished": "MATCH OVER", "left": "YOU LEFT THE MATCH", "disconnected": "OPPONENT GONE",
                "desync": "DESYNC", "refused": "REFUSED", "no answer": "NO ANSWER"}


class NetGame(Game):
    """The window's side of one netplay match (see the module docstring).

    ``where``: the waiting screen's line (the port and address hint, or the host joined);
    ``clock``: seconds, monotonic (the NetMatch's time); ``show_stats``: the network display
    shown from the start.  The NetMatch comes with :meth:`attach`, once the window is ready to
    tick it (a host that announced itself before would leave a quick joiner unanswered)."""

    def __init__(self, pyglet, window, *, where: str, clock: Callable[[], float] = time.monotonic,
                 show_stats: bool = False, **kwargs) -> None:
        self.where, self.clock = where, clock
        self._net: NetMatch | None = None
        self.on_start: Callable[[], None] | None = None
        super().__init__(pyglet, window, p1="human", p2="human", title=True, **kwargs)
        self.screen = "title"           # the waiting screen (``attract`` below would have skipped it)
        self.show_stats = show_stats
        self.panel_net = NetPanel(pyglet)
        self.presenter = RollbackPresenter(self.sparks, self.debris, self.camera)
        #: True when the player cancelled the wait (nothing was played)
        self.cancelled = False
        self._interrupted = False
        self._end_at: float | None = None

    def attach(self, net: NetMatch, on_start: Callable[[], None] | None = None) -> None:
        """The NetMatch this window plays; ``on_start`` is called once when its handshake
        agrees (the command line starts recording)."""
        self._net, self.on_start = net, on_start

    def leave(self, now: float) -> None:
        """The run ends however it ends (a signal, a crash, the window closed): the NetMatch,
        if any, is closed, so the opponent is told at once."""
        if self._net is not None:
            self._net.close(now)

    @property
    def net(self) -> NetMatch:
        """The NetMatch (:meth:`attach`)."""
        assert self._net is not None, "NetGame.attach gives the NetMatch before the first step"
        return self._net

    @property
    def attract(self) -> bool:
        """No "Enter: rematch" under the match's result: a netplay match has none."""
        return True

    # ------------------------------------------------------------------ tick
    def step(self) -> None:
        """One fixed step: one NetMatch tick with the local input, then the live match shown."""
        self.ticks += 1
        pad_menu(self)
        net = self.net
        was_waiting = net.state == "waiting"
        stepped = net.tick(self.clock(), self._local_bits() if net.state == "playing" else None)
        for ev in net.events():
            if isinstance(ev, Interrupted):
                self._interrupted = True
            elif isinstance(ev, Resumed):
                self._interrupted = False
        if was_waiting and net.match is not None:
            self._begin()
        if self.screen == "fight":
            self._present(stepped)
        else:
            self._hold()
        if net.state == "ended":
            if self._end_at is None:
                self._end_at = self.clock() + END_SECONDS
                self._interrupted = False
            elif self.clock() >= self._end_at:
                self.quit = True

    def _begin(self) -> None:
        """The handshake agreed: the live match is what the window shows from now."""
        live = self.net.match
        assert live is not None
        self.match = live
        self.screen, self.menu_sel = "fight", None
        self.inputs.resume()
        self.reset_view(effects=True)
        side = self.net.side or 0
        who = "on your usual keys (P1's layout)" if self.net.cpu is None else "the CPU plays"
        self.notice = (f"you are P{side + 1}, {self.hud.names[side]}: {who}", self.ticks + START_NOTICE_TICKS)
        if self.on_start is not None:
            self.on_start()

    def _present(self, stepped) -> None:
        if not stepped:             # held for time sync or the prediction window: draw it still
            self._hold()
            return
        self._held = False
        self.view_rays.clear()
        self.presenter.audio = self.audio
        self._defer_crates = self.presenter.present(self.match, stepped, self.view_rays)
        events = tuple(self.presenter.last_started)
        self.last_events = events
        self._follow(events)        # a round's start seen for the first time frames the view afresh

    def _local_bits(self) -> int:
        """The local player's input: P1's keys and the first pad, for this side's fighter
        (neutral while the leave menu is open; ignored when this side is a CPU)."""
        side = self.net.side
        if side is None or self.menu_sel is not None or self.net.cpu is not None:
            return 0
        return self.inputs.local_input(self.match.fighters[side], self.camera).bits

    def new_match(self, seed: int | None = None) -> None:
        """Only the placeholder the waiting screen sways over: a netplay match is the NetMatch's."""
        if self._net is None or self._net.match is None:
            super().new_match(seed)

    # ------------------------------------------------------------------ screens
    def title_info(self) -> dict:
        """The waiting screen: where the match is to be played, and this player's keys (P1's
        layout, whichever side this player gets)."""
        lines = controls_text(self.settings.bindings)
        return {"versus": self.where, "hint": "WAITING FOR AN OPPONENT   ·   Esc: cancel",
                "controls": ("Your keys   " + lines[0][len("P1"):].lstrip(), OTHER_CONTROLS[0], NET_KEYS,
                             "Throw  LP + LK together  ·  grabbed? LP + LK at once breaks it  ·  fireball LP + HP")}

    def menu_spec(self) -> tuple[list[str], int, str]:
        assert self.menu_sel is not None
        return list(LEAVE_ITEMS), self.menu_sel, "LEAVE THE MATCH?"

    def message(self) -> Message | None:
        """The message box now: the end, an interruption, or None."""
        ending = self._net.ending if self._net is not None else None
        if ending is not None:
            left = max(0.0, (self._end_at or self.clock()) - self.clock())
            lines = [ending.detail] if ending.detail else []
            if ending.kind == "finished":
                lines.append(f"{ending.frames} frames played")
            lines.append(f"closing in {left:.0f} s   ·   Enter: close now")
            good = ending.kind in ("finished", "left")
            return Message(END_HEADINGS.get(ending.kind, ending.kind.upper()), tuple(lines),
                           _rgba255((1.0, 0.80, 0.25)) if good else RED)
        if self._interrupted:
            return Message("CONNECTION INTERRUPTED", ("nothing heard from the opponent: waiting for it",), RED)
        return None

    def _draw_hud(self, vp) -> None:
        super()._draw_hud(vp)
        W, H, _s = self.hud.canvas(self.window.get_size())
        net = self._net
        stats = net.stats(self.clock()) if net is not None and self.show_stats and self.screen == "fight" else None
        rects = self.panel_net.build(W, H, stats, self.message())
        if not rects.rows:
            return
        gl.glColorMask(gl.GL_TRUE, gl.GL_TRUE, gl.GL_TRUE, gl.GL_FALSE)
        self.rects.draw((W, H), rects.array())
        gl.glEnable(gl.GL_BLEND)
        gl.glBlendFunc(gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA)
        self.panel_net.draw()
        gl.glColorMask(gl.GL_TRUE, gl.GL_TRUE, gl.GL_TRUE, gl.GL_TRUE)

    # ------------------------------------------------------------------ keys
    def _on_key_press(self, symbol) -> None:
        k = self.key
        if symbol in (k.F1, k.F2, k.F3, k.F4, k.F5, k.F11, k.M):
            super()._on_key_press(symbol)       # the overlay, fps, fullscreen and sound keys as ever
        elif symbol == k.F10:
            self.show_stats = not self.show_stats
        elif self.net.state == "ended":
            if symbol in (k.ENTER, k.RETURN, k.NUM_ENTER, k.ESCAPE, k.SPACE):
                self.quit = True
        elif self.screen == "title":
            if symbol == k.ESCAPE:
                self.cancelled = self.quit = True
        elif self.menu_sel is not None:
            self._leave_key(symbol)
        elif symbol == k.ESCAPE:
            self.menu_sel = 0

    def _leave_key(self, symbol) -> None:
        k, sel = self.key, self.menu_sel
        assert sel is not None
        if symbol in (k.UP, k.W, k.DOWN, k.S):
            self.menu_sel = 1 - sel
        elif symbol == k.ESCAPE:
            self.menu_sel = None
        elif symbol in (k.ENTER, k.RETURN, k.NUM_ENTER, k.SPACE, k.U):
            self.menu_sel = None
            if sel == 1:
                self.net.close(self.clock())    # the peer is told; the end message follows

