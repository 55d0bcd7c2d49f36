"""Training mode, second review: whiff advantage, the dummy's reversal, the damage read-out and
the frame meter's written segment lengths, each checked against the simulation.

The truth is measured in the match, never copied from the read-outs: the frame a fighter can
act again is found by letting only that fighter mash a buffered move from a snapshot and
noting its first ``MoveStarted``; damage is the health the match took off.
"""

from __future__ import annotations

import os

import pytest

from game.render.training import DamageCounter, TrainingMode
from game.sim import FrameInput, Hit, MoveStarted
from glhelp import game_env
from simhelp import first_act, gap
from test_training_truth import _step, _training
from game.training import REVERSALS

os.environ.setdefault("PYGLET_HEADLESS", "1")

NEUTRAL = FrameInput()
PRESS = {"lp": FrameInput(lp=True), "hp": FrameInput(hp=True), "lk": FrameInput(lk=True),
         "hk": FrameInput(hk=True), "hk_low": FrameInput(hk=True, down=True),
         "fireball": FrameInput(lp=True, hp=True), "jump": FrameInput(up=True)}
HOLD = {"hk_low": FrameInput(down=True)}


def _to_gap(m, tm, d):
    while gap(m) > d:
        _step(m, tm, FrameInput(forward=True))
    while gap(m) < d:
        _step(m, tm, FrameInput(back=True))
    for _ in range(3):
        _step(m, tm, NEUTRAL)


# ------------------------------------------------------------------ whiffs
@pytest.mark.parametrize("move", ["lp", "hp", "lk", "hk", "hk_low"])
def test_whiff_advantage_is_counted_as_hits_are(move):
    """A move whiffed at a dummy 3.5 m away: the meter counted the dummy free from the
    exchange's first frame, one frame more than a hit counts a free fighter (Hit.advantage,
    the meter after a hit): a whiffed jab read -19.  The truth, as for hits: from the state
    after the exchange's first step, the frames until each side can act (the jab: -18)."""
    m, tm = _training()
    _to_gap(m, tm, 3.5)
    _step(m, tm, PRESS[move])
    assert tm.meter.active, "the exchange starts with the move"
    truth = first_act(m, 1) - first_act(m, 0)
    hits = []
    for _ in range(200):
        hits += [e for e in _step(m, tm, HOLD.get(move, NEUTRAL)) if isinstance(e, Hit)]
        if not tm.meter.active:
            break
    assert not hits and not tm.meter.active, "the case under test: a whiff"
    assert tm.meter.advantage == truth
    assert truth == 1 - m.data.moves[move].total          # the opponent acts from the move's 2nd frame


def test_the_last_advantage_is_not_shown_beside_a_new_exchange():
    """A blocked jab's advantage, then a new move: while it runs, the rows are the new
    exchange's, so the old figure goes (it used to stay next to them until the new one
    ended); the new exchange's own figure comes when it ends, and it is the truth."""
    m, tm = _training(guard="all")
    _to_gap(m, tm, 0.9)
    _step(m, tm, PRESS["lp"])
    for _ in range(60):
        _step(m, tm, NEUTRAL)
    assert tm.meter.advantage is not None and not tm.meter.active
    _to_gap(m, tm, 3.0)
    _step(m, tm, PRESS["hp"])
    truth = first_act(m, 1) - first_act(m, 0)
    while tm.meter.active:
        assert tm.meter.advantage is None
        _step(m, tm, NEUTRAL)
    assert tm.meter.advantage == truth


# ------------------------------------------------------------------ reversal
CASES = [("stand", "none", "hp"), ("stand", "all", "hp"), ("crouch", "all", "hk_low"),
         # blockstuns of every length parity under a crouching guard (a buffered press made with
         # down held is the sweep's, so the reversal's own press must be the one read), and a
         # knockdown: the reversal on waking up
         ("crouch", "all", "lp"), ("crouch", "all", "lk"), ("crouch", "all", "hp"), ("stand", "none", "hk_low")]


@pytest.mark.parametrize("stance, guard, attack", CASES)
@pytest.mark.parametrize("reversal", [r for r in REVERSALS if r != "off"])
def test_reversal_comes_out_on_the_first_frame_the_dummy_can_act(reversal, stance, guard, attack):
    """The dummy's reversal starts the chosen move on the first frame the match lets it act
    after a hit or a block (the frame found by mashing from the state after the hit), and
    the dummy still guards meanwhile: a crouching guard against the sweep does not turn
    a reversal HK into a sweep, and the jump (which the match does not buffer) comes out."""
    m, tm = _training(stance, guard, reversal)
    _to_gap(m, tm, 0.9)
    events = list(_step(m, tm, PRESS[attack]))
    hit = truth = start = None
    for _ in range(120):
        for e in events:
            if isinstance(e, Hit) and hit is None:
                hit = e
                truth = first_act(m, 1)
            elif isinstance(e, MoveStarted) and e.fighter == 1:
                start = e
        if start is not None:
            break
        events = _step(m, tm, HOLD.get(attack, NEUTRAL))
    assert hit is not None and hit.defender == 1 and hit.blocked == (guard == "all")
    assert start is not None, "no reversal"
    assert (start.move, start.frame) == (reversal, truth)


def test_refill_waits_for_a_knocked_down_dummy_to_get_up():
    """Endless health comes back once neither side is stunned: a swept dummy lies its whole
    knockdown with the sweep's damage taken (it was refilled on the ground, the next hit
    of a combo then read against full health), and is full again once up."""
    m, tm = _training()
    _to_gap(m, tm, 1.2)
    events = list(_step(m, tm, PRESS["hk_low"]))
    while not any(isinstance(e, Hit) for e in events):
        events = _step(m, tm, HOLD["hk_low"])
    dummy = m.fighters[1]
    assert dummy.state == "knockdown"
    hurt = dummy.health
    assert hurt < dummy.max_health
    while dummy.state == "knockdown":
        assert dummy.health == hurt
        _step(m, tm, NEUTRAL)
    assert dummy.health == dummy.max_health


def test_reversal_off_and_bad_names():
    """Off by default: the dummy stays still after a hit; a wrong name is refused by name."""
    m, tm = _training()
    assert tm.dummy.reversal == "off"
    _to_gap(m, tm, 0.9)
    log = []
    for p in [PRESS["hp"]] + [NEUTRAL] * 80:
        log += _step(m, tm, p)
    assert any(isinstance(e, Hit) for e in log)
    assert not any(isinstance(e, MoveStarted) and e.fighter == 1 for e in log)
    with pytest.raises(ValueError, match="reversal.*lp"):
        tm.dummy.reversal = "uppercut"


def test_f9_cycles_the_reversal_and_the_status_names_it():
    from game.training import REVERSALS as R

    tm = TrainingMode()
    seen = [tm.dummy.reversal]
    for _ in range(len(R)):
        tm.cycle_reversal()
        seen.append(tm.dummy.reversal)
    assert seen == list(R) + [R[0]]
    tm.dummy.reversal = "hk_low"
    assert "reversal sweep" in tm.status()
    tm.dummy.reversal = "off"
    assert "reversal" not in tm.status()


# ------------------------------------------------------------------ damage
@pytest.mark.parametrize("move", ["lp", "hp", "lk", "hk", "hk_low", "fireball"])
def test_damage_read_out_is_the_health_the_match_took(move):
    m, tm = _training()
    _to_gap(m, tm, 0.9)
    took = 0
    for p in [PRESS[move]] + [HOLD.get(move, NEUTRAL)] * 60:
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
    tests/test_review_combos.py).  The read-out's hits
    are the sim's count and its damage the health the combo took; a hit after the dummy
    recovered starts a new combo."""
    m, tm = _training()
    _to_gap(m, tm, 0.9)
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
    _to_gap(m, tm, 0.9)
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


# ------------------------------------------------------------------ the HUD
@pytest.fixture(scope="module")
def env():
    yield from game_env(1280, 720, training=True)


def _play(game, script):
    tr = game.training
    for p1 in script:
        game.input_source = lambda p1=p1: (p1, tr.p2_input(game.match, NEUTRAL))
        game.step()


def _hud_segments(game, i):
    """(text, x) of row ``i``'s segment-length labels that are showing."""
    return [(t.label.text, t.label.x) for t in game.hud.seg_lbl[i] if t.label.text and t.label.x > -500]


@pytest.mark.parametrize("guard", ["none", "all"])
def test_hud_writes_each_segments_length_and_each_rows_advantage(env, guard):
    """The meter's segments carry their lengths (the jab's 6 / 3 / 10 against its hitstun or
    blockstun, from the move table, which the sim follows), each over its own cells, and
    each row ends with its own side's advantage (P2's is P1's negated)."""
    _, _, game = env
    game.new_match(0)
    game.training.dummy.guard = guard
    m = game.match
    while gap(m) > 0.9:
        _play(game, [FrameInput(forward=True)])
    _play(game, [NEUTRAL] * 3 + [PRESS["lp"]] + [NEUTRAL] * 50)
    meter = game.training.meter
    assert not meter.active and meter.advantage is not None
    game.draw(1.0)
    mv = m.data.moves["lp"]
    stun = mv.blockstun if guard == "all" else mv.hitstun
    p1, p2 = _hud_segments(game, 0), _hud_segments(game, 1)
    assert [t for t, _ in p1] == [str(mv.startup), str(mv.active), str(mv.recovery)]
    assert [t for t, _ in p2] == [str(stun)]
    # each number over its own segment: its cells, from the runs the meter recorded
    hud_x = dict(zip(("startup", "active", "recovery"), (x for _, x in p1)))
    cell_x = _cell_x(game)
    for ph, n, at in meter.runs[0]:
        if ph in hud_x:
            assert cell_x(at) <= hud_x[ph] <= cell_x(at + n - 1) + 10
    assert game.hud.adv_lbl.label.text == f"{meter.advantage:+d}"
    assert game.hud.adv2_lbl.label.text == f"{-meter.advantage:+d}"
    assert "F9 reversal" in game.hud.keys_lbl.label.text


def _cell_x(game):
    from game.render.training import METER_LEN

    W, _, _ = game.hud.canvas(game.window.get_size())
    x0 = W / 2 - METER_LEN * 12 / 2
    return lambda k: x0 + k * 12


def test_hud_segment_lengths_are_whole_after_the_row_scrolled(env):
    """A fireball from 9 m: the exchange outlasts the meter's 80 cells, so the rows scroll
    and the throw's startup leaves the screen.  The numbers still give each segment's whole
    length (a segment cut at the left edge is not shown shorter than it was), and the
    runs the HUD reads hold exactly the cells the rows show."""
    _, _, game = env
    game.new_match(0)
    m = game.match
    while gap(m) < 9.0:
        _play(game, [FrameInput(back=True)])
    _play(game, [NEUTRAL] * 3 + [PRESS["fireball"]])
    hit = None
    for _ in range(300):
        _play(game, [NEUTRAL])
        hit = hit or next((e for e in game.last_events if isinstance(e, Hit)), None)
        if hit is not None and not game.training.meter.active:
            break
    meter = game.training.meter
    assert hit is not None and meter.frames > len(meter.rows[0]), "the case under test: the rows scrolled"
    game.draw(1.0)
    for i in range(2):
        row = list(meter.rows[i])
        first = meter.frames - len(row)
        cells = []
        for ph, n, at in meter.runs[i]:
            cells += [ph] * (at + n - max(at, first))
        assert cells == row
        shown = [t for t, _ in _hud_segments(game, i)]
        want = [str(n) for ph, n, at in meter.runs[i]
                if ph != "neutral" and at + n - max(at, first) >= len(str(n))]
        assert shown == want
    mv = m.data.moves["fireball"]
    assert str(mv.recovery) in [t for t, _ in _hud_segments(game, 0)]
