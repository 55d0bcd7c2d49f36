"""``python3 -m game.server`` (the ``rangebox-server`` command): one process serving many rooms.

Flags (``--help``): ``--port`` (default 7100; 0 lets the system pick), ``--bind`` (default
every address: IPv6 and IPv4 on one dual-stack socket where the system allows, else IPv4),
``--results DIR``, ``--max-rooms N``, ``--rooms-per-ip N``, ``--spectators-per-ip N``,
``--room-timeout S``, ``--status-every S``.
A bad flag, a results folder that cannot be made or a port that cannot be opened is one line on
stderr and exit status 2.  The log (stderr, one line each, UTC times): the address it listens
on, each room's events (created, started, ended and why), a room's failure with its traceback,
and the status line every ``--status-every`` s.  SIGINT and SIGTERM stop it cleanly: every room
ends ("shutdown"), each match's result and replay is written up to its last confirmed frame, and
the exit status is 130 or 143 (as the game's own).
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import time
from collections.abc import Callable
from typing import NoReturn

from game.online.address import EVERY_ADDRESS, AddressError, format_address, split_host_port

#: The UDP port a server listens on when ``--port`` is not given.
SERVER_PORT = 7100
PROG = "python3 -m game.server"
EXIT_USAGE, EXIT_SIGINT, EXIT_SIGTERM = 2, 130, 143


class FlagError(Exception):
    """A bad flag or an unusable folder or port: one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise FlagError(f"{message} (see: {self.prog} --help)")


def _number(flag: str, kind: Callable[[str], float], low: float, high: float) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} must be a number, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{flag} must be from {low:g} to {high:g}, got {text}")
        return value
    return parse


def _bind_address(text: str) -> str:
    """``--bind ADDR``: an IPv4 address, an IPv6 one (bare or in brackets: ``::1``, ``[::1]``)
    or a name; the port is ``--port``'s.  "" (the default) is every address."""
    if text == EVERY_ADDRESS:
        return text
    try:
        host, port = split_host_port(text)
    except AddressError as exc:
        raise argparse.ArgumentTypeError(f"--bind {text}: {exc}") from None
    if port is not None or not host:
        raise argparse.ArgumentTypeError(f"--bind {text}: give the address alone (an IPv4 address, an IPv6 one, "
                                         f"or a name); the port is --port's")
    return host


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    p = _Parser(prog=prog, description="The Rangebox server: rooms of two players, relayed and refereed, with "
                                       "spectators; a result and a replay per match (docs/netplay.md).")
    p.add_argument("--port", type=_number("--port", int, 0, 65535), default=SERVER_PORT,
                   help=f"the UDP port to listen on (default {SERVER_PORT}; 0 lets the system pick one, logged)")
    p.add_argument("--bind", type=_bind_address, default=EVERY_ADDRESS, metavar="ADDR",
                   help="the address to listen on: an IPv4 or IPv6 address (::1 or [::1]) or a name (default every "
                        "address of this machine, IPv6 and IPv4 both where the system allows: IPv4 players are "
                        "logged as [::ffff:a.b.c.d]:PORT)")
    p.add_argument("--results", default=None, metavar="DIR",
                   help="the folder of results.jsonl and the replays (default $XDG_DATA_HOME/rangebox/server)")
    p.add_argument("--max-rooms", type=_number("--max-rooms", int, 1, 100_000), default=256, metavar="N",
                   help="rooms at once, at most (a Join for another is refused: \"rooms\"; default 256)")
    p.add_argument("--rooms-per-ip", type=_number("--rooms-per-ip", int, 1, 100_000), default=32, metavar="N",
                   help="rooms not ended in which one IP address holds a player's seat (one more is refused: "
                        "\"network\"; default 32)")
    p.add_argument("--spectators-per-ip", type=_number("--spectators-per-ip", int, 1, 1000), default=4,
                   metavar="N", help="spectator places of one room held from one IP address (default 4)")
    p.add_argument("--room-timeout", type=_number("--room-timeout", float, 1.0, 600.0), default=10.0, metavar="S",
                   help="seconds of silence before a player counts as gone and a waiting room expires (default 10)")
    p.add_argument("--status-every", type=_number("--status-every", float, 0.0, 86_400.0), default=5.0,
                   metavar="S", help="seconds between status lines (0: none; default 5)")
    return p


def main(argv: list[str] | None = None, prog: str = PROG) -> int:
    try:
        return _main(argv, prog)
    except FlagError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return EXIT_USAGE


def console() -> int:
    """The ``rangebox-server`` console script."""
    return main(None, "rangebox-server")


def _main(argv: list[str] | None, prog: str) -> int:
    from game.online.udp import LinkError

    from .loop import ServerLoop
    from .results import results_dir
    from .server import ServerOptions

    args = build_parser(prog).parse_args(argv)
    folder = args.results if args.results is not None else results_dir()
    options = ServerOptions(max_rooms=int(args.max_rooms), room_timeout=args.room_timeout,
                            rooms_per_ip=int(args.rooms_per_ip), spectators_per_ip=int(args.spectators_per_ip))
    try:
        loop = ServerLoop((args.bind, int(args.port)), folder, options, status_every=args.status_every)
    except LinkError as exc:
        raise FlagError(f"--port / --bind: {exc}") from None
    except OSError as exc:
        raise FlagError(f"--results {folder}: cannot make or use this folder ({exc.strerror or exc}); "
                        f"give another with --results DIR") from None
    stop: list[int] = []
    statuses = {signal.SIGINT: EXIT_SIGINT, signal.SIGTERM: EXIT_SIGTERM}

    def on_signal(signum: int, _frame: object) -> None:
        stop.append(statuses[signal.Signals(signum)])

    for sig in statuses:
        signal.signal(sig, on_signal)
    log = logging.getLogger("rangebox.server")
    handler = logging.StreamHandler(sys.stderr)
    formatter = logging.Formatter("%(asctime)s %(message)s", datefmt="%Y-%m-%dT%H:%M:%SZ")
    formatter.converter = time.gmtime
    handler.setFormatter(formatter)
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.info("listening on UDP %s; results in %s", format_address(loop.address), loop.writer.folder)
    try:
        loop.run(lambda: bool(stop))
    finally:
        loop.close()
        log.removeHandler(handler)
    return stop[0] if stop else 0
