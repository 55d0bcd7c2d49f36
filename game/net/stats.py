"""What a session measures: the network display's figures and the counters of what it refused."""

from __future__ import annotations

from collections import Counter, deque
from typing import NamedTuple

#: Frames the worst rollback is taken over (one second).
ROLLBACK_WINDOW = 60


class NetStats(NamedTuple):
    """A session's figures now (``session.stats(now)``)."""

    ping_ms: float            # the last round trip (ms), 0 before the first answer
    input_delay: int          # frames a local input waits before it is played
    rollback_last: int        # frames re-simulated on the last advance
    rollback_worst: int       # the most frames re-simulated on one advance in the last second
    rollback_max: int         # the most ever (it never exceeds max_rollback)
    frames_ahead: float       # frames this side runs ahead of the peer (< 0: behind), averaged
    held_frames: int          # frames held for time sync so far
    waited_frames: int        # advances refused because the prediction window was full
    packets_sent: int
    packets_received: int     # valid datagrams from the peer
    packets_lost: int         # the peer's datagrams that never arrived (from its sequence numbers)
    packets_invalid: int      # datagrams from the peer's address refused (malformed or out of range)
    strangers: int            # datagrams from any other address (all ignored)
    conflicts: int            # inputs that disagreed with one already received for their frame
    bytes_per_second: float   # bytes sent in the last second


class Counters:
    """The session's running counts, the sent-bytes window and the loss estimate."""

    def __init__(self) -> None:
        self.sent = 0
        self.received = 0
        self.strangers = 0
        self.conflicts = 0
        self.held = 0
        self.waited = 0
        #: Refused datagrams by reason (a ``ProtocolError.reason`` or a session check's word).
        self.invalid: Counter[str] = Counter()
        self.rollbacks: deque[int] = deque(maxlen=ROLLBACK_WINDOW)
        self.rollback_max = 0
        self._sent_bytes: deque[tuple[float, int]] = deque(maxlen=1024)
        self._seq_top = -1            # the newest peer sequence number, unwrapped
        self._seq_count = 0

    def count_sent(self, now: float, size: int) -> None:
        self.sent += 1
        self._sent_bytes.append((now, size))

    def bytes_per_second(self, now: float) -> float:
        return float(sum(n for t, n in self._sent_bytes if now - t < 1.0))

    def peer_sequence(self, seq: int) -> None:
        """A valid datagram's sequence number (u16, wrapping): tracks the newest, for losses."""
        self._seq_count += 1
        if self._seq_top < 0:
            self._seq_top = seq
            return
        delta = (seq - self._seq_top) & 0xFFFF
        if delta < 0x8000:
            self._seq_top += delta

    @property
    def lost(self) -> int:
        """Datagrams the peer sent (its sequence numbers count from 0) that never arrived; a
        duplicate counts as received, so this never overstates the loss."""
        return max(0, self._seq_top + 1 - self._seq_count)

    def rolled(self, frames: int) -> None:
        self.rollbacks.append(frames)
        self.rollback_max = max(self.rollback_max, frames)
