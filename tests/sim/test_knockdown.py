"""The sweep's knockdown: a fixed time lying on the ground, struck by nothing, a meaty timed to the
wake-up, deterministic through snapshots; next to a wall, a pillar or a crate the lying body
slides out of the solid and the sweeper gives way; and the knockdown data is read and checked."""

from __future__ import annotations

import math

import pytest

from game.sim import FrameInput, Hit, Match, MoveStarted, Whiff, movement
from game.sim.data import AssetError, load_game_data
from game.sim.fighter import LYING_STATES
from game.sim.stage import Projectile
from game.tools.soak import check_match
from simhelp import (
    GUARD,
    NEUTRAL,
    PRESS,
    edited_assets,
    first_act,
    gap,
    land,
    placed,
    swept,
    to_fight,
)


# ------------------------------------------------------------------ the knockdown
def test_sweep_knocks_down_for_its_fixed_frames_lying_on_the_ground():
    """A sweep that hits floors the defender (it does not stand in hitstun): it
    falls, lies (every limb low) and gets up, then is free exactly ``knockdown_frames`` steps
    after the hit's hitstop, whatever it presses (it mashes a jab throughout)."""
    data = load_game_data()
    m, hit = swept()
    d = m.fighters[1]
    assert d.state == "knockdown"
    standing_top = float(m.limbs.boxes[0, :, 1, 1].max())         # the sweeper, upright again later
    lowest_top, frames, started = 9.0, 0, None
    jab = (FrameInput(lp=True), NEUTRAL)
    for i in range(200):
        ev = m.step(NEUTRAL, jab[i % 2])
        started = next((e for e in ev if isinstance(e, MoveStarted) and e.fighter == 1), None)
        if started is not None:
            break
        if d.state == "knockdown":
            frames += 1
            lowest_top = min(lowest_top, float(m.fighters[1].limb_boxes()[:, 1, 1].max()))
    assert started is not None and started.move == "lp"
    assert started.frame == hit.frame + hit.hitstop + data.knockdown_frames
    assert lowest_top < 0.5 * standing_top, (lowest_top, standing_top)   # lying, not crouching
    assert frames == hit.hitstop + data.knockdown_frames - 1


def test_nothing_strikes_a_knocked_down_fighter_fist_or_fireball():
    """While down, a front kick whose box overlaps the lying body whiffs, and a fireball set
    on the body passes; the same fireball strikes the same fighter once it is up."""
    m, hit = swept()
    d = m.fighters[1]
    while m.fighters[0].state == "attack" or m.fighters[0].hitstop:
        m.step(NEUTRAL, NEUTRAL)
    assert d.state == "knockdown"
    events = []
    m.step(PRESS["lk"], NEUTRAL)
    for _ in range(12):
        events += m.step(NEUTRAL, NEUTRAL)
    assert d.state == "knockdown"
    assert not any(isinstance(e, Hit) for e in events)
    assert any(isinstance(e, Whiff) and e.fighter == 0 and e.move == "lk" for e in events)
    assert d.health == d.max_health - hit.damage

    def fireball_on_body() -> list:
        box = d.limb_boxes()[d.limb_names.index("torso")]
        cx, cy, cz = box.mean(axis=0).tolist()
        fx, fz = m.fighters[0].fx, m.fighters[0].fz              # creeping on, 1 mm a frame
        m.stage.projectiles = (Projectile(0, cx, cy, cz, fx * 1e-3, fz * 1e-3, 0),)
        return [e for e in m.step(NEUTRAL, NEUTRAL) if isinstance(e, Hit)]

    assert d.state == "knockdown"
    assert fireball_on_body() == []
    while d.state == "knockdown":
        m.step(NEUTRAL, NEUTRAL)
    struck = fireball_on_body()
    assert len(struck) == 1 and struck[0].defender == 1 and not struck[0].blocked


@pytest.mark.parametrize("guard", [False, True])
def test_a_meaty_timed_to_the_wake_up_lands_on_its_first_free_frame(guard):
    """The wake-up is fixed, so the sweeper can walk in and make its front kick's active
    frames meet the first frame the defender is free: it lands then, on hit against a
    defender mashing a jab (a jab's startup cannot beat an attack already active) and
    blocked by one holding its guard through the knockdown (guarding on that first frame)."""
    m, hit = swept()
    lk = m.data.moves["lk"]
    wake = first_act(m, 1)                                    # the defender's first free frame
    p2_hold = (GUARD, GUARD) if guard else (PRESS["lp"], NEUTRAL)
    while gap(m) > 0.9:                                        # walk in once free
        m.step(FrameInput(forward=True), p2_hold[m.frame % 2])
    press = wake - lk.startup - 1                              # active from the frame before
    assert m.frame < press
    while m.frame < press:
        m.step(NEUTRAL, p2_hold[m.frame % 2])
    landed = []
    for _ in range(lk.startup + lk.active + 2):
        p1 = PRESS["lk"] if m.frame == press else NEUTRAL
        landed += [(e.frame, e) for e in m.step(p1, p2_hold[m.frame % 2]) if isinstance(e, Hit)]
    assert len(landed) == 1
    frame, meaty = landed[0]
    assert frame == wake and meaty.attacker == 0 and meaty.move == "lk"
    assert meaty.blocked == guard


def test_front_kick_cancelled_into_the_sweep_is_a_combo_ending_in_a_knockdown():
    """The sweep as a cancel (pressed in the front kick's hitstop) lands as the combo's second
    hit (scaled) and floors the defender."""
    m = placed(0.9)
    first = land(m, "lk")
    second = None
    ev = m.step(PRESS["hk_low"], NEUTRAL)
    for _ in range(40):
        second = next((e for e in ev if isinstance(e, Hit)), None)
        if second is not None:
            break
        ev = m.step(FrameInput(down=True), NEUTRAL)
    assert second is not None and second.move == "hk_low" and not second.blocked
    sweep = m.data.moves["hk_low"]
    assert m.fighters[1].combo == 2 and second.damage == sweep.damage * m.data.combo_scaling[1] // 100
    assert m.fighters[1].state == "knockdown"
    assert m.fighters[1].health == m.fighters[1].max_health - first.damage - second.damage


def test_knockdown_is_deterministic_through_snapshot_and_restore():
    """A snapshot taken while the defender lies replays to the same state hashes."""
    m, _ = swept()
    for _ in range(15):
        m.step(NEUTRAL, NEUTRAL)
    assert m.fighters[1].state == "knockdown"
    snap = m.snapshot()
    script = [(FrameInput(forward=i % 3 == 0, lk=i == 20), FrameInput(lp=i % 2 == 0)) for i in range(60)]
    first = [(m.step(*s), m.state_hash())[1] for s in script]
    m.restore(snap)
    again = [(m.step(*s), m.state_hash())[1] for s in script]
    assert first == again


# ------------------------------------------------------------------ the data
_assets = edited_assets


def test_shipped_knockdown_is_read():
    data = load_game_data()
    knocking = [n for n, mv in data.moves.items() if mv.knockdown]
    assert knocking == ["hk_low"]
    assert data.moves["hk_low"].hitstun == data.knockdown_frames == data.knockdown.shape[0]
    assert data.knockdown.shape[1:] == data.poses["stance"].shape
    assert (data.knockdown[-1] != data.poses["ko"]).any()     # it ends up, not lying


@pytest.mark.parametrize("edit, field, words", [
    (lambda d: d["moves"]["hk_low"].__setitem__("hitstun", 22), "moves.hk_low.hitstun", "knockdown.frames"),
    (lambda d: d.pop("knockdown"), "knockdown", "moves.hk_low knocks down"),
    (lambda d: d["moves"]["hk_low"].__setitem__("knockdown", 1), "moves.hk_low.knockdown", "true or false"),
    (lambda d: d["knockdown"].__setitem__("frame", 50), "knockdown.frame", "did you mean"),
])
def test_bad_knockdown_data_is_refused_with_the_field(tmp_path, edit, field, words):
    with pytest.raises(AssetError) as exc:
        load_game_data(_assets(tmp_path, edit))
    assert field in str(exc.value) and words in str(exc.value), str(exc.value)


def test_no_knockdown_anywhere_is_a_valid_move_table(tmp_path):
    """A table without knockdowns (no move knocks down, no animation) loads and plays."""
    def edit(d):
        d.pop("knockdown")
        d["moves"]["hk_low"].pop("knockdown")
        d["moves"]["hk_low"]["hitstun"] = 22
    data = load_game_data(_assets(tmp_path, edit))
    assert data.knockdown_frames == 0 and not any(mv.knockdown for mv in data.moves.values())


SWEEP = FrameInput(hk=True, down=True)


TOL = 1e-6


BIG = 100.0


def _solids(m: Match) -> dict[str, tuple[float, float, float, float]]:
    """Every solid a body must stay out of, as an x–z rect ``(x0, z0, x1, z1)``: pillars and
    crates (their arena boxes), and the four walls as the half-planes beyond the arena bounds."""
    out = {o.name: (float(o.aabb[0, 0]), float(o.aabb[0, 2]), float(o.aabb[1, 0]), float(o.aabb[1, 2]))
           for o in m.arena.objects if o.kind in ("pillar", "crate")}
    (x0, z0), (x1, z1) = m.bounds.tolist()
    out.update(wall_east=(x1, -BIG, x1 + BIG, BIG), wall_west=(x0 - BIG, -BIG, x0, BIG),
               wall_north=(-BIG, z1, BIG, z1 + BIG), wall_south=(-BIG, z0 - BIG, BIG, z0))
    return out


def _depth(boxes, rect) -> float:
    """How deep the deepest limb box is inside ``rect``: the shortest x–z move that takes it
    out (0 when none overlaps).  The solids are taller than a lying or standing body."""
    x0, z0, x1, z1 = rect
    worst = 0.0
    for (bx0, _, bz0), (bx1, _, bz1) in boxes.tolist():
        worst = max(worst, min(bx1 - x0, x1 - bx0, bz1 - z0, z1 - bz0))
    return worst


def _face_point(rect, normal) -> tuple[float, float]:
    """The middle of ``rect``'s face whose outward normal is ``normal`` (a wall: on the axis)."""
    x0, z0, x1, z1 = rect
    nx, nz = normal
    cx = x1 if nx > 0 else x0 if nx < 0 else (0.0 if x1 - x0 > BIG else 0.5 * (x0 + x1))
    cz = z1 if nz > 0 else z0 if nz < 0 else (0.0 if z1 - z0 > BIG else 0.5 * (z0 + z1))
    return cx, cz


def _pair_at(attacker, defender):
    """``(match, P1, P2)``: a new match in its FIGHT phase with P1 at ``attacker`` and P2 at
    ``defender`` (``(x, z)`` each), after one neutral step."""
    m = Match.new()
    to_fight(m)
    a, d = m.fighters
    (a.x, a.z), (d.x, d.z) = attacker, defender
    m.step(NEUTRAL, NEUTRAL)
    return m, a, d


def _sweep_at(name: str, normal, back: float, *, turn: float = 0.0, gap: float = 0.9, seed: int = 0):
    """P2 stands ``back`` m (its centre) out from the face of solid ``name`` whose outward normal
    is ``normal``; P1 stands ``gap`` m from it, in the direction of ``normal`` turned by ``turn``
    (0: P2 has its back to the solid; pi/2: its side), and sweeps.

    Returns ``(match, hit, frames)``: ``frames`` holds, for each step from the hit's on while
    P2 is knocked down, ``(moved, P2's limb boxes, P1's and P2's centres)``, where ``moved`` is
    False on the hit's own step and its hitstop (the body is frozen in the pose it was hit in)."""
    m = Match.new(seed=seed)
    to_fight(m)
    rect = _solids(m)[name]
    fx, fz = _face_point(rect, normal)
    nx, nz = normal
    c, s = math.cos(turn), math.sin(turn)
    ux, uz = nx * c - nz * s, nx * s + nz * c
    a, d = m.fighters
    d.x, d.z = fx + nx * back, fz + nz * back
    a.x, a.z = d.x + ux * gap, d.z + uz * gap
    m.step(NEUTRAL, NEUTRAL)
    ev = list(m.step(SWEEP, NEUTRAL))
    hit = None
    for _ in range(40):
        hit = next((e for e in ev if isinstance(e, Hit)), None)
        if hit is not None:
            break
        ev = list(m.step(NEUTRAL, NEUTRAL))
    assert hit is not None and hit.move == "hk_low" and not hit.blocked and d.state == "knockdown", name
    frames = [(False, d.limb_boxes(), (a.x, a.z), (d.x, d.z))]
    while d.state == "knockdown":
        moved = d.hitstop == 0
        m.step(NEUTRAL, NEUTRAL)
        frames.append((moved, d.limb_boxes(), (a.x, a.z), (d.x, d.z)))
    return m, hit, frames


def _open_floor_slide(gap: float = 0.9) -> float:
    """How far a swept fighter slides back (the sweep's knockback) on an open floor, hit to
    getting up."""
    m = Match.new(arena=False)
    to_fight(m)
    a, d = m.fighters
    a.x, d.x = -gap / 2, gap / 2
    m.step(NEUTRAL, NEUTRAL)
    m.step(SWEEP, NEUTRAL)
    while d.state != "knockdown":
        m.step(NEUTRAL, NEUTRAL)
    x = d.x
    while d.state == "knockdown":
        m.step(NEUTRAL, NEUTRAL)
    return d.x - x


CASES = [("wall_east", (-1, 0)), ("wall_north", (0, -1)), ("wall_south", (0, 1)),
         ("pillar_en", (-1, 0)), ("pillar_ws", (0, 1)), ("pillar_es", (1, 0)),
         ("crate_north", (0, -1)), ("crate_southeast", (1, 0)), ("crate_southwest", (0, 1))]


@pytest.mark.slow
@pytest.mark.parametrize("back", [0.3, 0.9])
@pytest.mark.parametrize("name, normal", CASES)
def test_a_body_swept_against_a_solid_lies_outside_it(name, normal, back):
    """Back 0.3 m (the pushbox against it) or 0.9 m from a wall, a pillar or a crate: no limb
    range box of the knocked-down fighter enters any solid on any frame it moves, falling,
    lying or getting up.  The body does reach that far behind its centre (so, left where it was
    swept, it would be inside), and the fighter has slid out to where that reach fits."""
    m, _hit, frames = _sweep_at(name, normal, back)
    solids = _solids(m)
    rect = solids[name]
    nx, nz = normal
    fx, fz = _face_point(rect, normal)
    deepest = max((_depth(boxes, r), n) for moved, boxes, _a, _d in frames if moved for n, r in solids.items())
    assert deepest[0] <= TOL, f"a limb box is {deepest[0]:.3f} m inside {deepest[1]}"
    # how far the body reaches behind its centre, toward the solid (x or z, by the normal) ...
    reach = max(max(-nx * (b[0 if nx > 0 else 1][0] - dx) if nx else -nz * (b[0 if nz > 0 else 1][2] - dz)
                    for b in boxes.tolist())
                for moved, boxes, _a, (dx, dz) in frames if moved)
    # ... and where the old constraint (the pushbox alone) left the centre: slid back by the
    # sweep's knockback as on an open floor, at most up to the pushbox against the face
    slide = _open_floor_slide()
    centre = max(back - slide, m.data.pushbox_radius)
    assert reach - centre > 0.05, (reach, centre)              # left there, the body was inside
    lying_at = frames[-1][3]
    off_face = nx * (lying_at[0] - fx) + nz * (lying_at[1] - fz)
    assert off_face >= reach - TOL, (off_face, reach)        # slid out to where it fits


@pytest.mark.slow
@pytest.mark.parametrize("turn", [0.6, math.pi / 2, -math.pi / 2])
@pytest.mark.parametrize("name, normal", [("wall_west", (1, 0)), ("pillar_wn", (0, -1)), ("crate_north", (0, 1))])
def test_a_body_swept_beside_or_across_a_solid_lies_outside_it(name, normal, turn):
    """Swept with the solid at its side (its arms lie out 0.85 m) or at a slant: the same."""
    m, _hit, frames = _sweep_at(name, normal, 0.3, turn=turn)
    solids = _solids(m)
    deepest = max((_depth(boxes, r), n) for moved, boxes, _a, _d in frames if moved for n, r in solids.items())
    assert deepest[0] <= TOL, f"a limb box is {deepest[0]:.3f} m inside {deepest[1]}"


@pytest.mark.parametrize("name, normal", [("wall_east", (-1, 0)), ("pillar_es", (0, 1)), ("crate_south", (0, -1))])
def test_the_sweeper_in_the_way_gives_way_and_nothing_overlaps(name, normal):
    """The sweeper right against the swept fighter (0.6 m, the pushboxes touching): as the body
    slides out of the solid, the sweeper's pushbox is pushed back with it.  Every frame of the
    knockdown both fighters stay inside the arena, out of every obstacle, and the pushboxes
    never overlap (the soak's invariants)."""
    m, _hit, frames = _sweep_at(name, normal, 0.3, gap=0.6)
    r = m.data.pushbox_radius
    nx, nz = normal
    for _moved, _boxes, (ax, az), (dx, dz) in frames:
        assert math.hypot(ax - dx, az - dz) >= 2 * r - TOL
    err = check_match(m)
    assert err is None, err
    start_a, end_a = frames[0][2], frames[-1][2]
    start_d, end_d = frames[0][3], frames[-1][3]
    slid = nx * (end_d[0] - start_d[0]) + nz * (end_d[1] - start_d[1])
    pushed = nx * (end_a[0] - start_a[0]) + nz * (end_a[1] - start_a[1])
    # the sweep's pose may hold the trunks a little apart at the start (its lean past the pushbox)
    slack = math.hypot(start_a[0] - start_d[0], start_a[1] - start_d[1]) - 2 * r
    assert 0.0 <= slack < 0.15, slack
    assert slid > 0.3, slid                               # the body came out of the solid ...
    assert pushed > 0.0 and pushed >= slid - slack - TOL, (pushed, slid, slack)   # ... and the sweeper gave way


@pytest.mark.slow
def test_invariants_hold_every_frame_of_a_knockdown_at_every_solid():
    """The soak's invariants (bounds, obstacles, pushboxes) checked on every step of sweeps at
    every pillar and crate side and every wall."""
    m = Match.new()
    to_fight(m)
    fight = m.snapshot()                       # one intro for every case
    solids = _solids(m)
    inward = {"wall_east": (-1, 0), "wall_west": (1, 0), "wall_north": (0, -1), "wall_south": (0, 1)}
    for name, rect in solids.items():
        for normal in [inward[name]] if name in inward else [(-1, 0), (1, 0), (0, -1), (0, 1)]:
            fx, fz = _face_point(rect, normal)
            m.restore(fight)
            a, d = m.fighters
            d.x, d.z = fx + normal[0] * 0.3, fz + normal[1] * 0.3
            a.x, a.z = d.x + normal[0] * 0.7, d.z + normal[1] * 0.7
            m.step(NEUTRAL, NEUTRAL)
            m.step(SWEEP, NEUTRAL)
            down, seen = 0, {}                   # seen: crates validated once, then on a change
            for _ in range(90):
                m.step(FrameInput(forward=True), NEUTRAL)     # the sweeper walks in on the body
                down += d.state == "knockdown"
                err = check_match(m, seen)
                assert err is None, (name, normal, err)
            assert down >= m.data.knockdown_frames, (name, normal, down)


@pytest.mark.slow
def test_knockdown_at_a_wall_keeps_its_timing_and_the_sweepers_plus_22():
    """Against a wall the knockdown lasts what it lasts in the open: the defender (mashing a
    jab) starts its first move ``hitstop + knockdown_frames`` steps after the hit, and the hit
    reports the sweeper's advantage the move table gives (knockdown_frames minus the sweep's
    frames left after its first active one)."""
    data = Match.new().data
    mv = data.moves["hk_low"]
    m, hit, frames = _sweep_at("wall_east", (-1, 0), 0.3)
    assert hit.advantage == data.knockdown_frames - (mv.total - mv.startup) == 22
    # replay the same sweep with P2 mashing a jab from the hit on
    m, a, d = _pair_at((13.8, 0.0), (14.7, 0.0))
    ev = list(m.step(SWEEP, NEUTRAL))
    while not any(isinstance(e, Hit) for e in ev):
        ev = list(m.step(NEUTRAL, NEUTRAL))
    hit = next(e for e in ev if isinstance(e, Hit))
    started = None
    for i in range(200):
        ev = m.step(NEUTRAL, FrameInput(lp=i % 2 == 0))
        started = next((e for e in ev if isinstance(e, MoveStarted) and e.fighter == 1), None)
        if started is not None:
            break
    assert started is not None and started.frame == hit.frame + hit.hitstop + data.knockdown_frames


@pytest.mark.slow
def test_a_knockdown_at_a_wall_is_deterministic_through_snapshot_and_restore():
    """The slide is state: the same sweep gives the same hashes, and a snapshot taken while the
    body slides out replays to the same hashes."""
    def run():
        m, _hit, _frames = _sweep_at("pillar_en", (-1, 0), 0.3)
        return m.state_hash()

    assert run() == run()
    m, a, d = _pair_at((5.1, 7.0), (6.0, 7.0))
    m.step(SWEEP, NEUTRAL)
    while not (d.state == "knockdown" and d.hitstop == 0):
        m.step(NEUTRAL, NEUTRAL)
    m.step(NEUTRAL, NEUTRAL)
    snap = m.snapshot()
    script = [(FrameInput(forward=i % 3 == 0), FrameInput(lp=i % 2 == 0)) for i in range(40)]
    first = [(m.step(*s), m.state_hash())[1] for s in script]
    m.restore(snap)
    again = [(m.step(*s), m.state_hash())[1] for s in script]
    assert first == again


@pytest.mark.slow
def test_only_a_knocked_down_fighter_pays_for_the_body_fit(monkeypatch):
    """Ordinary frames never measure a body: the fit runs once per step a knocked-down (or
    knocked-out, or thrown) fighter moves (not frozen by hitstop) and is still down at the end
    of, never otherwise."""
    calls = []
    real = movement.lying_rect

    def counted(match, f):
        calls.append((match.frame, f.index))
        return real(match, f)

    monkeypatch.setattr(movement, "lying_rect", counted)
    m = Match.new(p1_cpu="hard", p2_cpu="hard")
    down, stays = set(), set()
    for _ in range(1200):
        before = [(m.frame, f.index) for f in m.fighters if f.state in LYING_STATES and f.hitstop == 0]
        struck = {e.defender for e in m.step() if isinstance(e, Hit)}
        down.update(before)
        stays.update(k for k in before if m.fighters[k[1]].state in LYING_STATES and k[1] not in struck)
    # measured only on a step a fighter starts down, and on every one it is still down at the end
    # of (the one it gets up on, stun over, it stands: nothing to fit; swept again on that very
    # step, a meaty, it is down at the end but was up when the fit ran)
    assert stays and stays <= set(calls) <= down
    assert len(calls) == len(set(calls))


def test_stage_push_rect_out_moves_a_rect_out_of_an_obstacle_the_least_way():
    """``Stage.push_rect_out``: a body rect overlapping a pillar leaves it by the shortest of
    the four axis moves; one clear of everything stays."""
    m = Match.new()
    px0, pz0, px1, pz1 = _solids(m)["pillar_en"]
    rect = (-0.5, -0.4, 0.9, 0.4)                   # offsets: 0.9 m to +x, 0.5 m to -x, 0.4 m each side
    x, z = px0 - 0.6, 0.5 * (pz0 + pz1)              # 0.3 m of the rect inside the pillar's west face
    nx, nz, moved = m.stage.push_rect_out(x, z, rect)
    assert moved and nz == z and nx == pytest.approx(px0 - rect[2])
    assert m.stage.push_rect_out(nx, nz, rect) == (nx, nz, False)
    far = (0.0, 10.0)
    assert m.stage.push_rect_out(*far, rect) == (*far, False)


@pytest.mark.parametrize("name, normal", [("wall_east", (-1, 0)), ("pillar_en", (-1, 0)), ("crate_north", (0, -1))])
def test_a_body_knocked_out_against_a_solid_lies_outside_it(name, normal):
    """The K.O.'s body lies as a knockdown's does (the 'ko' pose): a fighter knocked out by a
    straight with its back 0.4 m from a wall, a pillar or a crate lay 0.555 m inside it.
    Through the K.O. phase no limb range box of the fallen fighter enters the solid."""
    m = Match.new(seed=0)
    to_fight(m)
    rect = _solids(m)[name]
    fx, fz = _face_point(rect, normal)
    nx, nz = normal
    a, d = m.fighters
    d.x, d.z = fx + nx * 0.4, fz + nz * 0.4
    a.x, a.z = d.x + nx * 0.9, d.z + nz * 0.9
    d.health = 1
    m.step(NEUTRAL, NEUTRAL)
    m.step(FrameInput(hp=True), NEUTRAL)
    for _ in range(40):
        if d.state == "ko":
            break
        m.step(NEUTRAL, NEUTRAL)
    assert d.state == "ko", "the straight knocked P2 out"
    worst = 0.0
    for _ in range(150):
        m.step(NEUTRAL, NEUTRAL)
        if d.hitstop == 0:
            worst = max(worst, _depth(d.limb_boxes(), rect))
    assert worst <= TOL, f"the K.O.'d body lies {worst:.3f} m inside {name}"
