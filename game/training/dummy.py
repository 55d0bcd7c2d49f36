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
  against low ones, chosen from the height of the threat that can connect
  first: the attacker's current move (``match.data.moves[f.move].height``)
  or its projectile still in flight (``match.stage.projectiles``), whichever
  arrives sooner, so a fireball flying in while its thrower sweeps is still
  blocked standing; the guard is held all the time so it is already up when
  the attack's first active frame arrives);
- ``mode`` sets both from one of :data:`MODES`: ``"stand"``, ``"crouch"``,
  ``"block_all"`` (guard all, stance kept), ``"block_none"`` (guard none);
- ``reversal``: one of :data:`REVERSALS`, what the dummy does the moment it
  recovers from a hit, a block, a knockdown or a throw: ``"off"``, or a move (``"lp"``, ``"hp"``,
  ``"lk"``, ``"hk"``, ``"hk_low"``, ``"fireball"``, ``"throw"``) or ``"jump"``, started on
  the first frame the dummy can act (the way a player tests whether a blocked
  move is punishable or a string leaves a gap).  Until then it keeps its guard
  and stance, and on that frame it gives the move's own input, one fresh press
  (down for the sweep, up for the jump, and no down for the others: the match
  reads an attack as pressed, and a crouching guard must not turn a reversal HK
  into a sweep), so the input history shows the guard held and one press.  A fireball reversal with the dummy's own
  fireball still in flight comes out as HP, as the match rules; recording and
  playback drive the dummy without it.

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

import math

from game.sim import FrameInput
from game.sim.inputs import DOWN, HK, HP, LK, LP, UP

#: 10 seconds at 60 Hz.
MAX_RECORD_FRAMES = 600
STANCES = ("stand", "crouch")
GUARDS = ("none", "all")
MODES = ("stand", "crouch", "block_all", "block_none")
REVERSALS = ("off", "lp", "hp", "lk", "hk", "hk_low", "fireball", "throw", "jump")
#: each reversal's buttons and the direction held on the frame it starts
_REVERSAL_INPUT = {"lp": (LP, 0), "hp": (HP, 0), "lk": (LK, 0), "hk": (HK, 0), "hk_low": (HK, DOWN),
                   "fireball": (LP | HP, 0), "throw": (LP | LK, 0), "jump": (0, UP)}

#: (m) how much farther a guard pose may reach toward a projectile than the pose it is chosen in
_POSE_MARGIN = 0.15

_NEUTRAL = FrameInput()
_CROUCH = FrameInput(down=True)
#: states the dummy recovers from (a reversal's moment; no refill meanwhile)
_STUNNED = ("hitstun", "blockstun", "knockdown", "thrown")
_GUARD_HIGH = FrameInput(guard=True)
_GUARD_LOW = FrameInput(guard=True, down=True)


class DummyController:
    """Decides one side's input every frame: stance/guard settings, or record and loop playback."""

    def __init__(self, side: int = 1, *, mode: str = "stand", max_frames: int = MAX_RECORD_FRAMES):
        if isinstance(side, bool) or side not in (0, 1):
            raise ValueError(f"DummyController: side must be 0 (P1) or 1 (P2), got {side!r}")
        if isinstance(max_frames, bool) or not isinstance(max_frames, int) \
                or not 1 <= max_frames <= MAX_RECORD_FRAMES:
            raise ValueError(f"DummyController: max_frames must be a whole number of frames "
                             f"1..{MAX_RECORD_FRAMES}, got {max_frames!r}")
        self.side = side
        self.max_frames = int(max_frames)
        self.stance = "stand"
        self.guard = "none"
        self.mode = mode
        self._reversal = "off"
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

    @property
    def reversal(self) -> str:
        return self._reversal

    @reversal.setter
    def reversal(self, what: str) -> None:
        if what not in REVERSALS:
            raise ValueError(f"DummyController.reversal: {what!r}; choose one of {', '.join(REVERSALS)}")
        self._reversal = what

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
        if match.phase != "fight":
            return
        match.timer = match.round_frames
        if all(f.state not in _STUNNED for f in match.fighters):
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
            base = self._guard_for(match)
        else:
            base = _CROUCH if self.stance == "crouch" else _NEUTRAL
        if self._reversal != "off":
            me = match.fighters[self.side]
            if me.state in _STUNNED and me.stun > 0:
                return self._reversal_input(me, base)
        return base

    def _reversal_input(self, me, base: FrameInput) -> FrameInput:
        """In hitstun, blockstun, a knockdown or a throw (hitstop included), with a reversal set:
        on the step that ends the stun (no hitstop left, one stun frame) the move's own input,
        a fresh press (its buttons were not held the step before); before it, the guard and
        stance of ``base`` alone.  A player holds the guard and presses the reversal once, on
        time: the input history shows one row for the guard and one for the press, not a row
        for every frame of a mashed button.  The press carries the move's own direction (the
        match reads an attack as pressed: HK pressed under a crouching guard would be the
        sweep's, and down + HK under a standing one a roundhouse's).  A dummy breaks no throw:
        with the throw reversal it presses lp + lk only as it gets up (the player practises
        landing throws)."""
        buttons, direction = _REVERSAL_INPUT[self._reversal]
        if me.hitstop == 0 and me.stun == 1:                # the match lets it act on this step
            return FrameInput.from_bits(buttons | direction)
        return base

    def _guard_for(self, match) -> FrameInput:
        """The guard for the opponent's threat that can connect first: its move (a threat
        from its first active frame to its end) or its projectile in flight; with neither,
        the stance's guard.  A fireball still flying when its thrower starts a sweep is
        blocked standing if it arrives first, the sweep crouching after it (the guard
        switches at once, in blockstun too); on a tie the projectile wins (it surely
        arrives, a move may not reach)."""
        op = match.fighters[1 - self.side]
        threats = []                                     # (frames until it can connect, rank, height)
        if op.move and op.move != "jump":
            mv = match.data.moves[op.move]
            nxt = op.mframe + (0 if op.hitstop else 1)   # the move's frame on the coming step
            threats.append((max(0, mv.startup - nxt) + op.hitstop, 1, mv.height))
        stage = getattr(match, "stage", None)
        flying = [pr for pr in getattr(stage, "projectiles", ()) if pr.owner == op.index] if stage is not None else []
        if flying:
            specs = [mv.projectile for mv in match.data.moves.values() if getattr(mv, "projectile", None) is not None]
            height = "low" if {sp.height for sp in specs} == {"low"} else "high"
            half = max(sp.half for sp in specs)
            me = match.fighters[self.side]
            boxes = me.limb_boxes().tolist()             # (L, 2, 3): how far the body reaches toward it
            for pr in flying:
                speed = math.hypot(pr.vx, pr.vz)
                if speed == 0:
                    threats.append((0, 0, height))
                    continue
                ux, uz = -pr.vx / speed, -pr.vz / speed  # from the dummy toward the projectile
                reach = max(max(lo[0] * ux, hi[0] * ux) + max(lo[2] * uz, hi[2] * uz)
                            for lo, hi in boxes) - (me.x * ux + me.z * uz)
                # box to body along its path, less a margin for the pose the guard itself takes
                gap = -((me.x - pr.x) * ux + (me.z - pr.z) * uz) - half - reach - _POSE_MARGIN
                if gap < -2 * (reach + half):
                    continue                             # flown past
                threats.append((max(0, math.ceil(gap / speed) - 1), 0, height))
        if threats:
            return _GUARD_LOW if min(threats)[2] == "low" else _GUARD_HIGH
        return _GUARD_LOW if self.stance == "crouch" else _GUARD_HIGH
