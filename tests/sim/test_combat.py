"""Hits, blocks and frame advantage (A2-A8 in play): limb pairs judged as the per-pair reference
judges them, a punch connecting at its A7 point, whiffs, hitstop, high, mid and low against
standing and crouching guards, guards on the first free frame, trades, and ``Hit.advantage``
against who really acts first."""

from __future__ import annotations

import numpy as np
import pytest

from game.collision import collision_point, judgement_points, overlaps
from game.sim import FrameInput, Hit, Match, Whiff
from game.sim.data import load_game_data
from simhelp import (
    GUARD,
    LOW_GUARD,
    NEUTRAL,
    fight,
    first_act,
    land,
    mashed_advantage,
    placed,
    press_and_wait,
    run,
    swept,
    to_fight,
    walk_to,
)


# ------------------------------------------------------------------ frame advantage
@pytest.mark.parametrize("move", ["hp", "hk"])
def test_heavy_normals_are_plus_on_hit_and_punishable_on_block(move):
    """The straight and the roundhouse, landing on their first active frame: on hit the
    attacker acts first (a heavy that hits leaves its attacker ahead), by their
    hitstun less what is left of the move; on block the defender acts first by more than a
    jab's startup, so a jab punishes.  The truth is who can start a move first."""
    mv = load_game_data().moves[move]
    jab = load_game_data().moves["lp"]
    m = placed(0.9)
    hit = land(m, move)
    assert not hit.blocked
    truth = first_act(m, 1) - first_act(m, 0)
    assert hit.advantage == truth == mv.hitstun - (mv.total - mv.startup)
    assert 2 <= truth <= 5, truth                            # plus, by a few frames
    assert mashed_advantage(m) == truth
    m = placed(0.9)
    for _ in range(3):
        m.step(NEUTRAL, GUARD)
    block = land(m, move, GUARD)
    assert block.blocked
    truth = first_act(m, 1) - first_act(m, 0)
    assert block.advantage == truth == mv.blockstun - (mv.total - mv.startup)
    assert truth <= -jab.startup, truth                      # punishable by a jab


@pytest.mark.slow
def test_sweep_on_hit_leaves_the_sweeper_plus_and_on_block_punishable():
    mv = load_game_data().moves["hk_low"]
    m, hit = swept()
    truth = first_act(m, 1) - first_act(m, 0)
    assert hit.advantage == truth == load_game_data().knockdown_frames - (mv.total - mv.startup)
    assert truth >= 20, truth                                # time to walk in and press a meaty
    m = placed(0.9)
    for _ in range(3):
        m.step(NEUTRAL, LOW_GUARD)
    block = land(m, "hk_low", LOW_GUARD)
    assert block.blocked and m.fighters[1].state == "blockstun"
    assert first_act(m, 1) - first_act(m, 0) == block.advantage <= -load_game_data().moves["lp"].startup


def test_a_jab_trading_with_a_point_blank_fireball_freezes_both_alike():
    """P2 throws a fireball at 0.9 m and P1's jab lands on its launch frame: each strikes the
    other on the same step, a trade.  As in a trade of two limbs, both freeze for the longer
    hitstop, whatever order the hits are applied in; the advantage is then the stuns'
    difference alone (with the jab's 7 frames and the fireball's 5, the thrower would be +4
    where the stuns give +2)."""
    from simhelp import mashed_advantage

    m = fight(Match.new(seed=0))
    walk_to(m, 0.9)
    fb, jab = m.data.moves["fireball"], m.data.moves["lp"]
    hits = []
    for i in range(40):
        hits += [e for e in m.step(FrameInput(lp=True) if i == fb.startup - jab.startup else NEUTRAL,
                                   FrameInput(lp=True, hp=True) if i == 0 else NEUTRAL) if isinstance(e, Hit)]
        if hits:
            break
    assert sorted((h.attacker, h.move) for h in hits) == [(0, "lp"), (1, "fireball")], hits
    stop = max(jab.hitstop, fb.projectile.hitstop)
    assert [f.hitstop for f in m.fighters] == [stop, stop]
    assert {h.hitstop for h in hits} == {stop}
    p1_hit = next(h for h in hits if h.attacker == 0)
    assert p1_hit.advantage == jab.hitstun - fb.projectile.hitstun == mashed_advantage(m)


# ---------------------------------------------------------------- guarding
def _first_free_frame_guard(m: Match, who: int, hold: FrameInput) -> tuple[int, str]:
    """Step with fighter ``who`` holding ``hold`` until it leaves its move or its stun;
    return its ``guard`` and state on that first free frame."""
    f = m.fighters[who]
    for _ in range(120):
        busy = f.state in ("attack", "hitstun", "blockstun") or f.hitstop > 0
        m.step(hold if who == 0 else NEUTRAL, hold if who == 1 else NEUTRAL)
        if busy and f.state not in ("attack", "hitstun", "blockstun") and f.hitstop == 0:
            return f.guard, f.state
    raise AssertionError("the fighter never became free")


def test_guard_held_through_a_moves_recovery_guards_on_its_first_free_frame():
    m = placed(0.9)
    m.step(FrameInput(hk=True, down=True), NEUTRAL)            # a sweep, 40 frames long
    assert m.fighters[0].move == "hk_low"
    assert _first_free_frame_guard(m, 0, GUARD) == (1, "block_stand")


def test_guard_held_through_hitstun_guards_on_its_first_free_frame():
    m = placed(0.9)
    m.step(NEUTRAL, FrameInput(hp=True))
    while m.fighters[0].state != "hitstun":
        m.step(NEUTRAL, NEUTRAL)
    crouch_guard = FrameInput(guard=True, down=True)
    assert _first_free_frame_guard(m, 0, crouch_guard) == (2, "block_crouch")


def _steps_until_free(m: Match, who: int, hold: tuple[FrameInput, FrameInput]) -> int:
    """On which step from now (1 = the next) fighter ``who`` is first out of its move or stun
    (found on a copy of the match: the snapshot is restored)."""
    snap = m.snapshot()
    f = m.fighters[who]
    for n in range(1, 200):
        m.step(*hold)
        if f.state not in ("attack", "hitstun", "blockstun") and f.hitstop == 0:
            m.restore(snap)
            return n
    raise AssertionError("never free")


def test_punish_timed_for_the_first_free_frame_is_blocked_by_a_held_guard():
    """A blocked roundhouse leaves the kicker at a disadvantage of more than a front kick's
    startup: a front kick timed to become active on the kicker's first free frame must meet
    its held guard (a guard that came up a frame late would let the kick hit).  (A roundhouse:
    a sweep that hits knocks down and leaves the sweeper plus, and a jab is too short after a
    roundhouse's pushback.)"""
    m = placed(1.0)
    m.step(FrameInput(hk=True, guard=True), GUARD)
    kick = None
    for _ in range(60):
        kick = next((e for e in m.step(GUARD, GUARD) if isinstance(e, Hit)), None)
        if kick:
            break
    assert kick is not None and kick.blocked and kick.move == "hk"
    reply = m.data.moves["lk"]
    kicker_free = _steps_until_free(m, 0, (GUARD, NEUTRAL))
    press = kicker_free - reply.startup                     # the reply's first active step is kicker_free
    assert press >= _steps_until_free(m, 1, (GUARD, NEUTRAL))   # the defender is free to press then
    replies = []
    for n in range(1, kicker_free + 1):
        replies += [e for e in m.step(GUARD, FrameInput(lk=n == press)) if isinstance(e, Hit)]
    assert m.fighters[0].state == "blockstun"               # struck on that very step ...
    assert len(replies) == 1 and replies[0].attacker == 1 and replies[0].blocked   # ... and guarded
    assert m.fighters[0].health == m.fighters[0].max_health


def test_attack_started_from_a_block_drops_the_guard_on_its_first_frame():
    m = placed(3.0)
    for _ in range(3):
        m.step(GUARD, NEUTRAL)
    assert m.fighters[0].state == "block_stand" and m.fighters[0].guard == 1
    m.step(FrameInput(guard=True, lp=True), NEUTRAL)
    assert m.fighters[0].state == "attack" and m.fighters[0].guard == 0


# ---------------------------------------------------------------- contradictory directions
def test_guard_with_up_and_down_is_a_standing_guard_that_stops_a_mid():
    both = FrameInput(guard=True, up=True, down=True)
    m = placed(0.9)
    for _ in range(3):
        m.step(NEUTRAL, both)
    assert m.fighters[1].state == "block_stand" and m.fighters[1].guard == 1
    hits = []
    m.step(FrameInput(hp=True), both)
    for _ in range(40):
        hits += [e for e in m.step(NEUTRAL, both) if isinstance(e, Hit)]
    assert len(hits) == 1 and hits[0].height == "mid" and hits[0].blocked


@pytest.mark.slow
def test_A2_A4_match_pair_check_equals_per_pair_reference_every_frame():
    """The match judges all limb pairs in one PairJudge call and reads both fighters'
    attacks from it; on every active frame of a CPU match its contacts are exactly the pairs
    of hitting limb x defender limb that overlap(), with A2/A3's judgement points."""
    m = Match.new(seed=3, p1_cpu="hard", p2_cpu="hard")
    checked = 0
    for _ in range(1500):
        moves = [f.move for f in m.fighters]        # a hit may put the attacker in a reaction
        m.step()
        for atk, ks, ls, j1, j2, _p in m.contacts:
            a, d = m.fighters[atk].limb_boxes(), m.fighters[1 - atk].limb_boxes()
            # the move judged: this frame's, unless the contact ended it (a hit's reaction clears
            # it, a throw's grab turns it into the hold, which has no hitting limbs)
            now = m.fighters[atk].move
            mv = m.data.moves[now if now and m.data.moves[now].hit_limbs else moves[atk]]
            want = [(k, j) for k in mv.hit_limbs for j in range(len(d)) if overlaps(a[k], d[j])]
            assert sorted(zip(ks.tolist(), ls.tolist())) == sorted(want)
            w1, w2 = judgement_points(a[ks], d[ls])
            assert np.array_equal(j1, w1) and np.array_equal(j2, w2)
            checked += 1
        if m.over:
            break
    assert checked >= 5


# ---------------------------------------------------------------- hits
def _punch(m, button, hold2=NEUTRAL, frames=40, p1_extra=None):
    return press_and_wait(m, p1_extra or FrameInput(**{button: True}), hold2, frames, hold2=hold2)


def test_A7_scripted_punch_connects_at_the_collision_point():
    m = Match.new(seed=0)
    to_fight(m)
    walk_to(m, 0.8)
    events, hits = _punch(m, "lp")
    assert len(hits) == 1, events
    hit, boxes = hits[0]
    assert hit.attacker == 0 and hit.defender == 1 and not hit.blocked and hit.damage > 0
    names = m.fighters[0].limb_names
    a = boxes[0][names.index(hit.attack_limb)]
    b = boxes[1][names.index(hit.struck_limb)]
    assert overlaps(a, b)
    assert hit.point.shape == (3,)
    assert np.array_equal(hit.point, collision_point(a, b))
    assert m.fighters[1].health == m.fighters[1].max_health - hit.damage


def test_scripted_punch_out_of_range_whiffs():
    m = Match.new(seed=0)
    to_fight(m)
    walk_to(m, 1.6)
    events, hits = _punch(m, "lp")
    assert hits == []
    assert any(isinstance(e, Whiff) and e.fighter == 0 for e in events)
    assert m.fighters[1].health == m.fighters[1].max_health


def test_each_move_hits_at_most_once():
    m = Match.new(seed=0)
    to_fight(m)
    walk_to(m, 0.8)
    events, hits = _punch(m, "hp")
    assert len(hits) == 1


def test_hitstop_freezes_both_fighters():
    m = Match.new(seed=0)
    to_fight(m)
    walk_to(m, 0.8)
    ev = []
    while not any(isinstance(e, Hit) for e in ev):
        ev = m.step(FrameInput(lp=True) if not ev and m.fighters[0].move == "" else NEUTRAL, NEUTRAL)
    hit = next(e for e in ev if isinstance(e, Hit))
    frozen = [f.limb_boxes() for f in m.fighters]
    for _ in range(hit.hitstop):
        m.step(NEUTRAL, NEUTRAL)
        assert all(np.array_equal(b, f.limb_boxes()) for b, f in zip(frozen, m.fighters))
    m.step(NEUTRAL, NEUTRAL)
    assert not all(np.array_equal(b, f.limb_boxes()) for b, f in zip(frozen, m.fighters))


@pytest.mark.parametrize("guard,blocked", [
    (FrameInput(guard=True), False),               # standing block: a low is a wrong guard
    (FrameInput(guard=True, down=True), True),     # crouching block stops lows
    (NEUTRAL, False),
])
def test_low_heavy_kick_vs_guards(guard, blocked):
    m = Match.new(seed=0)
    to_fight(m)
    walk_to(m, 0.85)
    run(m, NEUTRAL, guard, 3)
    events, hits = press_and_wait(m, FrameInput(hk=True, down=True), guard, 45, hold1=FrameInput(down=True),
                                  hold2=guard)
    assert len(hits) == 1, events
    assert hits[0][0].move == "hk_low" and hits[0][0].height == "low"
    assert hits[0][0].blocked is blocked
    assert (m.fighters[1].health == m.fighters[1].max_health) is blocked


@pytest.mark.parametrize("button,height", [("lp", "high"), ("hp", "mid")])
def test_standing_block_stops_high_and_mid_and_crouch_block_does_not_stop_mid(button, height):
    m = Match.new(seed=0)
    to_fight(m)
    walk_to(m, 0.8)
    stand = FrameInput(guard=True)
    run(m, NEUTRAL, stand, 3)
    _, hits = press_and_wait(m, FrameInput(**{button: True}), stand, 40, hold2=stand)
    assert len(hits) == 1 and hits[0][0].height == height and hits[0][0].blocked
    if height == "mid":
        m2 = Match.new(seed=0)
        to_fight(m2)
        walk_to(m2, 0.8)
        crouch = FrameInput(guard=True, down=True)
        run(m2, NEUTRAL, crouch, 3)
        _, hits2 = press_and_wait(m2, FrameInput(hp=True), crouch, 40, hold2=crouch)
        assert len(hits2) == 1 and not hits2[0][0].blocked


def test_high_attack_whiffs_over_a_crouch_by_geometry():
    m = Match.new(seed=0)
    to_fight(m)
    walk_to(m, 0.8)
    crouch = FrameInput(down=True)
    run(m, NEUTRAL, crouch, 6)
    events, hits = press_and_wait(m, FrameInput(lp=True), crouch, 30, hold2=crouch)
    assert hits == [] and any(isinstance(e, Whiff) for e in events)


@pytest.mark.parametrize("button,guard", [("lp", NEUTRAL), ("lp", FrameInput(guard=True)),
                                          ("hp", NEUTRAL), ("hp", FrameInput(guard=True))])
def test_hit_advantage_matches_who_acts_first_when_both_mash(button, guard):
    """Hit.advantage against the truth: after the hit both players mash a buffered move
    (``simhelp.mashed_advantage``: the front kick, which no move cancels into); the difference
    of the frames their next moves start is the frame advantage (without a cancel)."""
    m = Match.new(seed=0)
    to_fight(m)
    walk_to(m, 0.8)
    run(m, NEUTRAL, guard, 3)
    ev = list(m.step(FrameInput(**{button: True}), guard))
    while not any(isinstance(e, Hit) for e in ev):
        ev = list(m.step(NEUTRAL, guard))
    hit = next(e for e in ev if isinstance(e, Hit))
    assert mashed_advantage(m) == hit.advantage


@pytest.mark.parametrize("b1,b2", [("lp", "hp"), ("hp", "lp"), ("lk", "lk"), ("lp", "hk")])
def test_A8_trade_lands_both_ways_whatever_the_order_and_reports_true_advantage(b1, b2):
    """Both fighters' moves connect on the same frame (a trade, step 6 for both).  Neither
    landing order may matter: both freeze for the longer hitstop, the sides mirror when
    the moves swap, and each Hit.advantage matches who acts first when both then mash."""

    def trade(p1_move, p2_move):
        m = Match.new(seed=0, arena=False)
        to_fight(m)
        m.fighters[0].x, m.fighters[1].x = -0.5, 0.5
        m.step(NEUTRAL, NEUTRAL)
        s1, s2 = m.data.moves[p1_move].startup, m.data.moves[p2_move].startup
        lead = max(s1, s2)            # press so that both moves turn active on the same frame
        for t in range(lead + 30):
            ev = m.step(FrameInput(**{p1_move: True}) if t == lead - s1 else NEUTRAL,
                        FrameInput(**{p2_move: True}) if t == lead - s2 else NEUTRAL)
            hits = [e for e in ev if isinstance(e, Hit)]
            if hits:
                return m, hits
        raise AssertionError("no hit")

    m, hits = trade(b1, b2)
    assert sorted(h.attacker for h in hits) == [0, 1]
    by = {h.attacker: h for h in hits}
    stop = max(m.data.moves[b1].hitstop, m.data.moves[b2].hitstop)
    assert [f.hitstop for f in m.fighters] == [stop, stop] and {h.hitstop for h in hits} == {stop}
    assert by[0].advantage == -by[1].advantage
    mirror, mhits = trade(b2, b1)
    mby = {h.attacker: h for h in mhits}
    assert (mby[1].advantage, mby[0].advantage) == (by[0].advantage, by[1].advantage)
    assert [f.stun for f in mirror.fighters] == [f.stun for f in m.fighters][::-1]
    assert [f.health for f in mirror.fighters] == [f.health for f in m.fighters][::-1]
    assert mashed_advantage(m) == by[0].advantage
