"""The core match (issue 2): A8 frame order, scripted hits, blocks, rounds, determinism."""

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from game.collision import collision_point, judgement_points, overlaps
from game.sim import BUTTONS, FrameInput, Hit, Match, MatchOver, Whiff
from game.sim.match import INTRO_FRAMES, KO_FRAMES, MAX_ROUNDS, ROUND_FRAMES
from simhelp import NEUTRAL, gap, mashed_advantage, press_and_wait, run, to_fight, walk_to

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- FrameInput
def test_frameinput_is_immutable_and_neutral_by_default():
    fi = FrameInput()
    assert fi.bits == 0
    with pytest.raises(Exception):
        fi.lp = True


def test_frameinput_every_int_in_range_round_trips():
    k = FrameInput.BITS
    assert k == len(BUTTONS)
    for n in range(2 ** k):
        assert FrameInput.from_bits(n).bits == n
    for bad in (-1, 2 ** k, 1.5, "3", True):
        with pytest.raises(ValueError):
            FrameInput.from_bits(bad)


def test_contradictory_directions_cancel():
    m = Match.new(seed=0)
    to_fight(m)
    x0 = m.fighters[0].x
    both = FrameInput(forward=True, back=True, up=True, down=True, side_l=True, side_r=True)
    run(m, both, NEUTRAL, 30)
    f = m.fighters[0]
    assert f.x == x0 and f.z == 0.0 and f.state == "idle" and not f.move


# ---------------------------------------------------------------- A8 order
def test_A8_step_runs_the_stages_in_method_order(monkeypatch):
    from game.sim import actions, combat, commands

    m = Match.new(seed=0)
    calls = []
    stages = [(commands, "read_inputs"), (actions, "advance"), (m.limbs, "place"), (combat, "judge"),
              (combat, "collision_points"), (combat, "apply_hits")]
    for owner, name in stages:
        orig = getattr(owner, name)
        monkeypatch.setattr(owner, name, lambda *a, _n=name, _o=orig: (calls.append(_n), _o(*a))[1])
    m.step(NEUTRAL, NEUTRAL)
    assert calls == ["read_inputs", "advance", "place", "judge", "collision_points", "apply_hits"]


def test_A6_limb_boxes_rebuilt_every_frame_from_rotated_corners():
    m = Match.new(seed=0)
    f = m.fighters[0]
    assert len(f.limb_names) >= 10 and m.fighters[0].limb_boxes().shape == (len(f.limb_names), 2, 3)
    for name in ("head", "torso", "hips", "upper_arm_l", "upper_arm_r", "forearm_l", "forearm_r",
                 "thigh_l", "thigh_r", "shin_l", "shin_r"):
        assert name in f.limb_names
    to_fight(m)
    before = f.limb_boxes()
    m.step(FrameInput(lp=True), NEUTRAL)
    m.step(NEUTRAL, NEUTRAL)
    after = f.limb_boxes()
    assert not np.array_equal(before, after)
    # Each box encloses its limb's rotated solid corners.
    rot, origin = f.limb_frames()
    sk = m.data.skeleton
    corners = origin[:, None, :] + np.einsum("lij,lkj->lki", rot, sk.corners)
    assert np.all(corners >= after[:, None, 0] - 1e-9) and np.all(corners <= after[:, None, 1] + 1e-9)
    assert np.allclose(corners.min(1), after[:, 0]) and np.allclose(corners.max(1), after[:, 1])


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
            want = [(k, l) for k in mv.hit_limbs for l in range(len(d)) if overlaps(a[k], d[l])]
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


# ---------------------------------------------------------------- movement
def test_fighters_move_in_3d_and_sidestep_circles():
    m = Match.new(seed=0)
    to_fight(m)
    run(m, FrameInput(side_l=True), NEUTRAL, 40)
    a, b = m.fighters
    assert abs(a.z) > 0.5                                    # left the x axis
    assert abs(math.hypot(b.x - a.x, b.z - a.z) - 3.0) < 0.2  # roughly kept its distance
    # still faces the opponent
    d = np.array([b.x - a.x, b.z - a.z]); d /= np.linalg.norm(d)
    assert np.allclose(a.facing, d, atol=1e-6)


def test_pushboxes_stop_walking_through():
    m = Match.new(seed=0)
    to_fight(m)
    run(m, FrameInput(forward=True), FrameInput(forward=True), 200)
    r = m.data.pushbox_radius
    assert gap(m) >= 2 * r - 1e-9
    assert m.fighters[0].x < m.fighters[1].x


def test_arena_bounds_keep_fighters_inside():
    m = Match.new(seed=0)
    to_fight(m)
    run(m, FrameInput(back=True), FrameInput(back=True), 900)
    r = m.data.pushbox_radius
    (x0, z0), (x1, z1) = m.bounds
    for f in m.fighters:
        assert x0 + r - 1e-9 <= f.x <= x1 - r + 1e-9 and z0 + r - 1e-9 <= f.z <= z1 - r + 1e-9
    assert m.fighters[0].x == pytest.approx(x0 + r)


def test_jump_leaves_the_ground_and_lands():
    m = Match.new(seed=0)
    to_fight(m)
    m.step(FrameInput(up=True), NEUTRAL)
    heights = []
    for _ in range(40):
        m.step(NEUTRAL, NEUTRAL)
        heights.append(m.fighters[0].limb_boxes()[:, 0, 1].min())
    assert max(heights) > 0.4 and heights[-1] == pytest.approx(0.0, abs=1e-9)


# ---------------------------------------------------------------- match flow
def test_cpu_vs_cpu_match_ends_with_a_winner_within_the_round_timers():
    m = Match.new(seed=5, p1_cpu="hard", p2_cpu="easy")
    limit = MAX_ROUNDS * (INTRO_FRAMES + ROUND_FRAMES + KO_FRAMES) + 10
    events = []
    while not m.over and m.frame < limit:
        events.extend(m.step(NEUTRAL, NEUTRAL))
    assert m.over and m.winner in (0, 1)
    assert isinstance(events[-1], MatchOver) and events[-1].winner == m.winner
    assert m.fighters[m.winner].wins == 2
    assert sum(isinstance(e, Hit) for e in events) > 10
    assert sum(isinstance(e, Hit) and e.blocked for e in events) > 0    # the CPU guards
    assert sum(isinstance(e, Whiff) for e in events) > 0                # and whiffs


def test_cpu_levels_differ_and_bad_level_is_rejected():
    with pytest.raises(ValueError, match="cpu level"):
        Match.new(seed=0, p1_cpu="godlike")
    wins = {"hard": 0, "easy": 0}
    for seed in range(3):
        m = Match.new(seed=seed, p1_cpu="hard", p2_cpu="easy")
        while not m.over:
            m.step()
        wins["hard" if m.winner == 0 else "easy"] += 1
    assert wins["hard"] >= 2


# ---------------------------------------------------------------- determinism
def _random_run(m, frames, seed):
    rng = np.random.default_rng(seed)
    for n in rng.integers(0, 2 ** FrameInput.BITS, size=(frames, 2)):
        m.step(FrameInput.from_bits(int(n[0])), FrameInput.from_bits(int(n[1])))


def test_snapshot_restore_gives_the_same_hash_after_the_same_inputs():
    m = Match.new(seed=11, p2_cpu="normal")
    _random_run(m, 400, 1)
    snap = m.snapshot()
    h0 = m.state_hash()
    _random_run(m, 300, 2)
    h1 = m.state_hash()
    m.restore(snap)
    assert m.state_hash() == h0
    _random_run(m, 300, 2)
    assert m.state_hash() == h1


def test_same_seed_same_hash_different_seed_differs():
    a = Match.new(seed=3, p1_cpu="hard", p2_cpu="hard")
    b = Match.new(seed=3, p1_cpu="hard", p2_cpu="hard")
    c = Match.new(seed=4, p1_cpu="hard", p2_cpu="hard")
    for _ in range(600):
        a.step(); b.step(); c.step()
    assert a.state_hash() == b.state_hash() != c.state_hash()


def test_two_processes_same_seed_and_inputs_same_hash():
    out = []
    for _ in range(2):
        r = subprocess.run([sys.executable, str(ROOT / "main.py"), "--headless", "--frames", "1500", "--seed", "9",
                            "--p1", "cpu", "--p2", "cpu"], capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert r.returncode == 0, r.stderr
        out.append(json.loads(r.stdout))
    assert out[0]["state_hash"] == out[1]["state_hash"] and out[0]["frames"] == 1500
    assert set(out[0]) >= {"frames", "hits", "winner", "state_hash", "sim_us_per_frame"}


def test_importing_game_sim_does_not_import_pyglet():
    code = "import sys, game.sim, game.collision; m = game.sim.Match.new(); m.step(); print('pyglet' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"


def test_headless_cli_bad_flag_exits_2_with_one_line():
    for argv in (["--frames", "ten"], ["--p1", "robot"], ["--nope"], ["--seed", "-3"]):
        r = subprocess.run([sys.executable, str(ROOT / "main.py"), "--headless", *argv],
                           capture_output=True, text=True, cwd=ROOT, timeout=60)
        assert r.returncode == 2
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and argv[0].lstrip("-").split("-")[0] in lines[0] or "unrecognized" in lines[0]


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


@pytest.mark.parametrize("d,guard", [(2.0, NEUTRAL), (4.0, NEUTRAL), (6.0, NEUTRAL), (4.0, FrameInput(guard=True))])
def test_A8_projectile_hit_advantage_matches_who_acts_first(d, guard):
    """A fireball does not freeze its thrower, who may still be recovering when it lands:
    Hit.advantage is the truth, the difference of the frames both players' next moves
    start when both mash right after the hit (it grows with the fireball's flight)."""
    m = Match.new(seed=0)
    to_fight(m)
    m.fighters[0].x, m.fighters[1].x = -d / 2, d / 2
    m.step(NEUTRAL, guard)
    ev = list(m.step(FrameInput(lp=True, hp=True), guard))
    for _ in range(200):
        if any(isinstance(e, Hit) for e in ev):
            break
        ev = list(m.step(NEUTRAL, guard))
    hit = next(e for e in ev if isinstance(e, Hit))
    assert hit.move == "fireball" and hit.blocked == (guard is not NEUTRAL)
    assert mashed_advantage(m) == hit.advantage
