"""Stage 2 of a step (A8): each fighter's action for one frame.

A frozen fighter (hitstop) keeps its place and pose.  Otherwise, in order: its knockback
slide and fall, a throw holding it, its stun counting down, the frames of its move (a
two-button command completing, a cancel, the lunge or a jump's drift, its whiff), and in
neutral the command it asks for: a buffered attack, guard, jump, crouch, sidestep or walk.
Then the pushboxes are resolved, free fighters face each other, everyone is posed, the two
trunks are kept apart (a leaning pose reaches past its pushbox), lying bodies are fitted in
the arena, projectiles fly, and the ground is re-cast under a fighter
that moved.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import movement, posing, projectiles, throws
from .commands import LONE, buffered, guard_level, pressed_within, read_press, remember_presses
from .events import Event, MoveStarted, Whiff
from .fighter import (
    ATTACK,
    BLOCK_CROUCH,
    BLOCK_STAND,
    CROUCH,
    GUARD_STATES,
    IDLE,
    JUMP,
    KO,
    LYING_STATES,
    NEUTRAL_STATES,
    SIDESTEP,
    THROWN,
    WALK_BACK,
    WALK_FWD,
    WIN,
    Fighter,
)
from .inputs import GUARD, axes
from .movement import AIR_FALL
from .rounds import FIGHT

if TYPE_CHECKING:
    from .match import Match


def advance(m: Match, bits: tuple[int, int], events: list[Event]) -> None:
    """Stage 2 for both fighters (``bits``: this frame's input bits of each; ignored outside
    the FIGHT phase)."""
    live = m.phase == FIGHT
    a, b = m.fighters
    frozen = (advance_fighter(m, a, bits[0] if live else 0, events),
              advance_fighter(m, b, bits[1] if live else 0, events))
    if not live:        # no action, but a button held through the intro is no press when it ends
        a.prev_bits, b.prev_bits = bits
    movement.resolve_pushboxes(m)
    for f, o in ((a, b), (b, a)):
        if f.state in NEUTRAL_STATES and not frozen[f.index]:
            movement.face(f, o)
    for f in m.fighters:
        if not frozen[f.index]:
            posing.pose(m.data, f, m.blends)
    movement.keep_trunks_apart(m)     # the poses' trunks, which may lean out past the pushboxes
    for f in m.fighters:          # a body on the ground is kept out of walls, pillars and crates
        if f.state in LYING_STATES and not frozen[f.index]:
            movement.fit_lying(m, f)
    stage = m.stage
    if stage is not None:
        projectiles.advance(m, stage, events)
        for f in m.fighters:
            movement.follow_ground(stage, f)


def advance_fighter(m: Match, f: Fighter, bits: int, events: list[Event]) -> bool:
    """Advance one fighter's action by a frame; True while hitstop freezes it."""
    pressed = read_press(f, bits, m.data.throw.move if m.data.throw is not None else "")
    if f.hitstop > 0:                      # hitstop: frozen in place and pose
        f.guard = guard_level(bits) if f.state in GUARD_STATES else 0
        f.hitstop -= 1
        frozen = True
    else:
        act(m, f, bits, pressed, events)
        # The guard of this frame follows the state the fighter ends the frame in: held on
        # the first free frame after a stun or a move it blocks (the frame Hit.advantage
        # counts as free), and dropped on the first frame of an attack started from a block.
        f.guard = guard_level(bits) if f.state in GUARD_STATES else 0
        frozen = False
    remember_presses(f, pressed)
    return frozen


def act(m: Match, f: Fighter, bits: int, pressed: int, events: list[Event]) -> None:
    """The unfrozen part of :func:`advance_fighter`: slide, stun, move frames, neutral."""
    movement.slide(f)
    if f.air > 0.0:                        # hit out of a jump: falling (also when knocked out)
        f.air = max(0.0, f.air - AIR_FALL)
    if f.state in (KO, WIN):
        return
    throw = m.data.throw
    if f.state == THROWN and throw is not None and throws.held(m, throw, f, events):
        return                             # held (the tech window), slammed, lying, getting up
    if f.stun > 0:                         # hitstun / blockstun
        f.stun -= 1
        if f.stun > 0:
            return
        f.state = IDLE
        f.combo = 0
    if f.move and play_move(m, f, bits, events):
        return
    if m.phase != FIGHT:
        f.state = IDLE
        return
    neutral(m, f, bits, pressed, events)


def play_move(m: Match, f: Fighter, bits: int, events: list[Event]) -> bool:
    """One frame of ``f``'s move; True while it goes on (or another move replaced it), False
    once it has ended this frame (``f`` is idle and acts in neutral on the same frame)."""
    mv = m.data.moves[f.move]
    live = m.phase == FIGHT
    if f.lone & m.pair_commands.get(f.buf_move, 0) and live and buffered(m, f) == f.buf_move:
        # Two buttons pressed a frame or two apart (keys and pads are rarely pressed on
        # the same 1/60 s; attack_from reads them as the pair this frame): the move the
        # first one started alone from neutral becomes the pair's command (jab + hp the
        # fireball, jab or front kick + the other the throw), as if both had been pressed
        # now: the first move's steps are taken back.  Not where the pair cannot come out
        # now (a fireball still flying).
        back = float(mv.advance[:f.mframe].sum())
        f.x -= f.fx * back
        f.z -= f.fz * back
        start_move(m, f, f.buf_move, events)
        return True
    if f.move_hit and f.buf_move and mv.cancel and live:
        # A cancel: a buffered press of a move this one cancels into, once it has made
        # contact (hit or block; never a whiff), in its window: the new move starts now.
        # Only while the round is fought, as any buffered move (a press kept through a
        # finishing hit's freeze must not come out after the K.O.).
        move = buffered(m, f)
        if mv.can_cancel(f.mframe, move):
            start_move(m, f, move, events)
            return True
    step = float(mv.advance[f.mframe])
    if f.move == "jump":
        if f.mframe < mv.startup:       # pre-jump: the direction held until take-off counts
            movement.drift(f, axes(bits)[0])
        f.x += f.vx
        f.z += f.vz
    elif step:
        f.x += f.fx * step
        f.z += f.fz * step
    f.mframe += 1
    # a projectile move's outcome is its projectile's (Hit, ProjectileImpact, ProjectileClash)
    if mv.active and f.mframe == mv.startup + mv.active and not f.move_hit and mv.projectile is None:
        events.append(Whiff(m.frame, f.index, f.move))
    if f.mframe < mv.total:
        return True
    f.move = ""
    f.state = IDLE
    f.vx = f.vz = 0.0
    return False


def neutral(m: Match, f: Fighter, bits: int, pressed: int, events: list[Event]) -> None:
    """A free fighter's command: a buffered attack first, then guard, jump, crouch, sidestep, walk."""
    fwd, up, side = axes(bits)
    if f.buf_move:
        move = buffered(m, f)
        start_move(m, f, move, events)
        # a lone lp, hp or lk pressed within the window (on this frame, or buffered a frame
        # or two before it): the pair may still complete (PAIR_LENIENCY frames from that press)
        button = LONE.get(move, 0)
        if button & (pressed | pressed_within(f.presses)):
            f.lone = button
        return
    if bits & GUARD:
        f.state = BLOCK_CROUCH if up < 0 else BLOCK_STAND
    elif up > 0:                           # held, not only pressed: up held through a
        start_move(m, f, "jump", events)   # stun or a landing jumps on the first free frame
        movement.drift(f, fwd)
    elif up < 0:
        f.state = CROUCH
    elif side:
        f.state = SIDESTEP
        movement.sidestep(f, side)
        f.loop_t += 1
    elif fwd:
        f.state = WALK_FWD if fwd > 0 else WALK_BACK
        movement.walk(f, fwd)
        f.loop_t += 1
    else:
        f.state = IDLE


def start_move(m: Match, f: Fighter, move: str, events: list[Event]) -> None:
    """``f`` starts ``move`` now (its buffer emptied)."""
    f.move, f.mframe, f.move_hit, f.crate_hit, f.lone = move, 0, False, False, 0
    f.state = ATTACK if move != "jump" else JUMP
    f.buf_move, f.buf_left = "", 0
    events.append(MoveStarted(m.frame, f.index, move))
