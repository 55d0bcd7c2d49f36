"""Carrying out a session's requests on a match: the game's half of the GGRS contract.

:class:`MatchRunner` keeps the snapshot slots and does what each request says, in order; the
UDP loop, the headless netplay and the tests share it.  The events of every advanced frame
come back with the frame, so presentation can tell a re-simulated frame from a new one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from game.sim.inputs import FrameInput

from .requests import AdvanceFrame, LoadState, Request, SaveState

if TYPE_CHECKING:
    from game.sim import Match
    from game.sim.events import Event
    from game.sim.state import Snapshot


class MatchRunner:
    """A match and ``slots`` snapshot slots (``session.slots``)."""

    def __init__(self, match: Match, slots: int) -> None:
        self.match = match
        self._slots: list[tuple[int, Snapshot] | None] = [None] * slots

    def carry_out(self, requests: Sequence[Request],
                  report: Callable[[int, str], None] | None = None) -> list[tuple[int, tuple[Event, ...]]]:
        """Do ``requests`` in order; ``report(frame, state_hash)`` is called for each save that
        wants its hash (``session.saved``).  Returns ``(frame, events)`` of each advanced frame."""
        m = self.match
        out = []
        for r in requests:
            if isinstance(r, AdvanceFrame):
                if m.frame != r.frame:
                    raise RuntimeError(f"MatchRunner: asked to advance frame {r.frame}, the match is at {m.frame}")
                p1, p2 = r.inputs
                out.append((r.frame, m.step(FrameInput.from_bits(p1), FrameInput.from_bits(p2))))
            elif isinstance(r, SaveState):
                self._slots[r.slot] = (r.frame, m.snapshot())
                if r.hash_wanted and report is not None:
                    report(r.frame, m.state_hash())
            else:
                m.restore(self.saved(r))
        return out

    def saved(self, r: LoadState | SaveState) -> Snapshot:
        """The snapshot kept for ``r.frame`` in ``r.slot`` (RuntimeError if the slot holds another frame)."""
        kept = self._slots[r.slot]
        if kept is None or kept[0] != r.frame:
            raise RuntimeError(f"MatchRunner: no state saved for frame {r.frame} in slot {r.slot}")
        return kept[1]
