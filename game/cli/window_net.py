"""``--host`` / ``--join`` / ``--server`` in the window: one netplay match played at the keyboard.

The command line's side of :class:`game.render.net_game.NetGame`: the UDP link and the
:class:`~game.cli.netplay.NetRun` (NetMatch, recording, report lines) are the headless
netplay's (``game/cli/netplay.py``); the window's fixed-step loop (``game/cli/timestep.py``)
ticks the NetMatch once per 1/60 s step through ``NetGame.step`` and draws the live match
between steps.  How it ends is how headless netplay ends, with the same exit statuses and
the replay of the confirmed frames saved: the match played, 0; the opponent gone 3, a desync
4 (with its report), refused 5.  Two ends are the player's own and exit 0: Esc on the
waiting screen (nothing was played, nothing saved) and "Leave the match" (the opponent is
told; the replay so far is saved, as after the match).
"""

from __future__ import annotations

import argparse
import socket
import sys
import time
from types import ModuleType
from typing import TYPE_CHECKING, Any

from game.cli.ending import Session, catch_display_loss, report_left
from game.cli.program import MAIN_PY, Program, UsageError
from game.cli.window import open_game, run_loop

if TYPE_CHECKING:
    from game.cli.netplay import NetRun
    from game.online.udp import Address
    from game.render.net_game import NetGame


def address_hint(bound: Address) -> str:
    """This machine's address an opponent could join, as ``--join`` takes it with the bound
    port (the bound address if it is not "every address"; else the first its host name
    resolves to, IPv4 before IPv6, loopback and link-local left out), or a placeholder the
    player fills in.  Only the local resolver is asked: nothing is sent."""
    from game.online.address import format_address, is_loopback

    if bound[0] not in ("0.0.0.0", "::", ""):
        return format_address(bound)
    family = socket.AF_INET if bound[0] == "0.0.0.0" else socket.AF_UNSPEC
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, family, socket.SOCK_DGRAM)
    except (OSError, UnicodeError):
        infos = []
    ips = {str(i[4][0]) for i in infos if i[0] in (socket.AF_INET, socket.AF_INET6)}
    usable = sorted((":" in ip, ip) for ip in ips if not is_loopback(ip) and not ip.lower().startswith("fe80:"))
    return format_address((usable[0][1], bound[1])) if usable else f"<this machine's address>:{bound[1]}"


def waiting_line(args: argparse.Namespace, bound: Address) -> str:
    """The waiting screen's line: where the host listens and how to join it, whom the joiner
    asks, or the server's room a player waits in (and how the opponent joins it)."""
    from game.online.address import format_address

    if args.host is not None:
        return f"Waiting on UDP port {bound[1]}   ·   join with --join {address_hint(bound)}"
    if getattr(args, "server", None) is not None:
        server = format_address(args.server)
        return (f"Room {args.room} on the server {server}   ·   waiting for an opponent: "
                f"--server {server} --room {args.room}")
    return f"Connecting to {format_address(args.join)} ..."


def run_window_netplay(args: argparse.Namespace, program: Program = MAIN_PY, session: Session | None = None) -> int:
    """Open the link and the window, play the match, end as headless netplay ends (see the
    module docstring); returns 0, or raises :class:`game.cli.netplay.NetplayEnded`."""
    from game.cli.netplay import NetRun, open_link
    from game.render.boot import load_pyglet
    from game.render.net_game import NetGame

    if session is None:
        session = Session(lambda line: print(f"{program.name}: {line}", file=sys.stderr))
    if load_pyglet(None).options["headless"] and args.frames is None:     # before anyone waits on the port
        role = "--host" if args.host is not None else "--server" if getattr(args, "server", None) else "--join"
        raise UsageError(f"{role} under PYGLET_HEADLESS=1 opens a window no one can see or play in; add --headless "
                         f"to play the match with no window, or --frames N to stop it at frame N")
    link, host = open_link(args)
    try:
        pyglet, window, game = open_game(args, headless=None, net={
            "where": waiting_line(args, link.address), "show_stats": bool(args.net_stats)})
        assert isinstance(game, NetGame)
        try:
            game.prepare_for_play()             # the window ready before anyone is told to join
            play = NetRun(args, session, link, host)
            game.attach(play.net, play._started)
            _loop(args, program, session, pyglet, window, game)
        finally:
            game.leave(time.monotonic())        # a signal, a crash, the window closed: the opponent is told
            window.close()
    finally:
        link.close()
    return _ended(play, session, game.cancelled)


def _loop(args: argparse.Namespace, program: Program, session: Session, pyglet: ModuleType, window: Any,
          game: NetGame) -> None:
    """The window's event loop: fixed steps (each a NetMatch tick), a draw per frame."""
    if not pyglet.options["headless"]:
        catch_display_loss(session)     # the X server gone: save, say so, exit 69

    def step() -> None:
        if not game.quit:
            game.step()

    run_loop(args, program, pyglet, window, game, step, done=lambda: game.quit)


def _ended(play: NetRun, session: Session, cancelled: bool) -> int:
    """The run's end: 0 for a cancelled wait, a match left or played; else NetplayEnded."""
    ending = play.net.ending
    if cancelled and play.net.agreed is None:
        session.report("cancelled: no match was played")
        return 0
    if ending is not None and ending.kind == "left":
        return report_left(session, play.run, play.record_lines,
                           f"you left the match after {ending.frames} confirmed frames")
    out = play.result()                        # raises NetplayEnded unless the match was played out
    winner = "a draw" if out["winner"] is None else f"P{out['winner']} won"
    session.report(f"match played as P{out['player']}: {winner} after {out['frames']} frames (state hash "
                   f"{str(out['state_hash'])[:16]}...)")
    return 0
