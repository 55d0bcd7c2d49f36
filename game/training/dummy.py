"""The training dummy: an input source for one side (P2 by default).  Pure logic, no pyglet.

The dummy decides its side's :class:`~game.sim.FrameInput` each frame from
the match state, as a player would, so the match itself needs no training
code.  Hook for the window loop (training mode)::

    dummy = DummyController(side=1)            # P2
    dummy.attach(match)                        # start point for reset(); call in the FIGHT phase
    ...each frame...
    p2 = dummy.next_input(match, p2_keys)      # p2_keys: the second player's live input
    events = match.step(p1_keys, p2)
    dummy.refill(match)                        # optional: endless health and round timer

Settings (plain attributes, change any time):

- ``stance``: ``"stand"`` or ``"crouch"`` (hold down);
- ``guard``: ``"none"`` (never blocks) or ``"all"`` (guards every attack
  correctly: a standing guard against high and mid attacks, a crouching guard
  against low ones, chosen from the attacker's current move height
  ``match.data.moves[f.move].height``, or, once the move is over, from the
  height of its projectile still in flight (``match.stage.projectiles``);
  the guard is held all the time so it is already up when the attack's
  first active frame arrives);
- ``mode`` sets both from one of :data:`MODES`: ``"stand"``, ``"crouch"``,
  ``"block_all"`` (guard all, stance kept), ``"block_none"`` (guard none).

Record and playback, as training modes do:

- ``start_recording()``: from the next frame on, the dummy passes the live
  input through and records it, for up to :data:`MAX_RECORD_FRAMES` (600
  frames = 10 s), then stops by itself (``stop_recording()`` stops earlier);
- ``start_playback()``: plays the recording in a loop (frame ``k`` of
  playback is recorded frame ``k % len``) until ``stop_playback()``;
- ``reset(match)``: puts the match back to the ``attach`` point (start
  positions, full health) and restarts the playback loop.

``phase`` is ``"idle"``, ``"recording"`` or ``"playback"``; ``recorded`` is
the tuple of recorded inputs.
"""

from __future__ import annotations

from game.sim import FrameInput

#: 10 seconds at 60 Hz.
MAX_RECORD_FRAMES = 600
STANCES = ("stand", "crouch")
GUARDS = ("none", "all")
MODES = ("stand", "crouch", "block_all", "block_none")

_NEUTRAL = FrameInput()
_CROUCH = FrameInput(down=True)
_GUARD_HIGH = FrameInput(guard=True)
_GUARD_LOW = FrameInput(guard=True, down=True)


class DummyController:
    """Decides one side's input every frame: stance/guard settings, or record and loop playback."""

    def __init__(self, side: int = 1, *, mode: str = "stand", max_frames: int = MAX_RECORD_FRAMES):
        if side not in (0, 1):
            raise ValueError(f"DummyController: side must be 0 (P1) or 1 (P2), got {side!r}")
        if not 1 <= int(max_frames) <= MAX_RECORD_FRAMES:
            raise ValueError(f"DummyController: max_frames must be 1..{MAX_RECORD_FRAMES}, got {max_frames!r}")
        self.side = side
        self.max_frames = int(max_frames)
        self.stance = "stand"
        self.guard = "none"
        self.mode = mode
        self.phase = "idle"
        self._rec: list[FrameInput] = []
        self._k = 0
        self._start = None

    # ------------------------------------------------------------ settings
    @property
    def mode(self) -> str:
        return "block_all" if self.guard == "all" else ("crouch" if self.stance == "crouch" else "stand")

    @mode.setter
    def mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"DummyController.mode: {mode!r}; choose one of {', '.join(MODES)}")
        if mode in STANCES:
            self.stance = mode
        else:
            self.guard = "all" if mode == "block_all" else "none"

    # ------------------------------------------------------------ record / playback
    @property
    def recorded(self) -> tuple[FrameInput, ...]:
        return tuple(self._rec)

    def start_recording(self) -> None:
        self._rec.clear()
        self.phase = "recording"

    def stop_recording(self) -> None:
        if self.phase == "recording":
            self.phase = "idle"

    def start_playback(self) -> None:
        if not self._rec:
            raise ValueError("DummyController.start_playback: nothing recorded; call start_recording() first")
        self.phase, self._k = "playback", 0

    def stop_playback(self) -> None:
        if self.phase == "playback":
            self.phase = "idle"

    # ------------------------------------------------------------ match hooks
    def attach(self, match) -> None:
        """Remember the match as it is now (start positions) for :meth:`reset`."""
        self._start = match.snapshot()

    def reset(self, match) -> None:
        """Back to the :meth:`attach` point (positions, health, timer); playback restarts."""
        if self._start is None:
            raise ValueError("DummyController.reset: call attach(match) first, at the start positions")
        match.restore(self._start)
        self._k = 0

    def refill(self, match) -> None:
        """Endless training: full health for both sides once neither is stunned, and a full round timer."""
        from game.sim.match import ROUND_FRAMES

        if match.phase != "fight":
            return
        match.timer = ROUND_FRAMES
        if all(f.state not in ("hitstun", "blockstun") for f in match.fighters):
            for f in match.fighters:
                f.health = f.max_health

    def next_input(self, match, live: FrameInput = _NEUTRAL) -> FrameInput:
        """This side's input for the coming step.  ``live`` is the player's own
        input for this side (recorded while recording, ignored otherwise)."""
        if self.phase == "recording":
            self._rec.append(live)
            if len(self._rec) >= self.max_frames:
                self.phase = "idle"
            return live
        if self.phase == "playback":
            inp = self._rec[self._k % len(self._rec)]
            self._k += 1
            return inp
        if self.guard == "all":
            return self._guard_for(match)
        return _CROUCH if self.stance == "crouch" else _NEUTRAL

    def _guard_for(self, match) -> FrameInput:
        """The opponent's move decides the guard; if it is not attacking, its projectile
        in flight does; otherwise the stance's guard."""
        op = match.fighters[1 - self.side]
        if op.move and op.move != "jump":
            return _GUARD_LOW if match.data.moves[op.move].height == "low" else _GUARD_HIGH
        stage = getattr(match, "stage", None)
        if stage is not None and any(pr.owner == op.index for pr in getattr(stage, "projectiles", ())):
            heights = {mv.projectile.height for mv in match.data.moves.values()
                       if getattr(mv, "projectile", None) is not None}
            return _GUARD_LOW if heights == {"low"} else _GUARD_HIGH
        return _GUARD_LOW if self.stance == "crouch" else _GUARD_HIGH
