"""SyncTestSession: a rollback on every frame, checked against the first run (GGRS's SyncTest).

No network: the game passes both players' inputs to :meth:`SyncTestSession.advance` and
carries out the same requests as a P2PSession's (:mod:`.requests`).  Every advance steps the
frame once from its saved state (the first run of the next frame's state), then loads the
state of ``check`` frames back and steps again through those frames with the inputs they
had, saving each, so every frame's state is re-simulated ``check`` times.  The game reports
the hash of every save (``hash_wanted`` is always True); each re-simulated frame's hash must
equal the first run's.  A difference means state that a
snapshot does not carry or a step that is not deterministic; :attr:`mismatch` names the first
frame that differs.
"""

from __future__ import annotations

from typing import NamedTuple

from .requests import AdvanceFrame, LoadState, Request, SaveState


class Mismatch(NamedTuple):
    """The first frame whose state differed when re-simulated."""

    frame: int            # the frame (its state at the start of it)
    first_hash: str       # the hash of the first run
    again_hash: str       # the hash after a load and a re-simulation


class SyncTestSession:
    """Roll back ``check`` frames (1..8) on every frame and compare the re-simulated hashes;
    ``start``: the match's frame when the session begins (0 for a new match)."""

    def __init__(self, check: int, start: int = 0) -> None:
        if not 1 <= check <= 8:
            raise ValueError(f"SyncTestSession: check must be 1 to 8 frames, got {check!r}")
        self.check = check
        #: Snapshot slots the game keeps (a request's ``slot`` is below this).
        self.slots = check + 2
        #: The frame the match is at: the next :class:`AdvanceFrame` steps this frame.
        self.frame = start
        self._start = start
        #: The first difference found, or None.
        self.mismatch: Mismatch | None = None
        #: Frames compared so far (each re-simulated frame's hash against the first run's).
        self.compared = 0
        self._inputs: dict[int, tuple[int, int]] = {}
        self._first: dict[int, str] = {}

    def advance(self, p1_bits: int, p2_bits: int) -> list[Request]:
        """The requests of one frame: save it and step it with ``(p1_bits, p2_bits)``, save the
        result (the first run of the next frame), then load the state of ``check`` frames back
        and step again to the present, saving (and so comparing) each re-simulated frame.
        Nothing once a mismatch is found."""
        if self.mismatch is not None:
            return []
        f = self.frame
        self._inputs[f] = (p1_bits, p2_bits)
        reqs: list[Request] = [self._save(f), AdvanceFrame(f, self._inputs[f]), self._save(f + 1)]
        back = f + 1 - self.check
        if back >= self._start:
            reqs.append(LoadState(back, back % self.slots))
            for g in range(back, f + 1):
                reqs += [AdvanceFrame(g, self._inputs[g]), self._save(g + 1)]
        self.frame += 1
        for old in [g for g in self._inputs if g < self.frame - self.check]:
            del self._inputs[old]
        for old in [g for g in self._first if g < self.frame - self.check]:
            del self._first[old]
        return reqs

    def _save(self, frame: int) -> SaveState:
        return SaveState(frame, frame % self.slots, True)

    def saved(self, frame: int, state_hash: str) -> None:
        """A save's hash: the first report of a frame is its first run, later ones are compared."""
        first = self._first.get(frame)
        if first is None:
            self._first[frame] = state_hash
            return
        self.compared += 1
        if first != state_hash and self.mismatch is None:
            self.mismatch = Mismatch(frame, first, state_hash)
