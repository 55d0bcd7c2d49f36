"""The command line's top: flags checked, then one mode run, and every known failure
turned into one stderr line and exit status 2; however the run ends (a signal, a crash),
the session (``game/cli/ending.py``) saves what was played and picks the exit status.

``main`` is what ``python3 main.py`` runs and :func:`console` what the ``rangebox``
console script runs: the same code under the name the user typed.  The modes live in
their own modules (``headless``, ``window``, ``screenshot``); this one only dispatches
and reports, so that no failure a user can fix ends in a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from pathlib import Path

from game.allocator import keep_freed_memory  # standard library only
from game.cli.checks import check_mode_flags, check_replay_flags, check_screenshot_path
from game.cli.ending import Ended, Reason, Session
from game.cli.headless import run_headless, run_replay_headless
from game.cli.netplay import NetplayEnded, run_netplay
from game.cli.parser import apply_defaults, build_parser
from game.cli.program import CONSOLE, MAIN_PY, Program, UsageError
from game.cli.recording import check_series
from game.cli.replay_io import prepare_window_replay
from game.cli.saved import apply_settings
from game.cli.screenshot import run_screenshot
from game.cli.synctest import run_sync_test
from game.cli.window import run_window
from game.tools import EXIT_USAGE, FIX_PACKAGE  # standard library only: works with numpy missing

#: The exit status of a sync test that found a frame that differs.
EXIT_MISMATCH = 1


class SyncTestFailed(Exception):
    """``--sync-test``: a re-simulated frame's state differed from the first run's (one line, exit 1)."""


#: The reasons a run that returns (rather than raises) ends with, by its exit status.
_BY_STATUS = {r.status: r for r in (Reason.NORMAL, Reason.MISMATCH, Reason.NET_LOST, Reason.DESYNC, Reason.REFUSED)}
#: The third-party packages the game imports: a missing one is a set-up step not run.
_REQUIRED_PACKAGES = {"numpy", "pyrr", "pyglet"}
#: The library's file errors, whose messages already name the file and the fix (their
#: subclasses too: AssetFileError, StaleBakeError, ReplayFileError ...).  ShaderFileError is a
#: shader source that cannot be read (a RuntimeError, as every ShaderError).
_USER_FILE_ERRORS = {"AssetError", "SceneFileError", "ReplayError", "ArenaAssetError", "ArenaDescriptionError",
                     "ShaderFileError"}
#: The folders the game reads from beside its package: ``game.sim.data.ASSETS`` (and the
#: arena's files) and ``game.render.glutil.SHADERS`` are both found next to ``game/``.
SOURCE_FOLDERS = ("assets", "shaders")
#: Where pip puts an installed (non-editable) package.
_INSTALL_FOLDERS = {"site-packages", "dist-packages"}


def main(argv: list[str] | None = None, program: Program = MAIN_PY) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); return the exit status.

    However the run ends, :meth:`Session.finish` saves what was played and reports why it
    ended (``game/cli/ending.py``; the statuses are the README's table): a usage error, a
    missing package, a bad asset, scene or replay file, one line on stderr under ``program``'s
    name and :data:`~game.tools.EXIT_USAGE`; SIGINT (Ctrl-C), SIGTERM, SIGHUP, SIGQUIT one
    line and 128 + the signal's number; an unexpected exception its traceback, then one line
    and 70."""
    session = Session(lambda line: _report(program, line))
    with session.catching_signals():
        try:
            status = _main(argv, program, session)
        except Ended as exc:
            return session.finish(exc.reason)
        except KeyboardInterrupt:        # raised by other means than our handler (Python's own, a test)
            return session.finish(Reason.SIGINT)
        except Exception:                # a bug: what was played is saved first, then reported with it
            if session.signalled is not None:
                # the signal's Ended, turned into another exception by code it cut short (an
                # extension module's import, say): the run ended by the signal, not by a bug
                return session.finish(session.signalled)
            traceback.print_exc()
            return session.finish(Reason.CRASH)
        return session.finish(_BY_STATUS.get(status, Reason.USAGE))


def _main(argv: list[str] | None, program: Program, session: Session) -> int:
    """Run the command line; every known failure a user can fix is one line and EXIT_USAGE."""
    try:
        return _run(argv, program, session)
    except SyncTestFailed as exc:
        _report(program, str(exc))
        return EXIT_MISMATCH
    except NetplayEnded as exc:
        _report(program, exc.line)
        return exc.reason.status
    except UsageError as exc:
        _report(program, str(exc))
        return EXIT_USAGE
    except ModuleNotFoundError as exc:
        # numpy, pyrr or pyglet: the set-up step was skipped (pyglet alone reaches here only
        # outside the renderer's own boot, which names --headless too)
        if exc.name not in _REQUIRED_PACKAGES:
            raise
        _report(program, FIX_PACKAGE.format(name=exc.name))
        return EXIT_USAGE
    except (ValueError, OSError, RuntimeError) as exc:
        # Asset, scene, replay and shader files: one line naming the file and the fix.
        if not _is_user_file_error(exc):
            raise
        _report(program, str(exc))
        return EXIT_USAGE


def console() -> int:
    """The ``rangebox`` console script (``[project.scripts]`` in pyproject.toml)."""
    return main(None, CONSOLE)


def _report(program: Program, line: str) -> None:
    print(f"{program.name}: {line}", file=sys.stderr)


def _run(argv: list[str] | None, program: Program, session: Session) -> int:
    """Check every flag, then run the one mode they ask for."""
    args = build_parser(program.command).parse_args(argv)
    check_mode_flags(args)
    check_replay_flags(args)
    check_series(args)
    check_screenshot_path(args)
    apply_settings(args, lambda line: _report(program, line))     # a window's saved options under the flags
    apply_defaults(args)
    check_source_tree()
    keep_freed_memory()          # numpy's large temporaries reuse freed pages (game/allocator.py)
    if args.headless:
        return _run_headless(args, session)
    if args.replay is not None:
        prepare_window_replay(args)
    from game.render.boot import RenderUnavailable
    try:
        if args.screenshot is not None:
            return run_screenshot(args, session)
        return run_window(args, program, session)
    except RenderUnavailable as exc:     # --headless excludes --screenshot: only the fix there
        raise UsageError(exc.fix if args.screenshot is not None else str(exc)) from None


def _run_headless(args: argparse.Namespace, session: Session) -> int:
    """``--headless``: one JSON line on stdout (a replay that diverges prints where, then exits 2;
    a sync test that finds a difference reports the frame and exits 1)."""
    if args.host is not None or args.join is not None or args.server is not None:
        print(json.dumps(run_netplay(args, session)))
        return 0
    if args.spectate is not None:
        from game.cli.spectate import run_spectate

        print(json.dumps(run_spectate(args, session)))
        return 0
    if args.sync_test is not None:
        out, mismatch = run_sync_test(args)
        if mismatch:
            raise SyncTestFailed(mismatch)
        print(json.dumps(out))
        return 0
    if args.replay is not None:
        from game.replay import ReplayMismatch
        try:
            print(json.dumps(run_replay_headless(args)))
        except ReplayMismatch as exc:
            print(json.dumps({"frames": exc.frame, "ok": False, "diverged_at": exc.frame}))
            raise
        return 0
    print(json.dumps(run_headless(args, session)))
    return 0


def check_source_tree() -> None:
    """Rangebox runs from its checkout: ``pip install -e .`` (what ``scripts/setup.sh`` does)
    leaves ``game/`` there, beside ``assets/`` and ``shaders/``.  A non-editable install
    copies ``game/`` alone into site-packages; say so (UsageError) rather than fail later
    on the first asset file, whose message would suggest restoring it from git."""
    root = Path(__file__).resolve().parents[2]          # the folder that holds game/
    missing = [f"{name}/" for name in SOURCE_FOLDERS if not (root / name).is_dir()]
    if missing and root.name in _INSTALL_FOLDERS:
        raise UsageError(f"this Rangebox was installed into {root} without the {' and '.join(missing)} "
                         f"folder{'s' if len(missing) > 1 else ''} it reads beside game/: install it from its "
                         f"source checkout in editable mode instead (bash scripts/setup.sh there, or "
                         f"pip install -e .)")


def _is_user_file_error(exc: BaseException) -> bool:
    """True for the library's file errors (AssetError, SceneFileError, the arena's
    ArenaAssetError / ArenaDescriptionError, ReplayError, ShaderFileError, a failed replay
    write), which already name the file and the fix."""
    names = {c.__name__ for c in type(exc).__mro__}
    return bool(names & _USER_FILE_ERRORS) or isinstance(exc, (FileExistsError, PermissionError))
