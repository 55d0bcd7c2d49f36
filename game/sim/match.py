"""The deterministic two-fighter match: ``Match.step(p1, p2) -> events`` at 60 Hz.

Each step follows method A's frame order (A8), one visible stage each, one module each:

1. read the inputs (a CPU side computes its own from the match state and RNG): ``commands``;
2. advance each fighter's action (move frames, walking, stun, pushboxes, posing, projectile
   flight): ``actions``, ``movement``, ``posing``, ``throws``, ``projectiles``;
3. update every limb's range box by forward kinematics (A6): ``limbs``;
4. judge the attacker's active hitting limbs against all of the defender's
   limbs in one batched call (A2-A4): ``combat``;
5. compute the collision point of each contact (A7): ``combat``;
6. apply each move's hit at most once (damage, stun, knockback, hitstop): ``combat``, ``throws``;
7. return the events (and advance the round: ``rounds``).

The modules are plain functions over the match's public data (Box2D v3 style), so this
class holds the state and :meth:`Match.step` reads as the frame order.  All state lives in
the match (fighters' scalars and arrays, round state, the RNG and the CPU's plan);
``snapshot``/``restore`` copy it and ``state_hash`` digests it (``state``).  Nothing here
reads the clock or global RNG.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import actions, ai, combat, commands, posing, projectiles, rounds, state, throws
from .arena import Arena
from .commands import PAIR_LENIENCY
from .contacts import ClashContact, CrateContact, LimbContact, ProjectileContact, ThrowContact
from .data import GameData, load_game_data
from .debug import DebugDraw, draw_match
from .events import Event
from .fighter import LYING_STATES, Fighter
from .inputs import FrameInput
from .limbs import LimbBoxes
from .movement import JUMP_DRIFT
from .moves import ProjectileSpec
from .rounds import FPS, INTRO_FRAMES, KO_FRAMES, MATCH_ROUNDS, MAX_ROUNDS, ROUND_FRAMES, Phase
from .stage import Stage
from .state import Snapshot

#: Names other modules import from here.
__all__ = ["Match", "FPS", "INTRO_FRAMES", "KO_FRAMES", "MATCH_ROUNDS", "MAX_ROUNDS", "ROUND_FRAMES", "JUMP_DRIFT",
           "PAIR_LENIENCY", "LYING_STATES", "DEFAULT_BOUNDS"]

DEFAULT_BOUNDS = ((-14.2, -14.2), (14.2, 14.2))   # a bare floor's [[xmin, zmin], [xmax, zmax]]
NEUTRAL = FrameInput()                             # no button held: step()'s default input


class Match:
    """A match between two fighters (best of three unless ``Match.new`` says otherwise).  Create with :meth:`new`."""

    def __init__(self, data: GameData, seed: int, cpu: tuple[str | None, str | None],
                 stage: Stage | None = None, best_of: int = 3, timer: int = ROUND_FRAMES // FPS) -> None:
        self.data = data
        self.seed = _check_seed(seed)
        #: The match is best of this many rounds (``MATCH_ROUNDS``); a replay records it.
        self.rounds = _check_rounds(best_of)
        #: Round wins that take the match (a majority of ``rounds``).
        self.rounds_to_win = self.rounds // 2 + 1
        #: Seconds a round lasts (1 to 60); a replay records it.
        self.timer_seconds = _check_timer(timer)
        #: Frames a round lasts: the timer's start value.
        self.round_frames = self.timer_seconds * FPS
        self.cpu = tuple(cpu)
        if len(self.cpu) != 2:
            raise ValueError(f"Match: cpu must be a pair (p1_cpu, p2_cpu), got {cpu!r}")
        for side, level in zip(("p1_cpu", "p2_cpu"), self.cpu):
            if level is not None and (not isinstance(level, str) or level not in ai.LEVELS):
                raise ValueError(f"{side}: cpu level {level!r}: choose None (a player) or one of "
                                 f"{', '.join(map(repr, ai.LEVELS))}")
        #: The live arena (method C scene, method B crates, projectiles), or None: a bare floor.
        self.stage = stage
        #: ``(2, 2)`` ``[[xmin, zmin], [xmax, zmax]]``, read-only: the match keeps its own floats of it.
        self.bounds = np.array(stage.bounds if stage is not None else DEFAULT_BOUNDS, dtype=float)
        self.bounds.flags.writeable = False
        #: ``bounds`` as Python floats ``(x0, z0, x1, z1)``: positions stay Python floats.
        x0, z0, x1, z1 = (float(v) for v in self.bounds.ravel())
        self.bounds_xz = (x0, z0, x1, z1)
        #: Both fighters' limb range boxes of this frame (A6) and their pair judge (A2-A4).
        self.limbs = LimbBoxes(data.skeleton)
        self.fighters = (Fighter(0, data, self.limbs), Fighter(1, data, self.limbs))
        self.rng = np.random.Generator(np.random.PCG64(self.seed))
        self.ai_state = [ai.initial_state(), ai.initial_state()]
        self.frame = 0
        self.round = 0
        self.phase = Phase.INTRO
        self.phase_frame = 0
        self.timer = self.round_frames
        self.winner: int | None = None
        self.over = False
        #: The winner of the round being closed (for the win pose), None for a draw.
        self.round_winner: int | None = None
        self.last_inputs = (FrameInput(), FrameInput())
        #: This frame's overlapping (attacker, attack limbs, struck limbs) pairs with
        #: their judgement points and collision points, for the debug overlay.
        self.contacts: tuple[LimbContact, ...] = ()
        #: This frame's limb-vs-crate, projectile-vs-limb and projectile-vs-projectile (clash)
        #: contacts (A2-A4, A7), for the overlay.
        self.crate_contacts: tuple[CrateContact, ...] = ()
        self.projectile_contacts: tuple[ProjectileContact, ...] = ()
        self.clash_contacts: tuple[ClashContact, ...] = ()
        #: This frame's throw landing or break: the hand on the body and their A7 point (the
        #: grab itself is a limb contact, in ``contacts``), for the overlay.
        self.throw_contacts: tuple[ThrowContact, ...] = ()
        #: Events waiting for the next step to return (a round's ``RoundStart``).
        self.pending: list[Event] = []
        #: What the (first) projectile move launches, or None.
        self.projectile_spec: ProjectileSpec | None = next(
            (m.projectile for m in data.moves.values() if m.projectile is not None), None)
        #: The two-button commands and their buttons (the throw only where the data has one).
        self.pair_commands = commands.pair_commands(data.throw)
        #: Within a step: the index in its events of a landed throw's ``Hit``, -1 for none.
        self.throw_hit = -1
        #: Blend frames already computed (``posing.BlendMemo``): not state, a pure function's results.
        self.blends = posing.BlendMemo(len(data.skeleton.names))
        #: Each fighter's last lying rect with the body and facing it was made from
        #: (``movement.lying_rect``), or None: not state, a pure function's result.
        self.lying_rects: list[tuple[np.ndarray, float, float, tuple[float, float, float, float]] | None] = \
            [None, None]
        #: ``movement.resolve_pushboxes``' results by the exact bits of what they are a function
        #: of: not state, a pure function's results.
        self.pushbox_memo: dict[bytes, tuple[float, float, float, float]] = {}
        rounds.start_round(self)
        self.limbs.place(*self.fighters)

    # ------------------------------------------------------------------ API
    @classmethod
    def new(cls, seed: int = 0, *, p1_cpu: str | None = None, p2_cpu: str | None = None,
            arena: bool = True, assets_dir: str | None = None, rounds: int = 3, timer: int = 60) -> Match:
        """A fresh match.  ``p1_cpu``/``p2_cpu``: None for a player, or a CPU level
        (``'easy'``, ``'medium'``, ``'normal'``, ``'hard'``); a CPU side ignores the input given
        to :meth:`step` and plays its own (see ``last_inputs``).  ``arena=False``
        fights on a bare bounded floor (no scene, no crates, and a fireball launches nothing).
        ``rounds``: the match is best of 1, 3 or 5 rounds (it ends after ``MAX_ROUNDS`` rounds at
        most, draws included); ``timer``: seconds a round lasts, 1 to 60.

        ``seed``: an int ``>= 0`` (numpy ints too); anything else raises TypeError or
        ValueError naming ``seed`` (a replay stores seeds below ``2**64``)."""
        _check_seed(seed)
        _check_rounds(rounds)
        _check_timer(timer)
        if not isinstance(arena, (bool, np.bool_)):
            raise TypeError(f"Match.new: arena must be True (the arena) or False (a bare floor), "
                            f"got {type(arena).__name__} {arena!r}")
        stage = Stage.load(assets_dir) if arena else None
        return cls(load_game_data(assets_dir), seed, (p1_cpu, p2_cpu), stage, rounds, timer)

    @property
    def arena(self) -> Arena | None:
        """The static arena description (objects, bounds, the baked scene as loaded), or None.

        The live scene, with struck crates, is ``match.stage.scene``."""
        return None if self.stage is None else self.stage.arena

    def step(self, p1: FrameInput = NEUTRAL, p2: FrameInput = NEUTRAL) -> tuple[Event, ...]:
        """Advance one frame (1/60 s) in the A8 order; return this frame's events.

        ``p1``, ``p2``: :class:`FrameInput` (a CPU side's is ignored; anything else on a
        player's side raises TypeError).  Once ``over`` is True the match may still be
        stepped (the window does, for the K.O. and win poses): ``frame`` counts on, the
        inputs are ignored and no more events come."""
        events = self.pending
        self.pending = []
        self.throw_contacts = ()
        if self.stage is not None:
            self.stage.begin_frame()
        bits = commands.read_inputs(self, p1, p2)              # 1. inputs
        actions.advance(self, bits, events)                    # 2. actions
        self.limbs.place(*self.fighters)                       # 3. range boxes (A6)
        projectiles.spawn(self, events)                        #    a launch frame strikes at once (judged in 4)
        touches = combat.judge(self)                           # 4. A2-A4, batched
        contacts = combat.collision_points(self, touches)      # 5. A7
        self.contacts, self.crate_contacts, self.projectile_contacts, self.clash_contacts = contacts
        combat.apply_hits(self, touches, contacts, events)     # 6. hits, at most once per move
        if self.throw_hit >= 0:                                #    a throw landed in 2: its advantage now
            throws.settle_advantage(self, events)
        rounds.advance(self, events)
        self.frame += 1
        return tuple(events)                                   # 7. events

    def launch_point(self, i: int, spec: ProjectileSpec) -> np.ndarray:
        """``(3,)`` where fighter ``i`` would launch ``spec`` (a ``ProjectileSpec``) now: its
        limb's range-box centre, 0.2 m ahead along the facing."""
        return projectiles.launch_point(self, i, spec)

    def debug_draw(self, draw: DebugDraw) -> None:
        """Describe this frame to a :class:`~game.sim.debug.DebugDraw` (read-only):
        :func:`~game.sim.debug.draw_match`."""
        draw_match(self, draw)

    # ------------------------------------------------------------------ state
    def snapshot(self) -> Snapshot:
        """Everything that determines the future (a picklable :class:`~game.sim.state.Snapshot`):
        restore with :meth:`restore`."""
        return state.snapshot(self)

    def restore(self, snap: Snapshot) -> None:
        """Put the match back in the state of ``snap`` (from :meth:`snapshot`).

        ``snap`` may come from another match on the same arena (or the same bare floor)
        and fighter data; anything else raises ValueError before the match is changed."""
        state.restore(self, snap)

    def state_hash(self) -> str:
        """SHA-256 of the whole state, identical for the same seed and inputs in any process."""
        return state.state_hash(self)

    def __deepcopy__(self, memo: dict) -> Match:
        """``copy.deepcopy(match)``: an independent match in the same state (same
        ``state_hash()``, same future), made as a fresh match with the same data, seed, CPU
        config and arena that :meth:`restore` puts in this one's :meth:`snapshot`.  (A copy
        made attribute by attribute would leave its fighters reading this match's range
        boxes, and make the shared read-only tables writable private copies.)"""
        other = Match(self.data, self.seed, (self.cpu[0], self.cpu[1]),
                      None if self.stage is None else Stage(self.stage.arena), self.rounds, self.timer_seconds)
        memo[id(self)] = other
        other.restore(self.snapshot())
        return other

    def __copy__(self) -> Match:
        """``copy.copy(match)`` is :meth:`__deepcopy__`: a copy sharing the fighters and stage
        would step them for both matches."""
        return self.__deepcopy__({})

    def __reduce__(self) -> Any:
        raise TypeError("Match cannot be pickled: pickle match.snapshot() instead and restore it into a "
                        "Match.new(...) made with the same seed, CPU config and arena setting")


def _check_seed(seed: object) -> int:
    """``seed`` as a Python int, or TypeError / ValueError naming it (no float is truncated,
    no string parsed, no negative left to fail inside numpy's PCG64)."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"Match: seed must be an int >= 0, got {type(seed).__name__} {seed!r}; "
                        f"pass a whole number such as seed=0")
    seed = int(seed)
    if seed < 0:
        raise ValueError(f"Match: seed must be an int >= 0, got {seed}; pass a non-negative seed")
    return seed


def _check_rounds(rounds: object) -> int:
    """``rounds`` as an int of ``MATCH_ROUNDS``, or ValueError naming it."""
    if isinstance(rounds, (bool, np.bool_)) or not isinstance(rounds, (int, np.integer)) \
            or int(rounds) not in MATCH_ROUNDS:
        raise ValueError(f"Match: rounds must be one of {', '.join(map(str, MATCH_ROUNDS))} (best of), got {rounds!r}")
    return int(rounds)


def _check_timer(timer: object) -> int:
    """``timer`` (seconds) as an int from 1 to ``ROUND_FRAMES // FPS``, or ValueError naming it."""
    top = ROUND_FRAMES // FPS
    if isinstance(timer, (bool, np.bool_)) or not isinstance(timer, (int, np.integer)) or not 1 <= timer <= top:
        raise ValueError(f"Match: timer must be a whole number of seconds from 1 to {top}, got {timer!r}")
    return int(timer)
