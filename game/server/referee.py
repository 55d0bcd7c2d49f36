"""The referee: the server's own headless match of one room, stepped on confirmed inputs only.

The players' sessions send each side's inputs (Inputs datagrams) through the server; the
referee keeps every input of each side by frame (:meth:`Referee.add_inputs`: the side is the
sender's, decided by its token, never by the datagram) and steps its :class:`~game.sim.Match`
with frame ``f`` once both sides' inputs for ``f`` are held: a frame is *confirmed* then, and
never changes (a later, different input for a held frame is refused as a conflict).  So the
referee never predicts and never rolls back; its match is what both players' confirmed matches
must be.  It records that match (:class:`~game.replay.ReplayRecorder`): the authoritative replay,
an online one (a checkpoint at each check frame, no per-frame tags), as the players' and the
spectators' own recordings are, byte for byte.  It hashes only its check frames and, when the
replay is written, the last frame (``final_at_save``): the server saves between datagrams,
never inside a step.

The desync check: every :data:`HASH_INTERVAL` frames a player's session reports the
``state_hash`` of the state at the start of that frame (HashReport).  The referee compares each
report with its own hash of that frame when it gets there (or on arrival, for a frame already
passed and still in its history); a player whose hash differs is a *culprit*, and the match
stops there as a desync.

Casts (method C): the referee's match asks its stage two kinds of ray question, counted per
room from the stage's ray records of each step: *any-hit* (``ray_any``: a projectile's path,
C8: the decision whether it flies on) and *nearest* (``ray_nearest``: the floor height under a
fighter, C7: the one place the simulation needs a distance, not a yes or no).
"""

from __future__ import annotations

from array import array
from typing import NamedTuple

from game.replay import ReplayRecorder
from game.replay_header import MAX_MATCH_FRAMES, ONLINE_INTERVAL
from game.sim import FrameInput, Match

#: Frames between two hash reports (the players' ``P2PSession.hash_interval``), which are the
#: checkpoints of an online replay.
HASH_INTERVAL = ONLINE_INTERVAL
#: Inputs may run this many frames ahead of the referee's frame (a player runs at most its
#: input delay plus its prediction window ahead of what it confirmed; room for a slow start).
MAX_AHEAD = 240
#: No room's match lasts longer: the longest match a replay holds (five rounds of 60 s and
#: their pauses).  A room's inputs (4 bytes a frame) and its recording stay within it.
MAX_FRAMES = MAX_MATCH_FRAMES
#: The referee's own check hashes kept for late reports (frames back: KEPT_HASHES x interval).
KEPT_HASHES = 64
#: Reports held per side for frames the referee has not reached.
PENDING_REPORTS = 16
#: Frames of inputs held past a check frame before the referee steps on without a player's
#: report of it (a lost report is not sent again).
REPORT_WAIT = 60


class Casts(NamedTuple):
    """The stage's casts of one room's match."""

    any_hit: int          # C8: projectile paths (yes or no)
    nearest: int          # C7: the ground under a fighter (a distance)


class Referee:
    """The match of a room: ``seed``, ``rounds``, ``timer`` as the room's players agreed;
    ``stop_at``: the frame it stops at (None: the match's end)."""

    def __init__(self, seed: int, rounds: int, timer: int, stop_at: int | None = None, *,
                 report_wait: int = REPORT_WAIT) -> None:
        self.match = Match.new(seed, rounds=rounds, timer=timer)
        self.recorder = ReplayRecorder.for_match(self.match, online=True, final_at_save=True)
        self.stop_at = None if stop_at is None else min(stop_at, MAX_FRAMES)
        #: Every input of each side so far: ``inputs[side][frame]`` (u16).
        self.inputs = (array("H"), array("H"))
        self._any = self._nearest = 0
        self._own: dict[int, bytes] = {}                  # check frame -> the referee's hash
        self._reports: tuple[dict[int, bytes], dict[int, bytes]] = ({}, {})
        #: Bits of the sides whose reported hash differs from the referee's (bit 0 P1, bit 1 P2).
        self.culprits = 0
        #: The check frame of the first difference (None: none found).
        self.desync_frame: int | None = None
        #: Frames confirmed but not yet handed on (the room pushes them to its spectators).
        self.fresh: list[tuple[int, int]] = []
        self.report_wait = report_wait
        self._reported = [-1, -1]                         # the newest check frame each side reported
        #: A step raised (the room's fault) and left the match between two frames: the replay
        #: then ends at the newest check frame, whose hash the referee holds (:meth:`last_whole`).
        self.torn = False

    @property
    def frame(self) -> int:
        """Frames the referee has stepped (its match's frame)."""
        return self.match.frame

    @property
    def done(self) -> bool:
        """The match is over, at its stop frame, or stopped by a desync."""
        m = self.match
        return m.over or self.desync_frame is not None or (self.stop_at is not None and m.frame >= self.stop_at) \
            or m.frame >= MAX_FRAMES

    @property
    def casts(self) -> Casts:
        return Casts(self._any, self._nearest)

    def lag(self) -> int:
        """Frames the inputs held run ahead of the referee (both sides': what it could step now)."""
        return max(0, min(len(self.inputs[0]), len(self.inputs[1])) - self.frame)

    def add_inputs(self, side: int, start: int, bits: tuple[int, ...]) -> str:
        """Side ``side``'s inputs from frame ``start``; "" when taken, else why refused: "gap"
        (a frame before ``start`` missing), "future" (too far ahead), "conflict" (a held frame's
        input differs: the datagram is refused whole)."""
        held = self.inputs[side]
        if start > len(held):
            return "gap"
        if start + len(bits) > min(self.frame + MAX_AHEAD, MAX_FRAMES):
            return "future"
        overlap = min(len(held) - start, len(bits))
        if overlap > 0 and tuple(held[start:start + overlap]) != bits[:overlap]:
            return "conflict"
        held.extend(bits[overlap:])
        return ""

    def add_report(self, side: int, frame: int, state_hash: bytes) -> str:
        """Side ``side``'s hash of check frame ``frame``; "" when taken (compared now if the
        referee has its own), else why refused ("future", "past", "interval")."""
        if frame % HASH_INTERVAL:
            return "interval"
        if frame > self.frame + MAX_AHEAD:
            return "future"
        own = self._own.get(frame)
        if own is not None:
            self._reported[side] = max(self._reported[side], frame)
            self._judge(side, frame, own, state_hash)
            return ""
        if frame < self.frame:
            return "past"
        pending = self._reports[side]
        if frame not in pending and len(pending) >= PENDING_REPORTS:
            return "future"                                # refused: it does not count as reported
        self._reported[side] = max(self._reported[side], frame)
        pending.setdefault(frame, state_hash)              # the first report of a frame counts
        return ""

    def advance(self, limit: int = 1 << 30) -> int:
        """Step every confirmed frame (at most ``limit``); returns how many were stepped.  At a
        check frame it waits for both players' reports of it (judged there, so a desync stops
        the match on its frame), but no longer than ``report_wait`` frames of inputs."""
        a, b = self.inputs
        n = 0
        while n < limit and not self.done and self.frame < len(a) and self.frame < len(b):
            f = self.frame
            if f % HASH_INTERVAL == 0:
                if f not in self._own and not self._check(f):
                    break
                if min(self._reported) < f and min(len(a), len(b)) - f <= self.report_wait:
                    break
            p1, p2 = a[f], b[f]
            m = self.match
            self.torn = True                                # until the frame is stepped and recorded
            m.step(FrameInput.from_bits(p1), FrameInput.from_bits(p2))
            stage = m.stage
            if stage is not None:
                any_hit, nearest = stage.cast_counts()
                self._any += any_hit
                self._nearest += nearest
            self.recorder.record(m)
            self.torn = False
            self.fresh.append((p1, p2))
            n += 1
        if not self.done and self.frame % HASH_INTERVAL == 0 and self.frame not in self._own:
            self._check(self.frame)                         # reports of the frame it waits at
        return n

    def stop_waiting(self) -> None:
        """A player left or fell silent: no more reports will come, so :meth:`advance` steps
        every held frame without waiting at a check frame (a player withholding its last
        report cannot hold the match short of its end)."""
        self.report_wait = 0

    def state_hash(self) -> bytes:
        """The referee's state hash now (32 bytes)."""
        return bytes.fromhex(self.match.state_hash())

    def last_whole(self) -> tuple[int, bytes]:
        """The frames the replay holds and the state hash after them (32 bytes): the match now,
        or, after a step that raised (:attr:`torn`), the newest check frame before it."""
        if not self.torn:
            return self.match.frame, self.state_hash()
        frame = max(self._own)                              # frame 0 is checked before the first step
        return frame, self._own[frame]

    def replay_bytes(self) -> bytes:
        """The authoritative replay: every frame stepped, or after a step that raised, the
        frames up to the newest check frame (a state between two frames is never hashed)."""
        return self.recorder.to_bytes(match_whole=not self.torn)

    def _check(self, frame: int) -> bool:
        """Hash the state at the start of ``frame`` and judge the reports held for it; False
        when a player's differs (the match stops as a desync)."""
        recorded = self.recorder.checkpoint_hash(frame)     # the state the recording just hashed
        own = self.state_hash() if recorded is None else bytes.fromhex(recorded)
        self._own[frame] = own
        for old in [f for f in self._own if f <= frame - KEPT_HASHES * HASH_INTERVAL]:
            del self._own[old]
        for side in (0, 1):
            pending = self._reports[side]
            got = pending.pop(frame, None)
            if got is not None:
                self._judge(side, frame, own, got)
            for old in [f for f in pending if f < frame]:
                del pending[old]
        return self.desync_frame is None

    def _judge(self, side: int, frame: int, own: bytes, reported: bytes) -> None:
        if reported != own and (self.desync_frame is None or frame == self.desync_frame):
            self.culprits |= 1 << side
            self.desync_frame = frame

    def buffer_sizes(self) -> dict[str, int]:
        """Every buffer's size (each bounded; tests check the bounds)."""
        return {"inputs_p1": len(self.inputs[0]), "inputs_p2": len(self.inputs[1]), "own": len(self._own),
                "reports_p1": len(self._reports[0]), "reports_p2": len(self._reports[1]), "fresh": len(self.fresh)}
