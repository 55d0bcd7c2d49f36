"""Training mode and the sweep's knockdown: the frame meter shows a knockdown as its own phase,
the advantage read-out stays the truth, and a meaty, a wake-up reversal, a whiff at a floored
dummy and the damage read-out all read right around it."""

from __future__ import annotations

import pytest

from game.sim import FrameInput, Hit, MoveStarted, Whiff
from simhelp import NEUTRAL, PRESS, first_act, gap
from traininghelp import runs, training_match, window_step

SWEEP, DOWN = FrameInput(hk=True, down=True), FrameInput(down=True)


def _sweep(m, tm, dist=1.2):
    """P1 walks to ``dist`` m and sweeps the dummy, holding down until it lands.  Returns the
    frame before the press, the Hit, and (measured on the hit's step) the frames P1 and P2
    can act again and the frames both were frozen by the hit's hitstop."""
    while gap(m) > dist:
        window_step(m, tm, FrameInput(forward=True))
    for _ in range(3):
        window_step(m, tm, NEUTRAL)
    start = m.frame
    events = list(window_step(m, tm, SWEEP))
    for _ in range(60):
        hit = next((e for e in events if isinstance(e, Hit)), None)
        if hit is not None:
            frozen = min(f.hitstop for f in m.fighters)
            return start, hit, first_act(m, 0), first_act(m, 1), frozen
        events = window_step(m, tm, DOWN)
    raise AssertionError("the sweep never landed")


def _segment_cells(runs):
    """Each run's ``(phase, length, first cell)`` with cells counted from the exchange's start."""
    out, at = [], 0
    for ph, n in runs:
        out.append((ph, n, at))
        at += n
    return out


# ------------------------------------------------------------------ the phase itself
def test_frame_phase_is_knockdown_exactly_while_the_fighter_is_floored():
    """``Fighter.frame_phase()`` is "knockdown" on every frame of the state, and on no other
    (not "hitstun"), for the knockdown animation's length less nothing: the
    frames the knockdown state lasts outside hitstop are the animation's frames."""
    m, tm = training_match()
    _sweep(m, tm)
    d = m.fighters[1]
    assert d.state == "knockdown"
    seen = []
    for _ in range(120):
        seen.append((d.state, d.frame_phase(), d.hitstop))
        window_step(m, tm, NEUTRAL)
    assert all((state == "knockdown") == (phase == "knockdown") for state, phase, _ in seen), seen
    assert "hitstun" not in {phase for _, phase, _ in seen}
    floored = sum(1 for state, _, stop in seen if state == "knockdown" and stop == 0)
    assert floored == m.data.knockdown_frames == m.data.moves["hk_low"].hitstun


# ------------------------------------------------------------------ the meter and the advantage
def test_meter_shows_the_knockdown_as_its_own_segment_with_the_true_advantage():
    """A sweep on hit: the dummy's row is one "knockdown" segment (no hitstun cells), as long
    as the knockdown, from the sweep's first active frame to the frame before the dummy can
    act again (as the sim runs it, less the hitstop both were frozen by), and the advantage
    is who really acts first (+22 by the move table; here measured)."""
    m, tm = training_match()
    start, hit, p1_free, p2_free, frozen = _sweep(m, tm)
    while tm.meter.active:
        window_step(m, tm, NEUTRAL)
    mv = m.data.moves["hk_low"]
    p1, p2 = (runs(r) for r in tm.meter.rows)
    assert p1[:3] == [("startup", mv.startup), ("active", mv.active), ("recovery", mv.recovery)], p1
    assert [ph for ph, _ in p2] == ["neutral", "knockdown", "neutral"], p2
    landed = hit.frame - start
    assert p2[0][1] == landed == mv.startup
    assert p2[1][1] == m.data.knockdown_frames
    assert landed + p2[1][1] == p2_free - start - frozen
    truth = p2_free - p1_free
    assert tm.meter.advantage == truth == hit.advantage > 0
    assert tm.meter.last_hit == "P1 sweep hit (low), knockdown"


@pytest.mark.slow
def test_a_blocked_sweep_is_blockstun_not_a_knockdown():
    """Against a crouching guard the sweep is blocked: no knockdown, so the meter shows
    blockstun and the read-out names no knockdown; the same sweep on hit is a knockdown."""
    rows = {}
    for guard in ("all", "none"):
        m, tm = training_match("crouch", guard)
        _, hit, p1_free, p2_free, _ = _sweep(m, tm)
        assert hit.blocked == (guard == "all")
        while tm.meter.active:
            window_step(m, tm, DOWN)
        rows[guard] = [ph for ph, _ in runs(tm.meter.rows[1])]
        assert tm.meter.advantage == p2_free - p1_free
        assert tm.meter.last_hit.endswith("knockdown") == (guard == "none")
    assert rows == {"all": ["neutral", "blockstun", "neutral"], "none": ["neutral", "knockdown", "neutral"]}


@pytest.mark.parametrize("guard", ["none", "all"])
@pytest.mark.parametrize("move", ["lp", "hp"])
def test_a_meaty_on_the_wake_up_frame_meets_the_end_of_the_knockdown_segment(move, guard):
    """Okizeme: after the sweep, P1 walks in and presses so that its move's first active
    frame is the dummy's wake-up frame (the first frame it can act, measured).  The meter
    keeps sweep, knockdown and meaty as one exchange: the dummy's knockdown segment is
    followed at once by the meaty's hitstun or blockstun (the dummy guarding from its first
    free frame), P1's first active cell of the meaty is that very cell, and the advantage
    is the meaty's own, measured.  The damage read-out follows the sim: a meaty is not a
    combo (the dummy was free when it landed), and a blocked one leaves the sweep's figure."""
    m, tm = training_match()
    _, sweep_hit, _, wake, _ = _sweep(m, tm)
    tm.dummy.guard = guard
    mv = m.data.moves[move]
    while m.fighters[0].move:
        window_step(m, tm, NEUTRAL)
    while gap(m) > 0.9:
        window_step(m, tm, FrameInput(forward=True))
    while m.frame < wake - mv.startup:
        window_step(m, tm, NEUTRAL)
    assert m.fighters[1].state == "knockdown", "the case under test: pressed while the dummy is down"
    health = m.fighters[1].health
    events = list(window_step(m, tm, PRESS[move]))
    hit = truth = None
    for _ in range(120):
        for e in events:
            if isinstance(e, Hit) and hit is None:
                hit, taken, combo = e, health - m.fighters[1].health, m.fighters[1].combo
                truth = first_act(m, 1) - first_act(m, 0)
        if hit is not None and not tm.meter.active:
            break
        events = window_step(m, tm, NEUTRAL)
    assert hit is not None and hit.move == move and hit.blocked == (guard == "all")
    assert hit.frame == wake, "the meaty's first active frame is the wake-up frame"
    p1, p2 = (_segment_cells(runs(r)) for r in tm.meter.rows)
    stun = "blockstun" if hit.blocked else "hitstun"
    kd = [i for i, s in enumerate(p2) if s[0] == "knockdown"]
    assert len(kd) == 1 and p2[kd[0]][1] == m.data.knockdown_frames, p2
    after = p2[kd[0] + 1]
    assert after[0] == stun and after[1] == (mv.blockstun if hit.blocked else mv.hitstun), p2
    meaty_active = [at for ph, _, at in p1 if ph == "active"][-1]
    assert meaty_active == after[2], (p1, p2)
    assert tm.meter.advantage == truth == hit.advantage
    d = tm.damage
    if hit.blocked:
        assert taken == 0 and d.damage[1] == sweep_hit.damage and d.hits[1] == 1
    else:
        assert (combo, d.hits[1], d.last, d.damage[1]) == (1, 1, taken, taken) and taken > 0
        assert f"P2 took {taken}" in d.describe()
    assert tm.meter.last_hit == f"P1 {mv.label} {'blocked' if hit.blocked else 'hit'} ({mv.height})"


def test_a_reversal_on_waking_follows_the_knockdown_segment():
    """The dummy's reversal comes out on its wake-up frame (measured): its row goes from the
    knockdown straight into the reversal's startup, with no neutral cell between."""
    m, tm = training_match(reversal="lp")
    _, _, _, wake, _ = _sweep(m, tm)
    start = None
    for _ in range(120):
        events = window_step(m, tm, NEUTRAL)
        start = start or next((e for e in events if isinstance(e, MoveStarted) and e.fighter == 1), None)
        if start is not None and not tm.meter.active:
            break
    assert start is not None and (start.move, start.frame) == ("lp", wake)
    phases = [ph for ph, _ in runs(tm.meter.rows[1])]
    assert phases[:4] == ["neutral", "knockdown", "startup", "active"], phases


def test_an_attack_at_the_floored_dummy_whiffs_and_the_knockdown_stays_one_segment():
    """A jab thrown at the dummy while it lies there strikes nothing (a ``Whiff``): the
    exchange goes on (the dummy is still down), the knockdown stays one whole segment, the
    read-out names the whiff, the damage read-out keeps the sweep's, the dummy's health is not
    refilled until it is up, and the advantage is the truth measured at the jab's press."""
    m, tm = training_match()
    _, sweep_hit, _, _, _ = _sweep(m, tm, dist=0.9)
    while m.fighters[0].move:
        window_step(m, tm, NEUTRAL)
    while gap(m) > 0.9:
        window_step(m, tm, FrameInput(forward=True))
    dummy = m.fighters[1]
    assert dummy.state == "knockdown" and dummy.stun > 12
    hurt = dummy.health
    events = list(window_step(m, tm, PRESS["lp"]))
    truth = first_act(m, 1) - first_act(m, 0)
    for _ in range(120):
        assert not any(isinstance(e, Hit) for e in events)
        if any(isinstance(e, Whiff) for e in events):
            assert dummy.state == "knockdown" and tm.meter.active
            assert tm.meter.last_hit == "P1 jab whiff"
        if dummy.state == "knockdown":
            assert dummy.health == hurt
        if not tm.meter.active:
            break
        events = window_step(m, tm, NEUTRAL)
    assert tm.meter.last_hit == "P1 jab whiff"
    p2 = runs(tm.meter.rows[1])
    assert [ph for ph, _ in p2] == ["neutral", "knockdown", "neutral"], p2
    assert p2[1][1] == m.data.knockdown_frames
    assert tm.meter.advantage == truth
    assert (tm.damage.last, tm.damage.hits[1]) == (sweep_hit.damage, 1)
    assert dummy.health == dummy.max_health


def test_a_combo_into_the_sweep_reads_hitstun_then_knockdown_and_its_damage_holds():
    """Front kick cancelled into the sweep: the dummy's row is the kick's hitstun, then the
    knockdown; the damage read-out is the sim's combo (2 hits) and the health it took, and it
    holds, with the dummy's health, through the whole knockdown."""
    m, tm = training_match()
    while gap(m) > 0.9:
        window_step(m, tm, FrameInput(forward=True))
    for _ in range(3):
        window_step(m, tm, NEUTRAL)
    dummy = m.fighters[1]
    full = dummy.health
    events = list(window_step(m, tm, PRESS["lk"]))
    while not any(isinstance(e, Hit) for e in events):
        events = window_step(m, tm, NEUTRAL)
    events = window_step(m, tm, SWEEP)
    hits = []
    for _ in range(60):
        hits += [e for e in events if isinstance(e, Hit)]
        if dummy.state == "knockdown":
            break
        events = window_step(m, tm, DOWN)
    assert [h.move for h in hits] == ["hk_low"] and dummy.combo == 2
    taken = full - dummy.health
    read = tm.damage.describe()
    assert (tm.damage.hits[1], tm.damage.damage[1]) == (2, taken) and "combo 2 hits" in read
    while dummy.state == "knockdown":
        assert tm.damage.describe() == read and dummy.health == full - taken
        window_step(m, tm, NEUTRAL)
    while tm.meter.active:
        window_step(m, tm, NEUTRAL)
    p2 = runs(tm.meter.rows[1])
    assert [ph for ph, _ in p2] == ["neutral", "hitstun", "knockdown", "neutral"], p2
    assert p2[2][1] == m.data.knockdown_frames
