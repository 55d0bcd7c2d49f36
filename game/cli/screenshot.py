"""``--screenshot PNG``: one frame drawn with no screen (headless EGL) and saved as a PNG.

The match is stepped as fast as it goes (no clock: the picture is of a simulation frame,
not of a moment), the last frame is drawn with alpha 1 and the colour buffer is written
through a temp file and a rename, so a failed save never leaves half a PNG.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from types import ModuleType

from game.cli.ending import Reason, Session
from game.cli.program import MAIN_PY, UsageError, why
from game.cli.replay_io import attach_replay_io
from game.cli.window import open_game


def run_screenshot(args: argparse.Namespace, session: Session | None = None) -> int:
    """Step ``--frames`` simulation frames (default 1; with ``--replay`` its length) with no
    screen, stopping early at the end of the match, draw the last, save the PNG atomically.
    A recording is saved even if the PNG is not; ``session`` saves it however else the run
    ends, and reports a failed save."""
    own = session is None
    if session is None:
        session = Session(lambda line: print(f"{MAIN_PY.name}: {line}", file=sys.stderr))
    replay = getattr(args, "replay_data", None)
    target = args.frames if args.frames is not None else (replay.frames if replay is not None else 1)
    pyglet, window, game = open_game(args, headless=True)
    finish = attach_replay_io(args, game, session)
    for _ in range(target):
        if game.quit or game.match.over:
            break
        game.step()
    game.draw(1.0)
    try:
        save_png(pyglet, args.screenshot)
    finally:
        window.close()
        finish()                 # the recording, even if the PNG was not saved (a failure: the session says)
    return session.finish(Reason.NORMAL) if own else 0


def save_png(pyglet: ModuleType, path: str) -> None:
    """Encode the colour buffer as PNG and write it through a temp file and a rename: a
    failed write (disk full, I/O error) leaves an existing file as it was (UsageError)."""
    from game.files import write_atomic

    buf = io.BytesIO()
    pyglet.image.get_buffer_manager().get_color_buffer().save(path, file=buf)
    existed = os.path.isfile(path)
    try:
        write_atomic(path, buf.getvalue(), force=True)
    except OSError as exc:
        kept = f"{path} is unchanged; " if existed else ""
        raise UsageError(f"--screenshot {path}: could not save the PNG ({why(exc)}); {kept}"
                         f"free some space or choose another folder") from None
