"""Gameplay a player relies on: guarding on the first free frame, contradictory directions, K.O.s,
fighters against walls and crates, the CPU finding its way round an obstacle, the fireball's
height, fireballs that meet, and both sides playing the same game."""

import math

import numpy as np
import pytest

from game.sim import KO, FrameInput, Hit, Match, MoveStarted, ProjectileClash, ProjectileLaunched, rounds
from game.sim.stage import Projectile
from simhelp import FIREBALL, GUARD, NEUTRAL, gap, placed, to_fight


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
    its held guard (old code: the guard came up a frame late, the kick hit).  (This was a jab
    after a sweep that hit, until a sweep that hits knocked down, leaving the sweeper plus:
    tests/test_review_gameplay3.py; the roundhouse pushes back too far for a jab.)"""
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


def test_heavy_kick_with_up_and_down_is_the_standing_kick_not_the_sweep():
    m = placed(3.0)
    started = [e.move for e in m.step(FrameInput(hk=True, up=True, down=True), NEUTRAL) if isinstance(e, MoveStarted)]
    assert started == ["hk"]
    m2 = placed(3.0)
    started = [e.move for e in m2.step(FrameInput(hk=True, down=True), NEUTRAL) if isinstance(e, MoveStarted)]
    assert started == ["hk_low"]


# ---------------------------------------------------------------- K.O.
def test_double_ko_puts_both_fighters_down_until_the_next_round():
    m = placed(1.0)
    for f in m.fighters:
        f.health = m.data.moves["lp"].damage
    events = []
    for i in range(40):
        jab = FrameInput(lp=i == 0)
        events += m.step(jab, jab)
    ko = [e for e in events if isinstance(e, KO)]
    assert len(ko) == 1 and ko[0].loser is None
    while m.phase == "ko":
        assert [f.state for f in m.fighters] == ["ko", "ko"]
        poses = [f.pose_key for f in m.fighters]
        m.step(NEUTRAL, NEUTRAL)
    assert poses == ["ko", "ko"]                       # lying down on the last frame before the next round


def test_knocked_out_fighter_is_not_hit_again_and_stays_down():
    """P1's fireball is still flying at P2 when P1's jab knocks P2 out: it must fly on
    through the body, not hit it and stand it back up."""
    m = placed(0.9)
    b = m.fighters[1]
    b.health = m.data.moves["lp"].damage
    spec = m.data.moves["fireball"].projectile
    y = float(b.limb_boxes()[:, :, 1].mean())
    # 1.6 m short of P2, flying at it: it arrives after the jab has landed
    m.stage.projectiles = (Projectile(0, b.x - 1.6, y, b.z, spec.speed, 0.0, 0),)
    events = list(m.step(FrameInput(lp=True), NEUTRAL))
    for _ in range(60):
        events += m.step(NEUTRAL, NEUTRAL)
    ko = next(e for e in events if isinstance(e, KO))
    later = [e for e in events if isinstance(e, Hit) and e.frame > ko.frame]
    assert ko.loser == 1 and later == []
    assert b.state == "ko" and m.phase == "ko"


def test_fireball_in_flight_after_the_ko_does_not_hit_the_winner():
    """P1's fireball knocks P2 out while P2's, thrown earlier from P1's side, is still on
    its way to P1.  It must not then hit P1: with 10 health left P1 would fall to 0 after
    winning (the HUD would read the round as a double K.O. / draw while P1 got the point).
    (From the side: two fireballs on one line would meet and cancel.)"""
    m = placed(3.0)
    a, b = m.fighters
    spec = m.data.moves["fireball"].projectile
    a.health = b.health = spec.damage
    m.stage.projectiles = (Projectile(1, a.x, 1.0, a.z - 6.0, 0.0, spec.speed, 0),)   # reaches P1 in 37 frames
    events = []
    for i in range(150):
        events += m.step(FIREBALL if i == 0 else NEUTRAL, NEUTRAL)
    ko = next(e for e in events if isinstance(e, KO))
    assert ko.loser == 1 and ko.frame < events[0].frame + 37
    assert [e.attacker for e in events if isinstance(e, Hit)] == [0]
    assert a.health == spec.damage and a.wins == 1


# ---------------------------------------------------------------- walls, pillars, crates
@pytest.mark.parametrize("pinned,pusher", [
    ((14.0, 0.0), (12.5, 0.0)),      # against the east wall
    ((0.0, 4.0), (0.0, 2.5)),        # against crate_north's south face
    ((7.0, 6.0), (7.0, 4.5)),        # against pillar_en
    ((14.0, 14.0), (12.5, 12.5)),    # in the north-east corner
])
def test_fighter_walking_into_a_pinned_opponent_never_overlaps_it(pinned, pusher):
    m = Match.new(seed=0)
    to_fight(m)
    a, b = m.fighters
    (a.x, a.z), (b.x, b.z) = pusher, pinned
    r = m.data.pushbox_radius
    closest = math.inf
    for _ in range(200):
        m.step(FrameInput(forward=True), NEUTRAL)
        closest = min(closest, gap(m))
        for f in m.fighters:                       # and neither is pushed into the obstacle
            x, z = m.stage.push_out(f.x, f.z, r)
            assert math.hypot(x - f.x, z - f.z) < 1e-9
    assert closest >= 2 * r - 1e-9


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("obstacle,player,cpu", [
    ("crate_north", (0.0, 6.3), (0.0, 3.2)),
    ("pillar_en", (7.0, 8.6), (7.0, 5.4)),
])
def test_cpu_walks_round_an_obstacle_between_it_and_the_opponent(level, seed, obstacle, player, cpu):
    """A player standing still behind a crate or a pillar: the CPU must get round it and
    attack, not keep walking into it (old code: easy, seed 2 pushed at the crate for 12 s)."""
    m = Match.new(seed=seed, p2_cpu=level)
    to_fight(m)
    a, b = m.fighters
    (a.x, a.z), (b.x, b.z) = player, cpu
    m.step(NEUTRAL, NEUTRAL)
    box = m.arena.object(obstacle).aabb
    assert box[0, 0] < a.x < box[1, 0] and box[0, 0] < b.x < box[1, 0]   # the obstacle is between them
    pushing, longest, attacked = 0, 0, False
    for _ in range(900):
        before = (b.x, b.z)
        events = m.step(NEUTRAL, NEUTRAL)
        attacked = attacked or any(isinstance(e, Hit) and e.attacker == 1 for e in events)
        if attacked:
            break
        pushing = pushing + 1 if b.state == "walk_fwd" and (b.x, b.z) == before else 0
        longest = max(longest, pushing)
    assert longest <= 60, f"walked into {obstacle} for {longest} frames"
    assert attacked


# ---------------------------------------------------------------- the fireball
@pytest.mark.parametrize("dist", [1.0, 2.0, 4.0])
def test_fireball_is_a_mid_that_a_crouch_does_not_duck(dist):
    """The fireball is a mid (moves.json, README): a crouch guard does not block it and a
    crouch does not make it fly overhead (old pose: it flew at 1.35 m, over any crouch)."""
    spec = None
    for guard in (False, True):
        crouch = FrameInput(down=True, guard=guard)
        m = placed(dist)
        spec = m.data.moves["fireball"].projectile
        events = []
        for i in range(120):
            events += m.step(FrameInput(lp=True, hp=True) if i == 5 else NEUTRAL, crouch)
        assert any(isinstance(e, ProjectileLaunched) for e in events)
        hits = [e for e in events if isinstance(e, Hit)]
        assert len(hits) == 1 and hits[0].move == "fireball" and not hits[0].blocked
        assert m.fighters[1].health == m.fighters[1].max_health - spec.damage
    assert spec.height == "mid"


def test_fireball_is_blocked_standing():
    m = placed(2.0)
    events = []
    for i in range(120):
        events += m.step(FrameInput(lp=True, hp=True) if i == 5 else NEUTRAL, GUARD)
    hits = [e for e in events if isinstance(e, Hit)]
    assert len(hits) == 1 and hits[0].blocked and m.fighters[1].health == m.fighters[1].max_health


@pytest.mark.parametrize("dist, lag", [(4.0, 0), (6.0, 0), (5.0, 9)])
def test_fireballs_that_meet_cancel_each_other_at_their_A7_collision_point(dist, lag):
    """Both fighters throw: the fireballs meet, burst (a ProjectileClash at the A7 point of
    their two range boxes) and hit no one; before, they flew through each other and both
    fighters were hit.  ``lag``: P2 throws that many frames later, so they meet off centre."""
    from game.collision.range_box import collision_point

    m = placed(dist)
    half = m.data.moves["fireball"].projectile.half
    events, before = [], ()
    for i in range(150):
        before = m.stage.projectiles
        step = m.step(FIREBALL if i == 5 else NEUTRAL, FIREBALL if i == 5 + lag else NEUTRAL)
        events += step
        if any(isinstance(e, ProjectileClash) for e in step):
            break
    clash = [e for e in events if isinstance(e, ProjectileClash)]
    assert len(clash) == 1 and not m.stage.projectiles
    assert not any(isinstance(e, Hit) for e in events)
    assert all(f.health == f.max_health for f in m.fighters)
    # the point: A7 of the two boxes where this frame moved them (reference: numpy collision_point)
    moved = [(p.x + p.vx, p.y, p.z + p.vz) for p in before]
    boxes = [np.array([np.subtract(c, half), np.add(c, half)]) for c in moved]
    assert np.allclose(clash[0].point, collision_point(boxes[0], boxes[1]))
    if lag == 0:
        assert abs(clash[0].point[0]) < 1e-9        # mirrored throws meet in the middle
    else:
        assert clash[0].point[0] > 0.5              # P1's was on its way sooner: nearer P2


# ---------------------------------------------------------------- fairness
def _mirrored_state(m: Match, swap: bool) -> list:
    fs = m.fighters[::-1] if swap else m.fighters
    s = -1.0 if swap else 1.0     # P1's start mirrored about the arena's centre is P2's
    return [(f.health, f.state, f.move, f.mframe, f.stun, round(s * f.x, 9), round(s * f.z, 9),
             round(s * f.fx, 9), round(s * f.fz, 9)) for f in fs]


@pytest.mark.parametrize("seed", [0, 1])
def test_swapping_sides_mirrors_the_whole_fight(seed):
    """The same random input streams given to P1 and P2, then swapped: every frame of the
    second match is the first one turned half round (no side wins a trade or a push)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n = 900
    held = rng.integers(0, 2 ** FrameInput.BITS, size=(n, 2)) & rng.integers(0, 2 ** FrameInput.BITS, size=(n, 2))
    idx = np.where(rng.random((n, 2)) < 0.15, np.arange(n)[:, None], 0)
    np.maximum.accumulate(idx, axis=0, out=idx)
    streams = np.take_along_axis(held, idx, axis=0).tolist()
    m1, m2 = Match.new(seed=0, arena=False), Match.new(seed=0, arena=False)
    hits = 0
    for p, q in streams:
        e1 = m1.step(FrameInput.from_bits(p), FrameInput.from_bits(q))
        m2.step(FrameInput.from_bits(q), FrameInput.from_bits(p))
        hits += sum(isinstance(e, Hit) for e in e1)
        assert _mirrored_state(m1, False) == _mirrored_state(m2, True), f"frame {m1.frame}"
    assert hits > 0                                        # the fight had exchanges to mirror


def test_fireball_pressed_while_ones_own_is_in_flight_comes_out_as_the_heavy_punch():
    """One fireball at a time: pressed again while the first still flies, lp + hp gives the
    heavy punch (its stronger button) instead of a 41-frame throw that launches nothing; once
    the first is gone, the next press throws again."""
    m = placed(9.0)
    started, launched = [], []
    for i in range(200):
        press = i in (0, 45) or (i > 45 and not m.stage.projectiles and not m.fighters[0].move and not launched[1:])
        for e in m.step(FIREBALL if press else NEUTRAL, NEUTRAL):
            if isinstance(e, MoveStarted) and e.fighter == 0:
                started.append(e.move)
            elif isinstance(e, ProjectileLaunched):
                launched.append(e.frame)
    assert started[:3] == ["fireball", "hp", "fireball"]
    assert len(launched) == 2


def test_a_fireball_that_hits_is_not_reported_as_a_whiff():
    """The throw's one active frame launches the projectile and ends before it lands: that
    is not a whiff (a Whiff came one frame after every launch, even for a fireball that hit).
    A jab that misses still is one."""
    from game.sim import Whiff

    m = placed(4.0)
    events = []
    for i in range(120):
        events += m.step(FIREBALL if i == 0 else (FrameInput(lp=True) if i == 80 else NEUTRAL), NEUTRAL)
    assert [e.move for e in events if isinstance(e, Hit)] == ["fireball"]
    assert [e.move for e in events if isinstance(e, Whiff)] == ["lp"]


def test_rounds_start_at_the_arenas_fighter_starts_facing_each_other():
    """arena.scene.json's fighter_starts are where rounds start (they were only checked for a
    clear area while every round started at x = -1.5 / 1.5); a bare floor keeps those."""
    import dataclasses

    m = Match.new(seed=0)
    starts = np.array([[-3.0, 0.0, 1.0], [1.0, 0.0, -2.0]])
    m.stage.arena = dataclasses.replace(m.stage.arena, fighter_starts=starts)
    rounds.start_round(m)
    d = (starts[1] - starts[0])[[0, 2]] / np.linalg.norm(starts[1] - starts[0])
    for f, s, sign in zip(m.fighters, starts, (1, -1)):
        assert (f.x, f.z) == (s[0], s[2])
        assert np.allclose((f.fx, f.fz), sign * d)
    shipped = Match.new(seed=0)
    assert [(f.x, f.z) for f in shipped.fighters] == [tuple(s[[0, 2]]) for s in shipped.stage.arena.fighter_starts]
    bare = Match.new(seed=0, arena=False)
    assert [(f.x, f.z, f.fx) for f in bare.fighters] == [(-1.5, 0.0, 1.0), (1.5, 0.0, -1.0)]


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
