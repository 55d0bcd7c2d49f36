"""The window: the only place where clock, window, simulation and renderer meet.

:func:`run_window` opens pyglet's window and :class:`game.render.game.Game`, hooks up
recording or replay, and runs pyglet's event loop, in which every draw first drains the
fixed-step accumulator (:class:`game.cli.timestep.FixedStep`), then draws the scene
interpolated by its alpha.  Sound (``game/audio/player.py``) is attached once the first
frame is on the screen, so its driver probe never delays the start.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from game.cli.ending import Reason, Session, catch_display_loss
from game.cli.program import MAIN_PY, Program, UsageError
from game.cli.replay_io import attach_replay_io
from game.cli.saved import check_key_names
from game.cli.timestep import FixedStep

if TYPE_CHECKING:
    from game.audio.player import AudioPlayer
    from game.render.game import Game

#: pyglet's event loop wakes at least this often (seconds); drawing is paced by the display.
EVENT_LOOP_INTERVAL = 1 / 120


def open_game(args: argparse.Namespace, *, headless: bool | None,
              report: Callable[[str], None] | None = None,
              net: dict[str, Any] | None = None,
              spectate: dict[str, Any] | None = None) -> tuple[ModuleType, Any, Game]:
    """pyglet, its window and :class:`game.render.game.Game`; RenderUnavailable on no display/GL.

    ``headless`` True forces EGL (no screen), None keeps ``PYGLET_HEADLESS`` (see
    ``game.render.boot.load_pyglet``).  The window is pyglet's (``pyglet.window.Window``).
    The saved settings (``args.settings_data``, ``game/cli/saved.py``; None: the defaults) give
    the key bindings, the volume and fullscreen (``--fullscreen`` too); ``report`` gets a
    saved key name pyglet does not know (default: a line on stderr).  ``net``: the arguments of
    a netplay game (:class:`game.render.net_game.NetGame`: ``where``, ``show_stats``), made
    instead of an offline one (its NetMatch comes later, ``NetGame.attach``); ``spectate``: the
    arguments of a spectator's game (:class:`game.render.spectate_game.SpectateGame`: ``room``,
    ``where``; its Spectator comes later, ``SpectateGame.attach``)."""
    from game.render.boot import check_fonts, load_pyglet, make_window, show_loading

    pyglet = load_pyglet(headless)
    settings = getattr(args, "settings_data", None)
    if settings is not None:
        from pyglet.window import key

        check_key_names(args, key, report or (lambda line: print(f"{MAIN_PY.name}: {line}", file=sys.stderr)))
    full = bool(args.fullscreen) or (settings is not None and settings.fullscreen)
    window = make_window(pyglet, visible=not pyglet.options["headless"],
                         fullscreen=full and not pyglet.options["headless"])
    check_fonts(pyglet)
    show_loading(pyglet, window)      # at once: the game's modules, arena and warm-up take seconds
    from game.render.game import Game

    common = dict(level=args.level, seed=args.seed, debug=args.debug, show_fps=args.fps,
                  adaptive=args.screenshot is None,      # a window may drop the 3D to half resolution
                  rounds=getattr(args, "rounds", None) or 3, timer=getattr(args, "timer", None) or 60,
                  settings=settings, settings_path=getattr(args, "settings_path", None))
    if net is not None:
        from game.render.net_game import NetGame

        return pyglet, window, NetGame(pyglet, window, **net, **common)
    if spectate is not None:
        from game.render.spectate_game import SpectateGame

        return pyglet, window, SpectateGame(pyglet, window, **spectate, **common)
    game = Game(pyglet, window, p1=args.p1, p2=args.p2, training=args.training,
                title=args.screenshot is None and args.frames is None, **common)
    return pyglet, window, game


def attach_audio(args: argparse.Namespace, pyglet: ModuleType, game: Game,
                 program: Program = MAIN_PY) -> AudioPlayer | None:
    """The window's sound effects (``game/audio/player.py``): an AudioPlayer that hears every
    step, muted with ``--mute`` (M toggles it), silent until ``start()``.  The loop calls
    both once the first frame is on the screen (nothing of sound is worth delaying the first
    frame for, not even this module's import); ``start()`` runs the driver probe and the synthesis on a thread (see
    the module docstring).  A sound is panned to where its world point is on the screen
    (``screen_pan`` of the last drawn frame's ``game.view_proj``).  None in a headless-GL
    window (tests and tools: nobody hears it, and pyglet.media is never imported).
    The player's one-line reports go to stderr under ``program``'s name."""
    if pyglet.options["headless"]:
        return None
    from game.audio.player import AudioPlayer, screen_pan

    settings = getattr(args, "settings_data", None)
    master = settings.volume / 100 if settings is not None else 1.0        # the saved volume
    audio = AudioPlayer(muted=args.mute, master=master,
                        report=lambda line: print(f"{program.name}: {line}", file=sys.stderr),
                        pan_of=lambda point: screen_pan(point, getattr(game, "view_proj", None)))
    game.audio = audio
    game.step_listeners.append(audio.on_step)
    return audio


def run_window(args: argparse.Namespace, program: Program = MAIN_PY, session: Session | None = None) -> int:
    """The game loop: fixed-step simulation, interpolated rendering, one window.

    ``session`` (``game/cli/ending.py``) saves the recording however the run ends: ``main``
    passes its own and finishes it (a signal, a crash, the display lost); without one the
    loop makes one and finishes it when the window closes.  Returns the exit status."""
    own = session is None
    if session is None:
        session = Session(lambda line: print(f"{program.name}: {line}", file=sys.stderr))
    if any(getattr(args, name, None) is not None for name in ("host", "join", "server")):
        from game.cli.window_net import run_window_netplay

        status = run_window_netplay(args, program, session)
        return session.finish(Reason.NORMAL) if own else status
    if getattr(args, "spectate", None) is not None:
        from game.cli.window_spectate import run_window_spectate

        status = run_window_spectate(args, program, session)
        return session.finish(Reason.NORMAL) if own else status
    pyglet, window, game = open_game(args, headless=None)
    if pyglet.options["headless"] and args.frames is None and getattr(args, "replay_data", None) is None:
        # no screen and no keys: nothing would ever end this window (only a replay ends by itself)
        window.close()
        raise UsageError("PYGLET_HEADLESS=1 gives a window no one can see or play in, and this game would "
                         "never end; add --frames N to run N frames, use --screenshot PNG or --headless, "
                         "or unset PYGLET_HEADLESS to play")
    if not pyglet.options["headless"]:
        catch_display_loss(session)     # the X server gone: save, say so, exit 69 (not Xlib's exit(1))
    attach_replay_io(args, game, session, live=True)
    game.prepare_for_play()     # no glyph upload or full garbage collection stalls a frame later

    def step() -> None:
        # one draw may run several catch-up steps: never step past --frames (a recording
        # of --frames N holds exactly N frames, however slow the machine), nor past the
        # end of a replay or a quit
        if not game.quit and (args.frames is None or game.match.frame < args.frames):
            game.step()

    try:
        run_loop(args, program, pyglet, window, game, step,
                 done=lambda: game.quit or (args.frames is not None and game.match.frame >= args.frames),
                 speed=lambda: game.speed)          # a replay's fast forward / slow motion
    finally:                         # a signal or a crash: the session saves the recording
        window.close()
    return session.finish(Reason.NORMAL) if own else 0


def run_loop(args: argparse.Namespace, program: Program, pyglet: ModuleType, window: Any, game: Any,
             step: Callable[[], None], done: Callable[[], bool],
             speed: Callable[[], float] = lambda: 1.0) -> None:
    """The window's event loop ("Fix Your Timestep"): ``step`` once per fixed 1/60 s of the
    clock (times ``speed()``), one draw a frame interpolated by the accumulator's alpha; the
    sound starts once the first frame is on the screen (off the frame path); leaves when
    ``done()`` after a draw.  The audio is closed however it ends; the window is the caller's."""
    audio: list[AudioPlayer | None] = [None]
    loop = FixedStep(step)
    last = [time.perf_counter()]
    drawn = [0]

    @window.event
    def on_draw() -> None:
        now = time.perf_counter()
        alpha = loop.advance((now - last[0]) * speed())
        last[0] = now
        game.draw(alpha)
        drawn[0] += 1
        if drawn[0] == 2:
            audio[0] = attach_audio(args, pyglet, game, program)
            if audio[0] is not None:
                audio[0].start()
        if done():
            pyglet.app.exit()

    try:
        pyglet.app.run(EVENT_LOOP_INTERVAL)
    finally:
        if audio[0] is not None:
            audio[0].close()
