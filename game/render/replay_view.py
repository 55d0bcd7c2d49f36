"""The replay viewer: a recorded match played back in the window, with a REPLAY label,
pause, frame step, fast forward and slow motion, seek, and a pause menu of its own.

:class:`ReplayView` is the window game's input source and step listener while it shows a
replay (``game/cli/replay_io.py`` attaches it): every frame is stepped from the recorded
inputs and checked against the recorded hashes (:meth:`game.replay.ReplayPlayer.check`),
so a replay that diverges still stops on the exact frame.  As playback passes every
:data:`SNAPSHOT_EVERY`-th frame it keeps a snapshot of the checked state; a seek restores
the nearest one at or before the frame asked for and simulates forward from it (checking
every frame again, with no sound and no effects), so it lands on a checked state: a seek
back costs at most that many steps, a seek forward past what was played simulates up to
it.  The speed is a factor on the window loop's accumulator (``Game.speed``, read by
``game/cli/window.py``): 2x and 4x run two or four steps per displayed frame, within the
loop's catch-up cap.  Nothing here changes what the match computes: it only chooses which
recorded frame the match is on.

The keys are in :data:`KEYS_TEXT`, the pad's buttons in :data:`PAD_KEYS`.  At the end the viewer holds on the last
frame with the result, and offers watching again or quitting; a window no one sees
(``hold_at_end=False``: PYGLET_HEADLESS) quits there instead, as a tool run would.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from .hud import GOLD, _rgba255, _Text
from .passes import Rects

if TYPE_CHECKING:
    from collections.abc import Sequence

    from game.replay import Replay
    from game.sim import FrameInput, Match
    from game.sim.state import Snapshot

    from .game import Game

#: frames between the snapshots kept as playback passes them (a seek back re-simulates fewer)
SNAPSHOT_EVERY = 60
#: frames a seek key (left / right) moves: five seconds
SEEK_FRAMES = 300
#: the playback speeds fast forward (F) cycles through, and slow motion (S)
FAST = (1.0, 2.0, 4.0)
SLOW = (1.0, 0.5, 0.25)
#: the pause menu in a replay: only what applies to watching one (no training, no rematch)
MENU = ("Resume", "Restart", "Quit")
#: the viewer's keys, as the label under its progress bar lists them
KEYS_TEXT = ("Space/P pause  ·  , . frame back/step  ·  F fast x2 x4  ·  S slow  ·  ← → 5 s  ·  "
             "Home restart  ·  Esc menu")
#: ticks (five seconds) the keys are listed for when the viewer opens (and whenever paused)
KEYS_TICKS = 300
#: the pad buttons (pyglet.input names as ``Gamepads`` reports them) and the key each acts as:
#: A pause, d-pad left / right seek, LB / RB (or RT) a frame back / forward, Y fast forward
PAD_KEYS = {"a": "SPACE", "left": "LEFT", "right": "RIGHT", "in": "COMMA", "guard": "PERIOD", "hp": "F"}


class ReplayView:
    """The window game's replay playback: its state, keys, seek and label.

    ``game``: the :class:`~game.render.game.Game` on the replay's match, at frame 0, built as
    recorded (``game/cli/replay_io.py``); ``hold_at_end``: hold on the last frame (a window
    someone watches) or quit there (``game.quit``: a headless window)."""

    def __init__(self, game: Game, replay: Replay, *, hold_at_end: bool = True) -> None:
        from game.replay import ReplayPlayer

        self.game = game
        self.replay = replay
        self.player = ReplayPlayer(replay)
        self.hold_at_end = hold_at_end
        #: True: no frame is stepped but on request (``.``), as in a paused video
        self.paused = False
        #: the playback speed: simulated seconds per real second (the window's accumulator factor)
        self.speed = 1.0
        self._steps = 0                 # single steps requested while paused (``.``)
        #: the checked snapshots, by frame: frame 0's and every SNAPSHOT_EVERY-th frame played
        self.snapshots: dict[int, Snapshot] = {0: game.match.snapshot()}
        #: the furthest frame played and checked (how far the progress bar is lit)
        self.furthest = 0
        self._pad_held: set[str] = set()
        self._keys_until = game.ticks + KEYS_TICKS      # the tick until which the keys are listed
        self.hud = ReplayHud(game.pyglet)
        game.screen = "fight"                       # no title screen: the replay starts at once
        game.input_source = self.next_inputs
        game.step_listeners.append(self.after_step)
        if self.ended and not hold_at_end:          # a 0-frame replay: nothing to play
            game.quit = True

    # ------------------------------------------------------------------ playback
    @property
    def match(self) -> Match:
        return self.game.match

    @property
    def ended(self) -> bool:
        """The last recorded frame has been played."""
        return self.player.done

    def next_inputs(self) -> tuple[FrameInput, FrameInput]:
        """The recorded inputs of the next frame (the game's input source)."""
        return self.player.next_inputs(self.match)

    def after_step(self, match: Match, events: Sequence[object]) -> None:
        """After each of the game's steps: check the frame (``ReplayMismatch`` names a
        divergence), keep a snapshot on every SNAPSHOT_EVERY-th frame."""
        self._checked(match)
        if self.ended and not self.hold_at_end:
            self.game.quit = True

    def _checked(self, match: Match) -> None:
        self.player.check(match)
        if match.frame % SNAPSHOT_EVERY == 0 and match.frame not in self.snapshots:
            self.snapshots[match.frame] = match.snapshot()
        self.furthest = max(self.furthest, match.frame)

    def wants_step(self) -> bool:
        """Whether this tick steps the match: playing and not at the end, or a step asked for."""
        if self.ended:
            self._steps = 0
            return False
        if self._steps > 0:
            self._steps -= 1
            return True
        return not self.paused

    def seek(self, frame: int) -> None:
        """Put the match on ``frame`` (clipped to the replay), checked: from the nearest snapshot
        at or before it (or from where it is, when that is nearer), simulated forward with every
        frame checked; the view is framed afresh there (no effects of the frames skipped)."""
        m = self.match
        frame = min(max(int(frame), 0), self.replay.frames)
        base = max(f for f in self.snapshots if f <= frame)
        if frame < m.frame or base > m.frame:
            m.restore(self.snapshots[base])
            self.player.resume_at(base)
        while m.frame < frame:
            m.step(*self.player.next_inputs(m))
            self._checked(m)
        self._steps = 0
        self.game.reset_view(effects=True)
        self.game.last_events = ()
        self.game.view_rays.clear()

    def restart(self) -> None:
        """From frame 0, playing."""
        self.seek(0)
        self.paused = False

    def toggle_pause(self) -> None:
        """Pause or play; at the end, play it again from the start."""
        if self.ended:
            self.restart()
        else:
            self.paused = not self.paused

    def step_frame(self, delta: int) -> None:
        """Pause, then one frame forward (+1: stepped in the next tick, with its effects) or
        back (-1: a seek)."""
        self.paused = True
        if delta > 0:
            self._steps = 0 if self.ended else 1
        elif self.match.frame > 0:
            self.seek(self.match.frame - 1)

    def cycle_speed(self, speeds: Sequence[float]) -> None:
        """The next of ``speeds`` (FAST or SLOW) after the current one (the first when it is
        not among them), and play."""
        i = list(speeds).index(self.speed) if self.speed in speeds else 0
        self.speed = speeds[(i + 1) % len(speeds)]
        self.paused = False

    # ------------------------------------------------------------------ keys and pads
    def on_key(self, symbol: int) -> bool:
        """A key press; True if the viewer took it (the game then does nothing else with it).
        With the pause menu open the menu's keys are the viewer's (its menu is :data:`MENU`);
        Esc opens the menu through the game as in a match."""
        k, game = self.game.key, self.game
        if game.menu_sel is not None:
            return self._menu_key(symbol)
        seek = {k.LEFT: -SEEK_FRAMES, k.RIGHT: SEEK_FRAMES}
        if symbol in (k.SPACE, k.P):
            self.toggle_pause()
        elif symbol in (k.ENTER, k.RETURN, k.NUM_ENTER):     # never a rematch: at the end, again
            if self.ended:
                self.restart()
        elif symbol in (k.PERIOD, k.COMMA):
            self.step_frame(1 if symbol == k.PERIOD else -1)
        elif symbol in (k.F, k.S):
            self.cycle_speed(FAST if symbol == k.F else SLOW)
        elif symbol in seek:
            self.seek(self.match.frame + seek[symbol])
        elif symbol == k.HOME:
            self.restart()
        else:
            return False
        return True

    def _menu_key(self, symbol: int) -> bool:
        k, game = self.game.key, self.game
        sel = game.menu_sel
        assert sel is not None, "menu keys are read only while the menu is open"
        if symbol in (k.UP, k.W, k.DOWN, k.S):
            game.menu_sel = (sel + (-1 if symbol in (k.UP, k.W) else 1)) % len(MENU)
        elif symbol == k.ESCAPE:
            game.menu_sel = None
        elif symbol in (k.ENTER, k.RETURN, k.NUM_ENTER, k.SPACE, k.U):
            game.menu_sel = None
            if MENU[sel] == "Restart":
                self.restart()
            elif MENU[sel] == "Quit":
                game.quit = True
        else:
            return False
        return True

    def on_tick(self) -> None:
        """Once per tick: the pads' viewer buttons (:data:`PAD_KEYS`), on a press.  Start, and
        the menu's buttons, reach the game's pad handling as in a match."""
        pads = self.game.pads
        if not pads.pads:
            return
        held = {"a"} & pads.menu_buttons()
        for i in range(len(pads.pads)):
            held |= {name for name, on in pads.intents(i).items() if on and name in PAD_KEYS}
        pressed, self._pad_held = held - self._pad_held, held
        if self.game.menu_sel is not None or self.game.screen != "fight":
            return
        if self.match.over:
            pressed.discard("a")            # the game's pad handling takes A there (Enter: again)
        for name in sorted(pressed):
            self.on_key(getattr(self.game.key, PAD_KEYS[name]))

    # ------------------------------------------------------------------ drawing
    def menu(self, selected: int) -> tuple[list[str], int, str]:
        """The pause menu's ``(items, selected, heading)`` for the HUD."""
        return list(MENU), selected, "REPLAY PAUSED"

    def draw(self, rects_gl, canvas: tuple[float, float]) -> None:
        """The REPLAY label and its progress bar (over the HUD, under the pause menu)."""
        self.hud.draw(rects_gl, canvas, self)

    def show_keys(self) -> bool:
        """Whether the panel lists the keys: while paused, at the end, and for the first
        KEYS_TICKS ticks of the viewer."""
        return self.paused or self.ended or self.game.ticks < self._keys_until

    def status(self) -> str:
        """The playback state as the label names it."""
        if self.ended:
            return "END"
        if self.paused:
            return "PAUSED"
        return f"x{self.speed:g}" if self.speed != 1.0 else "PLAYING"

    def result(self) -> str:
        """How the recorded match stands at the end: the winner and the rounds."""
        m = self.match
        a, b = (f.wins for f in m.fighters)
        if m.over:
            who = "a draw" if m.winner is None else f"P{m.winner + 1} wins the match"
            return f"{who} (rounds {a}-{b})"
        return f"the recording stops in round {m.round} (rounds {a}-{b})"


class ReplayHud:
    """The viewer's label: a panel at the bottom of the screen with REPLAY, the frame and
    the length, the state (playing, paused, the speed, the end) and a progress bar (the part
    played and checked lit, the frame shown marked); the keys under it while paused, at the
    end and for the first seconds; at the end, the result and what to do next.  Its own
    batch, drawn after the HUD's (``Game._draw_hud``).  Its labels sit on the panel's dark
    ground and have no shadows: every glyph drawn costs the software rasteriser a blended quad."""

    def __init__(self, pyglet) -> None:
        self.batch = pyglet.graphics.Batch()
        groups = (pyglet.graphics.Group(order=0), pyglet.graphics.Group(order=1))
        text = functools.partial(_Text, pyglet, self.batch, groups)
        mono = ("DejaVu Sans Mono", "Courier New", "monospace")
        # the sizes and faces of HUD labels (their fonts are in the atlas before the first frame)
        self.tag = text(15, bold=True)                           # "REPLAY"
        # the frame number, the one text that changes every frame: a short label of its own
        # (a new text is a new layout), between "frame" and "/ length"
        self.frame = text(12, font=mono, anchor_x="right")
        self.frame_head = text(12, anchor_x="right")
        self.total = text(12, font=mono)
        self.state = text(15, bold=True, anchor_x="right")       # PLAYING / PAUSED / x4 / END
        self.keys = text(10, anchor_x="center")
        self.end = text(12, anchor_x="center")

    def draw(self, rects_gl, canvas: tuple[float, float], view: ReplayView) -> None:
        from pyglet import gl

        W, _H = canvas
        r = Rects()
        pw, x0, y0 = 800.0, W / 2 - 400.0, 8.0
        y = y0 + 8                                  # the baseline of the panel's lowest row
        if view.show_keys():
            self.keys.set(KEYS_TEXT, W / 2, y, (215, 215, 215, 255))
            y += 16
        else:
            self.keys.hide()
        total = max(view.replay.frames, 1)
        bx, by, bw = x0 + 14, y + 2, pw - 28
        r.add(bx, by, bw, 6, (0.22, 0.22, 0.26))
        r.add(bx, by, bw * view.furthest / total, 6, (0.45, 0.45, 0.52))
        r.add(bx, by, bw * view.match.frame / total, 6, (0.95, 0.30, 0.22), (1.0, 0.55, 0.35))
        r.add(bx + bw * view.match.frame / total - 2, by - 4, 4, 14, (1.0, 1.0, 1.0))
        y = by + 16
        if view.ended:
            self.end.set(f"End of the replay: {view.result()}   ·   Space / Enter: watch again   ·   Esc: menu",
                         W / 2, y, (255, 255, 255, 255))
            y += 20
        else:
            self.end.hide()
        self.tag.set("REPLAY", x0 + 14, y, (255, 80, 60, 255))
        mid = x0 + pw / 2 + 20
        self.frame_head.set("frame", mid - 52, y + 1, (200, 200, 200, 255))
        self.frame.set(str(view.match.frame), mid, y + 1)
        self.total.set(f"/ {view.replay.frames}", mid + 6, y + 1)
        self.state.set(view.status(), x0 + pw - 14, y, _rgba255(GOLD))
        ph = y + 20 - y0
        rects_gl.draw(canvas, np.concatenate([_panel(x0, y0, pw, ph), r.array()]))
        gl.glEnable(gl.GL_BLEND)
        gl.glBlendFunc(gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA)
        self.batch.draw()


def _panel(x0: float, y0: float, w: float, h: float) -> np.ndarray:
    """The panel's ground and its red top edge, as rect rows (drawn first, under the bar)."""
    r = Rects()
    r.add(x0, y0, w, h, (0.03, 0.03, 0.05, 0.78), (0.10, 0.10, 0.14, 0.78))
    r.add(x0, y0 + h - 3, w, 3, (0.95, 0.25, 0.2))
    return r.array()
