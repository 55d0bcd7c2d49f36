"""Rounds: the match's phases, a round's start, K.O. and time over, the match's end.

A round runs ``intro`` (inputs ignored) -> ``fight`` (the timer counts down) -> ``ko`` (a
K.O. or time over: the pause before the next round) and, once a side has won
``Match.rounds_to_win`` rounds (a majority of the match's ``rounds``: 2 of 3 by default) or
``MAX_ROUNDS`` were played, ``over``.  A round lasts ``Match.round_frames`` (the ``timer``
given to ``Match.new``, 60 s by default).
"""

from __future__ import annotations

import math
from enum import StrEnum
from typing import TYPE_CHECKING

from .events import KO, Event, Fight, MatchOver, RoundEnd, RoundStart, TimeOver
from .fighter import IDLE, NEUTRAL_STATES, WIN, ZERO_SCALARS, FighterState

if TYPE_CHECKING:
    from .match import Match

FPS = 60
INTRO_FRAMES = 90          # "ROUND n" then "FIGHT"; inputs are ignored
ROUND_FRAMES = 60 * FPS    # round timer by default (Match.new's timer); the longest a round may last
MATCH_ROUNDS = (1, 3, 5)   # the match lengths Match.new takes: best of 1, 3 or 5
KO_FRAMES = 150            # K.O. / time-over pause before the next round
WIN_POSE_AT = 60           # frame of the K.O. pause on which the round's winner strikes its win pose
ROUNDS_TO_WIN = 2          # best of three by default
MAX_ROUNDS = 5             # draws give no point; the match ends after this many rounds
START_X = 1.5              # start positions (-START_X, 0) and (+START_X, 0) on a bare floor


class Phase(StrEnum):
    """The match's phase.  A ``str`` enum: each member equals its string
    (``Phase.FIGHT == "fight"``); ``state_hash`` hashes the plain value."""

    INTRO = "intro"     # "ROUND n", "FIGHT": inputs ignored
    FIGHT = "fight"     # the round is fought
    KO = "ko"           # decided (K.O. or time over): the pause before the next round
    OVER = "over"       # the match is over


# The phases as module constants too, for the per-frame checks (a module global is several
# times cheaper to read than an enum class attribute on Python 3.11).
INTRO = Phase.INTRO
FIGHT = Phase.FIGHT
OVER = Phase.OVER


def starts(m: Match) -> tuple[tuple[float, float], tuple[float, float]]:
    """Each fighter's start ``(x, z)``: the arena's ``fighter_starts``, or (-START_X, 0)
    and (START_X, 0) on a bare floor."""
    if m.stage is None:
        return (-START_X, 0.0), (START_X, 0.0)
    (x1, _, z1), (x2, _, z2) = m.stage.arena.fighter_starts.tolist()
    return (x1, z1), (x2, z2)


def start_round(m: Match) -> None:
    """The next round: both fighters back at their starts, facing each other, at full health
    in their stance (every other scalar zero), no projectile in flight; its ``RoundStart``
    waits in ``m.pending`` for the step that returns it.  The range boxes are not rebuilt here."""
    m.round += 1
    m.phase, m.phase_frame, m.timer = INTRO, 0, m.round_frames
    at = starts(m)
    d = m.data
    for f, (x, z) in zip(m.fighters, at):
        (ox, oz), wins = at[1 - f.index], f.wins
        dist = math.hypot(ox - x, oz - z)
        f.set_scalars(ZERO_SCALARS)
        f.x, f.z, f.fx, f.fz = x, z, (ox - x) / dist, (oz - z) / dist     # facing each other
        f.vx = f.vz = 0.0
        f.health, f.wins = d.max_health, wins
        f.state, f.move, f.stun_height, f.pose_key, f.buf_move = IDLE, "", "", "", ""
        f.move_hit = False
        f.reset_pose(d.poses["stance"], d.pose_rot["stance"], d.pose_body["stance"])   # read-only table rows, shared
        f.crate_hit = False
        f.ground_y, f.gx, f.gz = 0.0, f.x, f.z
        if m.stage is not None:
            f.ground_y = m.stage.ground_height(f.x, f.z, 0.0)
    if m.stage is not None:
        m.stage.clear_projectiles()
    m.pending.append(RoundStart(m.frame, m.round))


def advance(m: Match, events: list[Event]) -> None:
    """One frame of the round: the intro's end, the timer, K.O. and time over, the win pose,
    the next round or the match's end."""
    m.phase_frame += 1
    if m.phase == FIGHT:
        m.timer -= 1
        dead = [f.index for f in m.fighters if f.health <= 0]
        if dead or m.timer <= 0:
            _end_round(m, dead, events)
    elif m.phase == INTRO:
        if m.phase_frame >= INTRO_FRAMES:
            m.phase, m.phase_frame = FIGHT, 0
            events.append(Fight(m.frame, m.round))
    elif m.phase == Phase.KO:
        if m.phase_frame == WIN_POSE_AT:
            w = m.round_winner
            if w is not None and m.fighters[w].state in NEUTRAL_STATES:
                m.fighters[w].state = WIN
        if m.phase_frame >= KO_FRAMES:
            a, b = m.fighters
            if max(a.wins, b.wins) >= m.rounds_to_win or m.round >= MAX_ROUNDS:
                m.phase, m.phase_frame, m.over = OVER, 0, True
                m.winner = None if a.wins == b.wins else (0 if a.wins > b.wins else 1)
                events.append(MatchOver(m.frame, m.winner))
            else:
                start_round(m)
                m.limbs.place(a, b)              # the boxes follow the fighters back to their start
                events.extend(m.pending)
                m.pending = []


def _end_round(m: Match, dead: list[int], events: list[Event]) -> None:
    """The round is decided: a K.O. (``dead``: the fighters out of health; both fall in a
    double K.O.) or time over (the one with more health wins); the winner scores."""
    a, b = m.fighters
    winner: int | None
    if dead:
        loser = dead[0] if len(dead) == 1 else None
        events.append(KO(m.frame, m.round, loser))
        winner = None if loser is None else 1 - loser
        for k in dead:
            m.fighters[k].state, m.fighters[k].move = FighterState.KO, ""
            m.fighters[k].stun = 0
    else:
        events.append(TimeOver(m.frame, m.round))
        winner = None if a.health == b.health else (0 if a.health > b.health else 1)
    if winner is not None:
        m.fighters[winner].wins += 1
    m.round_winner = winner
    events.append(RoundEnd(m.frame, m.round, winner))
    m.phase, m.phase_frame = Phase.KO, 0
