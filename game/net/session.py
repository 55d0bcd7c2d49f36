"""P2PSession: rollback netplay between one local player and one remote (GGPO's model, GGRS's API).

The session holds no match, no socket and no clock: the caller passes datagrams in
(:meth:`P2PSession.handle_datagram`), takes datagrams out (:meth:`P2PSession.poll`), passes
the local input and the time in (:meth:`P2PSession.advance`), and carries out the requests
that ``advance`` returns (:mod:`.requests`) in order, reporting saved hashes back
(:meth:`P2PSession.saved`).  A UDP loop, once per displayed frame::

    for data, addr in received: session.handle_datagram(data, addr, now)
    for req in session.advance(local_bits, now): carry out req
    for data in session.poll(now): sock.sendto(data, peer)
    for ev in session.events(): show or act on ev

``docs/netplay.md`` describes the design: input delay, prediction, the rollback window,
time sync, acknowledgements, keep-alives and the desync check.
"""

from __future__ import annotations

from collections import deque
from typing import Literal

from . import protocol as wire
from .inputqueue import InputQueue
from .requests import AdvanceFrame, Desync, Disconnected, Event, Interrupted, LoadState, Request, Resumed, SaveState
from .stats import Counters, NetStats
from .timesync import TimeSync

#: Frames of a peer's message allowed ahead of this side's frame (a peer runs at most its input
#: delay plus its prediction window ahead; this leaves room for a slow start).
MAX_AHEAD = 120
#: Frames back a peer's input resend may start from (acks lost this long mean a dead link).
MAX_PAST = 600
#: Inputs older than the newest by more than this are forgotten (so a late copy is "stale").
INPUT_HISTORY = 128
#: Seconds between quality reports (keep-alive and ping); an input datagram is resent this often
#: while unacknowledged inputs are left.
QUALITY_EVERY = 0.2
RESEND_EVERY = 0.1
#: The newest final hash is sent again with every this many quality reports.
HASH_REPEAT_EVERY = 5
#: Stamps of quality reports sent and not yet answered, kept to match their replies (32 cover
#: 6.4 s of round trip); a reply to none of them (a duplicate, a replay) changes nothing.
PINGS_KEPT = 32
#: Confirmed frames held for :meth:`P2PSession.drain_confirmed` (the caller drains every frame).
CONFIRMED_CAP = 4096
#: Times a desync notice is sent (once per poll).
NOTICE_REPEATS = 3

State = Literal["running", "desync", "disconnected"]


class P2PSession:
    """One local player (``side`` 0 = P1, 1 = P2) against one remote at address ``peer``.

    ``now``: the caller's clock (s, any origin, never going back); ``key``: the u32 both sides
    agreed in the handshake (datagrams checked with another are refused).  ``input_delay``
    0..8 frames, ``max_rollback`` 1..16 frames, ``timeout`` s of silence before a disconnect,
    ``interrupt_after`` s of silence before an :class:`~.requests.Interrupted` notice,
    ``hash_interval`` frames between desync checks.
    """

    def __init__(self, side: int, peer: object, now: float, *, key: int = 0, input_delay: int = 2,
                 max_rollback: int = 8, timeout: float = 5.0, interrupt_after: float = 0.75,
                 hash_interval: int = 30) -> None:
        if side not in (0, 1):
            raise ValueError(f"P2PSession: side must be 0 (P1) or 1 (P2), got {side!r}")
        if not 0 <= input_delay <= 8:
            raise ValueError(f"P2PSession: input_delay must be 0 to 8 frames, got {input_delay!r}")
        if not 1 <= max_rollback <= 16:
            raise ValueError(f"P2PSession: max_rollback must be 1 to 16 frames, got {max_rollback!r}")
        if not timeout > interrupt_after > 0 or hash_interval < 1:
            raise ValueError("P2PSession: need timeout > interrupt_after > 0 and hash_interval >= 1")
        self.side, self.peer, self.key = side, peer, key & 0xFFFFFFFF
        self.input_delay, self.max_rollback = input_delay, max_rollback
        self.timeout, self.interrupt_after, self.hash_interval = timeout, interrupt_after, hash_interval
        #: Snapshot slots the game keeps (a request's ``slot`` is below this).
        self.slots = max_rollback + 2
        #: The frame the match is at: the next :class:`AdvanceFrame` steps this frame.
        self.frame = 0
        #: "running", or why the session stopped ("desync", "disconnected").
        self.state: State = "running"
        #: Why the last :meth:`advance` returned no request: "" (it advanced), "window" (the
        #: prediction window is full: waiting for the peer's inputs), "time sync" (holding a
        #: frame: this side runs ahead) or the stopped state.
        self.waiting = ""
        self.local, self.remote = InputQueue(), InputQueue()
        for f in range(input_delay):          # the first frames, before any input: neutral
            self.local.add(f, 0)
        self._peer_ack = -1                   # the newest local frame the peer holds
        self._used: dict[int, int] = {}       # frame -> the peer input it was simulated with (a guess)
        self._first_wrong: int | None = None  # the earliest frame simulated with a wrong guess
        self._confirmed: deque[tuple[int, int, int]] = deque()
        self._confirmed_next = 0              # the next frame to confirm
        self.confirmed_dropped = 0            # confirmed frames lost because no one drained them
        self._my_hash: dict[int, bytes] = {}  # check frame -> this side's hash as last saved
        self._final: dict[int, bytes] = {}    # check frame -> this side's final hash
        self._peer_hash: dict[int, bytes] = {}
        #: The newest check frame whose hashes both sides found equal (-1 for none).
        self.last_agreed = -1
        self._unsent_hash: int | None = None
        self._events: deque[Event] = deque(maxlen=64)
        self._out: list[wire.Message] = []    # queued messages for the next poll
        self._notice: wire.DesyncNotice | None = None
        self._notices_left = 0
        self._seq = 0
        self._last_heard = now
        self._interrupted = False
        self._rtt = 0.0
        self._pings: deque[int] = deque(maxlen=PINGS_KEPT)     # stamps of unanswered quality reports
        self._last_input_sent = -1.0
        self._sent_input_top = -1             # the newest local frame sent
        self._acked_remote = -1               # the newest remote frame acknowledged in a datagram
        self._last_quality = -1.0
        self._qualities = 0
        self.sync = TimeSync()
        self.counters = Counters()

    # ------------------------------------------------------------------ the game's calls
    def advance(self, local_bits: int, now: float) -> list[Request]:
        """Requests to carry out now, in order: a rollback (a load and re-advanced frames) if a
        guess proved wrong, then this frame's save and advance.  ``local_bits``: this side's
        11-bit input, played ``input_delay`` frames later.  An empty list means no frame this
        time (``waiting`` says why); the same input may be passed again next time."""
        self._check_silence(now)
        if self.state != "running":
            self.waiting = self.state
            return []
        if not 0 <= local_bits < wire.INPUT_LIMIT:
            raise ValueError(f"P2PSession.advance: local_bits must be an 11-bit int, got {local_bits!r}")
        if self.frame > self.remote.last + self.max_rollback:
            self.waiting = "window"
            self.counters.waited += 1
            return []
        self.sync.update(self.frame, self._rtt)
        if self.sync.hold():
            self.waiting = "time sync"
            self.counters.held += 1
            return []
        self.waiting = ""
        self.local.add(self.frame + self.input_delay, local_bits)
        reqs: list[Request] = []
        rolled = 0
        if self._first_wrong is not None:
            start = self._first_wrong
            rolled = self.frame - start
            reqs.append(LoadState(start, start % self.slots))
            for f in range(start, self.frame):
                if f != start:
                    reqs.append(self._save(f))
                reqs.append(AdvanceFrame(f, self._inputs(f)))
            self._first_wrong = None
        reqs.append(self._save(self.frame))
        reqs.append(AdvanceFrame(self.frame, self._inputs(self.frame)))
        self.frame += 1
        self.counters.rolled(rolled)
        self._confirm()
        return reqs

    def saved(self, frame: int, state_hash: str | bytes) -> None:
        """The ``state_hash()`` (hex str or 32 bytes) of the state a SaveState with ``hash_wanted``
        saved for ``frame``."""
        if frame % self.hash_interval == 0 and frame not in self._final:
            h = bytes.fromhex(state_hash) if isinstance(state_hash, str) else bytes(state_hash)
            if len(h) != wire.DIGEST_BYTES:
                raise ValueError(f"P2PSession.saved: a hash of {len(h)} bytes; pass state_hash()")
            self._my_hash[frame] = h

    def handle_datagram(self, data: bytes, addr: object, now: float) -> None:
        """Take one received datagram from ``addr``: one from any address but the peer's, or one
        that is malformed or out of range, is counted and ignored."""
        if addr != self.peer:
            self.counters.strangers += 1
            return
        try:
            seq, msg = wire.parse(data, self.key)
        except wire.ProtocolError as e:
            self.counters.invalid[e.reason] += 1
            return
        bad = self._take(msg, now)
        if bad:
            self.counters.invalid[bad] += 1
            return
        self.counters.received += 1
        self.counters.peer_sequence(seq)
        if self._interrupted:
            self._events.append(Resumed(now - self._last_heard))
            self._interrupted = False
        self._last_heard = now

    def poll(self, now: float) -> list[bytes]:
        """Datagrams to send to the peer now: inputs not yet acknowledged (when new, or every
        ``RESEND_EVERY`` s), quality reports, hash reports, notices."""
        self._check_silence(now)
        self._check_hashes()
        msgs = self._out
        self._out = []
        if self._notice is not None and self._notices_left > 0:
            msgs.append(self._notice)
            self._notices_left -= 1
        if self.state == "running":
            msgs.extend(self._due(now))
        out = []
        for m in msgs:
            data = wire.encode(m, self._seq, self.key)
            self._seq += 1
            self.counters.count_sent(now, len(data))
            out.append(data)
        return out

    def events(self) -> list[Event]:
        """What happened since the last call (drained)."""
        out = list(self._events)
        self._events.clear()
        return out

    def drain_confirmed(self) -> list[tuple[int, int, int]]:
        """``(frame, p1_bits, p2_bits)`` of every frame confirmed since the last call, in order:
        both sides' real inputs, never to change (a replay records them)."""
        out = list(self._confirmed)
        self._confirmed.clear()
        return out

    def close(self, now: float) -> None:
        """Leave the match: the next :meth:`poll` sends a Goodbye, and the session stops."""
        if self.state == "running":
            self._out.append(wire.Goodbye(wire.GOODBYES.index("quit")))
            self._stop("disconnected", Disconnected("closed", self.confirmed_frame))

    # ------------------------------------------------------------------ what the game reads
    @property
    def confirmed_frame(self) -> int:
        """The newest frame whose inputs both sides know (-1 for none)."""
        return min(self.remote.last, self.local.last)

    @property
    def peer_ack(self) -> int:
        """The newest local frame whose input the peer has acknowledged (-1 for none): a side
        that stops playing waits for it before its Goodbye, so the peer can confirm every frame."""
        return self._peer_ack

    @property
    def final_frame(self) -> int:
        """The newest frame whose saved state is final: every input before it confirmed and no
        rollback before it pending (the saved state of every frame up to it never changes)."""
        bound = min(self.confirmed_frame + 1, self.frame - 1)
        return bound if self._first_wrong is None else min(bound, self._first_wrong)

    def stats(self, now: float) -> NetStats:
        """The network display's figures (:class:`~.stats.NetStats`)."""
        c = self.counters
        return NetStats(
            ping_ms=self._rtt * 1000.0, input_delay=self.input_delay,
            rollback_last=c.rollbacks[-1] if c.rollbacks else 0, rollback_worst=max(c.rollbacks, default=0),
            rollback_max=c.rollback_max, frames_ahead=self.sync.ahead, held_frames=c.held, waited_frames=c.waited,
            packets_sent=c.sent, packets_received=c.received, packets_lost=c.lost,
            packets_invalid=sum(c.invalid.values()), strangers=c.strangers, conflicts=c.conflicts,
            bytes_per_second=c.bytes_per_second(now))

    def buffer_sizes(self) -> dict[str, int]:
        """The size of every internal buffer (each bounded; tests check the bounds)."""
        return {"local": len(self.local), "remote": len(self.remote), "used": len(self._used),
                "confirmed": len(self._confirmed), "my_hash": len(self._my_hash), "final": len(self._final),
                "peer_hash": len(self._peer_hash), "events": len(self._events), "out": len(self._out),
                "pings": len(self._pings)}

    # ------------------------------------------------------------------ inside
    def _save(self, frame: int) -> SaveState:
        self._my_hash.pop(frame, None)        # a hash saved before this save is stale
        return SaveState(frame, frame % self.slots, frame % self.hash_interval == 0)

    def _inputs(self, frame: int) -> tuple[int, int]:
        """Both inputs of ``frame`` (the peer's guessed when not yet known), P1's first."""
        mine = self.local[frame]
        theirs = self.remote.predict(frame)
        if frame > self.remote.last:
            self._used[frame] = theirs
        return (mine, theirs) if self.side == 0 else (theirs, mine)

    def _take(self, msg: wire.Message, now: float) -> str:
        """Act on a parsed message from the peer; "" or the reason it is refused."""
        if isinstance(msg, wire.Inputs):
            return self._take_inputs(msg)
        if isinstance(msg, wire.Quality):
            if msg.frame > self.frame + MAX_AHEAD:
                return "future"
            self.sync.heard(msg.frame, msg.advantage)
            self._out.append(wire.QualityReply(msg.stamp))
        elif isinstance(msg, wire.QualityReply):
            rtt = ((_stamp(now) - msg.stamp) & 0xFFFFFFFF) / 1000.0
            if rtt > self.timeout:
                return "stamp"
            if msg.stamp in self._pings:        # a duplicate or replayed reply is no round trip
                self._pings.remove(msg.stamp)
                self._rtt = rtt
        elif isinstance(msg, wire.HashReport):
            return self._take_hash(msg)
        elif isinstance(msg, wire.DesyncNotice):
            if msg.frame > self.frame + MAX_AHEAD or msg.frame % self.hash_interval:
                return "future"
            if self.state == "running":
                self._stop("desync", Desync(msg.frame, msg.receiver_hash.hex(), msg.sender_hash.hex(),
                                            self.last_agreed))
        elif isinstance(msg, wire.Goodbye):
            if self.state == "running":
                self._stop("disconnected", Disconnected("peer left", self.confirmed_frame))
        else:
            return "handshake"                # a late Hello / Welcome: the handshake's business
        return ""

    def _take_inputs(self, msg: wire.Inputs) -> str:
        end = msg.start + len(msg.bits) - 1
        if msg.start > self.remote.last + 1:
            return "gap"
        if end > self.frame + MAX_AHEAD or msg.frame > self.frame + MAX_AHEAD:
            return "future"
        if msg.start < self.remote.last + 1 - MAX_PAST:
            return "past"
        if msg.ack > self.local.last:
            return "ack"
        self._peer_ack = max(self._peer_ack, msg.ack)
        self.sync.heard(msg.frame, msg.advantage)
        for k, bits in enumerate(msg.bits):
            f = msg.start + k
            got = self.remote.add(f, bits)
            if got == "conflict":
                self.counters.conflicts += 1
            elif got == "new":
                guess = self._used.pop(f, None)
                if guess is not None and guess != bits and (self._first_wrong is None or f < self._first_wrong):
                    self._first_wrong = f
        self._confirm()
        return ""

    def _take_hash(self, msg: wire.HashReport) -> str:
        if msg.frame > self.frame + MAX_AHEAD or msg.frame % self.hash_interval:
            return "future"
        if msg.frame < self.frame - MAX_PAST:
            return "past"
        self._peer_hash[msg.frame] = msg.state_hash
        self._compare(msg.frame)
        return ""

    def _confirm(self) -> None:
        """Move newly confirmed frames to the drain, and forget what no rollback or ack needs."""
        top = self.confirmed_frame
        while self._confirmed_next <= top:
            f = self._confirmed_next
            mine, theirs = self.local[f], self.remote[f]
            if len(self._confirmed) >= CONFIRMED_CAP:
                self._confirmed.popleft()
                self.confirmed_dropped += 1
            self._confirmed.append((f, mine, theirs) if self.side == 0 else (f, theirs, mine))
            self._confirmed_next += 1
        # re-simulation needs both inputs from the earliest frame a guess may be wrong on;
        # resends need the local ones from the peer's ack on
        keep = min(self.remote.last + 1, self.frame)
        if self._first_wrong is not None:
            keep = min(keep, self._first_wrong)
        self.local.prune(min(keep, self._peer_ack + 1, self._confirmed_next))
        self.remote.prune(min(keep, self._confirmed_next, self.remote.last + 1 - INPUT_HISTORY))

    def _check_hashes(self) -> None:
        """Make final every saved check hash whose frame's inputs are all confirmed and whose
        state was saved with them, then send the newest and compare."""
        bound = self.final_frame
        for f in sorted(self._my_hash):
            if f <= bound:
                self._final[f] = self._my_hash.pop(f)
                self._unsent_hash = f
                self._compare(f)
        for d in (self._final, self._peer_hash):
            for f in [f for f in d if f < self.frame - MAX_PAST]:
                del d[f]

    def _compare(self, frame: int) -> None:
        mine, theirs = self._final.get(frame), self._peer_hash.get(frame)
        if mine is None or theirs is None or self.state != "running":
            return
        if mine == theirs:
            self.last_agreed = max(self.last_agreed, frame)
            return
        self._notice = wire.DesyncNotice(frame, mine, theirs)
        self._notices_left = NOTICE_REPEATS
        self._stop("desync", Desync(frame, mine.hex(), theirs.hex(), self.last_agreed))

    def _due(self, now: float) -> list[wire.Message]:
        """The inputs, hash and quality messages due now."""
        msgs: list[wire.Message] = []
        unacked = self.local.last > self._peer_ack
        new = self.local.last > self._sent_input_top or self.remote.last > self._acked_remote
        if new or (unacked and now - self._last_input_sent >= RESEND_EVERY):
            start = self._peer_ack + 1
            count = min(self.local.last - start + 1, wire.MAX_INPUTS)
            msgs.append(wire.Inputs(start, self.frame, self.remote.last, self.sync.advantage(self.frame, self._rtt),
                                    self.local.span(start, count)))
            self._sent_input_top = max(self._sent_input_top, start + count - 1)
            self._acked_remote = self.remote.last
            self._last_input_sent = now
        if self._unsent_hash is not None:
            msgs.append(wire.HashReport(self._unsent_hash, self._final[self._unsent_hash]))
            self._unsent_hash = None
        if now - self._last_quality >= QUALITY_EVERY:
            msgs.append(wire.Quality(_stamp(now), self.frame, self.sync.advantage(self.frame, self._rtt)))
            self._pings.append(_stamp(now))
            self._qualities += 1
            if self._final and self._qualities % HASH_REPEAT_EVERY == 0:
                newest = max(self._final)         # in case its first report was lost
                msgs.append(wire.HashReport(newest, self._final[newest]))
            self._last_quality = now
        return msgs

    def _check_silence(self, now: float) -> None:
        silent = now - self._last_heard
        if self.state != "running":
            return
        if silent > self.timeout:
            self._out.append(wire.Goodbye(wire.GOODBYES.index("timeout")))
            self._stop("disconnected", Disconnected("timeout", self.confirmed_frame))
        elif silent > self.interrupt_after and not self._interrupted:
            self._interrupted = True
            self._events.append(Interrupted(silent))

    def _stop(self, state: State, event: Event) -> None:
        self.state = state
        self._events.append(event)


def _stamp(now: float) -> int:
    """``now`` as a wrapping u32 of milliseconds (a Quality's stamp)."""
    return int(now * 1000.0) & 0xFFFFFFFF
