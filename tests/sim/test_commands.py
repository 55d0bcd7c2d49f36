"""Commands read from the inputs (game/sim/commands.py): two-button pairs pressed a frame or two
apart (``PAIR_LENIENCY``), a buffered move read as it was pressed, held directions and buttons
on the first free frame or through the round's intro."""

from __future__ import annotations

import pytest

from game.sim import (
    FrameInput,
    Hit,
    Match,
    MoveStarted,
    ProjectileLaunched,
    ThrowGrab,
)
from game.sim import FrameInput as F
from game.sim.match import JUMP_DRIFT, PAIR_LENIENCY
from simhelp import (
    NEUTRAL,
    PRESS,
    placed,
    run_script,
    run_scripts,
)


# ------------------------------------------------------------------ the input buffer
def _buffered_start(first: str, second: FrameInput, then: FrameInput, *, on_hit: bool, dist: float = 0.9):
    """P1 does ``first`` (whiffed from afar, or landed); on the first frame of its recovery
    (whiff) or of the hit's hitstop (hit) it presses ``second``, holding ``then`` from the next
    frame on; return the move that starts next, and whether it cut ``first`` short."""
    m = placed(dist if on_hit else 3.0)
    mv = m.data.moves[first]
    ev = list(m.step(PRESS[first], NEUTRAL))
    while True:
        a = m.fighters[0]
        if on_hit and any(isinstance(e, Hit) for e in ev):
            break
        if not on_hit and a.mframe >= mv.total - 3:          # within the 6-frame buffer of its end
            break
        ev = list(m.step(NEUTRAL, NEUTRAL))
    frame_of_press = m.fighters[0].mframe
    started = [e for e in m.step(second, NEUTRAL) if isinstance(e, MoveStarted) and e.fighter == 0]
    for _ in range(40):
        if started:
            break
        started = [e for e in m.step(then, NEUTRAL) if isinstance(e, MoveStarted) and e.fighter == 0]
    assert started, "nothing started"
    return started[0].move, frame_of_press


@pytest.mark.parametrize("on_hit", [False, True])
def test_a_buffered_sweep_stays_a_sweep_when_down_is_released_before_it_starts(on_hit):
    """Down + HK pressed in a front kick's recovery (whiffed) or in its hit's hitstop (a
    cancel), down let go on the next frame: the sweep comes out, as pressed (down read when
    the move starts would give the roundhouse)."""
    move, _ = _buffered_start("lk", PRESS["hk_low"], NEUTRAL, on_hit=on_hit)
    assert move == "hk_low"


@pytest.mark.parametrize("on_hit", [False, True])
def test_a_buffered_roundhouse_stays_a_roundhouse_when_down_is_pressed_after(on_hit):
    """The converse: HK pressed standing, down held from the next frame (a crouch while
    waiting): the roundhouse comes out, not a sweep the player never pressed."""
    move, _ = _buffered_start("lk", PRESS["hk"], FrameInput(down=True), on_hit=on_hit)
    assert move == "hk"


def test_a_press_still_reads_down_held_on_its_own_frame():
    """Unbuffered, nothing changes: down + HK is the sweep, HK alone the roundhouse, HK with
    up and down (cancelling) the roundhouse."""
    for inp, want in ((FrameInput(hk=True, down=True), "hk_low"), (FrameInput(hk=True), "hk"),
                      (FrameInput(hk=True, up=True, down=True), "hk")):
        m = placed(3.0)
        started = [e.move for e in m.step(inp, NEUTRAL) if isinstance(e, MoveStarted)]
        assert started == [want], (inp, started)


def _started(events) -> list:
    return [(k, e.move) for k, e in events if isinstance(e, MoveStarted) and e.fighter == 0]


@pytest.mark.parametrize("delay", range(1, PAIR_LENIENCY + 1))
@pytest.mark.parametrize("first, second, pair, outcome", [
    ("lp", "lk", "throw", ThrowGrab), ("lk", "lp", "throw", ThrowGrab),
    ("lp", "hp", "fireball", ProjectileLaunched), ("hp", "lp", "fireball", ProjectileLaunched)])
def test_a_pair_pressed_one_or_two_frames_apart_is_the_pair(first, second, pair, outcome, delay):
    """The first button alone starts its move; the second, pressed ``delay`` frames later with
    the first held, turns it into the pair's move on that frame, which then works as if
    pressed together then (the grab, or the fireball's launch)."""
    m = placed(1.0)
    held = F(**{first: True})
    presses = [held] * delay + [F(**{first: True, second: True})] * 3
    events = run_script(m, presses)
    assert _started(events) == [(0, first), (delay, pair)]
    startup = m.data.moves[pair].startup
    got = [k for k, e in events if isinstance(e, outcome)]
    assert got and got[0] >= delay + startup - 1      # no earlier than the pair pressed at `delay`


@pytest.mark.parametrize("pair", [("lp", "lk"), ("lp", "hp")])
def test_a_pair_pressed_together_is_unchanged(pair):
    m = placed(1.0)
    events = run_script(m, [F(**{b: True for b in pair})])
    assert _started(events) == [(0, "throw" if "lk" in pair else "fireball")]


def test_a_second_button_later_than_the_window_leaves_the_first_move():
    """One frame past PAIR_LENIENCY the jab stays a jab: the second press is only buffered."""
    m = placed(1.0)
    late = PAIR_LENIENCY + 1
    events = run_script(m, [F(lp=True)] * late + [F(lp=True, lk=True)])
    assert _started(events)[0] == (0, "lp")
    assert all(move != "throw" for _, move in _started(events))


@pytest.mark.parametrize("presses, pair, at", [
    ([F(lp=True), F(lk=True)], "throw", 1),                        # lp let go as lk comes
    ([F(lp=True), F(lp=True), F(lk=True)], "throw", 2),            # a short rolled press
    ([F(lp=True), NEUTRAL, F(lp=True, lk=True)], "throw", 2),         # lp tapped, then both
    ([F(hp=True), F(lp=True), F(lp=True, hp=True)], "fireball", 1)])
def test_a_pair_is_two_presses_within_the_window_held_or_not(presses, pair, at):
    """What makes the pair is when the two buttons were pressed, not whether the first is still
    held: a quick rolled press often lets the first go as the second lands."""
    m = placed(1.0)
    started = _started(run_script(m, presses))
    assert started[-1] == (at, pair)


@pytest.mark.parametrize("wait", [PAIR_LENIENCY + 1, 40])
@pytest.mark.parametrize("held, then", [("lp", "hp"), ("lp", "lk"), ("hp", "lp")])
def test_a_button_held_from_long_ago_makes_no_pair(held, then, wait):
    """A button pressed more than PAIR_LENIENCY frames ago and still held is no half of a pair:
    lp held through a whiffed jab and its recovery, then hp, is the straight, not the fireball."""
    m = placed(3.0)
    presses = [F(**{held: True})] * wait + [F(**{held: True, then: True})] * 3
    started = _started(run_script(m, presses, frames=wait + 30))
    assert started[0] == (0, held)
    assert all(move not in ("fireball", "throw") for _, move in started)
    if wait == 40:                          # the first move is over: the second button's own move
        assert (wait, then) in started


def test_jab_held_then_straight_is_the_combo_not_a_fireball():
    """The combo the README names: a jab that hits, lp still held, hp pressed at contact: the
    straight cancels it (before, a held lp made lp + hp the fireball)."""
    m = placed(1.0)
    events = run_script(m, [F(lp=True)] * 7, frames=7)
    assert any(type(e).__name__ == "Hit" for _, e in events)
    events = run_script(m, [F(lp=True, hp=True)] * 3, frames=20)
    assert [move for _, move in _started(events)] == ["hp"]


def _first_free_frame() -> int:
    """P1 guards P2's jab; the first frame P1 can act again after its blockstun."""
    m = placed(1.0)
    events = run_scripts(m, [F(guard=True)] * 8 + [F(lk=True), NEUTRAL] * 20, [F(lp=True)], 60)
    return next(k for k, e in events if isinstance(e, MoveStarted) and e.fighter == 0)


@pytest.mark.slow
@pytest.mark.parametrize("first_at, second_at", [(-1, 1), (0, 2), (-2, 0), (1, 3)])
def test_a_pair_straddling_the_first_free_frame(first_at, second_at):
    """Out of blockstun (a reversal throw): lp on the frame before P1 can act, buffered, then
    lk two frames later is the throw, as two frames apart are anywhere else; the window counts
    from the first press, not from the frame its move starts."""
    free = _first_free_frame()
    m = placed(1.0)
    p1 = [F(lp=free + first_at <= k, lk=free + second_at <= k, guard=k < free + first_at) for k in range(free + 8)]
    events = run_scripts(m, p1, [F(lp=True)], 60)
    started = [e.move for _, e in events if isinstance(e, MoveStarted) and e.fighter == 0]
    assert started[-1] == "throw" and any(isinstance(e, ThrowGrab) and e.attacker == 0 for _, e in events)


def test_a_late_pair_is_the_same_throw_as_a_pair_pressed_then():
    """The first move's step forward is taken back: a throw completed two frames late grabs
    with the thrower where a throw pressed at once leaves it (no longer reach)."""
    def thrower_x(presses):
        m = placed(1.0)
        events = run_script(m, presses, frames=12)
        grab = next(k for k, e in events if isinstance(e, ThrowGrab))
        return m.fighters[0].x, grab

    x0, grab0 = thrower_x([F(lp=True, lk=True)])
    x2, grab2 = thrower_x([F(lp=True)] * 2 + [F(lp=True, lk=True)])
    assert x2 == x0 and grab2 == grab0 + 2


def test_the_window_leaves_no_state_behind():
    """Once the window has passed (or the move was cut short) ``lone`` is 0 again, so two
    fighters that play alike hash alike."""
    m = placed(1.0)
    m.step(F(lp=True), NEUTRAL)
    assert m.fighters[0].lone
    for _ in range(PAIR_LENIENCY):
        m.step(F(lp=True), NEUTRAL)
    assert m.fighters[0].lone == 0
    for _ in range(PAIR_LENIENCY):
        m.step(NEUTRAL, NEUTRAL)
    assert m.fighters[0].presses == 0


def test_no_fireball_from_a_late_pair_while_ones_own_fireball_flies():
    """lp + hp while one's fireball flies is the straight when pressed together; pressed a
    frame apart the jab stays a jab (the pair cannot come out, so nothing changes)."""
    m = placed(12.0)
    run_script(m, [F(lp=True, hp=True)], frames=1)
    while m.fighters[0].move:                                  # the thrower recovers
        m.step(NEUTRAL, NEUTRAL)
    assert m.stage.projectiles                                 # its fireball still flies
    events = run_script(m, [F(lp=True), F(lp=True, hp=True)], frames=4)
    assert _started(events) == [(0, "lp")]


def test_a_cancel_is_not_turned_into_a_pair():
    """Only a move started from neutral by a lone press can become a pair: a straight that
    cancelled a jab's hit stays the straight when lp is pressed the frame after."""
    m = placed(1.0)
    events = run_script(m, [F(lp=True)], frames=7)                  # the jab hits on its 6th frame
    assert any(type(e).__name__ == "Hit" for _, e in events)
    while m.fighters[0].hitstop:                               # a press now would be buffered
        m.step(NEUTRAL, NEUTRAL)
    events = run_script(m, [F(hp=True), F(hp=True, lp=True)], frames=4)
    assert _started(events) == [(0, "hp")]                     # cancelled at once, and stays


def test_the_pending_pair_is_match_state():
    """``Fighter.lone`` is hashed and restored: a jab started by a lone lp and one started
    from the buffer differ, and a restored snapshot completes the pair as the original does."""
    m = placed(1.0)
    m.step(F(lp=True), NEUTRAL)
    assert m.fighters[0].lone
    snap, h = m.snapshot(), m.state_hash()
    first = _started(run_script(m, [F(lp=True, lk=True)], frames=3))
    m.restore(snap)
    assert m.state_hash() == h
    assert _started(run_script(m, [F(lp=True, lk=True)], frames=3)) == first == [(0, "throw")]


# ---------------------------------------------------------------- the jump: up held, direction until take-off
def _first_jump(events, who=0):
    return next((k for k, e in events if isinstance(e, MoveStarted) and e.fighter == who and e.move == "jump"), None)


@pytest.mark.slow
def test_up_held_through_blockstun_jumps_on_the_first_free_frame():
    """Up (+ forward) held before the first free frame after a blocked jab jumps on that
    frame, as a held direction does in the genre (no fresh press needed, and an early one is
    not dropped)."""
    free = _first_free_frame()
    for early in (1, 3, 5):
        m = placed(1.0)
        p1 = [F(guard=True)] * (free - early) + [F(up=True, forward=True)] * 12
        events = run_scripts(m, p1, [F(lp=True)], free + 12)
        assert _first_jump(events) == free, early


def test_up_held_jumps_again_on_landing():
    m = placed(3.0)
    jump = m.data.moves["jump"]
    events = run_script(m, [F(up=True)] * (2 * jump.total + 2), frames=2 * jump.total + 2)
    jumps = [k for k, e in events if isinstance(e, MoveStarted) and e.fighter == 0 and e.move == "jump"]
    assert jumps == [0, jump.total, 2 * jump.total]     # each on the frame the last one lands


@pytest.mark.slow
@pytest.mark.parametrize("late", range(1, 4))
def test_the_jump_direction_counts_until_take_off(late):
    """Forward held from ``late`` frames after up (still in the 4 pre-jump frames) lands the
    jump-in as far as up + forward pressed together, less the pre-jump frames without drift;
    forward let go before take-off jumps (almost) straight up."""
    def travel(presses):
        m = placed(3.0)
        x0 = m.fighters[0].x
        run_script(m, presses, frames=m.data.moves["jump"].total)
        return m.fighters[0].x - x0

    total = placed(3.0).data.moves["jump"].total
    together = travel([F(up=True, forward=True)] * total)
    straight = travel([F(up=True)] + [NEUTRAL] * total)
    late_fwd = travel([F(up=True)] * late + [F(up=True, forward=True)] * total)
    let_go = travel([F(up=True, forward=True)] * 2 + [NEUTRAL] * total)
    assert straight == pytest.approx(0.0, abs=1e-9)
    assert together - JUMP_DRIFT * (late - 1) - 1e-9 <= late_fwd <= together + 1e-9   # the start frame moves no one
    assert let_go < JUMP_DRIFT * 2 + 1e-9


def test_heavy_kick_with_up_and_down_is_the_standing_kick_not_the_sweep():
    m = placed(3.0)
    started = [e.move for e in m.step(FrameInput(hk=True, up=True, down=True), NEUTRAL) if isinstance(e, MoveStarted)]
    assert started == ["hk"]
    m2 = placed(3.0)
    started = [e.move for e in m2.step(FrameInput(hk=True, down=True), NEUTRAL) if isinstance(e, MoveStarted)]
    assert started == ["hk_low"]


def _moves_started(events) -> list:
    return [(e.fighter, e.move) for e in events if isinstance(e, MoveStarted)]


def test_button_held_through_the_round_intro_is_no_press_when_the_fight_starts():
    """Moves start on a press.  The intro passed no input, so a button held through it read as
    pressed on the first fight frame: a jab came out that nobody pressed then.  Held through
    round 1's intro and through round 2's (after a K.O.), nothing starts; a new press does."""
    jab = FrameInput(lp=True)
    m = Match.new(seed=0, arena=False)
    started = []
    while m.phase != "fight":
        m.step(jab, jab)
    for _ in range(20):                                  # still held: nothing starts
        started += _moves_started(m.step(jab, jab))
    assert started == []
    m.step(NEUTRAL, NEUTRAL)
    assert (0, "lp") in _moves_started(m.step(jab, NEUTRAL))   # released and pressed: a jab
    # round 2: a jab knocks P2 out, then both hold lp through the next intro
    m = placed(1.0)
    m.fighters[1].health = m.data.moves["lp"].damage
    assert (0, "lp") in _moves_started(m.step(jab, NEUTRAL))
    while m.round == 1:
        m.step(jab, jab)
    started = []
    while m.phase != "fight":
        started += _moves_started(m.step(jab, jab))
    for _ in range(20):
        started += _moves_started(m.step(jab, jab))
    assert started == []
