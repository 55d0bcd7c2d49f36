"""``--record FILE``: every match played in the run, one replay file each, saved when it ends.

A :class:`RecordingRun` follows whatever match the run plays, however it started (the
title screen, a rematch, the pause menu's Restart, leaving training, attract mode's next
match).  It records a match from its first frame and saves it the moment it ends: its
KO or time over, or when it is abandoned (Restart or a rematch before the end, Quit, the
window closed, a signal, the display lost, a crash: :meth:`RecordingRun.save_pending`,
which the run's :class:`~game.cli.ending.Session` calls however the run ends).  Recording
is transactional (``ReplayRecorder``), so a save at any moment keeps every whole frame.

File names: the run's first match goes to ``FILE``, the second to ``FILE-2.rpl``, the
third to ``FILE-3.rpl`` ... (``FILE`` without its ``.rpl``: ``fight.rpl`` then
``fight-2.rpl``; :func:`series_path`).  A match never stepped (the title screen's, one
replaced before its first frame) is nothing played and makes no file, except the one
match of ``--headless``, ``--screenshot`` and ``--frames N`` runs, saved even empty.
``--force`` lets the run overwrite ``FILE`` and its ``FILE-N.rpl``; without it an
existing one is refused up front (:func:`check_series`), and one that appears during the
run is left alone (the replay goes to the temp folder, and the message says where).

Training mode rewinds the match and refills health and timer outside the inputs, so it
cannot be replayed from inputs and is not recorded: entering it saves the match in
progress and says so in the HUD's corner.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import tempfile
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from game.cli.program import UsageError, why

if TYPE_CHECKING:
    from game.cli.ending import Reason, Session
    from game.replay import ReplayRecorder
    from game.sim import Match

#: Ticks (3 s) the HUD's corner shows a recording's notice ("training is not recorded").
NOTICE_TICKS = 180
#: The suffix of the run's later files (``FILE-2.rpl``, ...).
SERIES_SUFFIX = ".rpl"


def series_path(path: str, number: int) -> str:
    """Where the run's ``number``-th match (from 1) is saved: ``path`` itself for the first,
    then ``path`` without a ``.rpl`` ending, ``-N`` and ``.rpl`` (``fight.rpl``, ``fight-2.rpl``)."""
    if number == 1:
        return path
    stem = path[:-len(SERIES_SUFFIX)] if path.lower().endswith(SERIES_SUFFIX) else path
    return f"{stem}-{number}{SERIES_SUFFIX}"


def existing_series(path: str) -> list[str]:
    """The files already named as a later match of ``--record path`` would be (``FILE-N.rpl``,
    N from 2), in the order of N."""
    stem = path[:-len(SERIES_SUFFIX)] if path.lower().endswith(SERIES_SUFFIX) else path
    folder, base = os.path.split(stem)
    pattern = re.compile(re.escape(base) + r"-([2-9]|[1-9][0-9]+)" + re.escape(SERIES_SUFFIX) + r"\Z")
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return []                            # the folder itself is checked (and named) elsewhere
    found = sorted((int(m.group(1)), name) for name in names if (m := pattern.match(name)))
    return [os.path.join(folder, name) for _n, name in found]


def check_series(args: argparse.Namespace) -> None:
    """Up front, for a run that can play several matches (the window): the files its later
    matches would be saved to.  Without ``--force`` an existing one is refused (exit 2); with
    it, each must be a regular file (``--force`` overwrites it when the run gets there)."""
    if args.record is None or args.headless or args.screenshot is not None:
        return                               # one match: only FILE, which checks.py checks
    from game.files import REGULAR, existing_kind

    for path in existing_series(args.record):
        try:
            kind = existing_kind(path)
        except OSError as exc:
            raise UsageError(f"--record {args.record}: cannot use {path} ({why(exc)}), where a later match "
                             f"of this run would be saved; give another file name") from None
        if kind is not None and kind != REGULAR:
            raise UsageError(f"--record {args.record}: {path} is {kind}, and a later match of this run would "
                             f"be saved there; give another file name")
        if kind is not None and not args.force:
            raise UsageError(f"--record {args.record}: {path} already exists, and a later match of this run "
                             f"would be saved there; add --force to let --record overwrite it, or give "
                             f"another file name")


class Saved(NamedTuple):
    """Where one match's replay went."""

    ok: bool            # saved where asked
    path: str | None    # the file that holds it (the asked path, the temp folder's copy), None if lost
    line: str           # the report's line


def save_replay(recorder: ReplayRecorder, path: str, force: bool) -> Saved:
    """Save a recording to ``path``; if that fails, to a new file in the temp folder (never
    losing a played match quietly).  The line names the error and where the replay is."""
    try:
        recorder.save(path, force=force)
        return Saved(True, path, f"saved to {path} ({recorder.frames} frames)")
    except OSError as exc:
        first = why(exc)
    fallback = None
    try:
        fd, fallback = tempfile.mkstemp(prefix="rangebox-", suffix=SERIES_SUFFIX)
        os.close(fd)
        recorder.save(fallback, force=True)
    except OSError as exc:
        if fallback is not None:
            with contextlib.suppress(OSError):
                os.unlink(fallback)
        return Saved(False, None, f"--record {path}: could not save the replay ({first}), nor a copy in "
                                  f"{tempfile.gettempdir()} ({why(exc)}); the recording is lost")
    return Saved(False, fallback, f"--record {path}: could not save the replay ({first}); saved it to "
                                  f"{fallback} instead: move it where you want it")


class _Take(NamedTuple):
    """One match being recorded."""

    match: Any                  # the match (``game.sim.Match``, or a stand-in with its attributes)
    recorder: ReplayRecorder    # its frames so far


class RecordingRun:
    """``--record path``: records the run's matches, one file each (see the module docstring).

    ``begin(match)`` when a match starts, ``record(match)`` after each of its steps (which
    saves it on its last frame), ``save_pending(reason)`` when the run ends;
    ``follow(game)`` does all of it for the window's Game.  ``keep_empty``: a match of 0
    frames is saved too (a run of one match the user sized, ``--frames 0``).  ``report``
    gets each save's line as it happens (the window; None: the lines wait for
    ``save_pending``).  ``session`` defers signals during a save and saves what is pending
    at the end, however the run ends.  ``online``: the matches are online ones, recorded as
    the server's referee records them (no per-frame tags, a checkpoint every 30 frames;
    ``ReplayRecorder.for_match``), so a player's, a spectator's and the server's replay of
    a match are the same bytes."""

    def __init__(self, path: str, force: bool, *, session: Session | None = None, keep_empty: bool = False,
                 report: Callable[[str], None] | None = None, online: bool = False):
        self.path, self.force, self.keep_empty, self.online = path, force, keep_empty, online
        self.session = session
        self.report = report
        self.saved: list[Saved] = []        # every save so far, in match order
        self._take: _Take | None = None     # the match being recorded
        self._done: object = None           # the last match saved or not recorded (training): ignored
        self._unreported: list[str] = []    # lines for save_pending's report (report is None)
        self.notice: Callable[[str], None] | None = None    # a short line on the screen (follow() sets it)
        if session is not None:
            session.add(self)

    @property
    def failed(self) -> bool:
        """True once a save failed (the replay went to the temp folder, or was lost)."""
        return any(not s.ok for s in self.saved)

    @property
    def recording(self) -> Match | None:
        """The match being recorded, or None."""
        return self._take.match if self._take is not None else None

    def begin(self, match: Match) -> None:
        """``match`` is the one being played now: the match recorded until now has ended (it is
        saved), and this one is recorded from its first frame."""
        from game.replay import ReplayRecorder

        if self._take is not None and self._take.match is match:
            return
        self.end()
        self._take = _Take(match, ReplayRecorder.of_settings(match, online=self.online))

    def record(self, match: Match) -> None:
        """After a step of the recorded match: commit its frame; on its last frame, save it."""
        take = self._take
        if take is None or take.match is not match:
            return
        take.recorder.record(match)
        if match.over:
            self.end()

    def end(self) -> Saved | None:
        """The recorded match has ended (over, abandoned, the run ending): save it, unless it
        never played a frame (and ``keep_empty`` is off).  Returns where it went, or None."""
        take, self._take = self._take, None
        if take is None:
            return None
        self._done = take.match
        if take.recorder.frames == 0 and not self.keep_empty:
            return None
        path = series_path(self.path, len(self.saved) + 1)
        guard = self.session.deferred() if self.session is not None else contextlib.nullcontext()
        with guard:
            saved = save_replay(take.recorder, path, self.force)
            self.saved.append(saved)
            line = f"--record: match {len(self.saved)} {saved.line}" if saved.ok else saved.line
            if self.report is not None:
                self.report(line)
            else:
                self._unreported.append(line)
        if self.notice is not None:
            self.notice(f"replay saved: {os.path.basename(path)}" if saved.ok else
                        "replay not saved where asked: see the terminal")
        return saved

    def save_pending(self, reason: Reason) -> list[str]:
        """The run is ending (``reason``): save the match in progress; return the lines not
        yet reported (with no ``report``, every save's; else that last save's, if any)."""
        from game.cli.ending import Reason

        take = self._take
        if take is not None and reason not in (Reason.NORMAL, Reason.USAGE) and take.recorder.frames == 0:
            self._take = None                # cut short before its first frame: nothing was played
        report, self.report = self.report, None      # the last lines go into the session's one report
        try:
            self.end()
        finally:
            self.report = report
        lines, self._unreported = self._unreported, []
        if not self.saved:
            lines.append(f"--record {self.path}: no match was played; nothing saved")
        return lines

    # ------------------------------------------------------------------ the window's Game
    def follow(self, game: Any) -> None:
        """Record the window game's matches: a step listener sees each new match on its first
        frame (:meth:`sync`: title screen, rematch, Restart, attract mode's next match,
        training) and records every frame.  A match replaced before any step of the next one
        (Restart, then Quit) is still pending, and saved at the run's end."""
        def notice(text: str) -> None:
            if hasattr(game, "notice"):
                game.notice = (text, game.ticks + NOTICE_TICKS)
        self.notice = notice

        def on_step(match: Match, events: Sequence[object]) -> None:
            self.sync(game)
            self.record(match)
        game.step_listeners.append(on_step)
        self.sync(game)

    def sync(self, game: Any) -> None:
        """Follow ``game.match``: a new match (not training's) is recorded; entering training
        saves the match in progress and says that training is not recorded."""
        match = game.match
        if match is self.recording or match is self._done:
            return
        if getattr(game, "training", None) is not None:
            saved = self.end()
            self._done = match
            if self.notice is not None:
                name = os.path.basename(saved.path) if saved is not None and saved.ok and saved.path else None
                self.notice(f"{name} saved; training is not recorded" if name else "training is not recorded")
            return
        self.begin(match)
