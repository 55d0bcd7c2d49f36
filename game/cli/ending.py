"""How a run of the game ends, and the one place where what was played is saved then.

Every way the process can end goes through :meth:`Session.finish`: the run returning
(the match over, Quit, the window closed, ``--frames`` reached), a signal (SIGINT,
SIGTERM, SIGHUP, SIGQUIT), the display lost (Xlib's I/O error), and an exception no
one expected (a bug in the renderer or anywhere else).  ``finish(reason)`` saves every
pending recording (:class:`Pending`, e.g. ``--record``'s match in progress), reports
in one line why the run ended and where the replay went, and returns the exit status
(:class:`Reason`, the README's table).  A caller with another way to end (a network
game's disconnect) adds a :class:`Reason` and calls ``finish`` the same way.

Signals: :meth:`Session.catching_signals` installs handlers that raise :class:`Ended`
in the main thread, so the run unwinds to ``main`` (``game/cli/app.py``), which calls
``finish``.  A signal that arrives while a replay is being saved (:meth:`Session.deferred`)
or while the session finishes is noted and acted on once the save is complete, so no save
is cut in half.  A signal the process was started with ignored (``nohup``'s SIGHUP, a
background job's SIGINT) stays ignored.

The display: Xlib calls its I/O error handler when the X connection breaks and then
``exit(1)``s if the handler returns; :func:`catch_display_loss` installs one that
finishes the session and leaves with :attr:`Reason.DISPLAY_LOST`'s status itself
(``os._exit``: the handler runs inside an Xlib call, and nothing of pyglet or GL can
run any more).

Standard library only (pyglet's Xlib bindings are imported inside the one function that
needs them).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from enum import Enum
from types import FrameType
from typing import Any, Protocol


class Reason(Enum):
    """Why a run ended: its exit status, and the words that start the report."""

    NORMAL = (0, "")                           # the run's own end: match over, Quit, window closed, --frames
    MISMATCH = (1, "")                         # --sync-test found a frame that differs (its own line)
    USAGE = (2, "")                            # a bad flag or file, or a save that failed (its own line)
    NET_LOST = (3, "")                         # netplay: the opponent left, went silent or never answered
    DESYNC = (4, "")                           # netplay: the two sides' states differ (its own line)
    REFUSED = (5, "")                          # netplay: the handshake refused (the games differ, the host busy)
    SIGHUP = (129, "the terminal hung up (SIGHUP)")
    SIGINT = (130, "interrupted (SIGINT)")
    SIGQUIT = (131, "quit by SIGQUIT")
    SIGTERM = (143, "stopped by SIGTERM")
    DISPLAY_LOST = (69, "the connection to the display was lost")     # sysexits' EX_UNAVAILABLE
    CRASH = (70, "internal error (the traceback is above): please report it")   # sysexits' EX_SOFTWARE

    def __init__(self, status: int, words: str):
        self.status = status        # the process's exit status
        self.words = words          # what the report says first ("" for the run's own end)


#: The signals a run saves its recording on, and their reasons.
SIGNAL_REASONS = {signal.SIGINT: Reason.SIGINT, signal.SIGTERM: Reason.SIGTERM,
                  signal.SIGHUP: Reason.SIGHUP, signal.SIGQUIT: Reason.SIGQUIT}


class Ended(BaseException):
    """Raised by the signal handlers in the main thread: the run unwinds to ``main``, which
    calls :meth:`Session.finish` with :attr:`reason`.  A BaseException, as KeyboardInterrupt
    is, so no ``except Exception`` on the way swallows it."""

    def __init__(self, reason: Reason):
        super().__init__(reason.words)
        self.reason = reason


class Pending(Protocol):
    """Something a run must save however it ends (``game.cli.recording.RecordingRun``)."""

    def save_pending(self, reason: Reason) -> list[str]:
        """Save what is not saved yet; return the report's lines (what was saved where, or why not)."""

    @property
    def failed(self) -> bool:
        """True once any of its saves failed (the run then ends with exit status 2)."""


class Session:
    """One run of the game: its pending saves, its signal handlers, and its one :meth:`finish`.

    ``report`` writes one line for the user (stderr, under the program's name)."""

    def __init__(self, report: Callable[[str], None]):
        self.report = report                 # one line to the user
        self._pending: list[Pending] = []    # saved by finish(), in the order they were added
        self._deferring = 0                  # depth of deferred() sections (saves in progress)
        self._signalled: Reason | None = None   # the first signal received, if any
        self._finishing = False              # finish() has started: later signals are only noted
        self._kept: list[Any] = []           # ctypes callbacks that must live as long as the process

    def add(self, pending: Pending) -> None:
        """``pending`` is saved by :meth:`finish`, however the run ends."""
        self._pending.append(pending)

    @property
    def signalled(self) -> Reason | None:
        """The reason of the first signal received, or None."""
        return self._signalled

    @contextlib.contextmanager
    def deferred(self) -> Iterator[None]:
        """A section no signal cuts short (a replay's save): a signal that arrives in it is
        acted on (:class:`Ended` raised) when it is over."""
        self._deferring += 1
        try:
            yield
        finally:
            self._deferring -= 1
            if not self._deferring and self._signalled is not None and not self._finishing:
                raise Ended(self._signalled)

    def on_signal(self, signum: int, frame: FrameType | None = None) -> None:
        """The handler of every signal in :data:`SIGNAL_REASONS` (Python runs it in the main thread)."""
        if self._signalled is None:
            self._signalled = SIGNAL_REASONS[signal.Signals(signum)]
        if self._deferring or self._finishing:
            return                           # acted on when the save is done / already ending
        raise Ended(self._signalled)

    @contextlib.contextmanager
    def catching_signals(self) -> Iterator[None]:
        """Install :meth:`on_signal` for SIGINT, SIGTERM, SIGHUP and SIGQUIT (those not ignored,
        and only in the main thread, where Python allows it); restore the old handlers after."""
        saved: dict[signal.Signals, Any] = {}
        if threading.current_thread() is threading.main_thread():
            for sig in SIGNAL_REASONS:
                old = signal.getsignal(sig)
                if old is signal.SIG_IGN:    # nohup, a background job: the user asked for that
                    continue
                saved[sig] = old
                signal.signal(sig, self.on_signal)
        try:
            yield
        finally:
            for sig, old in saved.items():
                signal.signal(sig, old if old is not None else signal.SIG_DFL)

    def finish(self, reason: Reason) -> int:
        """End the run: save every pending recording (a signal meanwhile is only noted), report
        why the run ended and where each replay went, and return the exit status.

        A run that ends normally (or on a usage error) after a signal was received ends with
        that signal's status; a normal end whose save failed ends with status 2."""
        self._finishing = True
        if reason in (Reason.NORMAL, Reason.USAGE) and self._signalled is not None:
            reason = self._signalled
        lines: list[str] = []
        for pending in self._pending:
            try:
                lines += pending.save_pending(reason)
            except Exception as exc:         # a bug in a save must not hide the others, nor the reason
                lines.append(f"could not save a recording ({type(exc).__name__}: {exc})")
        if reason.words:
            self.report("; ".join([reason.words, *lines]))
        else:
            for line in lines:
                self.report(line)
        failed = any(p.failed for p in self._pending)
        if reason is Reason.NORMAL and failed:
            return Reason.USAGE.status
        return reason.status

    def keep_alive(self, callback: Any) -> None:
        """Hold ``callback`` (a ctypes callback C code will call) for the session's life."""
        self._kept.append(callback)

    def exit_now(self, reason: Reason) -> None:
        """Finish and leave the process at once with the status (for a handler that must not
        return, as Xlib's I/O error handler): stdout and stderr are flushed, nothing else runs."""
        status = reason.status
        try:
            status = self.finish(reason)
        finally:
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):
                    stream.flush()
            os._exit(status)


def catch_display_loss(session: Session) -> None:
    """Install an Xlib I/O error handler (the X connection broke: the X server died or the
    display was closed) that saves and reports through ``session`` and exits with
    :attr:`Reason.DISPLAY_LOST`'s status.  It never returns: Xlib would ``exit(1)`` then,
    after printing ``X connection ... broken``."""
    from pyglet.libs.x11 import xlib

    def lost(_display: object) -> int:
        session.exit_now(Reason.DISPLAY_LOST)
        return 0                             # never reached: exit_now leaves the process

    handler = xlib.XIOErrorHandler(lost)
    session.keep_alive(handler)              # Xlib calls it for the rest of the process's life
    xlib.XSetIOErrorHandler(handler)


def report_left(session: Session, run: Any, record_lines: list[str], line: str) -> int:
    """A netplay or spectator window the player left: its recording ``run`` (if any) ended,
    ``line`` and then where the match was saved reported; exit status 0."""
    if run is not None:
        run.end()
    session.report(line)
    for saved in record_lines:
        session.report(saved)
    return 0
