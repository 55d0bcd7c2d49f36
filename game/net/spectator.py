"""SpectatorSession: watching a room's match through a server, from its confirmed inputs only.

Like :class:`~.session.P2PSession` it holds no match, no socket and no clock (GGRS's model):
the caller passes datagrams in (:meth:`SpectatorSession.handle_datagram`), asks what to do
(:meth:`SpectatorSession.advance`, a list of :class:`~.requests.AdvanceFrame` that the game
carries out in order on its match), sends what :meth:`SpectatorSession.poll` returns to the
server, and reads :meth:`SpectatorSession.events`.  A spectator receives confirmed inputs only
(:class:`~.room_protocol.Confirmed`), so it never predicts, never rolls back and never asks for
a save or a load.

* **Receiving.** Only datagrams from the server's address that carry this spectator's token
  count: a Confirmed (its frames are taken from the first one not yet held; one that starts
  further on is kept aside, at most :data:`AHEAD_CHUNKS` of them, until the gap fills) and a
  :class:`~.room_protocol.RoomEnd` (the server's verdict).  Anything else is counted in
  ``dropped`` by reason and dropped.  At most ``history`` frames are held (a match lasts
  fewer); the session acknowledges what it holds with a SpectatorAck
  (:meth:`~SpectatorSession.poll`) at most every :data:`ACK_MIN` s while frames arrive and
  every :data:`ACK_EVERY` s regardless, which also keeps its place in the room.
* **The delay.** The spectator shows frame ``f`` (the match stepped ``f`` times) only once the
  server has confirmed ``f + delay`` frames (``newest``, sent with every Confirmed), so it runs
  a steady ``delay`` frames behind the live match and a late datagram never stalls it.  Once
  the match is over (a Confirmed says ``ended``, or the verdict came) the delay no longer
  applies: it plays on to the last frame.
* **Catching up.** With ``catch_up`` None (headless), every frame it may show, at once.  Else
  (a window) one frame per :meth:`~SpectatorSession.advance` while it is within
  :data:`CATCH_UP_SLACK` frames of its delay; a little further behind (the server's frames came
  in a burst, or the window's clock runs slow), :data:`FAST_FORWARD` frames a call, a smooth
  fast-forward rather than a jump; and more than :data:`CATCH_UP_FAR` frames past its delay (it
  joined mid-match, or stalled) up to ``catch_up`` frames per call until it is back.
* **The end.** The :class:`Verdict` event brings the server's :class:`~.room_protocol.RoomEnd`;
  the session has ended (``state`` "ended", :attr:`~SpectatorSession.ending`) once it has
  played every frame up to the verdict's frame.  A Confirmed saying ``ended`` whose verdict
  never comes ends it :data:`VERDICT_WAIT` s after the last frame is played, without one.
  Nothing heard from the server for ``interrupt_after`` s is an :class:`~.requests.Interrupted`,
  for ``timeout`` s a :class:`~.requests.Disconnected` ("timeout") and the end.
"""

from __future__ import annotations

from array import array
from collections import Counter
from typing import Literal, NamedTuple

from . import room_protocol as wire
from .protocol import GOODBYES, ProtocolError
from .requests import AdvanceFrame, Disconnected, Interrupted, Resumed

#: Seconds between two acknowledgements at least while frames arrive, and at most in any case.
ACK_MIN = 0.05
ACK_EVERY = 0.2
#: Confirmed datagrams that start past the first frame not held, kept until the gap fills.
AHEAD_CHUNKS = 16
#: Frames past the delay a spectator may lag and still step one frame per advance.
CATCH_UP_SLACK = 4
#: Frames per advance while it lags more than that, but at most CATCH_UP_FAR frames.
FAST_FORWARD = 2
#: Frames past the delay beyond which it steps up to ``catch_up`` frames per advance.
CATCH_UP_FAR = 30
#: Seconds a spectator that played every frame of an ended match waits for the verdict.
VERDICT_WAIT = 2.0
#: The default delay behind the live match (frames).
DELAY = 30

State = Literal["watching", "ended"]


class Verdict(NamedTuple):
    """The server's verdict on the match (a :class:`~.room_protocol.RoomEnd`), read out."""

    reason: str           # a word of room_protocol.ENDINGS: "finished", "disconnect", "desync", ...
    culprits: int         # bit 0 P1, bit 1 P2: the players a desync or a disconnect names
    winner: int | None    # 0 P1, 1 P2, None: no winner
    frame: int            # frames the referee simulated
    state_hash: str       # the referee's state hash at that frame (hex)


class SpectatorEnding(NamedTuple):
    """Why the session ended."""

    kind: str                 # "finished" (every frame up to the verdict played), "no verdict", "timeout", "closed"
    frames: int               # frames played
    verdict: Verdict | None   # the server's, when it came


Event = Verdict | Interrupted | Resumed | Disconnected


class SpectatorSession:
    """A spectator of one room on the server at ``server`` (its address), with the ``token``
    the server's Joined gave.  ``now``: the caller's clock (s, never going back); ``delay``
    frames behind the live match (0 or more); ``catch_up``: frames per advance at most when far
    behind (None: all it holds); ``timeout`` / ``interrupt_after``: s of silence from the
    server before the end / an Interrupted; ``history``: frames held at most."""

    def __init__(self, server: object, token: int, now: float, *, delay: int = DELAY, catch_up: int | None = None,
                 timeout: float = 5.0, interrupt_after: float = 0.75, history: int = 20_000) -> None:
        if delay < 0 or (catch_up is not None and catch_up < 1) or history < 1:
            raise ValueError("SpectatorSession: need delay >= 0, catch_up >= 1 (or None) and history >= 1")
        if not timeout > interrupt_after > 0:
            raise ValueError("SpectatorSession: need timeout > interrupt_after > 0")
        self.server, self.token = server, token
        self.delay, self.catch_up, self.history = delay, catch_up, history
        self.timeout, self.interrupt_after = timeout, interrupt_after
        #: The match's frame: the next AdvanceFrame steps this frame.
        self.frame = 0
        #: Frames held: every frame before this one (the next SpectatorAck's ``next_frame``).
        self.received = 0
        #: Frames the server has confirmed in all (the live match), as last heard.
        self.newest = 0
        #: A Confirmed said the match is over: ``newest`` is its last frame.
        self.over = False
        self.verdict: Verdict | None = None
        self.state: State = "watching"
        self.ending: SpectatorEnding | None = None
        #: Datagrams refused, by reason: "stranger" (another address), "token", a ProtocolError's
        #: reason, "message" (a valid message a spectator does not take), "full" (past history).
        self.dropped: Counter[str] = Counter()
        #: Valid datagrams from the server; acknowledgements sent.
        self.received_datagrams = self.acks_sent = 0
        self._inputs = array("I")           # frame f's inputs: p1 | p2 << 16
        self._ahead: dict[int, tuple[tuple[int, int], ...]] = {}
        self._events: list[Event] = []
        self._heard = now
        self._interrupted = False
        self._acked_at, self._acked = -1e9, -1
        self._done_at: float | None = None  # when the last frame of an ended match was played
        self._leave = False

    # ------------------------------------------------------------------ the caller's calls
    def handle_datagram(self, data: bytes, addr: object, now: float) -> bool:
        """Take one datagram; True if it was this session's (see the module docstring)."""
        if addr != self.server:
            self.dropped["stranger"] += 1
            return False
        try:
            token, msg = wire.parse(data)
        except ProtocolError as e:
            self.dropped[e.reason] += 1
            return False
        if token != self.token:
            self.dropped["token"] += 1
            return False
        if isinstance(msg, wire.Confirmed):
            self._take(msg)
        elif isinstance(msg, wire.RoomEnd):
            self._take_verdict(msg)
        else:
            self.dropped["message"] += 1
            return False
        self.received_datagrams += 1
        if self._interrupted:
            self._interrupted = False
            self._events.append(Resumed(now - self._heard))
        self._heard = now
        return True

    def advance(self, now: float) -> list[AdvanceFrame]:
        """The frames to step now (see the module docstring); empty once ended."""
        self._check_silence(now)
        if self.state == "ended":
            return []
        upper = self.received
        if self.verdict is not None:
            upper = min(upper, self.verdict.frame)
        if not self.over and self.verdict is None:
            upper = min(upper, self.newest - self.delay)
        n = upper - self.frame
        out: list[AdvanceFrame] = []
        if n > 0:
            if self.catch_up is None:
                steps = n
            else:
                lag = self.newest - self.frame - self.delay
                steps = min(n, self.catch_up if lag > CATCH_UP_FAR else FAST_FORWARD if lag > CATCH_UP_SLACK else 1)
            for f in range(self.frame, self.frame + steps):
                v = self._inputs[f]
                out.append(AdvanceFrame(f, (v & 0xFFFF, v >> 16)))
            self.frame += steps
        self._check_end(now)
        return out

    def poll(self, now: float) -> list[bytes]:
        """The datagrams to send to the server now: a SpectatorAck when due, a Leave after
        :meth:`close`."""
        if self._leave:
            self._leave = False
            return [wire.encode(wire.Leave(GOODBYES.index("quit")), self.token)]
        if self.state == "ended":
            return []
        progress = self.received != self._acked
        if now - self._acked_at >= ACK_EVERY or (progress and now - self._acked_at >= ACK_MIN):
            self._acked_at, self._acked = now, self.received
            self.acks_sent += 1
            return [wire.encode(wire.SpectatorAck(self.received), self.token)]
        return []

    def events(self) -> list[Event]:
        """What happened since the last call (:class:`Verdict`, Interrupted, Resumed, Disconnected)."""
        out, self._events = self._events, []
        return out

    def close(self, now: float) -> None:
        """Leave the room: the next :meth:`poll` returns a Leave, and the session ends."""
        if self.state != "ended":
            self._leave = True
            self._end("closed")
            self._events.append(Disconnected("closed", self.frame))

    @property
    def interrupted(self) -> bool:
        """Nothing heard from the server for ``interrupt_after`` s (and not yet ended)."""
        return self._interrupted and self.state == "watching"

    @property
    def behind(self) -> int:
        """Frames the match shown is behind the live one (``newest - frame``)."""
        return max(0, self.newest - self.frame)

    def inputs(self, frame: int) -> tuple[int, int]:
        """``(p1, p2)`` of a frame held (IndexError for one not held)."""
        if not 0 <= frame < self.received:
            raise IndexError(f"SpectatorSession.inputs: frame {frame} is not held (0..{self.received - 1})")
        v = self._inputs[frame]
        return v & 0xFFFF, v >> 16

    # ------------------------------------------------------------------ inside
    def _take(self, msg: wire.Confirmed) -> None:
        """A Confirmed: its newest and ended noted, its frames taken from the first not held."""
        self.newest = max(self.newest, msg.newest)
        if msg.ended:
            self.over = True
        if msg.start > self.received:
            if len(self._ahead) < AHEAD_CHUNKS and msg.inputs:
                self._ahead.setdefault(msg.start, msg.inputs)
            return
        self._append(msg.start, msg.inputs)
        while self._ahead:                  # chunks kept aside that now join on
            starts = [s for s in self._ahead if s <= self.received]
            if not starts:
                break
            for s in starts:
                self._append(s, self._ahead.pop(s))

    def _append(self, start: int, inputs: tuple[tuple[int, int], ...]) -> None:
        """Frames ``start ..`` of ``inputs``, those past the first not held."""
        skip = self.received - start
        for p1, p2 in inputs[skip:]:
            if self.received >= self.history:
                self.dropped["full"] += 1
                return
            self._inputs.append(p1 | p2 << 16)
            self.received += 1

    def _take_verdict(self, msg: wire.RoomEnd) -> None:
        if self.verdict is None:
            winner = None if msg.winner == wire.NO_WINNER else msg.winner
            self.verdict = Verdict(wire.ENDINGS[msg.reason], msg.culprits, winner, msg.frame, msg.state_hash.hex())
            self._events.append(self.verdict)

    def _check_end(self, now: float) -> None:
        """Ended once every frame up to the verdict's is played; without a verdict,
        VERDICT_WAIT s after the last frame of an ended match."""
        v = self.verdict
        if v is not None and (self.frame >= v.frame or (self.over and self.frame >= self.newest)):
            self._end("finished")
        elif v is None and self.over and self.frame >= self.newest:
            if self._done_at is None:
                self._done_at = now
            elif now - self._done_at >= VERDICT_WAIT:
                self._end("no verdict")

    def _check_silence(self, now: float) -> None:
        if self.state == "ended":
            return
        silent = now - self._heard
        if silent >= self.timeout:
            self._end("timeout")
            self._events.append(Disconnected("timeout", self.frame))
        elif silent >= self.interrupt_after and not self._interrupted:
            self._interrupted = True
            self._events.append(Interrupted(silent))

    def _end(self, kind: str) -> None:
        self.state = "ended"
        self.ending = SpectatorEnding(kind, self.frame, self.verdict)
