"""A room's spectators: the confirmed inputs, sent to each spectator from where it stands.

Pure logic, like the sessions of ``game.net``: no socket and no clock inside.  The room
(``game.server``) pushes each confirmed frame's ``(p1_bits, p2_bits)`` in order from frame 0
(:meth:`SpectatorFeed.push`), hands on every :class:`~game.net.room_protocol.SpectatorAck`
(:meth:`SpectatorFeed.handle_ack`), and sends what :meth:`SpectatorFeed.poll` returns: encoded
:class:`~game.net.room_protocol.Confirmed` datagrams, each with its spectator's token and
address.  A spectator never sees a predicted input, so it never rolls back.

Each spectator is sent go-back-N style from the first frame it does not hold (its acked
frame; a spectator joining mid-match acks 0 and so catches up from frame 0):

* at most ``window`` frames past the acked one are in flight, and at most ``burst``
  datagrams go to one spectator per :meth:`~SpectatorFeed.poll` (``budget`` to all of them,
  the spectators taking turns first), so a spectator catching up from frame 0 never holds a
  room's poll up for long;
* when the acked frame has not moved for ``resend_after`` s while data is unacked, the
  spectator is sent again from its acked frame;
* a spectator with nothing new to send gets an empty Confirmed (no inputs) every
  ``keep_alive`` s, and at once when the match ends: it carries ``newest`` (how far the live
  match is) and ``ended``.

Everything is bounded: at most ``max_spectators`` spectators and ``history`` frames (4 bytes
each; frames pushed past it are not kept and are counted in ``overflow``: a match lasts at most
:data:`game.replay.MAX_MATCH_FRAMES` frames, fewer than the default).  A spectator that sends
nothing for a while is dropped by :meth:`~SpectatorFeed.expire` (the room decides how long).
"""

from __future__ import annotations

from array import array

from game.net import room_protocol as wire
from game.net.protocol import INPUT_LIMIT

#: Seconds without progress in a spectator's acks before its unacked frames are sent again.
RESEND_AFTER = 0.2
#: Seconds between two empty Confirmed datagrams to a spectator with nothing new to send.
KEEP_ALIVE = 0.25
#: Datagrams to one spectator per poll at most.
BURST = 8
#: Datagrams per poll at most, all spectators together.
BUDGET = 32
#: Frames in flight past a spectator's acked frame at most.
WINDOW = BURST * wire.MAX_CONFIRMED


class _Spectator:
    """One spectator's place in the feed."""

    __slots__ = ("addr", "acked", "next", "timer", "sent_at", "heard", "told_end", "proven")

    def __init__(self, addr: object, now: float) -> None:
        self.addr = addr            # where its datagrams go (the address its Join came from)
        self.acked = 0              # the first frame it does not hold (its last SpectatorAck)
        self.next = 0               # the next frame to send it (acked <= next)
        self.timer = now            # when its acked frame last moved, or its unacked data began
        self.sent_at = -1e9         # when it was last sent a datagram
        self.heard = now            # when it last spoke (its Join or an ack)
        self.told_end = False       # it has been sent a datagram saying the match is over
        self.proven = False         # it has acked: the address is its own (see _poll_one)


class SpectatorFeed:
    """The confirmed inputs of one room, sent to its spectators (see the module docstring)."""

    def __init__(self, *, max_spectators: int = 16, history: int = 20_000, burst: int = BURST,
                 budget: int = BUDGET, window: int = WINDOW, resend_after: float = RESEND_AFTER,
                 keep_alive: float = KEEP_ALIVE) -> None:
        if max_spectators < 1 or history < 1 or burst < 1 or budget < 1 or window < 1:
            raise ValueError("SpectatorFeed: max_spectators, history, burst, budget and window must be 1 or more")
        self.max_spectators, self.history = max_spectators, history
        self.burst, self.budget, self.window = burst, budget, window
        self.resend_after, self.keep_alive = resend_after, keep_alive
        self._inputs = array("I")           # frame f's inputs: p1_bits | p2_bits << 16
        self._spectators: dict[int, _Spectator] = {}
        self._turn = 0                      # which spectator goes first in the next poll
        #: Frames pushed (and kept): the next frame :meth:`push` takes is this one.
        self.frames = 0
        #: True once :meth:`end` was called: no more frames.
        self.ended = False
        #: Frames pushed past ``history`` (not kept, never sent).
        self.overflow = 0
        #: Datagrams :meth:`poll` returned; times a spectator was sent again from its acked frame.
        self.sent = self.resends = 0

    # ------------------------------------------------------------------ the room's calls
    def add(self, token: int, addr: object, now: float) -> bool:
        """Give ``token`` a place, sent from frame 0 to ``addr``; False when every place is
        taken (the room refuses the Join: "spectators").  A token already in keeps its place
        (a repeated Join), and its address is updated."""
        s = self._spectators.get(token)
        if s is not None:
            s.addr, s.heard = addr, now
            return True
        if len(self._spectators) >= self.max_spectators:
            return False
        self._spectators[token] = _Spectator(addr, now)
        return True

    def remove(self, token: int) -> None:
        """Drop ``token``'s place (it left); an unknown token is ignored."""
        self._spectators.pop(token, None)

    def push(self, p1_bits: int, p2_bits: int) -> None:
        """The room's next confirmed frame (frame :attr:`frames`).  ValueError for an input
        outside 0..2047 or a push after :meth:`end`."""
        if not (0 <= p1_bits < INPUT_LIMIT and 0 <= p2_bits < INPUT_LIMIT):
            raise ValueError(f"SpectatorFeed.push: inputs {p1_bits}, {p2_bits} outside 0..{INPUT_LIMIT - 1}")
        if self.ended:
            raise ValueError("SpectatorFeed.push: the match is over (end() was called)")
        if self.frames >= self.history:
            self.overflow += 1
            return
        self._inputs.append(p1_bits | p2_bits << 16)
        self.frames += 1

    def end(self) -> None:
        """The match is over: no more frames; every spectator is told at its next poll."""
        self.ended = True

    def handle_ack(self, token: int, next_frame: int, now: float) -> None:
        """A SpectatorAck from ``token``: it holds every frame before ``next_frame`` (a stale,
        reordered ack changes nothing; one past the frames pushed counts as all of them).  An
        unknown token is ignored."""
        s = self._spectators.get(token)
        if s is None:
            return
        s.heard, s.proven = now, True
        acked = min(next_frame, self.frames)
        if acked > s.acked:
            s.acked, s.timer = acked, now
            s.next = max(s.next, acked)

    def poll(self, now: float) -> list[tuple[bytes, object]]:
        """The datagrams to send now: ``(encoded Confirmed, address)`` pairs (see the module
        docstring for what each spectator is sent and how much)."""
        out: list[tuple[bytes, object]] = []
        tokens = list(self._spectators)
        if not tokens:
            return out
        self._turn = (self._turn + 1) % len(tokens)
        for token in tokens[self._turn:] + tokens[:self._turn]:
            room = self.budget - len(out)
            if room <= 0:
                break
            self._poll_one(token, self._spectators[token], now, min(room, self.burst), out)
        self.sent += len(out)
        return out

    def expire(self, now: float, silent: float) -> list[int]:
        """Drop the spectators that have said nothing for ``silent`` s; their tokens."""
        gone = [t for t, s in self._spectators.items() if now - s.heard >= silent]
        for t in gone:
            del self._spectators[t]
        return gone

    def addresses(self) -> list[tuple[int, object]]:
        """``(token, address)`` of every spectator (the room sends them its RoomEnd)."""
        return [(t, s.addr) for t, s in self._spectators.items()]

    def unacked(self) -> int:
        """Spectators that do not yet hold every frame pushed (after :meth:`end`, the room
        keeps polling until this is 0 or they expire)."""
        return sum(s.acked < self.frames for s in self._spectators.values())

    def acked(self, token: int) -> int:
        """The first frame ``token`` does not hold (KeyError for an unknown token)."""
        return self._spectators[token].acked

    def __len__(self) -> int:
        return len(self._spectators)

    def __contains__(self, token: object) -> bool:
        return token in self._spectators

    # ------------------------------------------------------------------ inside
    def _poll_one(self, token: int, s: _Spectator, now: float, burst: int, out: list[tuple[bytes, object]]) -> None:
        """Up to ``burst`` datagrams for one spectator, appended to ``out``.  Until its first ack
        it is sent one datagram of frames and keep-alives, never again: a Join from a forged
        source address cannot make the server send a window of frames to someone else."""
        if s.proven and s.next > s.acked and now - s.timer >= self.resend_after:
            s.next = s.acked                    # go back: its acks stopped moving
            s.timer = now
            self.resends += 1
        limit = min(self.frames, s.acked + (self.window if s.proven else wire.MAX_CONFIRMED))
        ended = int(self.ended)
        sent = 0
        while sent < (burst if s.proven else 1) and s.next < limit:
            if s.next == s.acked:
                s.timer = now                   # the unacked run starts now
            msg = wire.confirmed_prefix(s.next, self.frames, ended, self._pairs(s.next, limit))
            out.append((wire.encode(msg, token), s.addr))
            s.next += len(msg.inputs)
            sent += 1
        if sent == 0 and (now - s.sent_at >= self.keep_alive or (self.ended and not s.told_end)):
            out.append((wire.encode(wire.Confirmed(s.acked, self.frames, ended, ()), token), s.addr))
            sent = 1
        if sent:
            s.sent_at = now
            s.told_end = s.told_end or self.ended

    def _pairs(self, start: int, limit: int) -> tuple[tuple[int, int], ...]:
        """``(p1, p2)`` of frames ``start`` up to one datagram's worth, before ``limit``."""
        chunk = self._inputs[start:min(limit, start + wire.MAX_CONFIRMED)]
        return tuple((v & 0xFFFF, v >> 16) for v in chunk)
