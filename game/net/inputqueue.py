"""One side's inputs by frame: contiguous from the oldest kept to ``last``, bounded by pruning."""

from __future__ import annotations

from typing import Literal

Added = Literal["new", "same", "conflict", "stale"]


class InputQueue:
    """A side's 11-bit inputs of frames ``first .. last`` (none yet: ``last == -1``).

    Inputs are added in frame order, one after the newest (``last + 1``); an input for a frame
    already held is compared, never overwritten; one older than ``first`` (pruned) is stale.
    """

    def __init__(self) -> None:
        self._bits: dict[int, int] = {}
        #: The oldest frame still held (0 until pruned).
        self.first = 0
        #: The newest frame held, -1 for none.
        self.last = -1

    def __len__(self) -> int:
        return len(self._bits)

    def __getitem__(self, frame: int) -> int:
        return self._bits[frame]

    def add(self, frame: int, bits: int) -> Added:
        """Take the input of ``frame`` (``last + 1`` or earlier): ``"new"`` when stored,
        ``"same"`` when it repeats the one held, ``"conflict"`` when it differs from it
        (kept as it was), ``"stale"`` when the frame was pruned."""
        if frame == self.last + 1:
            self._bits[frame] = bits
            self.last = frame
            return "new"
        if frame > self.last:
            raise ValueError(f"InputQueue.add: frame {frame} after a gap (newest {self.last})")
        if frame < self.first:
            return "stale"
        return "same" if self._bits[frame] == bits else "conflict"

    def predict(self, frame: int) -> int:
        """The input of ``frame``: the real one when held, else the newest repeated (0 for none)."""
        if frame <= self.last:
            return self._bits[frame]
        return self._bits[self.last] if self.last >= 0 else 0

    def span(self, start: int, count: int) -> tuple[int, ...]:
        """The inputs of ``start .. start + count - 1`` (all held)."""
        return tuple(self._bits[f] for f in range(start, start + count))

    def prune(self, before: int) -> None:
        """Forget the frames before ``before`` (the newest is always kept, for predictions)."""
        before = min(before, self.last)
        for f in range(self.first, before):
            del self._bits[f]
        self.first = max(self.first, before)
