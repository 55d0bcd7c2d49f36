"""``--host`` / ``--join`` with ``--headless``: one netplay match over UDP, no window.

The loop ticks a :class:`game.online.netmatch.NetMatch` (socket, handshake, session, the live
and the confirmed match, the local CPU) until it ends.  Headless, it runs as fast as the
session allows (each tick steps a frame unless the prediction window is full or time sync
holds one; then it waits on the socket for the opponent's inputs), as an offline headless
match runs as fast as it can; ``--realtime`` steps at 60 frames a second with the window's
fixed-step accumulator (``game/cli/timestep.py``), as a player's game would.

The local side (P1 on the host, P2 on the joiner) is the CPU with ``--p1 cpu`` / ``--p2
cpu``, else a player, whose input is neutral headless.  ``--frames N`` stops both sides when
the *confirmed* match reaches frame N (the match over stops them too), so both end with the
same state and print the same ``state_hash``.  Every match is recorded, to ``--record FILE`` or
else a new file in :func:`replays_dir` (the line at the end says where): the confirmed match:
both sides' replays of one match are the same bytes, and a replay says neither side was a CPU
(the CPU's input is recorded as a player's), so ``--replay FILE`` plays it back as it was.

How it ends (the README's exit statuses): the match played, a JSON line and 0; the opponent
gone (a Goodbye, ``--net-timeout`` s of silence, no answer to the joiner) 3; a desync 4, with a
report (JSON) next to the replay, or in the current folder; the joiner refused 5 (a waiting
host that refuses a joiner says so and waits on).  Each with
one line, which says where the replay of the frames confirmed so far went.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import time
from pathlib import Path
from typing import TYPE_CHECKING

from game.cli.ending import Reason
from game.cli.program import UsageError, why
from game.cli.timestep import SIM_STEP, FixedStep

if TYPE_CHECKING:
    from game.cli.ending import Session
    from game.cli.recording import RecordingRun
    from game.online.netmatch import NetMatch, NetOptions
    from game.online.udp import Address, UdpLink

#: Seconds a waiting side blocks on its socket between two looks (the handshake's Hellos go
#: out every 0.25 s; Ctrl-C is acted on at once either way).
WAIT_POLL = 0.05
#: Seconds a side with no frame to step blocks on its socket for the opponent's datagrams.
IDLE_WAIT = 0.002
#: A desync report when no replay is recorded: in the current folder, named for the side.
REPORT_NAME = "rangebox-desync-p{player}.json"


class NetplayEnded(Exception):
    """The match ended otherwise than played to its end: ``reason`` (its exit status) and one line."""

    def __init__(self, reason: Reason, line: str) -> None:
        super().__init__(line)
        self.reason = reason
        self.line = line


def run_netplay(args: argparse.Namespace, session: Session) -> dict[str, object]:
    """Play the match; the JSON line's fields (``frames``, ``hits``, ``winner``, ``rounds``,
    ``state_hash`` of the confirmed match, ``player``, ``rollback_max``, ``ping_ms``), or
    :class:`NetplayEnded`."""
    link, host = open_link(args)
    play = _Play(args, session, link, host)
    try:
        play.loop()
    finally:
        play.net.close(time.monotonic())
        link.close()
    return play.result()


def open_link(args: argparse.Namespace) -> tuple[UdpLink, Address | None]:
    """The assets loaded (or their error naming the file) and the UDP socket opened, before
    anyone waits: ``--host``'s address, or the joiner's (the host's family; loopback for a
    loopback host, else any) on a port the system picks; ``(link, the host's resolved address)`` (None on the host),
    or UsageError naming the flag when it cannot be opened.  The window's netplay opens its
    link here too."""
    from game.online.room_link import RECV_BYTES
    from game.online.udp import LinkError, UdpLink, client_bind, resolve
    from game.sim import Match

    Match.new(0)
    server = getattr(args, "server", None)
    flag = "--host" if args.host is not None else "--server" if server is not None else "--join"
    try:
        if args.host is not None:
            return UdpLink(args.host), None
        host = resolve(*(args.join if server is None else server))
        bind = client_bind(host)
        return UdpLink(bind, recv_bytes=RECV_BYTES) if server is not None else UdpLink(bind), host
    except LinkError as exc:
        raise UsageError(f"{flag}: {exc}") from None


class _Play:
    """One run's NetMatch, its recording and its report lines."""

    def __init__(self, args: argparse.Namespace, session: Session, link: UdpLink, host: Address | None) -> None:
        """``host``: the host's resolved address (the joiner), None on the host."""
        from game.net.handshake import MatchSettings
        from game.online.digest import game_digest
        from game.online.netmatch import NetMatch, NetOptions

        self.args, self.session, self.link = args, session, link
        local = args.p1 if args.host is not None or getattr(args, "server", None) is not None else args.p2
        self.options = NetOptions(args.input_delay, args.max_rollback, args.net_timeout, stop_at=args.frames,
                                  cpu_level=args.level if local == "cpu" else None,
                                  give_up=max(10.0, args.net_timeout))
        self.run: RecordingRun | None = None
        self.record_lines: list[str] = []
        from game.online.address import format_address

        digest = game_digest()
        bound = format_address(link.address)
        self.net: NetMatch
        if getattr(args, "server", None) is not None:
            assert host is not None
            self.net = _through_server(args, link, host, digest, self.options)
            session.report(f"joining room {args.room} on the server {named_address(args.server, host)} from UDP "
                           f"{bound} (Ctrl-C cancels)")
        elif host is None:
            settings = MatchSettings(args.seed, self.options.cpu_level, None, args.rounds, args.timer, 0)
            self.net = NetMatch.host(link, digest, settings, self.options)
            session.report(f"waiting for an opponent on UDP {bound} (Ctrl-C cancels)")
        else:
            self.net = NetMatch.join(link, host, digest, secrets.randbits(32), time.monotonic(), self.options)
            session.report(f"joining {named_address(args.join, host)} from UDP {bound} (Ctrl-C cancels)")

    def loop(self) -> None:
        """Tick the match until it ends (as fast as it can, or at 60 Hz with ``--realtime``)."""
        net, clock = self.net, time.monotonic
        started = False
        if self.args.realtime:
            stepper = FixedStep(lambda: net.tick(clock()), SIM_STEP)
            last = clock()
        while net.state != "ended":
            for line in net.notices():          # a joiner refused: this side waits on
                self.session.report(f"{line}; still waiting for an opponent (Ctrl-C cancels)")
            if not started and net.state != "waiting":
                started = True
                self._started()
            if self.args.realtime:
                now = clock()
                stepper.advance(now - last)
                last = now
                time.sleep(max(0.0, stepper.dt - stepper.acc))
            elif net.state == "waiting":
                net.link.wait(WAIT_POLL)
                net.tick(clock())
            elif not net.tick(clock()):
                net.link.wait(IDLE_WAIT)         # no frame stepped: wait for the opponent's inputs

    def _started(self) -> None:
        """The handshake agreed: say so, and record the confirmed match."""
        net = self.net
        agreed, m = net.agreed, net.confirmed
        assert agreed is not None and m is not None
        s = agreed.settings
        from game.online.address import format_address

        peer = format_address(agreed.peer)
        where = f"in room {self.args.room} on the server {peer}" if getattr(self.args, "server", None) else peer
        self.session.report(f"playing {where} as P{agreed.side + 1}: seed {s.seed}, best of {s.rounds}, "
                            f"{s.timer} s rounds")
        from game.cli.recording import RecordingRun

        if self.args.record is None:             # every netplay match is kept: see default_replay
            self.args.record = default_replay(agreed.side)
        run = RecordingRun(self.args.record, self.args.force, session=self.session, keep_empty=True,
                           report=self.record_lines.append, online=True)
        run.begin(m)
        net.confirmed_listeners.append(lambda match, _events: run.record(match))
        self.run = run

    def result(self) -> dict[str, object]:
        """The JSON line's fields of a match played to its end; else :class:`NetplayEnded`."""
        net = self.net
        ending = net.ending
        assert ending is not None
        if self.run is not None:
            self.run.end()                       # the confirmed frames so far, saved now
        saved = "; ".join(self.record_lines)
        if ending.kind == "finished":
            for line in self.record_lines:
                self.session.report(line)
            m, stats = net.confirmed, net.stats(time.monotonic())
            assert m is not None and stats is not None and net.side is not None
            return {"frames": m.frame, "hits": net.hits, "winner": None if m.winner is None else m.winner + 1,
                    "rounds": [f.wins for f in m.fighters], "state_hash": m.state_hash(), "player": net.side + 1,
                    "rollback_max": stats.rollback_max, "ping_ms": round(stats.ping_ms, 1)}
        line = ending.detail
        if ending.kind == "desync":
            line += f"; {self._write_report()}"
            reason = Reason.DESYNC
        else:
            reason = Reason.REFUSED if ending.kind == "refused" else Reason.NET_LOST
        raise NetplayEnded(reason, f"{line}; {saved}" if saved else line)

    def _write_report(self) -> str:
        """Write the desync report; the line's words for where it went."""
        from game.files import write_atomic

        data = (json.dumps(self.net.desync_report(), indent=1) + "\n").encode()
        for path in _report_paths(self.args.record, self.net.side or 0):
            try:
                write_atomic(path, data)
            except FileExistsError:
                continue
            except OSError as exc:
                return f"could not write the desync report to {path} ({why(exc)})"
            return f"desync report written to {path}"
        return "could not write the desync report: every name for it is taken"


def _through_server(args: argparse.Namespace, link: UdpLink, server: Address, digest: bytes,
                    options: NetOptions) -> NetMatch:
    """The NetMatch of ``--server``: a RoomJoin for ``--room`` (its settings and ``--frames`` make
    the room if this side is its first), the session's datagrams relayed in the room."""
    from game.net.handshake import MatchSettings
    from game.net.room_client import RoomJoin
    from game.online.netmatch import NetMatch
    from game.online.room_link import RoomLink

    settings = MatchSettings(args.seed, None, None, args.rounds, args.timer, 0)
    join = RoomJoin(server, args.room, args.name or "", digest, settings, secrets.randbits(32), time.monotonic(),
                    give_up=options.give_up, frames=args.frames or 0, key=args.room_key or "")
    return NetMatch.through_server(RoomLink(link, join), options)


def named_address(given: tuple[str, int], resolved: Address) -> str:
    """The address a flag named, as printed: ``[::1]:7000``; a name with the address it
    resolved to, ``localhost ([::1]:7000)``."""
    from game.online.address import format_address, is_ip

    where = format_address(resolved)
    return where if is_ip(given[0]) else f"{given[0]} ({where})"


def replays_dir() -> Path:
    """Where a netplay match is recorded when ``--record`` is not given:
    ``$XDG_DATA_HOME/rangebox/replays``, else ``~/.local/share/rangebox/replays`` (an empty or
    relative XDG_DATA_HOME is ignored, as the XDG specification says)."""
    base = os.environ.get("XDG_DATA_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / "rangebox" / "replays"


def default_replay(side: int) -> str:
    """A new file in :func:`replays_dir` for this side's replay of the match starting now:
    ``netplay-YYYYMMDD-HHMMSS-pN.rpl`` (UTC; ``-2``, ``-3`` ... when taken).  The folder is
    made here; one that cannot be made is a UsageError naming it and ``--record``."""
    folder = replays_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot make {folder} for the netplay replay ({why(exc)}); "
                         f"name a file with --record FILE") from None
    stem = f"netplay-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-p{side + 1}"
    for n in range(1, 100):
        path = folder / (f"{stem}.rpl" if n == 1 else f"{stem}-{n}.rpl")
        if not os.path.lexists(path):
            return str(path)
    raise UsageError(f"{folder}: every name for this match's replay is taken; name one with --record FILE")


def _report_paths(record: str | None, side: int) -> list[str]:
    """Where a desync report goes: beside the replay (``FILE.desync.json`` for ``FILE.rpl``),
    else :data:`REPORT_NAME` in the current folder; then the same with -2, -3 ... when taken."""
    if record is not None:
        stem = record[:-4] if record.lower().endswith(".rpl") else record
        base = f"{stem}.desync"
    else:
        base = os.path.splitext(REPORT_NAME.format(player=side + 1))[0]
    return [f"{base}.json"] + [f"{base}-{n}.json" for n in range(2, 100)]


#: One run's NetMatch, its recording and its report lines (the window's netplay uses it too).
NetRun = _Play
