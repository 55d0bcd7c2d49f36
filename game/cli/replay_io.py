"""``--record`` and ``--replay``: a replay file read and checked for the command line, the
window game's hooks that record or play one, and a recording's save that loses nothing.

A replay is checked (version, ``--frames`` against its length, what the window can show)
before the match starts, so a bad file is one line and exit 2, never a broken match.
Recording is ``game/cli/recording.py``'s (every match of the run, saved when it ends).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from game.cli.checks import check_replay_frames
from game.cli.program import UsageError

if TYPE_CHECKING:
    from game.cli.ending import Session
    from game.render.game import Game
    from game.replay import Replay


def load_checked_replay(args: argparse.Namespace) -> Replay:
    """``--replay FILE`` read, its version checked and ``--frames`` checked against its length."""
    from game.replay import check_version, load_replay

    replay = load_replay(args.replay)
    check_version(replay)
    check_replay_frames(args, replay)
    return replay


def prepare_window_replay(args: argparse.Namespace) -> None:
    """``--replay FILE`` in a window: load and check the file, take seed and sides from it
    (``args.seed``, ``p1``, ``p2``, ``level``, ``rounds``, ``timer``), and keep it as ``args.replay_data``."""
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
    args.rounds, args.timer = replay.rounds, replay.timer
    args.replay_data = replay


def attach_replay_io(args: argparse.Namespace, game: Game, session: Session | None = None, *,
                     live: bool = False) -> Callable[[], None]:
    """Hook ``--record`` / ``--replay`` into the window game's input source and step
    listeners; return ``finish()``, which saves the match being recorded (atomically) at the
    run's own end.  ``--record`` follows every match of the run (``game/cli/recording.py``);
    ``session`` saves the match in progress however else the run ends (``game/cli/ending.py``),
    and with ``live`` reports each save as it happens (the window) rather than at the end."""
    if getattr(args, "replay_data", None) is not None:
        _attach_player(args.replay_data, game)
        return lambda: None
    if args.record is not None:
        from game.cli.recording import RecordingRun

        # (not live: a screenshot's one match, saved even with --frames 0)
        run = RecordingRun(args.record, args.force, session=session, keep_empty=not live,
                           report=session.report if session is not None and live else None)
        run.follow(game)

        def finish() -> None:
            run.end()
        return finish
    return lambda: None


def _attach_player(replay: Replay, game: Game) -> None:
    """The replay viewer (``game/render/replay_view.py``) drives both sides and checks every
    frame; a window someone watches holds on the last frame, a headless one quits there."""
    from game.render.replay_view import ReplayView

    game.replay = ReplayView(game, replay, hold_at_end=not game.pyglet.options["headless"])
