"""``--spectate HOST[:PORT] --room NAME``: watching a room of a Rangebox server.

A :class:`game.online.spectate.Spectator` joins the room as a spectator and steps the room's
confirmed inputs on a match of its own (``docs/netplay.md``, "Spectators"): it never rolls back,
it runs ``--spectate-delay`` frames behind the live match, and one joining mid-match catches up
from frame 0.  With ``--headless`` (this module) it steps as fast as the inputs arrive and
prints one JSON line at the end: the frames, the match's ``state_hash``, hits, winner and
rounds, and the server's verdict with ``agrees`` (this spectator's state hash at the verdict's
frame equals the referee's).  In the window (``game/cli/window_spectate.py``) it is ticked once
per 1/60 s step, catching up at most :data:`~game.online.spectate.WINDOW_CATCH_UP` frames a
step.  ``--record FILE`` records the match watched; ``--frames N`` stops at frame N.

How it ends: the verdict came and every frame up to it was played, 0 (the JSON line); the
spectator's state differs from the referee's, 4; the server silent for ``--net-timeout`` s or
no answer to the join, 3; the join refused (another game, no such room, no place left), 5.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from game.cli.ending import Reason
from game.cli.netplay import IDLE_WAIT, WAIT_POLL, NetplayEnded, named_address
from game.cli.program import UsageError

if TYPE_CHECKING:
    from game.cli.ending import Session
    from game.cli.recording import RecordingRun
    from game.online.spectate import Spectator


def open_spectator(args: argparse.Namespace, now: float, *, catch_up: int | None) -> Spectator:
    """The assets loaded (or their error naming the file), the server's address resolved and
    the socket opened: a Spectator of ``--room`` (UsageError naming ``--spectate`` when the
    server's name does not resolve or the socket cannot be opened)."""
    from game.online.spectate import SpectateOptions, Spectator
    from game.online.udp import LinkError, resolve
    from game.sim import Match

    Match.new(0)
    options = SpectateOptions(delay=args.spectate_delay, catch_up=catch_up, timeout=args.net_timeout,
                              give_up=max(10.0, args.net_timeout), stop_at=args.frames)
    try:
        server = resolve(*args.spectate)
        return Spectator.open(server, args.room, options, now, name=args.name or "", key=args.room_key or "")
    except LinkError as exc:
        raise UsageError(f"--spectate: {exc}") from None


class Watching:
    """One run's Spectator, its recording and its lines (the window's spectator uses it too)."""

    def __init__(self, args: argparse.Namespace, session: Session, spectator: Spectator) -> None:
        self.args, self.session, self.spectator = args, session, spectator
        self.run: RecordingRun | None = None
        self.record_lines: list[str] = []
        self._started = False
        from game.online.address import format_address

        where, bound = named_address(args.spectate, spectator.server), format_address(spectator.link.address)
        session.report(f"joining room {args.room} on the server {where} as a spectator from UDP {bound} "
                       f"(Ctrl-C leaves)")

    def started(self) -> None:
        """Once, when the join succeeded: say so, and record with ``--record``."""
        w = self.spectator
        if self._started or w.match is None:
            return
        self._started = True
        st = w.settings
        assert st is not None
        self.session.report(f"watching room {self.args.room}: seed {st.seed}, best of {st.rounds}, {st.timer} s "
                            f"rounds, {w.delay} frames behind")
        if self.args.record is not None:
            from game.cli.recording import RecordingRun

            run = RecordingRun(self.args.record, self.args.force, session=self.session, keep_empty=True,
                               report=self.record_lines.append, online=True)
            run.begin(w.match)
            w.listeners.append(lambda match, _events: run.record(match))
            self.run = run

    def result(self) -> dict[str, object]:
        """The JSON line's fields of a match watched to its end; else :class:`NetplayEnded`."""
        w = self.spectator
        ending = w.ending
        assert ending is not None
        if self.run is not None:
            self.run.end()
        for line in self.record_lines:
            self.session.report(line)
        if ending.kind in ("refused", "no answer", "disconnected", "left"):
            raise NetplayEnded(Reason.REFUSED if ending.kind == "refused" else Reason.NET_LOST, ending.detail)
        m = w.match
        assert m is not None
        v = ending.verdict
        verdict = None if v is None else {"reason": v.reason, "winner": None if v.winner is None else v.winner + 1,
                                          "culprits": [s + 1 for s in (0, 1) if v.culprits >> s & 1],
                                          "frame": v.frame, "state_hash": v.state_hash, "agrees": ending.agrees}
        if ending.agrees is False:
            assert v is not None
            raise NetplayEnded(Reason.DESYNC, f"this spectator's state differs from the referee's at frame {v.frame} "
                                              f"(its state hash {m.state_hash()[:16]}..., the referee's "
                                              f"{v.state_hash[:16]}...)")
        if ending.kind == "no verdict":
            self.session.report(ending.detail)
        return {"room": self.args.room, "frames": m.frame, "hits": w.hits,
                "winner": None if m.winner is None else m.winner + 1, "rounds": [f.wins for f in m.fighters],
                "state_hash": m.state_hash(), "delay": w.delay, "behind_max": w.behind_max, "verdict": verdict}


def run_spectate(args: argparse.Namespace, session: Session) -> dict[str, object]:
    """``--spectate`` with ``--headless``: watch until the match ends; the JSON line's fields,
    or :class:`NetplayEnded`."""
    w = open_spectator(args, time.monotonic(), catch_up=None)
    watching = Watching(args, session, w)
    w.on_start = watching.started
    try:
        watch(w)
    finally:
        w.close(time.monotonic())
        w.link.close()
    return watching.result()


def watch(w: Spectator, clock: Callable[[], float] = time.monotonic) -> None:
    """Tick ``w`` until it ends, as fast as its frames arrive (waiting on its socket between).
    A test runs a spectator in a thread of its own with it."""
    while w.state != "ended":
        stepped = w.tick(clock())
        if w.state == "joining":
            w.link.wait(WAIT_POLL)
        elif not stepped:
            w.link.wait(IDLE_WAIT)
