"""One room of the server: its two players, their relay, its referee, its spectators, its verdict.

Pure like the sessions: datagrams in (:meth:`Room.admit` for a Join, :meth:`Room.handle` for
a member's later message, the member already matched to its token and address by the server),
datagrams out (:meth:`Room.poll`: ``(bytes, address)`` pairs), ``now`` passed in.  A room is
``"waiting"`` (its first player, P1, made it with its settings and digest), ``"playing"``
(the second, P2, joined with the same digest: both are sent Joined ``ready`` 1) or ``"ended"``
(:attr:`Room.ending` says why; a :class:`RoomEnd` goes to both players and every spectator).
A private room (made by a Join with a secret: ``room_protocol.room_secret``) admits only Joins
with the same secret, players and spectators alike; any other is refused ``"key"``.

The relay (``docs/netplay.md``, "The server"): a player's Relay payload is parsed with the
room's key (:func:`game.net.protocol.parse`); an Inputs datagram is the sender's side's inputs
(the side its token holds) and goes to the referee first: one refused (a gap, too far ahead, a
conflict with an input already held) is dropped, not relayed.  A HashReport is the referee's,
never relayed; a DesyncNotice is dropped (the referee judges desyncs); a Goodbye is relayed and
ends the match as a disconnect naming that player if the referee has not reached the end;
Quality and QualityReply are relayed as they are.  After a match played to its end the room
relays a little longer (:data:`LINGER` s), so each player's last inputs reach the other and both
stop on the same frame; its Inputs are still checked against the referee's (a player cannot
rewrite its last frames for the other once the referee has played them).
"""

from __future__ import annotations

import hmac
from collections import Counter
from typing import Any, NamedTuple

from game.net import protocol as netwire
from game.net import room_protocol as wire
from game.online.address import ip_key

from .referee import REPORT_WAIT, Referee

#: Seconds an ended room stays (relaying, after a match played out; answering with its RoomEnd).
LINGER = 5.0
#: Seconds an ended room stays at most for its spectators to catch up (silent ones expire sooner).
SPECTATOR_LINGER = 60.0
#: A RoomEnd is sent this many times, one per poll at least this many seconds apart.
END_REPEATS, END_EVERY = 3, 0.1
#: A member's datagrams after the end are answered with the RoomEnd at most this often.
END_ANSWER_EVERY = 0.25


class Member:
    """A token's holder: a player or a spectator of one room."""

    __slots__ = ("token", "addr", "nonce", "role", "side", "name", "heard")

    def __init__(self, token: int, addr: object, nonce: int, role: int, side: int, name: str, now: float) -> None:
        self.token, self.addr, self.nonce = token, addr, nonce      # the server's token; the Join's address, nonce
        self.role, self.side, self.name = role, side, name          # 0 player / 1 spectator; 0 P1, 1 P2; its name
        self.heard = now                                            # when its last valid datagram came


class Ending(NamedTuple):
    """Why a room's match ended."""

    reason: str           # one of room_protocol.ENDINGS
    culprits: int         # bit 0 P1, bit 1 P2: the players a desync or a disconnect names
    detail: str           # one line for the log


class Room:
    """Room ``name``, made by P1's ``join`` from ``addr``: the room's ``digest``, seed, rounds,
    timer and stop frame are that Join's.  ``key``: the room's netplay key (u32, not 0);
    ``feed``: its spectators' feed (a :class:`game.server.spectators.SpectatorFeed`; None: no
    spectators); ``timeout``: seconds of silence after which a player counts as gone (and of the
    referee standing still, after which a player whose inputs it lacks does);
    ``report_wait``: the referee's (:class:`~.referee.Referee`); ``spectators_per_ip``: the
    spectator places one IP address may hold (beyond: refused, ``"network"``)."""

    def __init__(self, name: str, join: wire.Join, key: int, now: float, *, feed: Any = None,
                 timeout: float = 10.0, report_wait: int = REPORT_WAIT, spectators_per_ip: int = 4) -> None:
        self.name, self.join, self.key, self.feed, self.timeout = name, join, key, feed, timeout
        self.report_wait, self.spectators_per_ip = report_wait, spectators_per_ip
        self.state = "waiting"
        self.players: list[Member] = []
        self.spectators: dict[int, Member] = {}
        self.referee: Referee | None = None
        self.ending: Ending | None = None
        self.ended_at = 0.0
        self.made_at = now
        #: Datagrams dropped, by reason (a fixed, small set of words).
        self.dropped: Counter[str] = Counter()
        self.left = [False, False]
        #: Spectators the room has given a place (each once, however long it stayed).
        self.watchers = 0
        #: Spectators gone since the server last looked (their tokens are forgotten then).
        self.departed: list[Member] = []
        #: The server wrote the result (or had none to write); exceptions raised by this room.
        self.written = False
        self.failures = 0
        self._out: list[tuple[bytes, object]] = []
        self._verdict: wire.RoomEnd | None = None
        self._end_sent, self._end_last = 0, -1.0
        self._answered: dict[int, float] = {}
        self._moved = (0, now)                            # the referee's frame, and when it last changed

    # ------------------------------------------------------------------ joining
    def admit(self, token: int, join: wire.Join, addr: object, now: float) -> Member | str:
        """A new Join for this room: the member made (the Joined queued), or the refusal's word."""
        wants_play, may_watch = join.role in (0, 2), join.role in (1, 2)
        if self.state == "ended":
            return "ended"
        if not hmac.compare_digest(join.secret, self.join.secret):
            return "key"                                    # a private room: before anything of it is told
        if join.digest != self.join.digest:
            return "digest"
        if wants_play and self.state == "waiting":
            side = len(self.players)
            member = Member(token, addr, join.nonce, 0, side, join.name, now)
            self.players.append(member)
            if side == 1:
                self._start()
            else:
                self.answer(member)
            return member
        if not may_watch:
            return "full"
        ip = ip_of(addr)
        if sum(1 for s in self.spectators.values() if ip_of(s.addr) == ip) >= self.spectators_per_ip:
            return "network"
        if self.feed is None or not self.feed.add(token, addr, now):
            return "spectators"
        member = Member(token, addr, join.nonce, 1, wire.NO_SIDE, join.name, now)
        self.spectators[token] = member
        self.watchers += 1
        self.answer(member)
        return member

    def answer(self, member: Member) -> None:
        """Queue the member's Joined (its first, or again for a repeated Join)."""
        j, ready = self.join, int(self.state != "waiting")
        self._out.append((wire.encode(wire.Joined(member.nonce, member.role, member.side, self.key, j.seed, j.rounds,
                                                  j.timer, ready if member.role == 0 else 1, j.frames),
                                      member.token), member.addr))

    def _start(self) -> None:
        j = self.join
        self.referee = Referee(j.seed, j.rounds, j.timer, j.frames or None, report_wait=self.report_wait)
        self.state = "playing"
        self._moved = (0, max(p.heard for p in self.players))
        for p in self.players:
            self.answer(p)

    # ------------------------------------------------------------------ a member's datagrams
    def handle(self, member: Member, msg: wire.Message, now: float) -> None:
        """A member's message (its token and address already checked by the server)."""
        member.heard = now
        if type(msg) is wire.Relay and member.role == 0 and self.state != "ended":
            self._relay(member, msg.payload, now)           # the most frequent (as the Relay branch below)
        elif isinstance(msg, wire.Join) and self.state != "ended":
            self.answer(member)                             # a repeat: its Joined was lost
        elif isinstance(msg, wire.Join):
            self._answer_end(member, now)                   # never a Joined saying an ended room runs
        elif isinstance(msg, wire.SpectatorAck) and member.role == 1 and self.feed is not None:
            self.feed.handle_ack(member.token, msg.next_frame, now)     # after the end too: it catches up
        elif isinstance(msg, wire.Leave):
            self._leave(member, now)                        # after the end too: its place is freed at once
        elif self.state == "ended" and (self.ending is None or self.ending.reason != "finished"
                                        or not isinstance(msg, wire.Relay)):
            self._answer_end(member, now)
        elif isinstance(msg, wire.Relay) and member.role == 0:
            self._relay(member, msg.payload, now)
        else:
            self.dropped["unexpected"] += 1

    def _relay(self, member: Member, payload: bytes, now: float) -> None:
        side = member.side
        if self.state == "waiting" or len(self.players) < 2:
            self.dropped["early"] += 1
            return
        try:
            _, msg = netwire.parse(payload, self.key)
        except netwire.ProtocolError as e:
            self.dropped[f"payload {e.reason}"] += 1
            return
        referee = self.referee
        assert referee is not None
        if isinstance(msg, netwire.Inputs):             # checked in the linger after the end too
            bad = referee.add_inputs(side, msg.start, msg.bits)
            if bad:
                self.dropped[f"inputs {bad}"] += 1
                return
            if self.state == "playing" and referee.lag():  # else nothing to step (the other side's inputs
                self._advance(now)                          # for the referee's frame are still to come)
        elif isinstance(msg, netwire.HashReport):
            if self.state == "playing":
                bad = referee.add_report(side, msg.frame, msg.state_hash)
                if bad:
                    self.dropped[f"hash {bad}"] += 1
                self._advance(now)                          # it may have waited for this report
            return
        elif isinstance(msg, (netwire.DesyncNotice, netwire.Hello, netwire.Welcome, netwire.Refuse)):
            self.dropped["not relayed"] += 1
            return
        other = self.players[1 - side]
        self._out.append((wire.encode_relay(payload, other.token), other.addr))
        if isinstance(msg, netwire.Goodbye):
            self._leave(member, now)

    def _leave(self, member: Member, now: float) -> None:
        if member.role == 1:
            if self.spectators.pop(member.token, None) is not None:
                self.departed.append(member)
            if self.feed is not None:
                self.feed.remove(member.token)
            return
        self.left[member.side] = True
        if self.state == "waiting":
            self.end("expired", 0, "P1 left before an opponent came", now)
        elif self.state == "playing":
            self._advance_held(now)
            if self.state == "playing":
                self.end("disconnect", 1 << member.side, f"P{member.side + 1} left", now)

    # ------------------------------------------------------------------ the referee
    def _advance(self, now: float) -> None:
        referee = self.referee
        assert referee is not None
        referee.advance()
        self._after_referee(now)

    def _advance_held(self, now: float) -> None:
        """Step every frame both players' inputs hold, waiting for no report: a player is gone,
        and a match its inputs played to the end is finished whoever left after it."""
        referee = self.referee
        assert referee is not None
        referee.stop_waiting()
        self._advance(now)

    def _after_referee(self, now: float) -> None:
        referee = self.referee
        assert referee is not None
        if referee.frame != self._moved[0]:
            self._moved = (referee.frame, now)
        if self.feed is not None:
            for p1, p2 in referee.fresh:
                self.feed.push(p1, p2)
        referee.fresh.clear()
        if referee.desync_frame is not None:
            who = " and ".join(f"P{s + 1}" for s in (0, 1) if referee.culprits >> s & 1)
            self.end("desync", referee.culprits, f"the referee's state differs from {who}'s at frame "
                                                 f"{referee.desync_frame}", now)
        elif referee.done:
            self.end("finished", 0, f"played to frame {referee.frame}", now)

    # ------------------------------------------------------------------ time and the end
    def poll(self, now: float) -> list[tuple[bytes, object]]:
        """Datagrams to send now; notices silent players and ends the room then."""
        if self.state != "ended":
            self._check_silence(now)
        if self.feed is not None:
            for token in self.feed.expire(now, self.timeout):
                gone = self.spectators.pop(token, None)
                if gone is not None:
                    self.departed.append(gone)
            self._out.extend(self.feed.poll(now))
        if self._verdict is not None and self._end_sent < END_REPEATS and now - self._end_last >= END_EVERY:
            self._end_sent += 1
            self._end_last = now
            self._out.extend((self._end_for(m.token), m.addr) for m in self.players)
            if self.feed is not None:
                self._out.extend((self._end_for(t), a) for t, a in self.feed.addresses())
        out, self._out = self._out, []
        return out

    def _check_silence(self, now: float) -> None:
        silent = [p.side for p in self.players if now - p.heard > self.timeout]
        if self.state == "waiting":
            if silent:
                self.end("expired", 0, f"nobody came in {self.timeout:g} s", now)
            return
        referee = self.referee
        assert referee is not None
        stuck = now - self._moved[1] > self.timeout       # the referee has not stepped for the timeout
        if not silent and not stuck:
            return
        frame = referee.frame
        self._advance_held(now)
        if self.state != "playing" or (not silent and referee.frame != frame):
            return
        # a player that speaks (keep-alives, junk) but sends no input holds the match up: a
        # stuck referee names the players whose inputs it lacks
        stalled = [s for s in (0, 1) if s not in silent and len(referee.inputs[s]) <= referee.frame] if stuck else []
        if silent or stalled:
            why = [f"P{s + 1} silent" for s in silent] + [f"P{s + 1} without inputs" for s in stalled]
            self.end("disconnect", sum(1 << s for s in silent + stalled), " and ".join(why) + f" {self.timeout:g} s",
                     now)

    def stop(self, now: float) -> None:
        """The server stops: the match ends ("shutdown") after every frame both players' inputs
        hold is stepped (a referee waiting for a report steps on)."""
        if self.state == "playing":
            self._advance_held(now)
        self.end("shutdown", 0, "the server stopped", now)

    def end(self, reason: str, culprits: int, detail: str, now: float) -> None:
        """End the match (once): the verdict goes to the players and spectators."""
        if self.state == "ended":
            return
        self.state = "ended"
        self.ending = Ending(reason, culprits, detail)
        self.ended_at = now
        if self.feed is not None:
            self.feed.end()
        self._verdict = self.verdict()

    def verdict(self) -> wire.RoomEnd:
        """The RoomEnd of the ended room."""
        ending, referee = self.ending, self.referee
        assert ending is not None
        if referee is None:
            return wire.RoomEnd(wire.ENDINGS.index(ending.reason), ending.culprits, wire.NO_WINNER, 0, bytes(32))
        m = referee.match
        winner = m.winner if ending.reason == "finished" and m.winner is not None else wire.NO_WINNER
        frame, final = referee.last_whole()
        return wire.RoomEnd(wire.ENDINGS.index(ending.reason), ending.culprits, winner, frame, final)

    def _end_for(self, token: int) -> bytes:
        """The RoomEnd datagram for the member holding ``token``."""
        assert self._verdict is not None
        return wire.encode(self._verdict, token)

    def _answer_end(self, member: Member, now: float) -> None:
        if now - self._answered.get(member.token, -1.0) >= END_ANSWER_EVERY:
            self._answered[member.token] = now
            self._out.append((self._end_for(member.token), member.addr))

    def gone(self, now: float) -> bool:
        """The ended room may be forgotten: its RoomEnd sent, its spectators gone (or
        :data:`SPECTATOR_LINGER` over), and its linger over or both players left."""
        if self.state != "ended" or self._end_sent < END_REPEATS:
            return False
        if self.spectators and now - self.ended_at <= SPECTATOR_LINGER:
            return False                                    # spectators still catching up (or silent: expired)
        return now - self.ended_at > LINGER or all(self.left[:len(self.players)])

    def lag(self) -> int:
        """Frames the room's referee could step but has not (0 for a room not playing)."""
        return self.referee.lag() if self.referee is not None and self.state == "playing" else 0

    def members(self) -> list[Member]:
        return [*self.players, *self.spectators.values()]


def ip_of(addr: object) -> object:
    """What the per-IP limits count an ``(ip, port, ...)`` address as
    (:func:`game.online.address.ip_key`: an IPv4-mapped address as its IPv4 one, a global IPv6
    address as its /64 network); any other address as it is."""
    return ip_key(str(addr[0])) if isinstance(addr, tuple) else addr
