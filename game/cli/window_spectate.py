"""``--spectate HOST[:PORT] --room NAME`` in the window: a room's match watched on the screen.

The command line's side of :class:`game.render.spectate_game.SpectateGame`: the Spectator and
its recording are the headless spectator's (``game/cli/spectate.py``, :class:`Watching`); the
window's fixed-step loop (``game.cli.window.run_loop``) ticks the Spectator once per 1/60 s
step through ``SpectateGame.step``, catching up at most
:data:`~game.online.spectate.WINDOW_CATCH_UP` frames a step, and draws the match between steps.
It ends as the headless spectator ends (the same exit statuses, ``--record`` saved), except
that Esc (leaving, or cancelling the join) is the watcher's own end: exit 0.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING

from game.cli.ending import Session, catch_display_loss, report_left
from game.cli.program import MAIN_PY, Program, UsageError
from game.cli.window import open_game, run_loop

if TYPE_CHECKING:
    from game.cli.spectate import Watching


def run_window_spectate(args: argparse.Namespace, program: Program = MAIN_PY, session: Session | None = None) -> int:
    """Open the spectator and the window, watch, end (see the module docstring); returns 0, or
    raises :class:`game.cli.netplay.NetplayEnded`."""
    from game.cli.spectate import Watching, open_spectator
    from game.online.spectate import WINDOW_CATCH_UP
    from game.render.boot import load_pyglet
    from game.render.spectate_game import SpectateGame

    if session is None:
        session = Session(lambda line: print(f"{program.name}: {line}", file=sys.stderr))
    if load_pyglet(None).options["headless"] and args.frames is None:
        raise UsageError("--spectate under PYGLET_HEADLESS=1 opens a window no one can see; add --headless to "
                         "watch with no window, or --frames N to stop at frame N")
    w = open_spectator(args, time.monotonic(), catch_up=WINDOW_CATCH_UP)
    try:
        from game.online.address import format_address

        pyglet, window, game = open_game(args, headless=None, spectate={
            "room": args.room, "where": f"Joining room {args.room} on {format_address(w.server)} as a spectator ..."})
        assert isinstance(game, SpectateGame)
        try:
            game.prepare_for_play()
            watching = Watching(args, session, w)
            w.on_start = watching.started
            game.attach(w)
            if not pyglet.options["headless"]:
                catch_display_loss(session)

            def step() -> None:
                if not game.quit:
                    game.step()

            run_loop(args, program, pyglet, window, game, step, done=lambda: game.quit)
        finally:
            game.leave(time.monotonic())
            window.close()
    finally:
        w.link.close()
    return _ended(watching, session, game.cancelled)


def _ended(watching: Watching, session: Session, cancelled: bool) -> int:
    """The run's end: 0 for a join cancelled, a room left or a match watched; else NetplayEnded."""
    w = watching.spectator
    ending = w.ending
    if cancelled and w.match is None:
        session.report("cancelled: nothing was watched")
        return 0
    if ending is not None and ending.kind == "left":
        return report_left(session, watching.run, watching.record_lines,
                           f"you left room {watching.args.room} after {ending.frames} frames")
    out = watching.result()                    # raises NetplayEnded unless the match was watched
    v = out["verdict"]
    said = "" if not isinstance(v, dict) else f"; the server's verdict: {v['reason']}"
    session.report(f"watched room {out['room']} for {out['frames']} frames (state hash "
                   f"{str(out['state_hash'])[:16]}...){said}")
    return 0
