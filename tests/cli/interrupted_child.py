"""A child process for the interruption tests: ``game.cli.app.main`` (what ``main.py`` runs),
with the moments it reaches written down, so the test can tell where its signal landed.

    python interrupted_child.py MARKS SAVE_DELAY [main.py's flags ...]

MARKS gets one line per moment, ``NAME MONOTONIC_SECONDS``: ``start`` (the interpreter is up,
before the game is imported), ``imported`` (the game's command line is imported),
``handlers`` (the session's signal handlers are installed), ``play`` (the first frame is
stepped and recorded; in the window, the 60th step of its loop), ``save`` and ``saved`` (around each
replay save).  It works on a build without the
session too (no ``handlers`` mark), to show the test failing there.
``time.monotonic`` is the system's one clock, so the parent compares it with its own.
SAVE_DELAY seconds are spent inside each save's ``fsync``, between the temp file's write and
its rename (a slow disk), so that random moments land in the save too.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    marks_path, delay, flags = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
    fd = os.open(marks_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def mark(name: str) -> None:
        os.write(fd, f"{name} {time.monotonic():.6f}\n".encode())

    mark("start")
    sys.path.insert(0, str(ROOT))
    from game.cli import app, headless, window

    mark("imported")
    try:
        from game.cli.ending import Session
    except ImportError:                  # a build without the session: Python's own signal handling
        pass
    else:
        catching = Session.catching_signals

        def catching_marked(self):
            with catching(self):
                mark("handlers")
                yield
        Session.catching_signals = contextlib.contextmanager(catching_marked)

    make_match = headless.make_match

    def make_marked(*args, **kwargs):
        # numpy and the simulation are imported here, in the run's set-up, as without the marks
        from game.replay import ReplayRecorder

        save = ReplayRecorder.save

        def save_marked(self, *args, **kwargs):
            mark("save")
            try:
                return save(self, *args, **kwargs)
            finally:
                mark("saved")
        ReplayRecorder.save = save_marked
        record = ReplayRecorder.record

        def record_marked(self, match):
            # after the first frame's commit: a signal between the step and the commit finds
            # nothing recorded yet, and rightly saves no file
            record(self, match)
            if match.frame == 1:
                mark("play")
        ReplayRecorder.record = record_marked
        return make_match(*args, **kwargs)
    headless.make_match = make_marked

    class MarkedStep(window.FixedStep):
        """The window loop's clock, marking ``play`` once it has stepped the match a second's worth."""

        def __init__(self, step, *args, **kwargs):
            count = [0]

            def counted() -> None:
                step()
                count[0] += 1
                if count[0] == 60:
                    mark("play")
            super().__init__(counted, *args, **kwargs)
    window.FixedStep = MarkedStep

    fsync = os.fsync

    def slow_fsync(fileno: int) -> None:
        time.sleep(delay)
        fsync(fileno)
    os.fsync = slow_fsync
    return app.main(flags)


if __name__ == "__main__":
    sys.exit(main())
