"""Training's read-outs against the simulation: the damage read-out is the health the match took
and follows its combo count, and the input history is the inputs both sides gave."""

from __future__ import annotations

import pytest

from game.render.training import DamageCounter
from game.sim import FrameInput, Hit
from simhelp import HELD, NEUTRAL, PRESS
from traininghelp import to_gap, training_match, window_step


def test_render_input_history_merges_held_frames():
    from game.render.training import InputHistory

    h = InputHistory()
    for inp in [FrameInput(forward=True)] * 5 + [FrameInput(forward=True, lp=True)] + [FrameInput()] * 3:
        h.record(inp)
    assert [r[1] for r in h.rows] == [3, 1, 5]
    assert InputHistory.describe(FrameInput(forward=True, lp=True).bits) == "→ LP"
    assert InputHistory.describe(FrameInput(down=True, back=True, guard=True).bits) == "↙ G"


# ------------------------------------------------------------------ damage
@pytest.mark.parametrize("move", ["lp", "hp", "lk", "hk", "hk_low", "fireball"])
def test_damage_read_out_is_the_health_the_match_took(move):
    m, tm = training_match()
    to_gap(m, tm, 0.9)
    took = 0
    for p in [PRESS[move]] + [HELD.get(move, NEUTRAL)] * 60:
        before = m.fighters[1].health
        events = m.step(p, tm.p2_input(m, NEUTRAL))
        took += before - m.fighters[1].health
        tm.after_step(m, events)
    assert took > 0
    d = tm.damage
    assert (d.defender, d.last, d.hits[1], d.damage[1], d.best[1]) == (1, took, 1, took, took)
    assert f"P2 took {took}" in d.describe()


def test_damage_read_out_follows_the_sims_combo_count():
    """A follow-up landing while the dummy is still in hitstun continues the combo (the
    sim's rule, ``Fighter.combo``); a plain follow-up (no cancel) is not fast enough for that,
    so the test holds the dummy's hitstun longer after the first hit (cancel combos:
    tests/sim/test_combos.py).  The read-out's hits
    are the sim's count and its damage the health the combo took; a hit after the dummy
    recovered starts a new combo."""
    m, tm = training_match()
    to_gap(m, tm, 0.9)
    start_health = m.fighters[1].health
    script = [PRESS["lp"]] + [FrameInput(forward=True)] * 34 + [PRESS["lp"]] + [NEUTRAL] * 40
    combos = []
    for p in script:
        events = m.step(p, tm.p2_input(m, NEUTRAL))
        hits = [e for e in events if isinstance(e, Hit)]
        if hits and not combos:
            m.fighters[1].stun += 40                       # the first hit's hitstun, held longer
        if hits:
            combos.append((m.fighters[1].combo, start_health - m.fighters[1].health))
        tm.after_step(m, events)
    assert [c for c, _ in combos] == [1, 2], combos
    d = tm.damage
    assert (d.hits[1], d.damage[1]) == combos[-1] and d.best[1] == combos[-1][1]
    assert "combo 2 hits" in d.describe()
    # recovered (and refilled): the next hit is a new combo of one
    to_gap(m, tm, 0.9)
    before = m.fighters[1].health
    for p in [PRESS["hp"]] + [NEUTRAL] * 40:
        events = m.step(p, tm.p2_input(m, NEUTRAL))
        if any(isinstance(e, Hit) for e in events):
            dmg = before - m.fighters[1].health
        tm.after_step(m, events)
    assert (d.hits[1], d.damage[1], d.last) == (1, dmg, dmg) and d.best[1] == max(dmg, combos[-1][1])


def test_damage_counter_splits_a_step_with_two_hits_by_the_sims_count():
    """Two hits on one step (a fireball and a fist): the combo's hits are the last
    ``Fighter.combo`` of them, which is all the read-out can know of their order."""

    class F:
        combo = 0

    class M:
        fighters = (F(), F())

    def hit(dmg):
        return Hit(frame=0, attacker=0, defender=1, move="x", attack_limb="a", struck_limb="b", point=None,
                   damage=dmg, blocked=False, height="mid", heavy=False, hitstop=0, advantage=0)

    c, m = DamageCounter(), M()
    m.fighters[1].combo = 2                      # both began a new combo on this step
    c.observe(m, [hit(4), hit(6)])
    assert (c.hits[1], c.damage[1], c.last) == (2, 10, 10)
    m.fighters[1].combo = 3                      # one more in the same combo
    c.observe(m, [hit(5)])
    assert (c.hits[1], c.damage[1]) == (3, 15)
    m.fighters[1].combo = 1                      # the first was a late continuation's end: a new one
    c.observe(m, [hit(7), hit(8)])
    assert (c.hits[1], c.damage[1], c.last, c.best[1]) == (1, 8, 15, 15)


def test_input_history_is_the_inputs_both_sides_gave_in_order_with_their_frame_counts():
    """Both rows of history, newest first, run-length encode what the match was given
    (P2: the dummy's own guard inputs, switching height with the attacker's move)."""
    m, tm = training_match("stand", "all")
    script = [FrameInput(forward=True)] * 30 + [NEUTRAL] * 2 + [PRESS["hk_low"]] + [FrameInput(down=True)] * 12 \
        + [NEUTRAL] * 40 + [PRESS["lp"]] * 3 + [FrameInput(back=True, down=True)] * 7 + [NEUTRAL] * 20
    given = ([], [])
    for p in script:
        window_step(m, tm, p)
        for side in (0, 1):
            given[side].append(m.last_inputs[side].bits)
    assert given[0] == [p.bits for p in script]
    for side in (0, 1):
        want = []
        for b in given[side]:
            if want and want[0][0] == b:
                want[0][1] += 1
            else:
                want.insert(0, [b, 1])
        assert [list(r) for r in tm.history[side].rows] == want[: len(tm.history[side].rows)]
        assert len(tm.history[side].rows) == min(len(want), tm.history[side].rows.maxlen)
    assert any(FrameInput.from_bits(b).down for b, _ in tm.history[1].rows), "the dummy crouch-guarded the sweep"
