"""Time sync: how far this side runs ahead of the peer, and when to hold a frame.

Each side estimates its *advantage*: its frame minus the peer's frame as it reckons it now
(the peer's reported frame plus half a round trip of frames).  It sends that advantage; the
peer's report of its own comes back.  Half their difference, averaged over the last
``WINDOW`` frames, is how many frames this side runs ahead (``ahead``).  While that is at least
``HOLD_AT``, the side holds one frame in every ``HOLD_EVERY`` (a held frame runs no step),
which spreads the correction thin enough not to be felt, until both advance together.
"""

from __future__ import annotations

from collections import deque

FPS = 60
WINDOW = 40           # frames averaged
HOLD_AT = 1.0         # frames ahead at which this side starts holding
HOLD_EVERY = 10       # at most one held frame in this many


class TimeSync:
    """The advantage estimate and the hold decision (one per session)."""

    def __init__(self) -> None:
        self._local: deque[float] = deque(maxlen=WINDOW)
        self._remote: deque[float] = deque(maxlen=WINDOW)
        self._peer_frame = 0
        self._peer_advantage = 0
        self._since_hold = 0
        self._heard = False
        #: Half the difference of the averaged advantages: frames this side runs ahead (< 0 behind).
        self.ahead = 0.0

    def heard(self, peer_frame: int, peer_advantage: int) -> None:
        """The peer's latest report: the frame it was at and its advantage."""
        self._peer_frame = max(self._peer_frame, peer_frame)
        self._peer_advantage = peer_advantage
        self._heard = True

    def advantage(self, frame: int, rtt: float) -> int:
        """This side's advantage now, in frames, clamped to the wire's i8 (``rtt`` in seconds)."""
        est = self._peer_frame + rtt * 0.5 * FPS
        return max(-128, min(127, round(frame - est)))

    def update(self, frame: int, rtt: float) -> None:
        """Take one frame's sample (called once per frame the game asks to advance); none
        before the peer's first report, when its frame is not known."""
        if not self._heard:
            return
        self._local.append(self.advantage(frame, rtt))
        self._remote.append(self._peer_advantage)
        self.ahead = (sum(self._local) / len(self._local) - sum(self._remote) / len(self._remote)) / 2
        self._since_hold += 1

    def hold(self) -> bool:
        """Whether to hold this frame (then it counts as a hold)."""
        if self.ahead >= HOLD_AT and self._since_hold >= HOLD_EVERY:
            self._since_hold = 0
            return True
        return False
