"""Training mode logic (no pyglet): freeze and frame step, frame meter, frame
advantage, damage read-out, input history, and P2's input source.

The window side asks :meth:`TrainingMode.wants_step` each tick, gets P2's
input from :meth:`TrainingMode.p2_input` (the hook: by default the training
dummy, ``game.training.DummyController``; assign ``p2_source`` to plug in
any other callable ``(match, live) -> FrameInput``), and reports every step to
:meth:`TrainingMode.after_step`.
"""

from __future__ import annotations

from collections import deque

from game.sim import CrateStruck, FrameInput, Hit, MoveStarted, ThrowBreak, Whiff
from game.sim.data import load_game_data
from game.sim.inputs import BUTTONS

METER_LEN = 80          # cells shown per fighter
#: the input of each of the dummy's reversals (game.training.REVERSALS), which the status
#: line writes after the move's name (its ``label`` in moves.json): "sweep (↓HK)"
REVERSAL_INPUTS = {"lp": "LP", "hp": "HP", "lk": "LK", "hk": "HK", "hk_low": "↓HK", "fireball": "LP+HP",
                   "throw": "LP+LK", "jump": "↑"}
#: the training keys, as the HUD lists them
KEYS_TEXT = "P freeze  ·  . step  ·  R reset  ·  F6 stance/guard  ·  F9 reversal  ·  F7 record  ·  F8 playback"
HISTORY_LEN = 14        # input history rows per player

#: frame meter colours (as training modes use them)
PHASE_COLORS = {
    "startup": (0.25, 0.85, 0.45),
    "active": (0.95, 0.25, 0.25),
    "recovery": (0.25, 0.50, 0.95),
    "hitstun": (0.98, 0.85, 0.20),
    "knockdown": (0.72, 0.45, 0.95),     # floored by a sweep: cannot act, and nothing strikes it
    "blockstun": (0.95, 0.60, 0.15),
    "jump": (0.55, 0.80, 0.95),
    "hitstop": (0.90, 0.90, 0.92),       # frozen alone by a hitstop (a fist in a crate, a fireball's victim)
    "neutral": (0.22, 0.22, 0.25),
}
#: phases that make an exchange one of attack and defence: an exchange with none of them (a
#: plain jump) has no frame advantage to read
CONTEST_PHASES = frozenset(("startup", "active", "recovery", "hitstun", "knockdown", "blockstun"))


class FrameMeter:
    """One row of phases per fighter for the current exchange.

    An exchange starts on the first frame either fighter leaves neutral and
    ends when both are neutral again with no projectile in flight (a fireball
    thrown from afar lands after its thrower has recovered: its hit belongs to
    the throw's exchange).  Then ``advantage`` (P1's view) is the difference
    of the frames at which they became free to act, measured from the phases
    themselves (the HUD shows this one, and P2's row its negation; None while an
    exchange runs, whose rows are not the figure's; ``hit_advantage`` keeps the last
    ``Hit.advantage`` for comparison).  A hit resets the count: a fighter
    already free on the frame of a hit can act again from the next frame on,
    as :attr:`game.sim.Hit.advantage` counts it.  ``last_hit`` names what the
    exchange was about, its last hit, block, crate strike or whiff, a move by its name
    (its ``label`` in moves.json: "P1 sweep hit (low)"; cleared when an exchange
    starts, so an old hit's label never stands next to a new exchange's figure).  An
    exchange that holds no attack at all (a plain jump, no move and no stun on either
    side: nothing of :data:`CONTEST_PHASES`) has no advantage (None: the HUD shows
    none), and ``last_hit`` says only who jumped.

    The count starts on the exchange's first frame: a fighter neutral on it (the one
    a whiffed move is thrown at) acts from the next frame on at the earliest, as a
    fighter free on the frame of a hit does, so a whiff and a hit are counted alike
    (a whiffed jab, 6 + 3 + 10 frames, is -18: the opponent could act on each of the
    18 frames after the jab's first one).  ``runs`` holds each row's segments
    ``[phase, frames, first cell]``, counted in full even when the row has scrolled
    past the start of a long exchange (the HUD writes each segment's length on it).

    Hitstop frames on which *both* fighters are frozen are not shown (as
    training modes' frame meters do): no one's frame advances on them, so the
    rows read as the move table (a jab on hit: 6 startup, 3 active, 10
    recovery against 18 hitstun) and the advantage is unchanged.  A freeze of
    one fighter only (a projectile's victim, a fist in a crate) is shown, as a
    ``"hitstop"`` segment of the frozen fighter's row: the other one's frames go on
    meanwhile, and the frozen one's other segments still read as the move table (a jab
    into a crate: 6 startup, an active frame, the freeze, 2 active, 10 recovery).

    A knockdown (the sweep on hit) is its own phase, ``"knockdown"``
    (:meth:`Fighter.frame_phase <game.sim.fighter.Fighter.frame_phase>`), not hitstun: the
    floored fighter's row shows the fall, the lying and the getting-up as one segment of the
    sweep's hitstun frames, and its first cell after is its wake-up frame, where a meaty
    must land.  It is busy like hitstun, so the advantage is counted as after any hit (a
    sweep on hit: +22), and a meaty pressed meanwhile makes the exchange one with the sweep
    (its own hit then resets the count).  ``last_hit`` says ", knockdown" after such a hit.
    """

    def __init__(self):
        self.rows = (deque(maxlen=METER_LEN), deque(maxlen=METER_LEN))
        self.active = False
        self.advantage: int | None = None
        self.hit_advantage: int | None = None
        self.last_hit: str = ""
        self._free_at = [None, None]
        self._frame = 0
        #: per row, its segments ``[phase, frames, first cell]`` (those still on the meter)
        self.runs: tuple[list, list] = ([], [])
        self._stopped = (False, False)     # hitstop left after the last observed step
        self._contest = False              # this exchange has held an attack (CONTEST_PHASES)
        self._struck: set[int] = set()     # fighters whose move of this exchange struck a crate
        #: each move's name for people (``label`` in moves.json), once a match is observed
        self.names: dict[str, str] = {}

    @property
    def frames(self) -> int:
        """Cells recorded in this exchange (the rows keep the last METER_LEN of them)."""
        return self._frame

    def observe(self, match, events=()) -> None:
        """Record the step just taken from the match itself: phases, the fighters its
        hitstop froze, and whether a projectile is still in flight."""
        if not self.names:
            self.names = {key: mv.label for key, mv in match.data.moves.items()}
        frozen = self._stopped
        self._stopped = tuple(f.hitstop > 0 for f in match.fighters)
        stage = getattr(match, "stage", None)
        flying = bool(getattr(stage, "projectiles", ())) if stage is not None else False
        self.record(tuple(f.frame_phase() for f in match.fighters), events, frozen=frozen, in_flight=flying,
                    moves=tuple(f.move for f in match.fighters))

    def name(self, move: str) -> str:
        """``move``'s name for people (its ``label``), or the key itself before any match."""
        return self.names.get(move, move)

    def record(self, phases: tuple[str, str], events=(), frozen=(False, False), in_flight: bool = False,
               moves: tuple[str, str] = ("", "")) -> None:
        """One step: each fighter's phase after it, its events, which fighters its hitstop
        froze (``frozen``), whether a projectile is in flight after it, and each fighter's
        move after it (``moves``: what a crate strike names)."""
        busy = [p != "neutral" for p in phases]
        if any(busy) and not self.active:
            for r in self.rows:
                r.clear()
            self.active = True
            self._free_at = [None, None]
            self._frame = 0
            self.runs = ([], [])
            self.advantage = None         # the last exchange's figure goes with its rows
            self.hit_advantage = None
            self.last_hit = ""
            self._contest = False
            self._struck = set()
        hit = self._label(phases, events, moves)
        if not self.active:
            return
        if all(frozen):           # a hitstop freeze: nobody's frame advanced
            return
        # a fighter frozen alone (its fist in a crate, struck by a fireball): a hitstop cell
        shown = ["hitstop" if stop and p != "neutral" else p for p, stop in zip(phases, frozen)]
        self._contest = self._contest or any(p in CONTEST_PHASES for p in shown)
        started = {e.fighter for e in events if isinstance(e, MoveStarted)}
        for i, p in enumerate(shown):
            self.rows[i].append(p)
            runs = self.runs[i]
            # a move started in the startup of another (a two-button pair completed a frame or
            # two late: the jab, then the throw) is a segment of its own
            if runs and runs[-1][0] == p and i not in started:
                runs[-1][1] += 1
            else:
                runs.append([p, 1, self._frame])
            while runs[0][1] + runs[0][2] <= self._frame + 1 - METER_LEN:
                del runs[0]       # scrolled off the meter
            if busy[i]:
                self._free_at[i] = None
            elif hit or self._frame == 0:
                # free on the frame of a hit, or on the exchange's first: acts on the next one
                # at the earliest (Hit.advantage's count; a fighter can start a move on its
                # first neutral frame, so one neutral from the start could on the frame after)
                self._free_at[i] = self._frame + 1
            elif self._free_at[i] is None:
                self._free_at[i] = self._frame
        self._frame += 1
        if not any(busy) and not in_flight:
            self.active = False
            if not self._contest:         # a plain jump: no attack, no advantage to read
                jumped = [f"P{i + 1}" for i, runs in enumerate(self.runs) if any(r[0] == "jump" for r in runs)]
                self.last_hit = " and ".join(jumped) + " jump" if jumped else ""
                return
            a, b = self._free_at
            self.advantage = (b if b is not None else 0) - (a if a is not None else 0)

    def _label(self, phases: tuple[str, str], events, moves: tuple[str, str]) -> bool:
        """Name this step's hits, blocks, throw breaks, crate strikes and whiffs in
        ``last_hit``; True if a hit or block landed."""
        hit = False
        for e in events:
            if isinstance(e, Hit):
                hit = True
                self.hit_advantage = e.advantage if e.attacker == 0 else -e.advantage   # the sim's own figure
                who = 'P1' if e.attacker == 0 else 'P2'
                if e.height == "throw":     # unblockable: no guard, no height to name
                    self.last_hit = f"{who} {self.name(e.move)} landed"
                else:
                    self.last_hit = f"{who} {self.name(e.move)} {'blocked' if e.blocked else 'hit'} ({e.height})"
                if phases[e.defender] == "knockdown":
                    self.last_hit += ", knockdown"
            elif isinstance(e, ThrowBreak):
                self.last_hit = f"{'P1' if e.defender == 0 else 'P2'} broke the throw"
            elif isinstance(e, CrateStruck) and self.active:
                what = self.name(moves[e.fighter]) if moves[e.fighter] else "strike"
                self.last_hit = f"P{e.fighter + 1} {what} {'broke' if e.broke else 'struck'} a crate"
                self._struck.add(e.fighter)
            elif isinstance(e, MoveStarted):
                self._struck.discard(e.fighter)      # a new move: its own outcome
            elif isinstance(e, Whiff) and self.active and e.fighter not in self._struck:
                # (a move that struck a crate keeps that label: it missed the opponent, not everything)
                self.last_hit = f"{'P1' if e.fighter == 0 else 'P2'} {self.name(e.move)} whiff"
        return hit


class DamageCounter:
    """The damage read-out, from the sim's own hits: the last hit that did damage (who took
    it, how much), and that fighter's combo: its hits by the sim's count
    (:attr:`Fighter.combo <game.sim.fighter.Fighter>`: a hit landing while the defender is
    still in hitstun continues a combo, a block or a recovery ends it) and their total
    damage.  ``best`` is the highest combo damage each fighter has taken since training
    began (``best[1]``: what P1 did to the dummy)."""

    def __init__(self):
        self.defender: int | None = None     # who took the last damaging hit
        self.last = 0                        # its damage (all of that fighter's hits on its step)
        self.hits = [0, 0]                   # each fighter's current combo, in hits
        self.damage = [0, 0]                 # ... and its damage
        self.best = [0, 0]

    def observe(self, match, events) -> None:
        landed: tuple[list[int], list[int]] = ([], [])      # unblocked hits this step, per defender, in order
        for e in events:
            if isinstance(e, Hit) and not e.blocked:
                landed[e.defender].append(e.damage)
        for d, dmg in enumerate(landed):
            if not dmg:
                continue
            combo = match.fighters[d].combo  # after the step: its last hits are this combo's
            if combo > len(dmg):             # a combo going on from an earlier step
                self.damage[d] += sum(dmg)
            else:                            # a combo that began on this step
                self.damage[d] = sum(dmg[len(dmg) - combo:]) if combo else 0
            self.hits[d] = combo
            self.best[d] = max(self.best[d], self.damage[d])
            self.defender, self.last = d, sum(dmg)

    def describe(self) -> str:
        """``"P2 took 12   ·   combo 1 hit, 12 damage   ·   best 12"`` (empty before the first damage)."""
        d = self.defender
        if d is None:
            return ""
        n = self.hits[d]
        return (f"P{d + 1} took {self.last}   ·   combo {n} hit{'s' if n != 1 else ''}, {self.damage[d]} damage"
                f"   ·   best {self.best[d]}")


class InputHistory:
    """Rows ``[bits, frames held]``, newest first."""

    def __init__(self):
        self.rows: deque = deque(maxlen=HISTORY_LEN)

    def record(self, inp: FrameInput) -> None:
        bits = inp.bits
        if self.rows and self.rows[0][0] == bits:
            self.rows[0][1] += 1
        else:
            self.rows.appendleft([bits, 1])

    @staticmethod
    def describe(bits: int) -> str:
        """A short, fighter-relative label: arrows for directions, then buttons."""
        on = {name for i, name in enumerate(BUTTONS) if bits >> i & 1}
        f = ("forward" in on) - ("back" in on)
        u = ("up" in on) - ("down" in on)
        arrow = {(0, 0): "·", (1, 0): "→", (-1, 0): "←", (0, 1): "↑", (0, -1): "↓",
                 (1, 1): "↗", (-1, 1): "↖", (1, -1): "↘", (-1, -1): "↙"}[(f, u)]
        parts = [arrow]
        if "side_l" in on:
            parts.append("SL")
        if "side_r" in on:
            parts.append("SR")
        parts += [b.upper() for b in ("lp", "hp", "lk", "hk") if b in on]
        if "guard" in on:
            parts.append("G")
        return " ".join(parts)


class TrainingMode:
    """State of training mode; the window owns the match and calls these hooks."""

    def __init__(self):
        from game.training import DummyController  # pure logic, no pyglet

        self.dummy = DummyController(side=1)
        #: P2's input source hook: ``(match, live) -> FrameInput``
        self.p2_source = self.dummy.next_input
        self.frozen = False
        self._steps = 0
        self.meter = FrameMeter()
        self.damage = DamageCounter()
        self.history = (InputHistory(), InputHistory())
        #: each move's name for people (``label`` in moves.json): the shipped move data's
        #: until a match is attached, then that match's
        self.names = {key: mv.label for key, mv in load_game_data().moves.items()}
        self.meter.names = self.names

    # ---- stepping ------------------------------------------------------------
    def toggle_freeze(self) -> None:
        self.frozen = not self.frozen

    def request_step(self) -> None:
        """Period key: freeze if running, else advance exactly one frame."""
        if not self.frozen:
            self.frozen = True
        else:
            self._steps += 1

    def wants_step(self) -> bool:
        if not self.frozen:
            return True
        if self._steps > 0:
            self._steps -= 1
            return True
        return False

    # ---- the match ------------------------------------------------------------
    def attach(self, match) -> None:
        """Skip the round intro and remember the start for reset."""
        while match.phase == "intro":
            match.step(FrameInput(), FrameInput())
        self.dummy.attach(match)
        self.names = {key: mv.label for key, mv in match.data.moves.items()}
        self.meter = FrameMeter()
        self.meter.names = self.names
        self.damage = DamageCounter()
        self.history = (InputHistory(), InputHistory())

    def reset(self, match) -> None:
        self.dummy.reset(match)
        self.meter = FrameMeter()
        self.meter.names = self.names

    def p2_input(self, match, live: FrameInput) -> FrameInput:
        return self.p2_source(match, live)

    def after_step(self, match, events) -> None:
        self.damage.observe(match, events)      # before the refill: the combo as the hit left it
        self.dummy.refill(match)
        self.meter.observe(match, events)
        for h, inp in zip(self.history, match.last_inputs):
            h.record(inp)

    _DUMMY_CYCLE = (("stand", "none"), ("crouch", "none"), ("stand", "all"), ("crouch", "all"))

    def cycle_dummy(self) -> str:
        """F6: stand, crouch, stand + guard all, crouch + guard all."""
        cur = (self.dummy.stance, self.dummy.guard)
        i = self._DUMMY_CYCLE.index(cur) if cur in self._DUMMY_CYCLE else -1
        self.dummy.stance, self.dummy.guard = self._DUMMY_CYCLE[(i + 1) % len(self._DUMMY_CYCLE)]
        return self.status()

    def cycle_reversal(self) -> str:
        """F9: the dummy's reversal after a hit or a block: off, LP, HP, LK, HK, sweep, fireball, jump."""
        from game.training import REVERSALS

        d = self.dummy
        d.reversal = REVERSALS[(REVERSALS.index(d.reversal) + 1) % len(REVERSALS)]
        return self.status()

    def toggle_record(self) -> None:
        """F7: record the dummy (P1's keys drive P2 while recording), again to stop."""
        if self.dummy.phase == "recording":
            self.dummy.stop_recording()
        else:
            self.dummy.stop_playback()
            self.dummy.start_recording()

    def toggle_playback(self) -> None:
        """F8: loop the recording, again to stop."""
        if self.dummy.phase == "playback":
            self.dummy.stop_playback()
        elif self.dummy.recorded:
            self.dummy.stop_recording()
            self.dummy.start_playback()

    @property
    def recording(self) -> bool:
        return self.dummy.phase == "recording"

    def status(self) -> str:
        d = self.dummy
        rec = {"idle": "", "recording": f"  REC {len(d.recorded)}", "playback": "  PLAYBACK"}[d.phase]
        rev = "" if d.reversal == "off" else \
            f", reversal {self.names.get(d.reversal, d.reversal)} ({REVERSAL_INPUTS[d.reversal]})"
        return f"dummy: {d.stance}, guard {d.guard}{rev}{rec}" + ("   FROZEN (. step, P run)" if self.frozen else "")
