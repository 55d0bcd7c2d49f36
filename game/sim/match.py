"""The deterministic two-fighter match: ``Match.step(p1, p2) -> events`` at 60 Hz.

Each step follows method A's frame order (A8), one visible stage each:

1. read the inputs (a CPU side computes its own from the match state and RNG);
2. advance each fighter's action (move frames, walking, stun, pushboxes);
3. update every limb's range box by forward kinematics (A6);
4. judge the attacker's active hitting limbs against all of the defender's
   limbs in one batched call (A2-A4);
5. compute the collision point of each contact (A7);
6. apply each move's hit at most once (damage, stun, knockback, hitstop);
7. return the events.

All state lives in the match (fighters' scalars and arrays, round state, the
RNG and the CPU's plan); ``snapshot``/``restore`` copy it and
``state_hash`` digests it.  Nothing here reads the clock or global RNG.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import struct

import numpy as np

from game.collision import PairJudge, collision_point, collision_point_pair, judgement_points, padded_boxes

from . import ai
from .data import GameData, load_game_data
from .debug import ROLE_GUARD, ROLE_HIT, ROLE_HURT, draw_contact
from .events import (KO, CrateStruck, Fight, Hit, MatchOver, MoveStarted, ProjectileClash, ProjectileImpact,
                     ProjectileLaunched,
                     RoundEnd, RoundStart, ThrowBreak, ThrowGrab, TimeOver, Whiff)
from .fighter import DOWN_STATES, NEUTRAL_STATES, SCALARS, Fighter, frozen_value
from .inputs import ATTACK_BUTTONS, GUARD, HK, HP, LK, LP, FrameInput, axes
from .skeleton import euler_matrices
from .stage import GROUND_RECAST, Projectile, Stage

FPS = 60
INTRO_FRAMES = 90          # "ROUND n" then "FIGHT"; inputs are ignored
ROUND_FRAMES = 60 * FPS    # round timer
KO_FRAMES = 150            # K.O. / time-over pause before the next round
ROUNDS_TO_WIN = 2          # best of three
MAX_ROUNDS = 5             # draws give no point; the match ends after this many rounds
START_X = 1.5              # start positions (-START_X, 0) and (+START_X, 0)

WALK_FWD = 0.045           # m / frame
WALK_BACK = 0.034
SIDESTEP = 0.040
JUMP_DRIFT = 0.035
AIR_FALL = 0.1             # m / frame: a fighter hit out of a jump falls to the ground (about the jump's own descent)
SLIDE_DECAY = 0.8          # knockback velocity kept each frame (total travel = v0 / (1 - decay))
BLEND_FRAMES = 4           # pose blend when the animation source changes
BUFFER_FRAMES = 6          # an attack pressed this early is kept until the fighter can act
PAIR_LENIENCY = 2          # frames a two-button command's second press may come after the first
_SLOT = 16                 # bits per frame in Fighter.presses (the inputs have 11)
DEFAULT_BOUNDS = ((-14.2, -14.2), (14.2, 14.2))
LYING_PASSES = 4           # passes of bounds and obstacles that fit a knocked-down body (_place_lying)
CRATE_HITSTOP = 4          # the attacker's freeze when a fist or foot breaks through a crate wall

#: Attack priority when several buttons are pressed on one frame.
_ATTACK_ORDER = ((HK, "hk"), (HP, "hp"), (LK, "lk"), (LP, "lp"))
#: The buttons whose lone press starts a move that a second button may still turn into a
#: two-button command (lp + hp, lp + lk) within ``PAIR_LENIENCY`` frames (``Fighter.lone``).
_LONE = {"lp": LP, "hp": HP, "lk": LK}
_STATE_POSE = {"idle": "stance", "crouch": "crouch", "block_stand": "block_stand", "block_crouch": "block_crouch",
               "ko": "ko", "win": "win"}
#: states whose body lies on the ground (or is thrown onto it), kept out of walls, pillars and
#: crates (``_fit_lying``)
_LYING_STATES = ("knockdown", "ko", "thrown")
_LOOP_STATES = ("walk_fwd", "walk_back", "sidestep")
#: States in which a held guard button guards (set in ``Fighter.guard``).
_GUARD_STATES = ("block_stand", "block_crouch", "blockstun")


class Match:
    """A best-of-three match between two fighters.  Create with :meth:`new`."""

    def __init__(self, data: GameData, seed: int, cpu: tuple[str | None, str | None], stage: Stage | None = None):
        self.data = data
        self.seed = _check_seed(seed)
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
        self._bounds_xz = tuple(float(v) for v in self.bounds.ravel())   # x0, z0, x1, z1 as Python floats
        n = len(data.skeleton.names)
        self.fighters = (Fighter(self, 0, data.max_health, n), Fighter(self, 1, data.max_health, n))
        self.rng = np.random.Generator(np.random.PCG64(self.seed))
        self.ai_state = [ai.initial_state(), ai.initial_state()]
        self.frame = 0
        self.round = 0
        self.phase = "intro"
        self.phase_frame = 0
        self.timer = ROUND_FRAMES
        self.winner: int | None = None
        self.over = False
        self._round_winner: int | None = None    # of the round being closed (for the win pose)
        self.last_inputs = (FrameInput(), FrameInput())
        self._padded = padded_boxes(np.zeros((2, n, 2, 3)))   # (2, n, 2, 4): A1 rows for the judge ...
        self._boxes = self._padded[..., :3]                   # ... whose lanes 0-2 are the range boxes
        self._judge = PairJudge.all_pairs(n, n)               # A2-A4 on every (P1 limb, P2 limb) pair
        self._pairs_cache: tuple | None = None                # this frame's A2-A4 on those pairs, on demand
        self._rot = np.zeros((2, n, 3, 3))
        self._origin = np.zeros((2, n, 3))
        #: This frame's overlapping (attacker, attack limb, struck limb) pairs with
        #: their judgement points and collision points, for the debug overlay.
        self.contacts: tuple = ()
        #: This frame's limb-vs-crate, projectile-vs-limb and projectile-vs-projectile (clash)
        #: contacts (A2-A4, A7), for the overlay.
        self.crate_contacts: tuple = ()
        self.projectile_contacts: tuple = ()
        self.clash_contacts: tuple = ()
        #: This frame's throw landing or break: ``(hand box, body box, A7 point)`` (the grab itself
        #: is a limb contact, in ``contacts``), for the overlay.
        self.throw_contacts: tuple = ()
        self._pending: list = []
        self._projectile_move = next((n for n, m in data.moves.items() if m.projectile is not None), "")
        #: the throw (lp + lk; ``moves.json`` ``throw``), or None: then lp + lk is no command
        self._throw = data.throw
        #: two-button commands and their buttons (the throw only where the data has one)
        self._commands = {"fireball": LP | HP, **({data.throw.move: LP | LK} if data.throw is not None else {})}
        self._throw_hit = -1          # within a step: the index of a landed throw's Hit in its events
        self._start_round()
        self._update_range_boxes()

    # ------------------------------------------------------------------ API
    @classmethod
    def new(cls, seed: int = 0, *, p1_cpu: str | None = None, p2_cpu: str | None = None,
            arena: bool = True, assets_dir: str | None = None) -> "Match":
        """A fresh match.  ``p1_cpu``/``p2_cpu``: None for a player, or a CPU level
        (``'easy'``, ``'normal'``, ``'hard'``); a CPU side ignores the input given
        to :meth:`step` and plays its own (see ``last_inputs``).  ``arena=False``
        fights on a bare bounded floor (no scene, no crates, and a fireball launches nothing).

        ``seed``: an int ``>= 0`` (numpy ints too); anything else raises TypeError or
        ValueError naming ``seed`` (a replay stores seeds below ``2**64``)."""
        _check_seed(seed)
        if not isinstance(arena, (bool, np.bool_)):
            raise TypeError(f"Match.new: arena must be True (the arena) or False (a bare floor), "
                            f"got {type(arena).__name__} {arena!r}")
        stage = Stage.load(assets_dir) if arena else None
        return cls(load_game_data(assets_dir), seed, (p1_cpu, p2_cpu), stage)

    @property
    def arena(self):
        """The static arena description (objects, bounds, the baked scene as loaded), or None.

        The live scene, with struck crates, is ``match.stage.scene``."""
        return None if self.stage is None else self.stage.arena

    def step(self, p1: FrameInput = FrameInput(), p2: FrameInput = FrameInput()) -> tuple:
        """Advance one frame (1/60 s) in the A8 order; return this frame's events.

        ``p1``, ``p2``: :class:`FrameInput` (a CPU side's is ignored; anything else on a
        player's side raises TypeError).  Once ``over`` is True the match may still be
        stepped (the window does, for the K.O. and win poses): ``frame`` counts on, the
        inputs are ignored and no more events come."""
        events: list = self._pending
        self._pending = []
        self.throw_contacts = ()
        if self.stage is not None:
            self.stage.begin_frame()
        bits = self._read_inputs(p1, p2)                      # 1. inputs
        self._advance_actions(bits, events)                    # 2. actions
        self._update_range_boxes()                             # 3. range boxes (A6)
        self._spawn_projectiles(events)                        #    a throw's active frame launches (judged in 4)
        contacts = self._judge_collisions()                    # 4. A2-A4, batched
        points = self._collision_points(contacts)              # 5. A7
        self._apply_hits(contacts, points, events)             # 6. hits, at most once per move
        if self._throw_hit >= 0:                               #    a throw landed in 2: its advantage now
            self._throw_advantage(events)
        self._advance_round(events)
        self.frame += 1
        return tuple(events)                                   # 7. events

    # ------------------------------------------------------- 1. inputs
    def _read_inputs(self, p1: FrameInput, p2: FrameInput) -> tuple[int, int]:
        given = (p1, p2)
        out = []
        for i in (0, 1):
            if self.cpu[i] is not None:
                b = ai.decide(self, i, self.cpu[i])
            else:
                inp = given[i]
                if not isinstance(inp, FrameInput):
                    raise TypeError(f"Match.step: p{i + 1} must be a FrameInput, got {type(inp).__name__}")
                b = inp.bits
            out.append(b)
        self.last_inputs = (FrameInput.from_bits(out[0]), FrameInput.from_bits(out[1]))
        return out[0], out[1]

    # ------------------------------------------------------- 2. actions
    def _advance_actions(self, bits: tuple[int, int], events: list) -> None:
        live = self.phase == "fight"
        frozen = [self._advance_fighter(self.fighters[i], bits[i] if live else 0, events) for i in (0, 1)]
        if not live:        # no action, but a button held through the intro is no press when it ends
            for f, b in zip(self.fighters, bits):
                f.prev_bits = b
        self._resolve_pushboxes()
        for f, o in ((self.fighters[0], self.fighters[1]), (self.fighters[1], self.fighters[0])):
            if f.state in NEUTRAL_STATES and not frozen[f.index]:
                self._face(f, o)
        for f in self.fighters:
            if not frozen[f.index]:
                self._pose(f)
        for f in self.fighters:          # a body on the ground is kept out of walls, pillars and crates
            if f.state in _LYING_STATES and not frozen[f.index]:
                self._fit_lying(f)
        if self.stage is not None:
            self._advance_projectiles(events)
            for f in self.fighters:
                if abs(f.x - f.gx) + abs(f.z - f.gz) > GROUND_RECAST:
                    f.ground_y = self.stage.ground_height(f.x, f.z, f.ground_y)
                    f.gx, f.gz = f.x, f.z

    def _advance_fighter(self, f: Fighter, bits: int, events: list) -> bool:
        """Advance one fighter's action by a frame; True while hitstop freezes it."""
        pressed = bits & ~f.prev_bits
        f.prev_bits = bits
        f.input_bits = bits
        want = _attack_from(pressed, bits, f.presses, self._throw.move if self._throw is not None else "")
        if want:
            f.buf_move, f.buf_left = want, BUFFER_FRAMES
        elif f.buf_left > 0 and f.hitstop == 0:       # hitstop freezes the buffer too: a follow-up
            f.buf_left -= 1                            # pressed at contact is still there after it
            if f.buf_left == 0:
                f.buf_move = ""
        if f.hitstop > 0:                      # hitstop: frozen in place and pose
            f.guard = _guard_level(bits) if f.state in _GUARD_STATES else 0
            f.hitstop -= 1
            frozen = True
        else:
            self._act(f, bits, pressed, events)
            # The guard of this frame follows the state the fighter ends the frame in: held on
            # the first free frame after a stun or a move it blocks (the frame Hit.advantage
            # counts as free), and dropped on the first frame of an attack started from a block.
            f.guard = _guard_level(bits) if f.state in _GUARD_STATES else 0
            frozen = False
        # the presses of the last PAIR_LENIENCY frames, newest in the lowest slot
        f.presses = ((f.presses << _SLOT) | pressed) & ((1 << _SLOT * PAIR_LENIENCY) - 1)
        if f.lone and (not _pressed_within(f.presses) & f.lone or not f.move):
            f.lone = 0                   # the lone press left the pair's window, or its move was cut
        return frozen

    def _act(self, f: Fighter, bits: int, pressed: int, events: list) -> None:
        """The unfrozen part of :meth:`_advance_fighter`: slide, stun, move frames, neutral."""
        self._slide(f)
        if f.air > 0.0:                        # hit out of a jump: falling (also when knocked out)
            f.air = max(0.0, f.air - AIR_FALL)
        if f.state in ("ko", "win"):
            return
        if f.state == "thrown" and self._held(f, events):   # held (the tech window), slammed, lying, getting up
            return
        if f.stun > 0:                         # hitstun / blockstun
            f.stun -= 1
            if f.stun > 0:
                return
            f.state = "idle"
            f.combo = 0
        if f.move:
            mv = self.data.moves[f.move]
            if f.lone & self._commands.get(f.buf_move, 0) and self.phase == "fight" and \
                    self._buffered(f, bits) == f.buf_move:
                # Two buttons pressed a frame or two apart (keys and pads are rarely pressed on
                # the same 1/60 s; _attack_from reads them as the pair this frame): the move the
                # first one started alone from neutral becomes the pair's command (jab + hp the
                # fireball, jab or front kick + the other the throw), as if both had been pressed
                # now: the first move's steps are taken back.  Not where the pair cannot come out
                # now (a fireball still flying).
                back = float(mv.advance[:f.mframe].sum())
                f.x -= f.fx * back
                f.z -= f.fz * back
                self._start_move(f, f.buf_move, events)
                return
            if f.move_hit and f.buf_move and mv.cancel and self.phase == "fight":
                # A cancel: a buffered press of a move this one cancels into, once it has made
                # contact (hit or block; never a whiff), in its window: the new move starts now.
                # Only while the round is fought, as any buffered move (a press just before a
                # finishing hit, kept through its freeze, came out after the K.O.).
                move = self._buffered(f, bits)
                if mv.can_cancel(f.mframe, move):
                    self._start_move(f, move, events)
                    return
            step = float(mv.advance[f.mframe])
            if f.move == "jump":
                if f.mframe < mv.startup:       # pre-jump: the direction held until take-off counts
                    fwd = axes(bits)[0]
                    f.vx = f.fx * JUMP_DRIFT * fwd
                    f.vz = f.fz * JUMP_DRIFT * fwd
                f.x += f.vx
                f.z += f.vz
            elif step:
                f.x += f.fx * step
                f.z += f.fz * step
            f.mframe += 1
            # a projectile move's outcome is its projectile's (Hit, ProjectileImpact, ProjectileClash)
            if mv.active and f.mframe == mv.startup + mv.active and not f.move_hit and mv.projectile is None:
                events.append(Whiff(self.frame, f.index, f.move))
            if f.mframe < mv.total:
                return
            f.move = ""
            f.state = "idle"
            f.vx = f.vz = 0.0
        if self.phase != "fight":
            f.state = "idle"
            return
        # Neutral: a buffered attack first, then guard, jump, crouch, sidestep, walk.
        fwd, up, side = axes(bits)
        if f.buf_move:
            move = self._buffered(f, bits)
            self._start_move(f, move, events)
            # a lone lp, hp or lk pressed within the window (on this frame, or buffered a frame
            # or two before it): the pair may still complete (PAIR_LENIENCY frames from that press)
            button = _LONE.get(move, 0)
            if button & (pressed | _pressed_within(f.presses)):
                f.lone = button
            return
        if bits & GUARD:
            f.state = "block_crouch" if up < 0 else "block_stand"
        elif up > 0:                           # held, not only pressed: up held through a
            self._start_move(f, "jump", events)  # stun or a landing jumps on the first free frame
            f.vx = f.fx * JUMP_DRIFT * fwd
            f.vz = f.fz * JUMP_DRIFT * fwd
        elif up < 0:
            f.state = "crouch"
        elif side:
            f.state = "sidestep"
            f.x += -f.fz * SIDESTEP * side
            f.z += f.fx * SIDESTEP * side
            f.loop_t += 1
        elif fwd:
            f.state = "walk_fwd" if fwd > 0 else "walk_back"
            speed = WALK_FWD if fwd > 0 else -WALK_BACK
            f.x += f.fx * speed
            f.z += f.fz * speed
            f.loop_t += 1
        else:
            f.state = "idle"
        return

    def _buffered(self, f: Fighter, bits: int) -> str:
        """The move ``f``'s buffered press starts now: the command as it was pressed (down + hk
        is the sweep, read at the press: ``_attack_from``), except that a fireball press while
        its own fireball flies comes out as its heavy punch (one at a time)."""
        move = f.buf_move
        if move == "fireball" and self.stage is not None and \
                any(p.owner == f.index for p in self.stage.projectiles):
            return "hp"
        return move

    def _start_move(self, f: Fighter, move: str, events: list) -> None:
        f.move, f.mframe, f.move_hit, f.crate_hit, f.lone = move, 0, False, False, 0
        f.state = "attack" if move != "jump" else "jump"
        f.buf_move, f.buf_left = "", 0
        events.append(MoveStarted(self.frame, f.index, move))

    def _slide(self, f: Fighter) -> None:
        if f.move == "jump" or (f.vx == 0.0 and f.vz == 0.0):
            return
        f.x += f.vx
        f.z += f.vz
        f.vx *= SLIDE_DECAY
        f.vz *= SLIDE_DECAY
        if f.vx * f.vx + f.vz * f.vz < 1e-8:
            f.vx = f.vz = 0.0

    def _face(self, f: Fighter, o: Fighter) -> None:
        dx, dz = o.x - f.x, o.z - f.z
        d = math.hypot(dx, dz)
        if d > 1e-9:
            f.fx, f.fz = dx / d, dz / d

    def _resolve_pushboxes(self) -> None:
        """Keep the two pushbox circles apart, and both inside the arena and out of obstacles."""
        a, b = self.fighters
        r = self.data.pushbox_radius
        for _ in range(2):
            dx, dz = b.x - a.x, b.z - a.z
            d = math.hypot(dx, dz)
            if d < 2 * r:
                if d < 1e-9:
                    dx, dz, d = a.fx, a.fz, 1.0
                push = 0.5 * (2 * r - d) / d
                a.x -= dx * push
                a.z -= dz * push
                b.x += dx * push
                b.z += dz * push
            for f in self.fighters:
                f.x, f.z = self._constrain(f.x, f.z)
        # An obstacle pushing one of them back into the pair's overlap leaves some of it: the one
        # that can give way does, by the whole of it (both: half each, as above).
        dx, dz = b.x - a.x, b.z - a.z
        d = math.hypot(dx, dz)
        if 1e-9 < d < 2 * r:
            over = (2 * r - d) / d
            a_free = self._is_free(a.x - dx * over, a.z - dz * over)
            b_free = self._is_free(b.x + dx * over, b.z + dz * over)
            share = 0.5 if a_free and b_free else 1.0
            if a_free:
                a.x, a.z = a.x - dx * over * share, a.z - dz * over * share
            if b_free:
                b.x, b.z = b.x + dx * over * share, b.z + dz * over * share

    def _lying_rect(self, f: Fighter) -> tuple[float, float, float, float]:
        """``(x0, z0, x1, z1)``: the x–z rect, as offsets from ``(f.x, f.z)``, of every limb range box
        ``f``'s pose of this frame will have (stage 3 places the same corners, ``Skeleton.place_rows``),
        grown to hold its pushbox circle too."""
        c = f._body[4:]                           # (8, L, 4): each limb solid's corners, body frame
        x, z = c[..., 0], c[..., 2]
        fx, fz, r = float(f.fx), float(f.fz), self.data.pushbox_radius
        wx, wz = x * fx - z * fz, x * fz + z * fx  # turned to the facing, as placed
        return (min(float(wx.min()), -r), min(float(wz.min()), -r),
                max(float(wx.max()), r), max(float(wz.max()), r))

    def _place_lying(self, x: float, z: float, rect: tuple[float, float, float, float]) -> tuple[float, float] | None:
        """``(x, z)`` moved so that the body rect ``rect`` (offsets, :meth:`_lying_rect`) lies inside
        the arena bounds and out of every obstacle, each obstacle by the least move; None when a
        few passes find no such place (a gap narrower than the body)."""
        ex0, ez0, ex1, ez1 = rect
        x0, z0, x1, z1 = self._bounds_xz
        for _ in range(LYING_PASSES):
            nx, nz = min(max(x, x0 - ex0), x1 - ex1), min(max(z, z0 - ez0), z1 - ez1)
            moved = nx != x or nz != z
            x, z = nx, nz
            if self.stage is not None:
                x, z, pushed = self.stage.push_rect_out(x, z, rect)
                moved = moved or pushed
            if not moved:
                return x, z
        return None

    def _fit_lying(self, f: Fighter) -> None:
        """A knocked-down fighter's body (falling, lying, getting up: up to about 0.9 m behind and
        beside its centre, where the pushbox is 0.3) is kept inside the arena and out of walls,
        pillars and standing crates: the fighter slides away from them to where every limb range
        box of this frame's pose fits, as a fighting game's knockdown pushbox does.  The opponent's
        pushbox gives way within its own constraint (a lying opponent's within its body's); with
        no room for both, ``f`` stays where it is this frame.  Only while knocked down or knocked
        out (the K.O.'s body lies the same way), so an ordinary frame costs one state test per
        fighter."""
        rect = self._lying_rect(f)
        place = self._place_lying(f.x, f.z, rect)
        if place is None or place == (f.x, f.z):
            return
        x, z = place
        o = self.fighters[1 - f.index]
        r2 = 2 * self.data.pushbox_radius
        dx, dz = o.x - x, o.z - z
        d = math.hypot(dx, dz)
        if d < r2 - 1e-9:
            if d < 1e-9:
                dx, dz, d = f.fx, f.fz, 1.0
            ox, oz = x + dx / d * r2, z + dz / d * r2
            if o.state in _LYING_STATES:
                to = self._place_lying(ox, oz, self._lying_rect(o))
            else:
                to = self._constrain(ox, oz)
            if to is None or math.hypot(to[0] - x, to[1] - z) < r2 - 1e-9:
                return
            o.x, o.z = to
        f.x, f.z = x, z

    def _is_free(self, x: float, z: float) -> bool:
        """A pushbox centred here touches no obstacle and stays in bounds (to rounding)."""
        cx, cz = self._constrain(x, z)
        return abs(cx - x) + abs(cz - z) < 1e-9

    def _constrain(self, x: float, z: float) -> tuple[float, float]:
        """A pushbox centre moved out of the arena's obstacles, then into its bounds."""
        r = self.data.pushbox_radius
        if self.stage is not None:
            x, z = self.stage.push_out(x, z, r)
        x0, z0, x1, z1 = self._bounds_xz   # plain floats: positions stay Python floats
        return min(max(x, x0 + r), x1 - r), min(max(z, z0 + r), z1 - r)

    def _target_pose(self, f: Fighter) -> tuple[str, np.ndarray, np.ndarray, np.ndarray]:
        """The animation source of this frame: (key, angles (L, 3), rotations (L, 3, 3),
        body-frame FK (12, L, 4))."""
        d = self.data
        if f.move:
            mv = d.moves[f.move]
            return "m:" + f.move, mv.angles[f.mframe], mv.rot[f.mframe], mv.body[f.mframe]
        if f.state in _LOOP_STATES:
            i = f.loop_t % d.loops[f.state].shape[0]
            return "l:" + f.state, d.loops[f.state][i], d.loop_rot[f.state][i], d.loop_body[f.state][i]
        if f.state == "knockdown":
            # frame 0 on the hit's (and its hitstop's) frames, the last one on the frame before
            # the fighter is free: the stun counts down the animation's own length
            i = min(max(d.knockdown_frames - f.stun, 0), d.knockdown_frames - 1)
            return "d:knockdown", d.knockdown[i], d.knockdown_rot[i], d.knockdown_body[i]
        if f.state == "thrown":                # the same, from the grab
            n = d.thrown.shape[0]
            i = min(max(n - f.stun, 0), n - 1)
            return "d:thrown", d.thrown[i], d.thrown_rot[i], d.thrown_body[i]
        if f.state == "hitstun":
            key = "hit_" + f.stun_height
        elif f.state == "blockstun":
            key = "block_crouch" if f.guard == 2 else "block_stand"
        else:
            key = _STATE_POSE.get(f.state, "stance")
        return key, d.poses[key], d.pose_rot[key], d.pose_body[key]

    def _pose(self, f: Fighter) -> None:
        """Set the fighter's joint angles and rotations for this frame, blending
        for a few frames when the animation source changes.

        The four arrays are replaced, never written in place, and all are read-only (table
        rows, or a blend's fresh arrays made so): ``f.pose`` and the others hand out no
        writable view of the match's state, and a snapshot keeps them by reference."""
        key, target, rot, body = self._target_pose(f)
        if key != f.pose_key:
            f.pose_key = key
            f._pose_from = f._pose
            f.blend_left = BLEND_FRAMES if f.frame_phase() != "active" else 0
        if f.blend_left > 0:
            f.blend_left -= 1
            w = 1.0 - f.blend_left / BLEND_FRAMES
            pose = f._pose_from + (target - f._pose_from) * w
            pose.flags.writeable = False
            local = euler_matrices(pose)
            local.flags.writeable = False
            fk = self.data.skeleton.body(local)
            fk.flags.writeable = False
            f._pose, f._local, f._body = pose, local, fk
        else:
            f._pose, f._local, f._body = target, rot, body

    # ------------------------------------------------------- 3. range boxes
    def _update_range_boxes(self) -> None:
        """A6: every limb's range box from its rotated solid's eight corners.

        Each fighter's pose in its own frame (``f.body``, forward kinematics) comes from
        the animation tables, or was computed this frame for a blend; here both bodies
        are turned to their facing and set on the ground, corners included."""
        a, b = self.fighters
        self._rot, self._origin, self._padded = self.data.skeleton.place_rows(
            np.concatenate((a._body[None], b._body[None])),
            [(float(f.fx), float(f.fz), float(f.x), float(f.ground_y), float(f.z), self._lift(f)) for f in (a, b)])
        self._boxes = self._padded[..., :3]          # (2, L, 2, 3), a view: one array per frame
        self._pairs_cache = None

    def _lift(self, f: Fighter) -> float:
        """The fighter's height above the ground (m): its jump's, or what is left of the fall
        from a jump it was hit out of (``Fighter.air``)."""
        return float(self.data.moves["jump"].air[f.mframe]) if f.move == "jump" else float(f.air)

    def _advance_projectiles(self, events: list) -> None:
        """Move each projectile one frame, unless the step is blocked (:meth:`_flight_blocked`:
        its centre's any-hit ray, C8, at its level, C9, so low props let it through and
        pillars, walls and crates stop it; and its cube against the crates' slabs, B7, so it
        passes only a hole larger than itself)."""
        alive = []
        spec = self.data.moves[self._projectile_move].projectile if self.stage.projectiles else None
        for p in self.stage.projectiles:
            blocked, point = self._flight_blocked((p.x, p.y, p.z), (p.vx, p.vz), spec, sweep=True)
            if blocked:
                start = np.array([p.x, p.y, p.z])
                events.append(ProjectileImpact(self.frame, p.owner, _read_only(start),
                                               _read_only(start + np.array([p.vx, 0.0, p.vz])), spec.level, point))
            elif p.age + 1 < spec.lifetime:
                alive.append(Projectile(p.owner, p.x + p.vx, p.y, p.z + p.vz, p.vx, p.vz, p.age + 1))
        self.stage.projectiles = tuple(alive)

    def _flight_blocked(self, start, step, spec, sweep: bool) -> tuple[bool, np.ndarray | None]:
        """Does a projectile going from ``start`` (x, y, z) by ``step`` (dx, dz) stop?  The
        segment is its centre's any-hit ray (C8) at its level (C9): pillars, walls, crates
        through their holes (B7).  The ray is the centre only: its range box at the end (the
        cube ``_judge_projectiles`` judges) is also judged against the crates' small boxes
        (A2-A4, B7, at the same level, C9), so a hole smaller than the projectile stops it
        at the rim.  Returns ``(blocked, point)``: the A7 point of the cube and the small box
        it met, or None when the ray stopped it (presentation finds where, C7)."""
        (x0, y, z0), (dx, dz) = start, step
        if self.stage.path_blocked((x0, y, z0), (dx, 0.0, dz), spec.level):   # floats: no arrays
            return True, None
        h, x, z = spec.half, x0 + dx, z0 + dz
        lo, hi = [x - h, y - h, z - h], [x + h, y + h, z + h]
        # Tunnelling (y does not change), with ``sweep`` (a flight step; the cube at ``start``
        # was judged by the step before): on each of x, z the start and end cubes are 2h wide
        # and |d| apart.  (a) |dx|, |dz| <= 2h (the fireball: 0.16 <= 0.28): they overlap on
        # both axes, so no slab between them is missed: a step along an axis sweeps exactly
        # their union, and a diagonal step sweeps besides only two corner triangles beside its
        # path (legs |dx|, |dz|, a box w x d fits iff w/|dx| + d/|dz| <= 1: a sliver the cube's
        # edge grazes, which the centre ray and the next cube go by).  (b) |dx| or |dz| > 2h: a
        # gap between the cubes that a wall (the compound's thickness, 0.08 m) could lie in, so
        # the box judged is the bounding box of the two cubes, the whole sweep.  Without
        # ``sweep`` (the launch: from the body to the launch point, the hand's reach) the ray
        # alone covers the way there, and the cube at the launch point is judged.
        if sweep and (abs(dx) > 2.0 * h or abs(dz) > 2.0 * h):
            lo = [min(lo[0], x0 - h), lo[1], min(lo[2], z0 - h)]
            hi = [max(hi[0], x0 + h), hi[1], max(hi[2], z0 + h)]
        stop = self.stage.box_blocked((lo, hi), spec.level)
        if stop is None:
            return False, None
        return True, _read_only(collision_point_pair((lo, hi), stop[1]))   # A7

    # ------------------------------------------------------- 4. judge (A2-A4)
    def _pairs(self, attacker: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A2-A4 on every (attacker limb, defender limb) pair of this frame: ``ok (L, L)``
        bool and the judgement points ``j1, j2 (L, L, 4)`` (pad lanes past 3).

        All ``L x L`` pairs are judged in one :class:`PairJudge` call, made by the first
        check of a frame that needs it (most frames have no active hitting limb), and serve
        both fighters: the verdict and the judgement points are symmetric in the two boxes,
        so P2's view is P1's transposed."""
        if self._pairs_cache is None:
            # (L, L), (L, L, 4) x 2: views of the judge's buffers, refilled by its next call,
            # which comes after place() or restore() has dropped this cache.
            self._pairs_cache = self._judge.check(self._padded.reshape(-1, 4))
        ok, j1, j2 = self._pairs_cache
        if attacker == 0:
            return ok, j1, j2
        return ok.T, j1.transpose(1, 0, 2), j2.transpose(1, 0, 2)

    def _judge_collisions(self) -> tuple[list, list, list, list]:
        """A2-A4, one batched call per question:

        * each attacker on an active frame whose move has not hit yet: its
          hitting limbs against all of the defender's limbs;
        * the same limbs against every standing crate's small boxes (B7), once
          per move;
        * the two players' projectiles against each other: meeting, they cancel (a clash)
          and strike no one;
        * each other projectile's range box against the other fighter's limbs.

        Fighters are struck only in the FIGHT phase (crates always), and never while knocked
        down (falling, lying or getting up: ``Fighter.state == "knockdown"``) or thrown.  A
        throw's grab is judged like any move's hitting limbs (A2-A4 on the same pairs); it
        strikes no crate (open hands), and ``_apply_hits`` decides whether a contact grabs.
        """
        limb, crate, proj, clash = [], [], [], []
        # Once a round is decided (K.O. or time), no attack lands on a fighter any more: not on
        # the knocked-out body, not on the winner (the result stands as announced).
        live = self.phase == "fight"
        for f in self.fighters:
            if not f.move or f.hitstop:
                continue
            mv = self.data.moves[f.move]
            if not mv.hit_limbs or not mv.is_active(f.mframe):
                continue
            hits = list(mv.hit_limbs)
            hit_boxes = self._boxes[f.index, hits]                                # (K, 2, 3)
            if not f.move_hit and live and self.fighters[1 - f.index].state not in DOWN_STATES:
                ok, j1, j2 = self._pairs(f.index)                            # (L, L), (L, L, 4) x 2
                ok = ok[hits]                                                # (K, L): hitting limbs only
                if ok.any():
                    k, l = np.nonzero(ok)
                    ks = np.asarray(hits)[k]
                    limb.append((f.index, ks, l, j1[ks, l, :3], j2[ks, l, :3], mv))
            if self.stage is not None and not f.crate_hit and not self._is_grab(mv):
                touch = self.stage.touch(hit_boxes, origin=(f.x, f.z))   # B3: through the wall facing f
                if touch is not None:
                    k, c, box = touch
                    crate.append((f.index, mv.hit_limbs[k], c, box))
        if live and self.stage is not None and self.stage.projectiles:   # decided: it flies on through
            self._judge_projectiles(proj, clash)
        return limb, crate, proj, clash

    def _judge_projectiles(self, proj: list, clash: list) -> None:
        """A2-A4 for the projectiles in flight (``_judge_collisions``' last two questions).

        A projectile flies for many frames and touches no one on almost all of them, so the
        verdict (A4: ``j2 >= j1`` on every axis, touching counts) is taken on Python floats:
        ``min(a1, b1) >= max(a0, b0)`` is ``a1 >= b0 and b1 >= a0`` for boxes whose own
        ``min <= max`` (the projectile's cube, a limb's range box: A6), and a NaN fails it
        either way.  Only a touching pair goes on to numpy for its judgement points (A2, A3)."""
        ps = self.stage.projectiles
        half = self.data.moves[self._projectile_move].projectile.half
        cubes = [((p.x - half, p.y - half, p.z - half), (p.x + half, p.y + half, p.z + half)) for p in ps]
        # one projectile per fighter at most: a clash is the two of them overlapping, and strikes no one
        if len(ps) == 2 and ps[0].owner != ps[1].owner and _touch(cubes[0], cubes[1]):
            pbox = np.array(cubes)                                                      # (P, 2, 3)
            clash.append((0, 1, pbox[0], pbox[1]))
            return
        pbox = None
        for i, (p, cube) in enumerate(zip(ps, cubes)):
            v = 1 - p.owner
            # a knocked-down or thrown fighter is struck by nothing: a projectile flies over (through) it
            if self.fighters[v].state in DOWN_STATES:
                continue
            (ax0, ay0, az0), (ax1, ay1, az1) = cube                                   # _touch, inlined
            hit = [l for l, ((bx0, by0, bz0), (bx1, by1, bz1)) in enumerate(self._boxes[v].tolist())
                   if ax1 >= bx0 and bx1 >= ax0 and ay1 >= by0 and by1 >= ay0 and az1 >= bz0 and bz1 >= az0]
            if not hit:
                continue
            if pbox is None:
                pbox = np.array(cubes)                                                  # (P, 2, 3)
            l = np.array(hit)
            j1, j2 = judgement_points(pbox[i], self._boxes[v, l])                      # (n, 3) each
            best = int(l[np.argmax(np.prod(np.maximum(j2 - j1, 0.0), axis=-1))])
            proj.append((i, p, best, pbox[i]))

    # ------------------------------------------------------- 5. points (A7)
    def _collision_points(self, contacts: tuple[list, list, list, list]) -> tuple[list, list, list, list]:
        """A7 for every contact: limb pairs, limb vs crate small box, projectile vs limb,
        projectile vs projectile."""
        if not any(contacts):
            return _NO_POINTS
        limb, crate, proj, clash = contacts
        lp = [collision_point(self._boxes[atk, ks], self._boxes[1 - atk, ls]) for atk, ks, ls, *_ in limb]
        cp = [collision_point_pair(self.stage.reach(c, self._boxes[atk, k], (self.fighters[atk].x, self.fighters[atk].z)), box)
              for atk, k, c, box in crate]
        pp = [collision_point(pbox, self._boxes[1 - p.owner, l]) for _i, p, l, pbox in proj]
        xp = [collision_point_pair(a, b) for _i, _j, a, b in clash]
        return lp, cp, pp, xp

    # ------------------------------------------------------- 6. apply hits
    def _apply_hits(self, contacts: tuple[list, list, list, list], points: tuple[list, list, list, list],
                    events: list) -> None:
        if not any(contacts):            # most frames: nothing touches, no event to add or amend
            self.contacts = self.crate_contacts = self.projectile_contacts = self.clash_contacts = ()
            return
        limb, crate, proj, clash = contacts
        lpts, cpts, ppts, xpts = points
        self.contacts = tuple((c[0], c[1], c[2], c[3], c[4], p) for c, p in zip(limb, lpts))
        self.crate_contacts = tuple((atk, k, c, box, p) for (atk, k, c, box), p in zip(crate, cpts))
        self.projectile_contacts = tuple((p.owner, pbox, l, pt) for (_i, p, l, pbox), pt in zip(proj, ppts))
        self.clash_contacts = tuple((a, b, pt) for (_i, _j, a, b), pt in zip(clash, xpts))
        names = self.data.skeleton.names
        first = len(events)
        # Every contact was judged on this frame's poses, so a trade lands both ways.
        grabs = []
        for (atk, ks, ls, j1, j2, mv), pts in zip(limb, lpts):
            # The pair with the largest overlap volume is the one that lands.
            best = int(np.argmax(np.prod(np.maximum(j2 - j1, 0.0), axis=-1)))
            if self._is_grab(mv):          # decided below, once every strike of the frame has landed
                grabs.append((atk, pts[best]))
                continue
            self.fighters[atk].move_hit = True
            self._land(atk, mv, names[int(ks[best])], names[int(ls[best])], pts[best], True, events)
        gone = set()
        for (i, j, _a, _b), pt in zip(clash, xpts):
            point = np.array(pt)
            point.flags.writeable = False
            events.append(ProjectileClash(self.frame, point))
            gone.update((i, j))
        for (i, p, l, _box), pt in zip(proj, ppts):
            spec = self.data.moves[self._projectile_move].projectile
            self._land(p.owner, spec, spec.name, names[l], pt, False, events)
            gone.add(i)
        if gone:
            self.stage.projectiles = tuple(p for i, p in enumerate(self.stage.projectiles) if i not in gone)
        struck = [j for j in range(first, len(events)) if isinstance(events[j], Hit)]
        if len({events[j].defender for j in struck}) == 2:
            self._trade(events, struck)
        if grabs:
            self._grabs(grabs, events)
        for (atk, k, c, _box), pt in zip(crate, cpts):
            a = self.fighters[atk]
            result, broke = self.stage.strike(c, self._boxes[atk, k], origin=(a.x, a.z))
            a.crate_hit = True
            if result is None:
                continue
            if a.state != "thrown":            # grabbed on this step: the throw's clock runs on
                a.hitstop = max(a.hitstop, CRATE_HITSTOP)
            point = np.array(pt)
            point.flags.writeable = False
            normal = np.array(self.stage.struck_normal(c, result, (a.x, a.z)))    # the face toward the attacker
            normal.flags.writeable = False
            events.append(CrateStruck(self.frame, atk, c, self.stage.crates[c].obj.name, names[k], point,
                                      float(result.removed_volume), broke, normal))
        # Frame advantage, once every hit (and crate hitstop) of this frame has landed:
        # how many steps sooner the attacker can start a move than the defender.
        for j in range(first, len(events)):
            e = events[j]
            if isinstance(e, Hit):
                events[j] = dataclasses.replace(e, advantage=self._frames_to_act(self.fighters[e.defender])
                                                - self._frames_to_act(self.fighters[e.attacker]))

    def _land(self, atk: int, spec, attack_limb: str, struck_limb: str, pt, freeze_attacker: bool,
              events: list) -> None:
        """Apply one landed attack (a move or a projectile): damage or guard, stun, knockback, hitstop."""
        a, d = self.fighters[atk], self.fighters[1 - atk]
        blocked = (d.guard == 1 and spec.height in ("high", "mid")) or (d.guard == 2 and spec.height == "low")
        # A hit on a defender still in hitstun is the next hit of a combo, its damage scaled by
        # its place in it (``combo_scaling``, percent; rounded down, at least 1).
        d.combo = 0 if blocked else (d.combo + 1 if d.state == "hitstun" else 1)
        damage = 0
        if not blocked and spec.damage:
            scale = self.data.combo_scaling
            damage = max(1, spec.damage * scale[min(d.combo, len(scale)) - 1] // 100)
        d.health = max(0, d.health - damage)
        # Hit out of a jump, it falls from where it was struck (it used to drop to the ground
        # on the hit's frame, 1.2 m in one step at the apex).
        d.air = self._lift(d)
        d.move, d.mframe, d.buf_move, d.buf_left = "", 0, "", 0
        # A knockdown move's hit (the sweep) floors the defender for its hitstun frames (the
        # knockdown animation's length): it falls, lies and gets up, struck by nothing
        # (``_judge_collisions``), and acts again on the first frame after.
        d.state = "blockstun" if blocked else ("knockdown" if spec.knockdown else "hitstun")
        d.stun = spec.blockstun if blocked else spec.hitstun
        d.stun_height = spec.height
        v0 = spec.pushback * (1.0 - SLIDE_DECAY)
        d.vx, d.vz = a.fx * v0, a.fz * v0
        d.hitstop = spec.hitstop
        if freeze_attacker:              # a projectile does not freeze its thrower
            a.hitstop = spec.hitstop
        point = np.array(pt)
        point.flags.writeable = False
        events.append(Hit(
            frame=self.frame, attacker=atk, defender=d.index, move=spec.name,
            attack_limb=attack_limb, struck_limb=struck_limb, point=point,
            damage=damage, blocked=blocked, height=spec.height, heavy=spec.heavy, hitstop=spec.hitstop,
            advantage=0,                 # set by _apply_hits once every hit of the frame has landed
        ))

    # ------------------------------------------------------- throws
    def _is_grab(self, mv) -> bool:
        return self._throw is not None and mv.name == self._throw.move

    def _grabbable(self, d: Fighter) -> bool:
        """A throw takes a defender standing on the ground, free or in a move of its own (its
        startup and recovery too, a jump's take-off and landing frames included), not one in
        hitstun, blockstun, a knockdown or a throw, nor one off the ground.  A crouching body is
        left alone by geometry: the grab reaches at shoulder height."""
        return (d.state in NEUTRAL_STATES or d.state in ("attack", "jump")) and self._lift(d) == 0.0 \
            and d.hitstop == 0

    def _grabs(self, grabs: list, events: list) -> None:
        """This frame's grab contacts ``(attacker, A7 point)``, after every strike of the frame:
        a grabber struck on the same frame lets go (a strike beats a throw), a defender that
        cannot be thrown is left alone (the grab stays live for its remaining active frames),
        and two fighters grabbing each other on the same frame break at once."""
        t = self._throw
        ok = [(atk, pt) for atk, pt in grabs
              if self.fighters[atk].move == t.move and self._grabbable(self.fighters[1 - atk])]
        if len(ok) == 2:
            self._break(self.fighters[0], self.fighters[1], events)
            return
        for atk, pt in ok:
            self._grab(atk, pt, events)

    def _grab(self, atk: int, pt, events: list) -> None:
        """The grab takes hold: the thrower plays ``throw.hold``; the thrown fighter, set
        ``throw.distance`` in front of it and facing it, is ``"thrown"`` for ``throw.frames``."""
        t = self._throw
        a, d = self.fighters[atk], self.fighters[1 - atk]
        a.move, a.mframe, a.move_hit, a.crate_hit, a.state = t.hold, 0, True, True, "attack"
        a.buf_move, a.buf_left, a.vx, a.vz = "", 0, 0.0, 0.0
        d.move, d.mframe, d.move_hit, d.buf_move, d.buf_left = "", 0, False, "", 0
        d.state, d.stun, d.stun_height, d.combo, d.guard = "thrown", t.frames, "high", 0, 0
        d.vx = d.vz = 0.0
        d.x, d.z = self._constrain(a.x + a.fx * t.distance, a.z + a.fz * t.distance)
        if math.hypot(d.x - a.x, d.z - a.z) < t.distance - 1e-9:    # a wall or a crate right there
            a.x, a.z = self._constrain(d.x - a.fx * t.distance, d.z - a.fz * t.distance)
        self._resolve_pushboxes()          # cornered both ways: still never inside each other
        d.fx, d.fz = -a.fx, -a.fz
        point = np.array(pt)
        point.flags.writeable = False
        events.append(ThrowGrab(self.frame, atk, d.index, point))

    def _held(self, f: Fighter, events: list) -> bool:
        """One frame of a thrown fighter (``_act``); False once it is free this frame (the rest
        of ``_act`` then runs, as on the frame a hitstun ends).  In the first ``throw.tech``
        frames after the grab its lp + lk (pressed since the grab: the grab clears its buffer)
        breaks the throw; on the ``tech``-th the throw lands (``_throw_lands``); then it lies
        and gets up, free when its stun runs out.  A thrower struck before the throw lands (a
        fireball in flight) lets go: the held fighter is free at once."""
        t = self._throw
        a = self.fighters[1 - f.index]
        holding = a.move == t.hold
        if t.frames - f.stun < t.tech:
            if holding and self.phase != "fight":          # the round was decided meanwhile: let go
                a.move, a.mframe, a.state = "", 0, "idle"
                holding = False
            if not holding:
                f.state, f.stun, f.combo = "idle", 0, 0
                return False
            if f.buf_move == t.move:
                self._break(a, f, events)
                return True
        f.stun -= 1
        if t.frames - f.stun == t.tech and holding and self.phase == "fight":
            self._throw_lands(a, f, events)
        if f.stun > 0:
            return True
        f.state, f.stun, f.combo = "idle", 0, 0
        return False

    def _throw_points(self, a: Fighter, d: Fighter) -> np.ndarray:
        """The A7 point of the grab's first hit limb (the thrower's hand) and the thrown
        fighter's ``throw.struck_limb``, read-only: where the throw lands or breaks.  The pair
        (as judged: the boxes of the frame before) is kept for the overlay (``throw_contacts``)."""
        t = self._throw
        k = self.data.moves[t.move].hit_limbs[0]
        hand, body = self._boxes[a.index, k].copy(), self._boxes[d.index, t.struck_limb].copy()
        point = collision_point_pair(hand, body)
        point.flags.writeable = False
        self.throw_contacts += ((hand, body, point),)
        return point

    def _throw_lands(self, a: Fighter, d: Fighter, events: list) -> None:
        """The throw lands: ``throw.damage`` (the first hit of a combo, unscaled), the thrown body
        hurled ``throw.travel`` m, and a ``Hit`` (the thrower is free ``throw.frames -
        hold.total`` frames before the thrown fighter gets up, unless struck meanwhile)."""
        t = self._throw
        names = self.data.skeleton.names
        grab = self.data.moves[t.move]
        d.combo = 1
        d.health = max(0, d.health - t.damage)
        v0 = t.travel * (1.0 - SLIDE_DECAY)      # hurled away from the thrower (it faces it)
        d.vx, d.vz = -d.fx * v0, -d.fz * v0
        self._throw_hit = len(events)
        events.append(Hit(
            frame=self.frame, attacker=a.index, defender=d.index, move=t.move,
            attack_limb=names[grab.hit_limbs[0]], struck_limb=names[t.struck_limb], point=self._throw_points(a, d),
            damage=t.damage, blocked=False, height="throw", heavy=True, hitstop=0,
            advantage=0,                 # set by _throw_advantage once every hit of the step has landed
        ))

    def _throw_advantage(self, events: list) -> None:
        """A landed throw's ``Hit.advantage``, once every hit of its step has landed (a fireball
        striking the thrower on the landing step puts it in hitstun): as ``_apply_hits`` counts
        a strike's."""
        i, self._throw_hit = self._throw_hit, -1
        e = events[i]
        adv = self._frames_to_act(self.fighters[e.defender]) - self._frames_to_act(self.fighters[e.attacker])
        events[i] = dataclasses.replace(e, advantage=adv)

    def _break(self, a: Fighter, d: Fighter, events: list) -> None:
        """The throw is broken: both reel ``throw.break_stun`` frames (a blockstun: nothing was
        hit) and slide ``throw.break_pushback`` m back from each other."""
        t = self._throw
        v0 = t.break_pushback * (1.0 - SLIDE_DECAY)
        for x in (a, d):
            x.move, x.mframe, x.move_hit, x.buf_move, x.buf_left = "", 0, False, "", 0
            x.state, x.stun, x.stun_height, x.combo = "blockstun", t.break_stun, "mid", 0
            x.vx, x.vz = -x.fx * v0, -x.fz * v0
        events.append(ThrowBreak(self.frame, a.index, d.index, self._throw_points(a, d)))

    def _trade(self, events: list, struck: list[int]) -> None:
        """Both fighters were struck on the same frame (``struck``: the indices of this frame's
        ``Hit`` events): a limb contact each way, or a limb one way and a projectile the other.

        Each is now in the other's stun; so that the landing order cannot matter, both
        freeze for the longest of the hitstops.  (A projectile trade used to keep the order's
        result: the jabber struck by a fireball froze 7 frames, its victim 5, two frames of
        advantage no stun gave.)"""
        stop = max(events[j].hitstop for j in struck)
        for f in self.fighters:
            f.hitstop = stop
        for j in struck:
            events[j] = dataclasses.replace(events[j], hitstop=stop)

    def _frames_to_act(self, f: Fighter) -> int:
        """The step, counted from the next one (1), on which ``f`` can start a move: after its
        hitstop, then its stun or the rest of its move; a free fighter can on the next step."""
        return f.busy_frames(self.data.moves) + (0 if f.stun > 0 or f.move else 1)

    def launch_point(self, i: int, spec) -> np.ndarray:
        """``(3,)`` where fighter ``i`` would launch ``spec`` (a ``ProjectileSpec``) now: its
        limb's range-box centre, 0.2 m ahead along the facing."""
        f = self.fighters[i]
        c = self._boxes[i, spec.limb].mean(axis=0)
        return np.array([c[0] + f.fx * 0.2, c[1], c[2] + f.fz * 0.2])

    def _spawn_projectiles(self, events: list) -> None:
        """A projectile move launches on its first active frame, from its limb's box centre
        (this frame's range boxes, stage 3), before stage 4 judges: like a punch's first active
        frame, the launch frame can strike at point-blank.  (Spawned after the judge, as it
        was, a projectile was first judged a frame later, one step on: a fireball thrown into
        a crouching opponent's body spawned inside it and flew out the back untouched.)
        One thrown point-blank into a crate or a wall bursts at once: the way from the body to
        the launch point is judged as a flight step (:meth:`_flight_blocked`)."""
        if self.stage is None:
            return
        for f in self.fighters:
            if not f.move or f.hitstop:
                continue
            spec = self.data.moves[f.move].projectile
            if spec is None or f.mframe != self.data.moves[f.move].startup:
                continue
            if any(p.owner == f.index for p in self.stage.projectiles):
                continue   # one in flight per fighter
            x, y, z = self.launch_point(f.index, spec).tolist()
            p = Projectile(f.index, x, y, z, f.fx * spec.speed, f.fz * spec.speed, 0)
            events.append(ProjectileLaunched(self.frame, f.index, _read_only(np.array([p.x, p.y, p.z]))))
            # thrown point-blank into a crate or a wall: from the body to the launch point (the
            # hand's reach) the way is judged as a flight step, and a blocked one bursts at once
            # (the launch point can lie past a crate's near wall, in its hollow)
            blocked, point = self._flight_blocked((f.x, y, f.z), (x - f.x, z - f.z), spec, sweep=False)
            if blocked:
                events.append(ProjectileImpact(self.frame, f.index, _read_only(np.array([f.x, y, f.z])),
                                               _read_only(np.array([x, y, z])), spec.level, point))
                continue
            self.stage.projectiles = self.stage.projectiles + (p,)

    # ------------------------------------------------------- rounds
    def _starts(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """Each fighter's start ``(x, z)``: the arena's ``fighter_starts``, or (-START_X, 0)
        and (START_X, 0) on a bare floor."""
        if self.stage is None:
            return (-START_X, 0.0), (START_X, 0.0)
        (x1, _, z1), (x2, _, z2) = self.stage.arena.fighter_starts.tolist()
        return (x1, z1), (x2, z2)

    def _start_round(self) -> None:
        self.round += 1
        self.phase, self.phase_frame, self.timer = "intro", 0, ROUND_FRAMES
        starts = self._starts()
        for f, (x, z) in zip(self.fighters, starts):
            (ox, oz), wins = starts[1 - f.index], f.wins
            d = math.hypot(ox - x, oz - z)
            f.set_scalars(tuple(0 for _ in SCALARS))
            f.x, f.z, f.fx, f.fz = x, z, (ox - x) / d, (oz - z) / d     # facing each other
            f.vx = f.vz = 0.0
            f.health, f.wins = self.data.max_health, wins
            f.state, f.move, f.stun_height, f.pose_key, f.buf_move = "idle", "", "", "", ""
            f.move_hit = False
            f._pose = f._pose_from = self.data.poses["stance"]      # read-only table rows, shared
            f._local = self.data.pose_rot["stance"]
            f._body = self.data.pose_body["stance"]
            f.crate_hit = False
            f.ground_y, f.gx, f.gz = 0.0, f.x, f.z
            if self.stage is not None:
                f.ground_y = self.stage.ground_height(f.x, f.z, 0.0)
        if self.stage is not None:
            self.stage.projectiles = ()
        self._pending.append(RoundStart(self.frame, self.round))

    def _advance_round(self, events: list) -> None:
        a, b = self.fighters
        self.phase_frame += 1
        if self.phase == "intro":
            if self.phase_frame >= INTRO_FRAMES:
                self.phase, self.phase_frame = "fight", 0
                events.append(Fight(self.frame, self.round))
        elif self.phase == "fight":
            self.timer -= 1
            dead = [f.index for f in self.fighters if f.health <= 0]
            if dead or self.timer <= 0:
                if dead:
                    loser = dead[0] if len(dead) == 1 else None
                    events.append(KO(self.frame, self.round, loser))
                    winner = None if loser is None else 1 - loser
                    for k in dead:           # both fall in a double K.O.
                        self.fighters[k].state, self.fighters[k].move = "ko", ""
                        self.fighters[k].stun = 0
                else:
                    events.append(TimeOver(self.frame, self.round))
                    winner = None if a.health == b.health else (0 if a.health > b.health else 1)
                if winner is not None:
                    self.fighters[winner].wins += 1
                self._round_winner = winner
                events.append(RoundEnd(self.frame, self.round, winner))
                self.phase, self.phase_frame = "ko", 0
        elif self.phase == "ko":
            if self.phase_frame == 60:
                w = self._round_winner
                if w is not None and self.fighters[w].state in NEUTRAL_STATES:
                    self.fighters[w].state = "win"
            if self.phase_frame >= KO_FRAMES:
                top = max(a.wins, b.wins)
                if top >= ROUNDS_TO_WIN or self.round >= MAX_ROUNDS:
                    self.phase, self.phase_frame, self.over = "over", 0, True
                    self.winner = None if a.wins == b.wins else (0 if a.wins > b.wins else 1)
                    events.append(MatchOver(self.frame, self.winner))
                else:
                    self._start_round()
                    self._update_range_boxes()     # the boxes follow the fighters back to their start
                    events.extend(self._pending)
                    self._pending = []

    # ------------------------------------------------------- debug draw
    def debug_draw(self, draw) -> None:
        """Describe this frame to a :class:`~game.sim.debug.DebugDraw` (read-only).

        Every limb's range box by role (hurt, hit = active attacking limb,
        guard = limb of a blocking fighter); then for each pair colliding this
        frame (limb and limb, limb and crate small box, projectile and limb,
        projectile and projectile) its judgement points j1, j2 (A2, A3), the
        overlap box between them (A4), the centre-to-centre segment and the
        collision point (A7), as :func:`~game.sim.debug.draw_contact` draws them.
        A contact's box that is gone by the end of the frame is drawn as judged:
        the crate's small box a strike has re-split ('crate_struck'), the
        projectile that landed or burst ('hit').
        """
        boxes = self._boxes.view()        # read-only: an overlay that moves a box in place
        boxes.flags.writeable = False      # must not move the match's range box
        for f in self.fighters:
            hitting = ()
            if f.move and self.data.moves[f.move].is_active(f.mframe):
                hitting = self.data.moves[f.move].hit_limbs
            guarding = f.guard and f.state in ("block_stand", "block_crouch", "blockstun")
            for li, box in enumerate(boxes[f.index]):
                kind = ROLE_HIT if li in hitting else (ROLE_GUARD if guarding else ROLE_HURT)
                draw.box(box, kind)
        for atk, ks, ls, j1, j2, pts in self.contacts:
            for k, l, a, b, p in zip(ks, ls, j1, j2, pts):
                draw_contact(draw, boxes[atk, k], boxes[1 - atk, l], a, b, p)
        for atk, k, _c, box, p in self.crate_contacts:
            draw.box(box, "crate_struck")
            draw_contact(draw, boxes[atk, k], box, *judgement_points(boxes[atk, k], box), p)
        for owner, pbox, l, p in self.projectile_contacts:
            draw.box(pbox, ROLE_HIT)
            draw_contact(draw, pbox, boxes[1 - owner, l], *judgement_points(pbox, boxes[1 - owner, l]), p)
        for a, b, p in self.clash_contacts:
            draw.box(a, ROLE_HIT)
            draw.box(b, ROLE_HIT)
            draw_contact(draw, a, b, *judgement_points(a, b), p)
        for hand, body, p in self.throw_contacts:       # a throw landing or broken: the hand on the body
            draw.box(hand, ROLE_HIT)
            draw_contact(draw, hand, body, *judgement_points(hand, body), p)
        if self.stage is not None:
            for p in self.stage.projectiles:
                h = self.data.moves[self._projectile_move].projectile.half
                draw.box(np.array([[p.x - h, p.y - h, p.z - h], [p.x + h, p.y + h, p.z + h]]), ROLE_HIT)
            self.stage.debug_draw(draw)

    # ------------------------------------------------------- state
    _MATCH_SCALARS = ("frame", "round", "phase", "phase_frame", "timer", "winner", "over")

    def __deepcopy__(self, memo) -> "Match":
        """``copy.deepcopy(match)``: an independent match in the same state (same
        ``state_hash()``, same future), made as a fresh match with the same data, seed, CPU
        config and arena that :meth:`restore` puts in this one's :meth:`snapshot`.

        (Copied attribute by attribute, the copy's fighters stayed linked to this match, whose
        range boxes their ``limb_boxes()`` then reported, and the shared read-only tables
        became writable private copies.)"""
        other = Match(self.data, self.seed, self.cpu, None if self.stage is None else Stage(self.stage.arena))
        memo[id(self)] = other
        other.restore(self.snapshot())
        return other

    def __copy__(self) -> "Match":
        """``copy.copy(match)`` is :meth:`__deepcopy__`: a copy sharing the fighters and stage
        would step them for both matches."""
        return self.__deepcopy__({})

    def __reduce__(self):
        raise TypeError("Match cannot be pickled: pickle match.snapshot() instead and restore it into a "
                        "Match.new(...) made with the same seed, CPU config and arena setting")

    def snapshot(self) -> tuple:
        """Everything that determines the future: restore with :meth:`restore`."""
        return (
            tuple(getattr(self, n) for n in self._MATCH_SCALARS),
            self._round_winner,
            tuple(f.scalars() for f in self.fighters),
            # read-only and replaced, never written in place (``_pose``): kept by reference
            tuple((f._pose, f._pose_from, f._local, f._body) for f in self.fighters),
            self.rng.bit_generator.state,
            tuple(s.copy() for s in self.ai_state),
            self.last_inputs,
            tuple(self._pending),
            self.stage.snapshot() if self.stage is not None else None,
            # The range boxes as stepped: after a round restart they still show the last
            # frame's poses, so rebuilding them on restore would change state_hash().
            (self._rot.copy(), self._origin.copy(), self._boxes.copy()),
        )

    def restore(self, snap: tuple) -> None:
        """Put the match back in the state of ``snap`` (from :meth:`snapshot`).

        ``snap`` may come from another match on the same arena (or the same bare floor)
        and fighter data; anything else raises ValueError before the match is changed."""
        if not isinstance(snap, tuple) or len(snap) != 10:
            got = f"a tuple of {len(snap)} items" if isinstance(snap, tuple) else type(snap).__name__
            raise ValueError(f"Match.restore: snap must be a tuple from Match.snapshot(), got {got}; "
                             f"take one with snap = match.snapshot()")
        scal, rw, fsc, poses, rng, ais, last, pending, arena, boxes = snap
        if (arena is None) != (self.stage is None):
            where = ("a bare floor (arena=False)", "the arena") if arena is None else \
                ("the arena", "a bare floor (arena=False)")
            raise ValueError(f"Match.restore: snap is of a match on {where[0]}, this match is on {where[1]}; "
                             f"restore it into a match made with the same arena setting")
        if arena is not None and len(arena[0]) != len(self.stage.crates):
            raise ValueError(f"Match.restore: snap is of an arena with {len(arena[0])} crates, this match's "
                             f"has {len(self.stage.crates)}; restore it into a match on the same arena")
        if boxes[2].shape != self._boxes.shape:
            raise ValueError(f"Match.restore: snap has limb boxes {boxes[2].shape}, this match {self._boxes.shape}; "
                             f"restore it into a match made with the same fighter data (assets_dir)")
        for n, v in zip(self._MATCH_SCALARS, scal):
            setattr(self, n, v)
        self._round_winner = rw
        for f, s, (p, pf, local, body) in zip(self.fighters, fsc, poses):
            f.set_scalars(s)
            # never written in place, so kept by reference (a writable array, as from an
            # unpickled snapshot, is taken as a read-only copy)
            f._pose, f._pose_from = frozen_value(p), frozen_value(pf)
            f._local, f._body = frozen_value(local), frozen_value(body)
        self.rng.bit_generator.state = rng
        self.ai_state = [s.copy() for s in ais]
        self.last_inputs = last
        self._pending = list(pending)
        if arena is not None:
            self.stage.restore(arena)
        self._rot, self._origin = boxes[0].copy(), boxes[1].copy()
        self._padded = padded_boxes(boxes[2])
        self._boxes = self._padded[..., :3]
        self._pairs_cache = None
        self.contacts = self.crate_contacts = self.projectile_contacts = self.clash_contacts = ()
        self.throw_contacts = ()

    def state_hash(self) -> str:
        """SHA-256 of the whole state, identical for the same seed and inputs in any process."""
        h = hashlib.sha256()
        h.update(repr(_plain(getattr(self, n) for n in self._MATCH_SCALARS)).encode())
        h.update(repr(self._round_winner).encode())
        for f in self.fighters:
            h.update(repr(_plain(f.scalars())).encode())
            h.update(_le_bytes(f._pose))
            h.update(_le_bytes(f._pose_from))
        rs = self.rng.bit_generator.state
        st = rs["state"]
        h.update(struct.pack("<QQQQ", st["state"] & (2**64 - 1), st["state"] >> 64, st["inc"] & (2**64 - 1), st["inc"] >> 64))
        if rs["has_uint32"]:
            # PCG64 keeps the unused half of a 64-bit output for the next 32-bit draw (the CPU's
            # rng.integers); with it the same state/inc draws other numbers.  Tagged "U": what
            # follows otherwise starts with "[", so no two states hash alike by this.
            h.update(struct.pack("<cI", b"U", rs["uinteger"]))
        h.update(repr([s.hash_items() for s in self.ai_state]).encode())
        h.update(_le_bytes(self._boxes))
        if self.stage is not None:
            h.update(self.stage.state_bytes())
        return h.hexdigest()


def _check_seed(seed) -> int:
    """``seed`` as a Python int, or TypeError / ValueError naming it (no float is truncated,
    no string parsed, no negative left to fail inside numpy's PCG64)."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"Match: seed must be an int >= 0, got {type(seed).__name__} {seed!r}; "
                        f"pass a whole number such as seed=0")
    seed = int(seed)
    if seed < 0:
        raise ValueError(f"Match: seed must be an int >= 0, got {seed}; pass a non-negative seed")
    return seed


def _plain(values) -> tuple:
    """``values`` with numpy scalars as the Python numbers they equal: a tool that sets
    ``fighter.x = np.float64(0.5)`` sets the same state as ``0.5`` (repr would differ)."""
    values = tuple(values)
    if _PLAIN_TYPES.issuperset(map(type, values)):       # the usual case, in one C-level pass
        return values
    return tuple(v.item() if isinstance(v, np.generic) else v for v in values)


_NO_POINTS = ((), (), (), ())     # _collision_points of a frame without contacts
_PLAIN_TYPES = frozenset((int, float, bool, str, type(None)))


def _read_only(a: np.ndarray) -> np.ndarray:
    """``a``, made read-only: an event's arrays are values, as its other fields are."""
    a.flags.writeable = False
    return a


def _le_bytes(a: np.ndarray) -> bytes:
    """``a``'s values as little-endian float64 bytes in C order (``tobytes`` of a native
    little-endian array, as before; the same bytes on a big-endian machine)."""
    return np.ascontiguousarray(a, dtype="<f8").tobytes()


def _touch(a, b) -> bool:
    """A2-A4 on two 3D boxes of Python floats ``((x0, y0, z0), (x1, y1, z1))``, each with
    ``min <= max``: ``j2 >= j1`` on every axis (touching counts), as ``overlaps`` decides it."""
    (ax0, ay0, az0), (ax1, ay1, az1) = a
    (bx0, by0, bz0), (bx1, by1, bz1) = b
    return ax1 >= bx0 and bx1 >= ax0 and ay1 >= by0 and by1 >= ay0 and az1 >= bz0 and bz1 >= az0


def _guard_level(bits: int) -> int:
    """``Fighter.guard`` asked for by ``bits``: 0 none, 1 standing, 2 crouching (guard + down;
    up + down cancel, as everywhere, to a standing guard)."""
    if not bits & GUARD:
        return 0
    return 2 if axes(bits)[1] < 0 else 1


def _pressed_within(presses: int) -> int:
    """The buttons pressed on any frame of ``Fighter.presses`` (one ``_SLOT``-bit slot per frame)."""
    out = 0
    while presses:
        out |= presses & ((1 << _SLOT) - 1)
        presses >>= _SLOT
    return out


def _attack_from(pressed: int, bits: int, presses: int = 0, throw: str = "") -> str:
    """The attack a press asks for, read on the frame of the press: lp + hp is the fireball and
    lp + lk the throw (``throw``: its move's name; "" where the data has none) when one of the
    two is pressed now and the other now or on one of the ``PAIR_LENIENCY`` frames before
    (``presses``: ``Fighter.presses``), held since or not: a button held from long ago
    makes no pair (lp held through a jab, then hp, is the straight).  Then hk with down held
    (``bits``) the sweep, else by priority.  The buffer keeps this command: a down released
    (or pressed) between the press and the frame the move can start changes nothing (a
    buffered sweep used to come out as a roundhouse when down was let go a frame before its
    start)."""
    if not pressed & ATTACK_BUTTONS:
        return ""
    near = pressed | _pressed_within(presses)
    if pressed & (LP | HP) and near & LP and near & HP:
        return "fireball"
    if throw and pressed & (LP | LK) and near & LP and near & LK:
        return throw
    for mask, name in _ATTACK_ORDER:
        if pressed & mask:
            return "hk_low" if name == "hk" and axes(bits)[1] < 0 else name
    return ""
