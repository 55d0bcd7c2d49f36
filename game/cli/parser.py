"""The command line's flags: argparse's parser, its value checks and the match defaults.

Standard library only, like every module the command line imports before it runs a
match: ``--help`` and every usage error work with numpy missing, so the figures in the
help text (the longest match, the largest replay file) are written out here;
``tests/project/test_docs.py`` checks them against ``game.replay``'s limits.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import NoReturn

from game.cli.program import MAIN_PY, UsageError
from game.online.address import EVERY_ADDRESS, AddressError, is_ip, split_host_port

#: The replay header stores the seed as a u64 (the sim's PCG64 takes any int >= 0).
SEED_LIMIT = 2**64

#: The match settings a user may leave out, and their values then.  The parser leaves them
#: None, so that a conflict with ``--replay`` (which takes them from the file) can be told
#: from a default; :func:`apply_defaults` fills them in once the flags are checked.
MATCH_DEFAULTS: dict[str, str | int] = {"p1": "human", "p2": "cpu", "level": "normal", "seed": 0, "rounds": 3,
                                        "timer": 60}
#: The UDP port ``--host`` listens on and ``--join`` asks when the flag names none.
NET_PORT = 7000
#: The UDP port ``--server`` asks when the flag names none (``python3 -m game.server``'s default).
SERVER_PORT = 7100
#: ``--host`` alone: every address of this machine (IPv6 and IPv4 where it can), on NET_PORT.
HOST_DEFAULT = (EVERY_ADDRESS, NET_PORT)
#: ``--spectate-delay``: frames a spectator runs behind the live match by default, and at most
#: (ten seconds).
SPECTATE_DELAY, SPECTATE_DELAY_LIMIT = 30, 600
#: The netplay settings a user may leave out, and their values then (left None by the parser,
#: so that one given without --host or --join can be refused).
NET_DEFAULTS: dict[str, int | float] = {"input_delay": 2, "max_rollback": 8, "net_timeout": 5.0}
#: ``--net-timeout`` from this many seconds to NET_TIMEOUT_MAX.
NET_TIMEOUT_MIN, NET_TIMEOUT_MAX = 0.5, 600.0
#: The match settings a window takes from the saved settings file (``game/settings.py``) when
#: the flag is not given; a headless run takes only flags and MATCH_DEFAULTS.
SAVED_MATCH_SETTINGS = ("level", "rounds", "timer")


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad flag is one line naming ``--help`` (exit 2 through UsageError)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see: {self.prog} --help)")


def _positive_int(name: str, below: int | None = None, below_text: str = "", *,
                  lowest: int = 0) -> Callable[[str], int]:
    """argparse ``type=`` for a whole number from ``lowest`` (to ``below`` - 1, spelt ``below_text``)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, got {text!r}") from None
        if value < lowest:
            raise argparse.ArgumentTypeError(f"{name} must be {lowest} or more, got {value}" if not lowest else
                                             f"{name} must be from {lowest} to {below_text}, got {value}")
        if below is not None and value >= below:
            raise argparse.ArgumentTypeError(f"{name} must be from {lowest} to {below_text}, got {value}")
        return value
    return parse


def _port(flag: str, text: str, lowest: int) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{flag}: the port must be a whole number, got {text!r}") from None
    if not lowest <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{flag}: the port must be from {lowest} to 65535, got {port}")
    return port


def _split(flag: str, text: str) -> tuple[str, str | None]:
    """``text`` as ``(host, port text or None)`` (``game.online.address.split_host_port``), its
    errors one line naming ``flag``."""
    try:
        return split_host_port(text)
    except AddressError as exc:
        raise argparse.ArgumentTypeError(f"{flag} {text}: {exc}") from None


def host_address(text: str) -> tuple[str, int]:
    """``--host [ADDR:]PORT``: the address to listen on (every one of this machine when left
    out: IPv6 and IPv4 both where the system allows) and the port (0: the system picks one,
    printed on stderr).  ADDR is an IPv4 address, an IPv6 one in brackets (``[::1]:0``), or a
    name; an address alone (``127.0.0.1``, ``::1``, ``[::1]``) listens on NET_PORT."""
    if is_ip(text):
        return (text, NET_PORT)
    addr, port = _split("--host", text)
    if port is None:
        if text.startswith("["):
            return (addr, NET_PORT)
        addr, port = "", addr
    elif not addr:
        raise argparse.ArgumentTypeError(f"--host {text}: give PORT or ADDRESS:PORT")
    return (addr or HOST_DEFAULT[0], _port("--host", port, 0))


def _remote_address(flag: str, text: str, default_port: int, whose: str) -> tuple[str, int]:
    """``FLAG HOST[:PORT]``: a name, an IPv4 address, or an IPv6 address (bare, with no port
    part, or in brackets: ``[::1]:7100``), and its port (``default_port`` when none)."""
    host, port = _split(flag, text)
    if not host:
        raise argparse.ArgumentTypeError(f"{flag} {text}: give {whose} address, HOST or HOST:PORT "
                                         f"([ADDRESS]:PORT for IPv6)")
    return (host, _port(flag, str(default_port) if port is None else port, 1))


def join_address(text: str) -> tuple[str, int]:
    """``--join HOST[:PORT]``: the host's name, IPv4 or IPv6 address and its port (default NET_PORT)."""
    return _remote_address("--join", text, NET_PORT, "the host's")


def server_address(text: str) -> tuple[str, int]:
    """``--server HOST[:PORT]``: the server's name, IPv4 or IPv6 address and its port (default SERVER_PORT)."""
    return _remote_address("--server", text, SERVER_PORT, "the server's")


def spectate_address(text: str) -> tuple[str, int]:
    """``--spectate HOST[:PORT]``: the server's name, IPv4 or IPv6 address and its port (default SERVER_PORT)."""
    return _remote_address("--spectate", text, SERVER_PORT, "the server's")


def _room_name(text: str) -> str:
    """``--room NAME``: 1 to 16 of A-Z a-z 0-9 . _ - (room_protocol.ROOM_NAME)."""
    if not 1 <= len(text) <= 16 or any(c not in _ROOM_CHARS for c in text):
        raise argparse.ArgumentTypeError(f"--room {text!r}: a room's name is 1 to 16 of A-Z a-z 0-9 . _ -")
    return text


def _player_name(text: str) -> str:
    """``--name NAME``: up to 16 printable ASCII characters (room_protocol.PLAYER_NAME)."""
    if len(text) > 16 or any(not " " <= c <= "~" for c in text):
        raise argparse.ArgumentTypeError(f"--name {text!r}: up to 16 printable ASCII characters")
    return text


def _room_key(text: str) -> str:
    """``--room-key WORD``: 1 to 64 printable ASCII characters."""
    if not 1 <= len(text) <= 64 or any(not " " <= c <= "~" for c in text):
        raise argparse.ArgumentTypeError(f"--room-key: give 1 to 64 printable ASCII characters (got {len(text)} "
                                         f"characters{'' if text.isprintable() else ', some not printable'})")
    return text


_ROOM_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--net-timeout must be a number of seconds, got {text!r}") from None
    if not NET_TIMEOUT_MIN <= value <= NET_TIMEOUT_MAX:      # a NaN fails too
        raise argparse.ArgumentTypeError(f"--net-timeout must be from {NET_TIMEOUT_MIN:g} to {NET_TIMEOUT_MAX:g} "
                                         f"seconds, got {text}")
    return value


def _add_net_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", nargs="?", const=HOST_DEFAULT, type=host_address, default=None,
                   metavar="[ADDR:]PORT",
                   help=f"netplay: wait for one opponent on this UDP port (default {NET_PORT}; 0 lets the system "
                        f"pick one, printed on stderr), on every address of this machine (IPv6 and IPv4) or ADDR (an "
                        f"IPv4 address, or IPv6 in brackets: [::1]:7000); this side is P1 "
                        f"and fixes the seed, rounds and timer. The window waits on a screen that names the port "
                        f"(Esc cancels); with --headless, no window")
    p.add_argument("--join", type=join_address, default=None, metavar="HOST[:PORT]",
                   help=f"netplay: play the game waiting at HOST (an IPv4 address, an IPv6 address: [2001:db8::5]:PORT "
                        f"or bare with no port, or a name), port PORT (default {NET_PORT}); this side is P2")
    p.add_argument("--server", type=server_address, default=None, metavar="HOST[:PORT]",
                   help=f"netplay through a Rangebox server (python3 -m game.server) at HOST (as --join's), port PORT "
                        f"(default {SERVER_PORT}): play in the room --room NAME; the room's first player is P1 and "
                        f"fixes the seed, rounds, timer and --frames, the second is P2 (--p1 cpu or --p2 cpu: the "
                        f"CPU plays your side)")
    p.add_argument("--spectate", type=spectate_address, default=None, metavar="HOST[:PORT]",
                   help=f"watch the match in the room --room NAME of the Rangebox server at HOST (as --join's), port "
                        f"PORT (default {SERVER_PORT}): its confirmed inputs only (no rollback), --spectate-delay "
                        f"frames behind; a spectator joining mid-match catches up from the first frame. In the "
                        f"window (Esc leaves), or with --headless one JSON line at the end")
    p.add_argument("--spectate-delay", type=_positive_int("--spectate-delay", SPECTATE_DELAY_LIMIT + 1,
                                                          str(SPECTATE_DELAY_LIMIT)),
                   default=None, metavar="N",
                   help=f"with --spectate: frames the match shown runs behind the live one, 0 to "
                        f"{SPECTATE_DELAY_LIMIT} (default {SPECTATE_DELAY})")
    p.add_argument("--room", type=_room_name, default=None, metavar="NAME",
                   help="with --server: the room to play in; with --spectate: the room to watch (1 to 16 of "
                        "A-Z a-z 0-9 . _ -)")
    p.add_argument("--name", type=_player_name, default=None, metavar="NAME",
                   help="with --server or --spectate: your name in the room (default: your address)")
    p.add_argument("--room-key", type=_room_key, default=None, metavar="WORD",
                   help="with --server or --spectate: the key of a private room (the first to join makes the "
                        "room private with it; players and spectators give the same; 1 to 64 printable ASCII "
                        "characters)")
    p.add_argument("--input-delay", type=_positive_int("--input-delay", 9, "8"), default=None, metavar="N",
                   help="netplay: frames a local input waits before it is played, 0 to 8 (default 2)")
    p.add_argument("--max-rollback", type=_positive_int("--max-rollback", 17, "16", lowest=1), default=None,
                   metavar="N",
                   help="netplay: frames the match may run ahead of the opponent's inputs, each rolled back "
                        "and stepped again when a guess was wrong, 1 to 16 (default 8)")
    p.add_argument("--net-timeout", type=_seconds, default=None, metavar="S",
                   help=f"netplay: seconds without a word from the opponent before the match ends, "
                        f"{NET_TIMEOUT_MIN:g} to {NET_TIMEOUT_MAX:g} (default 5)")
    p.add_argument("--net-stats", action="store_true",
                   help="netplay in the window: show the network display from the start (ping, input delay, "
                        "rollback, frames ahead, packets lost, bytes sent; F10 toggles it)")
    p.add_argument("--realtime", action="store_true",
                   help="headless netplay: step 60 frames a second, as the window does (default: as fast as "
                        "the opponent's inputs allow)")


def build_parser(prog: str = MAIN_PY.command) -> argparse.ArgumentParser:
    """Every flag of the game; ``prog`` is the command the usage line and errors name."""
    p = _Parser(prog=prog, description="Rangebox: a 3D fighting-game demo.")
    p.add_argument("--p1", choices=("human", "cpu"), default=None, help="who controls player 1 (default human)")
    p.add_argument("--p2", choices=("human", "cpu"), default=None, help="who controls player 2 (default cpu)")
    p.add_argument("--level", choices=("easy", "medium", "normal", "hard"), default=None,
                   help="CPU difficulty, easiest first (default normal; docs/cpu.md)")
    p.add_argument("--rounds", type=int, choices=(1, 3, 5), default=None,
                   help="the match is best of 1, 3 or 5 rounds (default 3)")
    p.add_argument("--timer", type=int, choices=(30, 45, 60), default=None, metavar="{30,45,60}",
                   help="seconds a round lasts (default 60)")
    p.add_argument("--seed", type=_positive_int("--seed", SEED_LIMIT, "2**64 - 1 (a replay stores it in 8 bytes)"),
                   default=None, help="match seed, 0 to 2**64 - 1 (default 0)")
    p.add_argument("--frames", type=_positive_int("--frames"), default=None,
                   help="headless: frames to run (default: until the match is over); in the window: "
                        "play N frames, straight into the fight (no title screen), then close; "
                        "with --replay: play (or with --headless check) only the replay's first N frames, "
                        "at most its length; with --screenshot: the frame to capture (default 1, with "
                        "--replay the replay's last frame; at most the longest match, 19200 frames; a match "
                        "that ends sooner is captured on its last frame)")
    p.add_argument("--headless", action="store_true",
                   help="run the simulation with no window and no GL (not with --screenshot, --training, "
                        "--debug, --fullscreen or --fps, which need the renderer)")
    p.add_argument("--sync-test", type=_positive_int("--sync-test"), default=None, metavar="N",
                   help="with --headless: play the match (--p1/--p2 cpu, or --replay FILE) rolling back N "
                        "frames (1 to 8) on every frame and stepping them again, comparing each state hash "
                        "with the first run's; exit 0 when all agree, 1 naming the first frame that differs")
    p.add_argument("--record", metavar="FILE", default=None,
                   help="record every match played to replay files (see docs/replay-format.md), each saved "
                        "when it ends or is abandoned: the first to FILE, the next to FILE-2.rpl, "
                        "FILE-3.rpl ... (FILE without .rpl); training is not recorded")
    p.add_argument("--replay", metavar="FILE", default=None,
                   help="play a replay file back, checking it frame by frame (with --headless: one JSON line, "
                        "plus replay_frames with --frames); a regular file of at most 156298 bytes")
    p.add_argument("--force", action="store_true",
                   help="let --record overwrite existing files (FILE and its FILE-N.rpl)")
    p.add_argument("--screenshot", metavar="PNG", default=None,
                   help="render frame --frames (default 1) with no screen (headless EGL) and save it as a PNG "
                        "(replaced atomically if it exists)")
    p.add_argument("--debug", action="store_true", help="start with the debug overlay on (F1 toggles it)")
    p.add_argument("--training", action="store_true", help="start in training mode (P2 is the training dummy)")
    p.add_argument("--fullscreen", action="store_true", help="start fullscreen (F11 toggles it)")
    p.add_argument("--fps", action="store_true", help="show the fps counter (F5 toggles it)")
    p.add_argument("--mute", action="store_true", help="start with the sound effects muted (M toggles them)")
    p.add_argument("--settings", metavar="FILE", default=None,
                   help="the window's saved options (key bindings, CPU level, rounds, timer, volume, fullscreen) "
                        "from and to FILE instead of $XDG_CONFIG_HOME/rangebox/settings.json; flags override them")
    _add_net_flags(p)
    return p


def apply_defaults(args: argparse.Namespace) -> None:
    """Fill in the match settings the user did not give."""
    for name, value in {**MATCH_DEFAULTS, **NET_DEFAULTS}.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if getattr(args, "spectate_delay", None) is None:
        args.spectate_delay = SPECTATE_DELAY
