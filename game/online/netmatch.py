"""One netplay match over UDP: the loop object a headless run and the window both tick.

:class:`NetMatch` owns everything a side of an online match needs, and nothing of how it is
shown: the :class:`~game.online.udp.UdpLink`, the handshake (``game.net.handshake``), then the
``P2PSession``, the ``MatchRunner`` carrying out its requests on the live match (the predicted
present, what a window draws), the local :class:`~game.net.cpu_player.CpuPlayer` (when the local
side is a CPU) and the *confirmed* match: a second match stepped only with confirmed inputs, in
order, never rolled back.  The confirmed match is what both sides agree on: a replay records it
(``confirmed_listeners``), ``--frames N`` stops when it reaches frame N, and its ``state_hash``
is the one both sides print.

Through a server (``docs/netplay.md``, "The server") the link is a
:class:`~game.online.room_link.RoomLink` and the handshake its
:class:`~game.net.room_client.RoomJoin` (:meth:`NetMatch.through_server`); the session is the
same, and the server's verdict (a RoomEnd) ends the match otherwise than by its own end.

Once per displayed frame the caller calls :meth:`NetMatch.tick` with the time and the local
input; it drains the socket, runs the handshake or the session, carries out the requests,
sends what the session has to send, and acts on the session's events.  :attr:`NetMatch.state`
says where the match is: ``"waiting"`` (the handshake: for an opponent, or for the host's
answer), ``"playing"``, ``"finishing"`` (the confirmed match has reached its end: waiting,
at most the timeout, for the peer to acknowledge the last inputs, so it can confirm them
too), ``"ended"`` (:attr:`NetMatch.ending` says why).

How a side stops: the confirmed match over or at ``stop_at`` frames, both sides stop on the
same frame with the same state; the one that gets there first waits for the peer's
acknowledgement of its last inputs, then says Goodbye.  A side that leaves (:meth:`close`, a
signal) says Goodbye at once; a side that vanishes is noticed after ``timeout`` s of silence.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, NamedTuple

from game.net import protocol as wire
from game.net import room_protocol as room_wire
from game.net.cpu_player import CpuPlayer
from game.net.handshake import Agreed, Failed, HostHandshake, JoinHandshake, MatchSettings, differing_parts
from game.net.requests import Desync, Disconnected, Event
from game.net.room_client import RoomJoin
from game.net.runner import MatchRunner
from game.net.session import NOTICE_REPEATS, P2PSession
from game.sim import FrameInput, Match
from game.sim.events import Hit

from .digest import describe
from .room_link import RoomLink
from .udp import Address, UdpLink

if TYPE_CHECKING:
    from game.net.stats import NetStats
    from game.sim.events import Event as SimEvent

State = Literal["waiting", "playing", "finishing", "ended"]
#: Confirmed inputs kept for a desync report (more than the longest match).
INPUT_HISTORY = 20_000
#: Network events kept for :meth:`NetMatch.events` (drained by the caller every frame).
EVENT_HISTORY = 64
#: Refusal lines a waiting host keeps for :meth:`NetMatch.notices` (each different line once).
NOTICE_HISTORY = 16


class NetOptions(NamedTuple):
    """A side's own settings (each side picks its own; the host's Welcome fixes the match's)."""

    input_delay: int = 2            # frames a local input waits (0 to 8)
    max_rollback: int = 8           # the prediction window (1 to 16 frames)
    timeout: float = 5.0            # s of silence before the peer counts as gone
    stop_at: int | None = None      # stop when the confirmed match reaches this frame (None: at its end)
    cpu_level: str | None = None    # the local side is this CPU level (None: the caller's input)
    give_up: float = 10.0           # the joiner: s without an answer from the host


class Ending(NamedTuple):
    """Why a match ended."""

    kind: str           # "finished", "left" (this side's close), "disconnected", "desync", "refused", "no answer"
    detail: str         # one line for the user (without the replay's line)
    frames: int         # frames the confirmed match holds (what a replay records)
    desync: Desync | None = None    # the session's event, for "desync"


class NetMatch:
    """One side of a netplay match; make it with :meth:`host` or :meth:`join`, then :meth:`tick`."""

    def __init__(self, link: UdpLink | RoomLink, options: NetOptions,
                 handshake: HostHandshake | JoinHandshake | RoomJoin) -> None:
        self.link, self.options = link, options
        self._handshake = handshake
        #: See the module docstring.
        self.state: State = "waiting"
        #: Why the match ended, once :attr:`state` is "ended".
        self.ending: Ending | None = None
        self.agreed: Agreed | None = None
        self.session: P2PSession | None = None
        self.runner: MatchRunner | None = None
        #: The confirmed match (see the module docstring), None before the handshake.
        self.confirmed: Match | None = None
        #: Called as ``listener(confirmed_match, events)`` after each confirmed step (a recorder).
        self.confirmed_listeners: list[Callable[[Match, tuple[SimEvent, ...]], None]] = []
        #: Hits of the confirmed match so far.
        self.hits = 0
        self.cpu: CpuPlayer | None = None
        self._cpu_bits = (-1, 0)                # (the session frame it decided for, its bits)
        self._inputs: deque[tuple[int, int, int]] = deque(maxlen=INPUT_HISTORY)
        self._events: deque[Event] = deque(maxlen=EVENT_HISTORY)
        self._notices: deque[str] = deque(maxlen=NOTICE_HISTORY)
        self._noticed: set[str] = set()         # every refusal line said once (a few hundred at most)
        #: Hellos a waiting host refused (another digest or protocol version).
        self.refusals = 0
        self._finish_since = 0.0

    @classmethod
    def host(cls, link: UdpLink, digest: bytes, settings: MatchSettings, options: NetOptions) -> NetMatch:
        """Wait on ``link`` for one joiner whose digest is ``digest``; the match is ``settings``."""
        return cls(link, options, HostHandshake(digest, settings))

    @classmethod
    def join(cls, link: UdpLink, host: Address, digest: bytes, token: int, now: float,
             options: NetOptions) -> NetMatch:
        """Ask the host at ``host`` to play (``token``: a random u32 the caller draws)."""
        return cls(link, options, JoinHandshake(host, digest, token, now, give_up=options.give_up))

    @classmethod
    def through_server(cls, link: RoomLink, options: NetOptions) -> NetMatch:
        """Play in a server's room: ``link``'s RoomJoin is the handshake, its Relays carry the
        session's datagrams, and the server's verdict (a RoomEnd) ends the match."""
        return cls(link, options, link.join)

    # ------------------------------------------------------------------ the caller's calls
    @property
    def match(self) -> Match | None:
        """The live match (the predicted present: what to draw), None before the handshake."""
        return self.runner.match if self.runner is not None else None

    @property
    def side(self) -> int | None:
        """The local player: 0 P1, 1 P2 (None before the handshake)."""
        return self.agreed.side if self.agreed is not None else None

    def tick(self, now: float, local_bits: int | None = None) -> list[tuple[int, tuple[SimEvent, ...]]]:
        """One displayed frame at time ``now`` (s, never going back) with the local input
        (``FrameInput.bits``; ignored when the local side is a CPU; None: neutral).  Returns
        ``(frame, events)`` of every live frame stepped (re-simulated ones included: a frame
        seen before was rolled back and stepped again)."""
        received = self.link.receive()
        if isinstance(self.link, RoomLink) and self.link.room_end is not None and self.state != "ended":
            self._room_end(self.link.room_end, now)
        if self.state == "waiting":
            self._shake(received, now)
            return []
        if self.state == "ended":
            return []
        session, runner = self.session, self.runner
        assert session is not None and runner is not None
        for data, addr in received:
            if isinstance(self._handshake, HostHandshake) and self._handshake.handle_datagram(data, addr, now):
                continue                        # a repeated Hello (a lost Welcome) or another joiner
            session.handle_datagram(data, addr, now)
        self._send_handshake(now)
        stepped: list[tuple[int, tuple[SimEvent, ...]]] = []
        if self.state == "playing":
            bits = self._local_bits(local_bits)
            stepped = runner.carry_out(session.advance(bits, now), session.saved)
        self._take_confirmed()
        self._send(session.poll(now))
        self._take_events(now)
        if self.state == "playing" and self._at_end():
            self.state, self._finish_since = "finishing", now
        if self.state == "finishing":
            self._finish(now)
        return stepped

    def close(self, now: float) -> None:
        """Leave now (a signal, Quit): the peer is told with a Goodbye; the link stays open."""
        if self.state == "ended":
            return
        if self.session is not None:
            self.session.close(now)
            self._flush(now)
        frames = self.confirmed.frame if self.confirmed is not None else 0
        self._end("left", "this side left the match", frames)

    def events(self) -> list[Event]:
        """The session's network events since the last call (``Interrupted``, ``Resumed``, ...)."""
        out = list(self._events)
        self._events.clear()
        return out

    def notices(self) -> list[str]:
        """Lines to show since the last call: a waiting host's refusals of a joiner whose game
        differs (each different line once; the host refuses it and keeps waiting)."""
        out = list(self._notices)
        self._notices.clear()
        return out

    def stats(self, now: float) -> NetStats | None:
        """The session's figures (None before the handshake); the link's are ``link.counts``."""
        return self.session.stats(now) if self.session is not None else None

    def desync_report(self) -> dict[str, object]:
        """A desync's report: both hashes, the frame, and the confirmed inputs from the last
        frame both sides agreed on (``[frame, p1_bits, p2_bits]`` each)."""
        ending, agreed = self.ending, self.agreed
        if ending is None or ending.desync is None or agreed is None:
            raise ValueError("NetMatch.desync_report: the match did not end in a desync")
        d, s = ending.desync, agreed.settings
        first = max(d.last_agreed, 0)
        return {"frame": d.frame, "local_hash": d.local_hash, "remote_hash": d.remote_hash,
                "last_agreed": d.last_agreed, "player": agreed.side + 1, "seed": s.seed, "rounds": s.rounds,
                "timer": s.timer, "inputs_from": first,
                "inputs": [list(i) for i in self._inputs if i[0] >= first]}

    # ------------------------------------------------------------------ the handshake
    def _shake(self, received: list[tuple[bytes, Address]], now: float) -> None:
        hs = self._handshake
        for data, addr in received:
            if self.session is not None:        # agreed in this drain: the rest is the session's
                if not (isinstance(hs, HostHandshake) and hs.handle_datagram(data, addr, now)):
                    self.session.handle_datagram(data, addr, now)
                continue
            refused = self._refusal(data) if isinstance(hs, HostHandshake) else ""
            hs.handle_datagram(data, addr, now)
            if refused and hs.result is None:
                self._refused(refused)          # refused; the host waits on for its opponent
                continue
            if isinstance(hs.result, Agreed):
                self._start(hs.result, now)
        self._send_handshake(now)
        result = hs.result
        if isinstance(result, Failed):
            self._end("no answer" if result.reason == "no answer" else "refused",
                      _failure(result, isinstance(hs, RoomJoin)), 0)

    def _refused(self, line: str) -> None:
        """Count a refused Hello and say why once: anyone can send a Hello, so a refusal never
        stops a waiting host (a stranger could otherwise end it with one datagram)."""
        self.refusals += 1
        if line not in self._noticed:
            self._noticed.add(line)
            self._notices.append(line)

    def _refusal(self, data: bytes) -> str:
        """The host's line when ``data`` is a Hello it refuses (another digest or protocol
        version), else ""."""
        try:
            _, msg = wire.parse(data, 0)
        except wire.ProtocolError as e:
            if e.reason == "version" and len(data) > 2:
                return (f"a joiner speaking netplay protocol version {data[2]} (this game {wire.VERSION}) "
                        f"was refused: both need the same Rangebox")
            return ""
        hs = self._handshake
        if isinstance(msg, wire.Hello) and isinstance(hs, HostHandshake) and msg.digest != hs.digest:
            parts = describe(differing_parts(hs.digest, msg.digest))
            return (f"a joiner was refused: its {parts} from this game's; both sides need the same "
                    f"Rangebox (version and assets)")
        return ""

    def _send_handshake(self, now: float) -> None:
        hs = self._handshake
        if isinstance(hs, HostHandshake):
            for data, addr in hs.poll(now):
                self.link.send(data, addr)      # type: ignore[arg-type]   # the address recvfrom gave
        else:
            for data in hs.poll(now):
                self.link.send(data, hs.host)   # type: ignore[arg-type]

    def _start(self, agreed: Agreed, now: float) -> None:
        if isinstance(self._handshake, RoomJoin):       # the room's stop frame, for both (None: its end)
            self.options = self.options._replace(stop_at=self._handshake.stop_at)
        o, s = self.options, agreed.settings
        self.agreed = agreed
        self.session = P2PSession(agreed.side, agreed.peer, now, key=agreed.key, input_delay=o.input_delay,
                                  max_rollback=o.max_rollback, timeout=o.timeout,
                                  interrupt_after=min(0.75, o.timeout / 2))
        # both matches without a CPU side: each side's input (a CPU's too) is sent and recorded
        self.runner = MatchRunner(Match.new(s.seed, rounds=s.rounds, timer=s.timer), self.session.slots)
        self.confirmed = Match.new(s.seed, rounds=s.rounds, timer=s.timer)
        if o.cpu_level is not None:
            self.cpu = CpuPlayer(o.cpu_level, agreed.side, s.seed)
        self.state = "playing"

    # ------------------------------------------------------------------ the match
    def _local_bits(self, given: int | None) -> int:
        """The input for the session's current frame: the CPU's (decided once per frame, on the
        live match), else the caller's."""
        session, cpu = self.session, self.cpu
        assert session is not None
        if cpu is None:
            return 0 if given is None else given
        frame, bits = self._cpu_bits
        if frame != session.frame:
            assert self.runner is not None
            bits = cpu.bits(self.runner.match)
            self._cpu_bits = (session.frame, bits)
        return bits

    def _take_confirmed(self) -> None:
        """Step the confirmed match with every newly confirmed frame (up to its end)."""
        session, m = self.session, self.confirmed
        assert session is not None and m is not None
        for f, p1, p2 in session.drain_confirmed():
            self._inputs.append((f, p1, p2))
            if f != m.frame or self._at_end():
                continue                        # past the end: not played
            events = m.step(FrameInput.from_bits(p1), FrameInput.from_bits(p2))
            self.hits += sum(isinstance(e, Hit) for e in events)
            for listener in self.confirmed_listeners:
                listener(m, events)

    def _at_end(self) -> bool:
        m, stop = self.confirmed, self.options.stop_at
        assert m is not None
        return m.over or (stop is not None and m.frame >= stop)

    def _take_events(self, now: float) -> None:
        session, m = self.session, self.confirmed
        assert session is not None and m is not None
        for ev in session.events():
            self._events.append(ev)
            if self.state == "ended":
                continue
            if isinstance(ev, Desync):
                self._flush(now)                # the notice, repeated, so the peer stops too
                self._end("desync", f"desync: the two sides' states differ at frame {ev.frame} (this side's "
                          f"state hash {ev.local_hash[:16]}..., the opponent's {ev.remote_hash[:16]}...; "
                          f"{_agreed(ev.last_agreed)})", m.frame, ev)
            elif isinstance(ev, Disconnected) and ev.reason != "closed":
                if self._at_end():
                    self._end("finished", "", m.frame)      # the peer left after the last frame
                elif ev.reason == "timeout":
                    self._flush(now)
                    self._end("disconnected", f"the opponent was silent for {self.options.timeout:g} s: "
                              f"disconnected after {m.frame} confirmed frames", m.frame)
                else:
                    self._end("disconnected", f"the opponent left the match after {m.frame} confirmed frames",
                              m.frame)

    def _finish(self, now: float) -> None:
        """The confirmed match is at its end: Goodbye once the peer holds every input it needs."""
        session, m = self.session, self.confirmed
        assert session is not None and m is not None
        if session.state == "running" and session.peer_ack < m.frame - 1 \
                and now - self._finish_since < self.options.timeout:
            return
        session.close(now)
        self._flush(now)
        self._end("finished", "", m.frame)

    def _flush(self, now: float) -> None:
        """Send what a stopped session still has to say (a Goodbye, a desync notice's repeats)."""
        assert self.session is not None
        for _ in range(NOTICE_REPEATS):
            self._send(self.session.poll(now))

    def _send(self, datagrams: list[bytes]) -> None:
        assert self.session is not None
        for data in datagrams:
            self.link.send(data, self.session.peer)     # type: ignore[arg-type]

    def _room_end(self, verdict: room_wire.RoomEnd, now: float) -> None:
        """The server's verdict: a match played out ends as this side's own end does (its last
        inputs still relayed); any other ends it now, with the server's reason."""
        reason = room_wire.ENDINGS[verdict.reason]
        frames = self.confirmed.frame if self.confirmed is not None else 0
        if reason == "finished":
            return
        who = " and ".join(f"P{s + 1}" for s in (0, 1) if verdict.culprits >> s & 1) or "a player"
        if self.session is not None:
            self.session.close(now)
        if reason == "desync":
            desync = Desync(verdict.frame, "", verdict.state_hash.hex(), -1)
            self._end("desync", f"desync: the referee's state differs from {who}'s at frame {verdict.frame} "
                      f"(the referee's state hash {verdict.state_hash.hex()[:16]}...)", frames, desync)
        elif reason == "disconnect":
            self._end("disconnected", f"the server ended the match: {who} left or fell silent, after "
                      f"{frames} confirmed frames", frames)
        else:
            words = {"error": "the room failed on the server", "shutdown": "the server shut down",
                     "expired": "the room expired"}[reason]
            self._end("disconnected", f"the server ended the match: {words}, after {frames} confirmed frames",
                      frames)

    def _end(self, kind: str, detail: str, frames: int, desync: Desync | None = None) -> None:
        self.state = "ended"
        self.ending = Ending(kind, detail, frames, desync)


def _agreed(frame: int) -> str:
    return f"they last agreed at frame {frame}" if frame >= 0 else "no earlier check agreed"


def _failure(f: Failed, server: bool = False) -> str:
    """The joiner's line for a failed handshake (``server``: a room's join)."""
    if server and f.reason == "no answer":
        return f"{f.detail}: is the server running at that address (python3 -m game.server), and the port open?"
    if f.reason == "digest":
        return (f"the host refused this game: its {describe(f.parts)} from the host's; both sides need "
                f"the same Rangebox (version and assets)")
    if f.reason == "busy":
        return "the host refused: it is already playing another opponent"
    if f.reason == "no answer":
        return f"{f.detail}: is the game at that address waiting (--host), and the port open?"
    return f.detail
