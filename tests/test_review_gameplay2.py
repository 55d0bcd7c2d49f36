"""Gameplay a fighting-game player judges, second review: a well-timed jump clears a fireball
(and the hard CPU uses it), the hard CPU reads a heavy attack's long wind-up instead of
walking or pressing a slow move into it, and a fireball thrown point-blank strikes on its
launch frame.  Scripted inputs through the frame-step API; counts over a few seeds (win rates
over many are measured outside the suite)."""

from dataclasses import replace

import numpy as np
import pytest

from cpuhelp import cpu_vs_throw, placed_facing, step_side
from game.collision import overlaps
from game.sim import FrameInput, Hit, Match, MoveStarted, ProjectileLaunched, Whiff, ai
from simhelp import FIREBALL, NEUTRAL


# ---------------------------------------------------------------- jumping a fireball
def _struck_by_fireball(dist: float, press: int, forward: bool) -> bool:
    """P2 throws at frame 0; P1 jumps (``forward``: toward P2) at frame ``press``: is P1 hit?"""
    m = placed_facing(dist)
    jump = FrameInput(up=True, forward=forward)
    launched = False
    for t in range(110):
        ev = m.step(jump if t == press else NEUTRAL, FIREBALL if t == 0 else NEUTRAL)
        launched = launched or any(isinstance(e, ProjectileLaunched) for e in ev)
        if any(isinstance(e, Hit) and e.defender == 0 for e in ev):
            return True
    assert launched
    return False


@pytest.mark.parametrize("forward", [False, True], ids=["neutral", "toward"])
def test_a_well_timed_jump_clears_a_fireball_and_an_early_or_late_one_is_hit(forward):
    """Jumping over a projectile is the basic answer to one.  From 4.5 m, P1 jumps on each
    frame after P2's throw: some stretch of consecutive frames clears the fireball (old jump,
    0.55 m high: none did), jumps before it and after it are hit (the legs still or already
    in its path: a timing, not a free pass), and so is standing still."""
    press_frames = range(0, 40)
    struck = [_struck_by_fireball(4.5, t, forward) for t in press_frames]
    clear = [t for t, s in zip(press_frames, struck) if not s]
    assert clear, "no jump clears the fireball"
    assert clear == list(range(clear[0], clear[-1] + 1)), f"the clearing jumps are not one window: {clear}"
    assert struck[0] and struck[-1], f"early and late jumps must be hit: clear {clear}"
    assert 3 <= len(clear) <= 15, f"window of {len(clear)} frames"
    m = placed_facing(4.5)
    hits = []
    for t in range(110):
        hits += [e for e in m.step(NEUTRAL, FIREBALL if t == 0 else NEUTRAL) if isinstance(e, Hit)]
    assert [e.move for e in hits] == ["fireball"]


def test_jump_apex_lifts_every_limb_over_the_fireball_that_still_strikes_a_crouch():
    """The data behind it (range boxes, method A): at the jump's apex the lowest limb box is
    above the fireball's range box, while the crouch's limb boxes reach up into it (the
    fireball was lowered in the first review so that a crouch does not duck it)."""
    m = placed_facing(3.0)
    data = m.data
    spec = data.moves["fireball"].projectile
    launch = None
    for t in range(20):
        launch = launch or next((e for e in m.step(FIREBALL if t == 0 else NEUTRAL, NEUTRAL)
                                 if isinstance(e, ProjectileLaunched)), None)
    y = float(launch.position[1]) - m.fighters[0].ground_y          # it flies level at this height
    bottom, top = y - spec.half, y + spec.half
    jump = data.moves["jump"]
    sk = data.skeleton

    def boxes(local, lift):
        return sk.pose(np.zeros((1, 3)), np.array([[1.0, 0.0]]), local[None], np.array([lift]))[2][0]

    apex = int(np.argmax(jump.air))
    assert boxes(jump.rot[apex], jump.air[apex])[:, 0, 1].min() > top
    assert boxes(data.pose_rot["crouch"], 0.0)[:, 1, 1].max() > bottom
    low = [f for f in range(jump.total) if boxes(jump.rot[f], jump.air[f])[:, 0, 1].min() <= top]
    assert low[0] == 0 and low[-1] == jump.total - 1         # take-off and landing: in its path


def test_hard_cpu_jumps_over_fireballs_and_clears_them():
    """The hard CPU may answer a fireball with a jump (besides its sidestep and guard), timed
    by ``ai.moves.jump_over``: from several distances, both sides, it jumps in a good share of the
    throws and every jump it makes clears the fireball (old CPU: it never jumped one)."""
    jumps = cleared = trials = 0
    for dist in (2.5, 4.0, 5.5):
        for seed in range(4):
            for cpu in (0, 1):
                jumped, struck = cpu_vs_throw(dist, seed, cpu)
                trials += 1
                jumps += jumped
                cleared += jumped and not struck
    assert jumps >= trials // 4, f"jumped {jumps} of {trials} fireballs"
    assert cleared == jumps, f"cleared {cleared} of {jumps} jumps"


def test_cpu_jump_arithmetic_matches_the_match(monkeypatch):
    """``ai.moves.jump_over`` against the match: a CPU that always notices and always jumps when a
    jump now would clear (from 2 to 6 m) clears every fireball it jumps; easy never jumps one."""
    monkeypatch.setitem(ai.LEVELS, "hard", replace(ai.LEVELS["hard"], notice=1.0, jump=1.0))
    for dist in (2.0, 3.0, 4.5, 6.0):
        for cpu in (0, 1):
            jumped, struck = cpu_vs_throw(dist, 1, cpu)
            assert jumped and not struck, (dist, cpu, jumped, struck)
    assert ai.LEVELS["easy"].jump == 0.0 < ai.LEVELS["normal"].jump < ai.LEVELS["hard"].jump


# ---------------------------------------------------------------- a heavy's telegraphed wind-up
def _into_heavy(dist: float, seed: int, cpu: int, move: str, level: str):
    """The CPU (``level``) on side ``cpu`` plays from ``dist``; 3 frames in, the player starts
    a heavy (``move``).  Returns (outcome of the heavy: 'hit' / 'blocked' / 'whiff' /
    'interrupted', whether the CPU started a move after seeing the wind-up)."""
    m = placed_facing(dist, seed, cpu, level)
    press = FrameInput(hk=True) if move == "hk" else FrameInput(hp=True)
    start, pressed_after = None, False
    for t in range(60):
        ev = step_side(m, 1 - cpu, press if t == 3 else NEUTRAL)
        for e in ev:
            if isinstance(e, MoveStarted) and e.fighter != cpu:
                start = e.frame
            elif isinstance(e, MoveStarted) and start is not None and e.frame > start:
                pressed_after = True
        for e in ev:
            if isinstance(e, Hit):
                if e.attacker != cpu:
                    return ("blocked" if e.blocked else "hit"), pressed_after
                if start is not None:
                    return "interrupted", pressed_after
            if isinstance(e, Whiff) and e.fighter != cpu:
                return "whiff", pressed_after
    return "none", pressed_after


def test_hard_cpu_reads_a_heavy_wind_up_instead_of_walking_into_it():
    """A player starts a roundhouse (14-frame wind-up) or a straight (10) from 1.1 or 1.3 m:
    the hard CPU guards, backs out of reach or hits it out of its wind-up; it is struck clean
    in at most 1 in 6 of the exchanges and never presses a move that cannot land first into
    a wind-up it has seen (old CPU: struck in 21 of 64, 17 of them after pressing a slow move
    into the wind-up).  Reading rises with level: easy is struck most, hard least."""
    struck = {}
    for level in ("hard", "normal", "easy"):
        hits = pressed_into = n = 0
        for move in ("hk", "hp"):
            for dist in (1.1, 1.3):
                for seed in range(8):
                    for cpu in (0, 1):
                        outcome, after = _into_heavy(dist, seed, cpu, move, level)
                        n += 1
                        hits += outcome == "hit"
                        pressed_into += outcome == "hit" and after
        struck[level] = hits
        if level == "hard":
            assert hits <= n // 6, f"the hard CPU was struck by {hits} of {n} heavies"
            assert pressed_into <= 1, f"pressed into {pressed_into} wind-ups"
    assert struck["hard"] < struck["normal"] < struck["easy"], struck


def test_cpu_backs_out_of_a_heavys_reach_and_the_heavy_whiffs(monkeypatch):
    """Read (``read=1``) from just inside a roundhouse's reach with room behind, the CPU walks
    back (it does not guard: nothing to block) and the roundhouse whiffs."""
    monkeypatch.setitem(ai.LEVELS, "hard", replace(ai.LEVELS["hard"], read=1.0, punish=0.0))
    bare = Match.new(seed=0, arena=False)                               # P1 stands at x = -1.5, facing +x
    front = float(bare.fighters[0].limb_boxes()[:, 1, 0].max()) + 1.5    # its frontmost limb, from its centre
    reach = ai.move_reach(bare.data)["hk"][0] + front
    for cpu in (0, 1):
        m = placed_facing(reach - 0.1, 0, cpu)
        m.ai_state[cpu].start(bits=0, hold=6, tap=0)                # standing, until it reads the wind-up
        backs, outcome = 0, None
        for t in range(40):
            ev = step_side(m, 1 - cpu, FrameInput(hk=True) if t == 0 else NEUTRAL)
            backs += m.fighters[cpu].state == "walk_back"
            outcome = outcome or next((type(e).__name__ for e in ev if isinstance(e, (Hit, Whiff))), None)
        assert outcome == "Whiff" and backs >= 5, (cpu, outcome, backs)


# ---------------------------------------------------------------- the fireball's first frame
@pytest.mark.parametrize("dist", [0.6, 0.8, 1.0, 1.2])
@pytest.mark.parametrize("crouch", [False, True], ids=["standing", "crouching"])
def test_point_blank_fireball_strikes_on_its_launch_frame(dist, crouch):
    """A projectile move's active frame can strike at point-blank, as a punch's does: on the
    launch frame the fireball's range box (method A) is judged against the defender's limb
    boxes, so a Hit comes on that frame exactly when they overlap there.  (Spawned after the
    judge, it was first judged a frame later, one step on: thrown at 0.6 m into a crouch it
    spawned inside the body and flew out the back, no hit at all.)"""
    m = placed_facing(dist)
    hold = FrameInput(down=True) if crouch else NEUTRAL
    for _ in range(6):
        m.step(NEUTRAL, hold)
    half = m.data.moves["fireball"].projectile.half
    launch, hits = None, []
    for t in range(60):
        ev = m.step(FIREBALL if t == 0 else NEUTRAL, hold)
        hits += [e for e in ev if isinstance(e, Hit)]
        for e in ev:
            if isinstance(e, ProjectileLaunched):
                launch = e.frame
                c = np.asarray(e.position)
                box = np.array([c - half, c + half])
                reach = bool(overlaps(box[None], m.fighters[1].limb_boxes()).any())
    assert launch is not None
    assert [e.move for e in hits] == ["fireball"] and not hits[0].blocked
    if reach:
        assert hits[0].frame == launch
    else:
        assert hits[0].frame > launch
    if dist <= 1.0:
        assert reach, "at point-blank the fireball starts inside the defender's range boxes"
