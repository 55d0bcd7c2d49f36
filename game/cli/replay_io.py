"""``--record`` and ``--replay``: a replay file read and checked for the command line, the
window game's hooks that record or play one, and a recording's save that loses nothing.

A replay is checked (version, ``--frames`` against its length, what the window can show)
before the match starts, so a bad file is one line and exit 2, never a broken match.
A failed save of a played match keeps the replay in the temp folder and says where.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from game.cli.checks import check_replay_frames
from game.cli.program import UsageError, why

if TYPE_CHECKING:
    from game.render.game import Game
    from game.replay import Replay, ReplayRecorder
    from game.sim import Match


def load_checked_replay(args: argparse.Namespace) -> Replay:
    """``--replay FILE`` read, its version checked and ``--frames`` checked against its length."""
    from game.replay import check_version, load_replay

    replay = load_replay(args.replay)
    check_version(replay)
    check_replay_frames(args, replay)
    return replay


def prepare_window_replay(args: argparse.Namespace) -> None:
    """``--replay FILE`` in a window: load and check the file, take seed and sides from it
    (``args.seed``, ``p1``, ``p2``, ``level``), and keep it as ``args.replay_data``."""
    replay = load_checked_replay(args)
    levels = {c for c in replay.cpu if c is not None}
    if len(levels) > 1:
        raise UsageError(f"--replay {args.replay}: the two CPUs play different levels; "
                         f"play it with --headless")
    if not replay.arena:                # the window draws, and its Game builds, arena matches only
        raise UsageError(f"--replay {args.replay}: recorded on a bare floor (Match.new(arena=False)), which "
                         f"the window does not show; check it with --headless")
    args.seed = replay.seed
    args.p1, args.p2 = ("cpu" if c else "human" for c in replay.cpu)
    args.level = levels.pop() if levels else args.level
    args.replay_data = replay


def attach_replay_io(args: argparse.Namespace, game: Game) -> Callable[[], None]:
    """Hook ``--record`` / ``--replay`` into the window game's input source and step
    listeners; return ``finish()``, which saves the recording (atomically) at the end."""
    if getattr(args, "replay_data", None) is not None:
        _attach_player(args.replay_data, game)
        return lambda: None
    if args.record is not None:
        recorder = _attach_recorder(game)
        return lambda: save_recording(recorder, args.record, args.force)
    return lambda: None


def _attach_player(replay: Replay, game: Game) -> None:
    """The replay viewer (``game/render/replay_view.py``) drives both sides and checks every
    frame; a window someone watches holds on the last frame, a headless one quits there."""
    from game.render.replay_view import ReplayView

    game.replay = ReplayView(game, replay, hold_at_end=not game.pyglet.options["headless"])


def _attach_recorder(game: Game) -> ReplayRecorder:
    """Record the game's first match, up to the frame it ends on (as ``--headless`` does),
    so no replay is longer than the longest match."""
    from game.replay import ReplayRecorder

    recorder = ReplayRecorder.for_match(game.match)
    match = game.match
    ended = [False]

    def record(m: Match, events: Sequence[object]) -> None:
        if m is match and not ended[0]:
            recorder.record(m)
            ended[0] = m.over
    game.step_listeners.append(record)
    return recorder


def save_recording(recorder: ReplayRecorder, path: str, force: bool) -> None:
    """Save ``--record``'s replay.  If that fails, the match is not lost: the replay goes to
    a new file in the temp folder and UsageError (exit 2) names the error and that file."""
    try:
        recorder.save(path, force=force)
        return
    except OSError as exc:
        first = why(exc)
    fallback = None
    try:
        fd, fallback = tempfile.mkstemp(prefix="rangebox-", suffix=".rpl")
        os.close(fd)
        recorder.save(fallback, force=True)
    except OSError as exc:
        if fallback is not None:
            try:
                os.unlink(fallback)
            except OSError:
                pass
        raise UsageError(f"--record {path}: could not save the replay ({first}), nor a copy in "
                         f"{tempfile.gettempdir()} ({why(exc)}); the recording is lost") from None
    raise UsageError(f"--record {path}: could not save the replay ({first}); saved it to {fallback} "
                     f"instead: move it where you want it")
