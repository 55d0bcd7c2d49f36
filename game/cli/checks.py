"""Flag combinations and output paths checked before anything runs (exit 2 with one line).

A flag that could not take effect (``--debug`` with no renderer, ``--level`` with no
CPU), two flags that fight (``--record`` with ``--replay``), and a file that could not be
saved at the end (a missing folder, an existing file without ``--force``, a FIFO) are
refused here, before a match is played, so no one plays three minutes for nothing.
The library modules are imported inside the functions that need them: the checks run
before numpy is known to be installed.
"""

from __future__ import annotations

import argparse
import errno
import os
from typing import TYPE_CHECKING

from game.cli.parser import MATCH_DEFAULTS, NET_DEFAULTS
from game.cli.program import UsageError, why

if TYPE_CHECKING:
    from game.replay import Replay

#: Flags only the renderer can honour: (why --headless makes them impossible, the fix).
_RENDER_ONLY = {
    "screenshot": ("a screenshot needs the renderer", "drop --headless"),
    "training": ("training mode runs in the window", "drop --training, or --headless to open the window"),
    "debug": ("the debug overlay is drawn by the renderer", "drop --debug, or --headless to open the window"),
    "fullscreen": ("there is no window", "drop --fullscreen, or --headless to open the window"),
    "fps": ("the fps counter is drawn in the window", "drop --fps, or --headless to open the window"),
    "mute": ("only the window plays sound", "drop --mute, or --headless to open the window"),
    "net_stats": ("the network display is drawn in the window", "drop --net-stats, or --headless to open the "
                  "window"),
}


def check_mode_flags(args: argparse.Namespace) -> None:
    """Flag combinations that could not take effect, checked before anything runs (exit 2)."""
    for name, (reason, fix) in _RENDER_ONLY.items():
        value = getattr(args, name)
        if args.headless and value is not None and value is not False:
            raise UsageError(f"--{name} cannot be used with --headless: {reason}; {fix}")
    check_sync_test_flags(args)
    check_net_flags(args)
    if args.screenshot is not None and args.fullscreen:
        raise UsageError("--fullscreen cannot be used with --screenshot: the screenshot is drawn off screen "
                         "at 1280x720; drop --fullscreen")
    if args.training and args.replay is not None:
        raise UsageError("--replay cannot be combined with --training; drop one")
    if args.training and args.record is not None:
        raise UsageError("--record cannot be combined with --training (the dummy's reset rewinds the "
                         "match); drop one")
    if args.level is not None and args.replay is None and "cpu" not in (args.p1, args.p2 or MATCH_DEFAULTS["p2"]):
        raise UsageError(f"--level {args.level} sets the CPU's difficulty, but neither side is a CPU; "
                         f"drop --level, or add --p2 cpu")
    if args.screenshot is not None and args.frames is not None:
        from game.replay import MAX_MATCH_FRAMES

        if args.frames > MAX_MATCH_FRAMES:
            raise UsageError(f"--frames {args.frames}: with --screenshot give at most {MAX_MATCH_FRAMES} (the "
                             f"longest match, five full rounds; a match that ends sooner is captured on its "
                             f"last frame)")


def check_sync_test_flags(args: argparse.Namespace) -> None:
    """``--sync-test N``: N from 1 to 8, headless, nothing recorded (exit 2)."""
    n = args.sync_test
    if n is None:
        return
    if not 1 <= n <= 8:
        raise UsageError(f"--sync-test {n}: give the frames to roll back on every frame, 1 to 8")
    if not args.headless:
        raise UsageError(f"--sync-test {n} runs with no window; add --headless")
    if args.record is not None:
        raise UsageError("--sync-test checks a match, it records none; drop --record")


def check_net_flags(args: argparse.Namespace) -> None:
    """``--host`` / ``--join`` / ``--server`` and the netplay flags (exit 2).  The host fixes the
    match (seed, rounds, timer) and plays P1, the joiner P2; each side's ``--p1`` / ``--p2`` says
    who plays its own side (a player by default: neutral input headless).  Through a server the
    room's first player fixes the match and the room gives the sides."""
    if getattr(args, "spectate", None) is not None:
        check_spectate_flags(args)
        return
    if getattr(args, "spectate_delay", None) is not None:
        raise UsageError("--spectate-delay only applies to --spectate HOST --room NAME; add --spectate, or drop it")
    net_flags = [f"--{name.replace('_', '-')}" for name in (*NET_DEFAULTS, "realtime", "net_stats")
                 if getattr(args, name) not in (None, False)]
    roles = [flag for flag, name in (("--host", "host"), ("--join", "join"), ("--server", "server"))
             if getattr(args, name, None) is not None]
    role = roles[0] if roles else None
    if len(roles) > 1:
        raise UsageError(f"{roles[0]} and {roles[1]} cannot be used together: pick one way to play online")
    _check_room_flags(args, role)
    if role is None:
        if net_flags:
            raise UsageError(f"{net_flags[0]} only applies to netplay; add --host or --join HOST (or --server "
                             f"HOST --room NAME), or drop it")
        return
    if args.realtime and not args.headless:
        raise UsageError("--realtime paces a headless netplay match; the window always plays at 60 frames a "
                         "second: drop --realtime, or add --headless")
    for name, flag in (("replay", "--replay"), ("sync_test", "--sync-test")):
        if getattr(args, name) is not None:
            raise UsageError(f"{flag} cannot be used with {role}: a netplay match is played, not checked; drop one")
    for name, flag in (("screenshot", "--screenshot"), ("training", "--training")):
        if getattr(args, name) not in (None, False):
            raise UsageError(f"{flag} cannot be used with {role}: a netplay match is played live against the "
                             f"opponent; drop {flag}")
    if role == "--server":
        _check_server_sides(args)
        return
    local, remote = ("p1", "p2") if role == "--host" else ("p2", "p1")
    if getattr(args, remote) is not None:
        raise UsageError(f"--{remote} cannot be used with {role}: {remote.upper()} is the opponent, played on "
                         f"the other machine; drop --{remote} (--{local} cpu lets the CPU play your side)")
    if role == "--join":
        given = [f"--{name}" for name in ("seed", "rounds", "timer") if getattr(args, name) is not None]
        if given:
            raise UsageError(f"--join: the host fixes the seed, rounds and timer; drop {' and '.join(given)}")
    if args.level is not None and getattr(args, local) != "cpu":
        raise UsageError(f"--level {args.level} sets the CPU's difficulty, but your side ({local.upper()}) is a "
                         f"player; add --{local} cpu, or drop --level")
    if getattr(args, local) is None:
        setattr(args, local, "human")        # not MATCH_DEFAULTS' CPU P2: that is the offline opponent


#: Flags a spectator has no use for: the room's players and first Join fix the match.
_NOT_SPECTATING = {"p1": "--p1", "p2": "--p2", "level": "--level", "seed": "--seed", "rounds": "--rounds",
                   "timer": "--timer", "input_delay": "--input-delay", "max_rollback": "--max-rollback",
                   "realtime": "--realtime", "net_stats": "--net-stats", "replay": "--replay",
                   "sync_test": "--sync-test", "screenshot": "--screenshot", "training": "--training"}


def check_spectate_flags(args: argparse.Namespace) -> None:
    """``--spectate HOST --room NAME``: a spectator watches the room's match, so nothing that
    would play or fix a match goes with it (exit 2)."""
    for name in ("host", "join", "server"):
        if getattr(args, name, None) is not None:
            raise UsageError(f"--spectate and --{name} cannot be used together: watch a room, or play; drop one")
    if args.room is None:
        raise UsageError("--spectate: name the room to watch with --room NAME")
    for name, flag in _NOT_SPECTATING.items():
        if getattr(args, name, None) not in (None, False):
            raise UsageError(f"{flag} cannot be used with --spectate: a spectator watches the room's match as its "
                             f"players play it; drop {flag}")


def _check_room_flags(args: argparse.Namespace, role: str | None) -> None:
    """``--room``, ``--name`` and ``--room-key`` go with ``--server`` (or ``--spectate``, checked on its own), and
    ``--server`` needs ``--room``."""
    for name in ("room", "name", "room_key"):
        flag = "--" + name.replace("_", "-")
        if getattr(args, name, None) is not None and role != "--server":
            raise UsageError(f"{flag} only applies to --server HOST (or --spectate HOST); add one, or drop {flag}")
    if role == "--server" and args.room is None:
        raise UsageError("--server: name the room to play in with --room NAME (the first to join makes it)")


def _check_server_sides(args: argparse.Namespace) -> None:
    """Through a server the room decides the side: ``--p1 cpu`` or ``--p2 cpu`` lets the CPU
    play this side, whichever it is (both kept as one: :attr:`args.p1`)."""
    given = [side for side in ("p1", "p2") if getattr(args, side) is not None]
    if len(given) == 2:
        raise UsageError("--server: the room gives your side (P1 or P2); say who plays it with one of --p1 and "
                         "--p2, not both")
    local = getattr(args, given[0]) if given else None
    if args.level is not None and local != "cpu":
        raise UsageError(f"--level {args.level} sets the CPU's difficulty, but your side is a player; add --p1 cpu, "
                         f"or drop --level")
    args.p1, args.p2 = local or "human", None


def check_replay_flags(args: argparse.Namespace) -> None:
    """Flag combinations and paths for --record/--replay, checked before anything runs (exit 2)."""
    if args.replay is not None:
        given = [f"--{name}" for name in MATCH_DEFAULTS if getattr(args, name) is not None]
        if given:
            raise UsageError(f"--replay takes the seed, both sides, rounds and timer from the file; "
                             f"drop {' and '.join(given)}")
        if args.replay == "":
            raise UsageError("--replay: empty path; give a replay file (.rpl)")

    if args.record is not None and args.replay is not None:
        raise UsageError("--record and --replay cannot be used together; pick one")
    if args.record is not None:
        check_output_path("--record", args.record, force=args.force)
    elif args.force:
        raise UsageError("--force only applies to --record FILE; add --record or drop --force")


def check_screenshot_path(args: argparse.Namespace) -> None:
    """``--screenshot PNG``: a .png name that can be written (exit 2 before the match otherwise)."""
    path = args.screenshot
    if path is None:
        return
    if path == "":
        raise UsageError("--screenshot: empty path; give a .png file name")
    check_not_a_folder_name("--screenshot", path)
    if not path.lower().endswith(".png"):
        raise UsageError(f"--screenshot {path}: give a .png file name")
    if args.record is not None and os.path.realpath(args.record) == os.path.realpath(path):
        raise UsageError(f"--screenshot {path} and --record {args.record} name the same file (one would "
                         f"overwrite the other); give them different names")
    check_output_path("--screenshot", path, force=True)


def check_not_a_folder_name(flag: str, path: str) -> None:
    """``flag PATH`` must name a file: a path ending in a separator, ``.`` or ``..`` names a
    folder, whatever is there, and is refused as a shell refuses ``> k/`` (the save's path
    handling would drop the ending and write the file ``k``)."""
    from game.files import names_a_folder

    if names_a_folder(path):
        raise UsageError(f"{flag} {path}: names a folder (it ends in {os.path.basename(path) or os.sep!r}); "
                         f"give a file name")


def check_output_path(flag: str, path: str, *, force: bool) -> None:
    """Up-front check that ``flag PATH`` can be saved: not empty, not a folder's name (ending
    in a separator, ``.`` or ``..``), not a directory, FIFO, device or socket, an existing
    file only with ``force``, a folder that exists, and the temp file the save writes through
    can be created there (it is removed at once)."""
    from game.files import DIRECTORY, REGULAR, check_writable, existing_kind

    if path == "":
        raise UsageError(f"{flag}: empty path; give a file name")
    try:
        kind = existing_kind(path)
    except OSError as exc:
        raise UsageError(f"{flag} {path}: cannot use this path ({why(exc)}); give another file name") from None
    if kind == DIRECTORY:
        raise UsageError(f"{flag} {path}: is a directory; give a file name")
    check_not_a_folder_name(flag, path)
    if kind is not None:
        if kind != REGULAR:
            raise UsageError(f"{flag} {path}: is {kind}, not a regular file; give a file name")
        if not force:
            raise UsageError(f"{flag} {path}: file already exists; add --force to let {flag} overwrite it")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.exists(parent):
        raise UsageError(f"{flag} {path}: folder {parent} does not exist; create it first")
    if not os.path.isdir(parent):
        raise UsageError(f"{flag} {path}: {parent} is not a folder; give a path inside a folder")
    try:
        check_writable(path)
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            fix = "the file name is too long (the save adds 13 characters for its temp file); use a shorter name"
        else:
            fix = "choose a folder you can write to"
        raise UsageError(f"{flag} {path}: cannot create a file in {parent} ({why(exc)}); {fix}") from None


def check_replay_frames(args: argparse.Namespace, replay: Replay) -> None:
    """``--frames N`` with ``--replay``: at most the replay's length (exit 2)."""
    if args.frames is not None and args.frames > replay.frames:
        fix = f"give --frames {replay.frames} or less, or drop --frames" if replay.frames else "drop --frames"
        raise UsageError(f"--frames {args.frames}: the replay {args.replay} holds {replay.frames} frames; {fix}")
