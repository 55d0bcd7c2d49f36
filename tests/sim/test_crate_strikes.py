"""Crate strikes in play (method B in the match): a limb that touches a crate's slab strikes it
(B1) on the wall that faces the attacker, even from point-blank range; the hole is at the A7
point and the next punch passes it (B7); the struck model updates the scene (C); crates break
(B9); ``Stage.touch`` equals a brute-force loop."""

from __future__ import annotations

import random

import numpy as np
import pytest

from game.collision import box_centers, box_diagonals, collision_point, overlaps
from game.reference.stage import touch as reference_touch
from game.sim import CrateStruck, FrameInput, Match
from game.sim.reach import TEAR_REACH
from game.sim.stage import HEAVY_STRIKE_MARGIN, STRIKE_MARGIN, Stage
from simhelp import NEUTRAL, crate, place, punch_crate, to_fight


# ---------------------------------------------------------------- A7 at crate contacts
def test_A7_crate_strike_point_splits_the_centres_by_the_diagonals():
    m = Match.new(seed=0)
    to_fight(m)
    place(m, (0.0, 3.6), (0.0, 8.0))                    # P1 south of crate_north, facing it: the fist ends in its wall
    assert np.allclose(m.fighters[0].facing, [0, 1])
    ci = next(i for i, c in enumerate(m.stage.crates) if c.obj.name == "crate_north")
    struck = []
    for i in range(40):
        before = m.stage.crates[ci].compound.boxes.copy()   # the small boxes the strike meets
        struck = [e for e in m.step(FrameInput(hp=True) if i == 0 else NEUTRAL, NEUTRAL)
                  if isinstance(e, CrateStruck)]
        if struck:
            break
    assert len(struck) == 1 and struck[0].crate == ci and struck[0].fighter == 0
    e = struck[0]
    k = m.data.skeleton.names.index(e.limb)
    limb = m.fighters[0].limb_boxes()[k]                   # this frame's range box of the striking limb
    # the struck small box: the largest overlap with the limb (as Stage.touch picks it)
    lo = np.maximum(limb[0], before[:, 0])
    hi = np.minimum(limb[1], before[:, 1])
    vol = np.prod(np.maximum(hi - lo, 0.0), axis=-1)
    assert vol.max() > 0.0
    box = before[int(np.argmax(vol))]
    assert overlaps(limb, box)
    (atk, kk, c, contact_box, _p), = m.crate_contacts
    assert (atk, kk, c) == (0, k, ci) and np.array_equal(contact_box, box)
    ref = collision_point(limb, box)
    np.testing.assert_allclose(e.point, ref, rtol=0, atol=1e-12)
    # the case discriminates: the diagonals differ, so A7's split is not the midpoint
    d1, d2 = box_diagonals(limb), box_diagonals(box)
    assert abs(d1 - d2) > 0.05 * (d1 + d2)
    mid = box_centers(np.stack([limb, box])).mean(axis=0)
    assert np.linalg.norm(e.point - mid) > 0.01


BUTTONS = {"lp": dict(lp=True), "hp": dict(hp=True), "lk": dict(lk=True), "hk": dict(hk=True),
           "hk_low": dict(hk=True, down=True)}


NORTH = "crate_north"          # bounds x [-0.5, 0.5], y [0, 1.5], z [4.5, 5.5]


def first_active(move: str, dist: float, lateral: float = 0.0):
    """P1 ``dist`` south of crate_north's south face (its centre; P2 behind the crate) presses
    ``move``: ``(limb box (2, 3), origin (x, z))`` on the move's first active frame."""
    m = Match.new(seed=0)
    to_fight(m)
    z0 = m.stage.crates[index(m.stage, NORTH)].compound.bounds[0, 2]
    for f, (x, z) in zip(m.fighters, ((lateral, z0 - dist), (lateral, 8.0))):
        f.x, f.z = x, z
    m.step(NEUTRAL, NEUTRAL)
    hold = FrameInput(down=move == "hk_low")
    m.step(FrameInput(**BUTTONS[move]), NEUTRAL)
    f = m.fighters[0]
    for _ in range(30):
        if f.move == move and m.data.moves[move].is_active(f.mframe):
            k = m.data.moves[move].hit_limbs[0]
            return f.limb_boxes()[k].copy(), (f.x, f.z)
        m.step(hold, NEUTRAL)
    raise AssertionError(f"{move} never became active")


def index(stage: Stage, name: str) -> int:
    return next(i for i, c in enumerate(stage.crates) if c.obj.name == name)


def region_of(result, layer: int) -> np.ndarray:
    return result.tunnels[result.layers.tolist().index(layer)]


@pytest.mark.parametrize("move", ["lp", "hk_low"])
def test_B1_B2_B3_point_blank_strike_cuts_the_wall_facing_the_attacker(move):
    """A jab or a sweep from point-blank range: its box is past the south wall; the strike
    must still cut that wall at the limb's footprint, and the lid or floor it grazes inside
    only at the wall's edge (within wall + margin of the struck face)."""
    limb, origin = first_active(move, 0.3)
    st = Stage.load()
    i = index(st, NORTH)
    comp = st.crates[i].compound
    (x0, y0, z0), (x1, y1, z1) = comp.bounds.tolist()
    t = comp.thickness
    assert limb[0, 2] > z0 + t or not overlaps(limb, comp.boxes[comp.layers == 4]).any(), \
        "premise: the limb's box misses the south wall it went through"
    touch = st.touch(limb[None], origin)
    assert touch is not None and touch[1] == i
    result, broke = st.strike(i, limb, origin)
    assert result is not None and not broke
    assert 4 in result.layers.tolist(), f"the south wall (layer 4) was not struck: {result.layers}"
    # B3 on the south wall: the limb's x-y footprint grown by the margin, clipped to the crate's
    # face; where it reaches into the rim of a wall that owns the face's edge (the sides, the lid,
    # the floor), the rim opens whole
    reg = region_of(result, 4)
    slab, bounds = comp.slabs[4], comp.bounds
    for ax in (0, 1):
        lo = max(limb[0, ax] - STRIKE_MARGIN, bounds[0, ax])
        hi = min(limb[1, ax] + STRIKE_MARGIN, bounds[1, ax])
        rims = ((bounds[0, ax], slab[0, ax]), (slab[1, ax], bounds[1, ax]))
        want = (next((r0 for r0, r1 in rims if r0 < lo < r1), lo), next((r1 for r0, r1 in rims if r0 < hi < r1), hi))
        assert reg[:, ax] == pytest.approx(want, abs=1e-9)
    # a rod through the middle of that footprint passes the wall; beside the hole the wall stands
    cx, cy = reg[:, 0].mean(), reg[:, 1].mean()
    rod = np.array([[cx - 0.01, cy - 0.01, z0 - 0.05], [cx + 0.01, cy + 0.01, z0 + t + 0.01]])
    assert not overlaps(rod, comp.boxes).any()
    side = rod + [reg[1, 0] - cx + 0.1, 0.0, 0.0]
    assert overlaps(side, comp.boxes).any()
    # any other target (the lid for the jab, the floor for the sweep) only at the south edge
    for lay, tun in zip(result.layers.tolist(), result.tunnels):
        if lay != 4:
            assert tun[1, 2] <= z0 + t + STRIKE_MARGIN + 1e-9, f"layer {lay} cut {tun[1, 2] - z0:.3f} m deep"
    assert st.struck_normal(i, result, origin) == (0.0, 0.0, -1.0)
    comp.validate()


def test_B1_limb_box_wholly_inside_the_hollow_strikes_the_wall_it_came_through():
    """A limb box that touches no small box at all (past the south wall, clear of lid,
    floor and sides): alone it strikes nothing; with the attacker's origin it is the south
    wall it came through."""
    st = Stage.load()
    i = index(st, NORTH)
    comp = st.crates[i].compound
    limb = np.array([[-0.1, 0.7, 4.7], [0.1, 0.9, 5.0]])
    assert not overlaps(limb, comp.boxes).any()
    assert st.touch(limb[None]) is None
    origin = (0.0, 4.15)
    k, c, box, _reach = st.touch(limb[None], origin)
    assert c == i and box[0, 2] == comp.bounds[0, 2]              # a box of the south wall
    result, _ = st.strike(i, limb, origin)
    assert result.layers.tolist() == [4]
    assert result.removed_volume == pytest.approx((0.2 + 2 * STRIKE_MARGIN) ** 2 * comp.thickness)


@pytest.mark.parametrize("move", list(BUTTONS))
def test_B7_C7_C8_the_same_strike_again_reaches_through_its_hole(move):
    """The hole a strike made lets the same limb through (method A against the compound,
    with the reach box: the touch is the tear of its rim, B3, judged with the reach box grown
    to the rim), a ray through it passes the south wall and one beside it stops there (C7),
    and an any-hit segment through it (a fireball's path, C8) passes the wall."""
    limb, origin = first_active(move, 0.5)
    st = Stage.load()
    i = index(st, NORTH)
    result, _ = st.strike(i, limb, origin)
    assert result is not None
    comp = st.crates[i].compound
    reach = st.reach(i, limb, origin)
    assert not overlaps(reach, comp.boxes).any(), "the same limb meets the hole's edges"
    torn = st.touch(limb[None], origin)
    assert torn is not None and torn.crate == i
    grow = np.concatenate((reach[0] - torn.reach[0], torn.reach[1] - reach[1]))
    assert np.allclose(grow[[0, 1, 3, 4]], grow[0]) and 0.0 < grow[0] <= TEAR_REACH, grow
    assert grow[2] == grow[5] == 0.0
    z0, t = comp.bounds[0, 2], comp.thickness
    reg = region_of(result, 4)
    p = np.array([reg[:, 0].mean(), reg[:, 1].mean(), z0 - 1.0])
    model = st.crates[i].obj.model
    hit = st.scene.cast_nearest(p, [0.0, 0.0, 1.0], 3.0, level=0)
    assert hit is None or (hit.model == model and hit.point[2] > z0 + t), "the ray met the south wall"
    assert not st.scene.cast_any(p, [0.0, 0.0, 1.0], 1.0 + t + 0.01, level=0)
    beside = p + [reg[1, 0] - p[0] + 0.1, 0.0, 0.0]
    hit = st.scene.cast_nearest(beside, [0.0, 0.0, 1.0], 3.0, level=0)
    assert hit is not None and hit.model == model and hit.point[2] == pytest.approx(z0)


def test_B2_struck_normal_is_the_face_toward_the_attacker():
    """A roundhouse also notches the lid's front edge (layers 3 and 4): the face it struck,
    whose normal the chips fly along, is the south face toward the attacker, not the lid."""
    limb, origin = first_active("hk", 0.5)
    st = Stage.load()
    i = index(st, NORTH)
    result, _ = st.strike(i, limb, origin)
    assert result.layers.tolist() == [3, 4]
    assert st.struck_normal(i, result) == (0.0, 1.0, 0.0)            # no origin: the first layer
    assert st.struck_normal(i, result, origin) == (0.0, 0.0, -1.0)


@pytest.mark.slow
def test_B9_break_rule_is_reached_through_the_struck_face():
    """A player mixing the five moves at the south face from 0.3-0.9 m, shuffling sideways:
    the crate breaks within a handful of strikes, by its south wall (the one struck, B9's
    holes growing and multiplying), not by the lid or floor that no strike faced."""
    boxes = {(mv, d): first_active(mv, d) for mv in BUTTONS for d in (0.3, 0.6, 0.9)}
    strikes_needed = []
    for seed in range(6):
        rnd = random.Random(seed)
        st = Stage.load()
        i = index(st, NORTH)
        crate = st.crates[i]
        strikes = 0
        for _ in range(60):
            (limb, (ox, oz)) = boxes[(rnd.choice(list(BUTTONS)), rnd.choice((0.3, 0.6, 0.9)))]
            dx = rnd.uniform(-0.4, 0.4)
            limb, origin = limb + [dx, 0.0, 0.0], (ox + dx, oz)
            if st.touch(limb[None], origin) is None:
                continue
            result, broke = st.strike(i, limb, origin)
            strikes += result is not None
            crate.compound.validate()
            if broke:
                break
        assert crate.broken, f"seed {seed}: not broken after {strikes} strikes"
        left = crate.wall_volumes() / crate._wall0
        assert int(np.argmin(left)) == 4, f"seed {seed}: broke by layer {int(np.argmin(left))}: {left}"
        assert left[2] > 0.8 and left[3] > 0.8, f"seed {seed}: floor / lid lost too much: {left}"
        strikes_needed.append(strikes)
    assert max(strikes_needed) <= 15, strikes_needed


@pytest.mark.slow
def test_A4_B1_B7_stage_touch_equals_brute_force_with_and_without_origin_and_on_ties():
    """The limb, crate and small box that ``Stage.touch`` returns (its quick x-z rejection and
    the reach boxes) equal testing every limb against every small box in a plain loop
    (``game.reference.stage.touch``)."""
    _touch_around_every_crate_with_and_without_origin()
    _touch_at_one_crate_two_at_once_and_on_ties()


def _touch_around_every_crate_with_and_without_origin():
    """Random limbs around all crates and the barrel, some struck, with and without the
    attacker's origin (the reach boxes)."""
    rnd = random.Random(7)
    st = Stage.load()
    for c in range(len(st.crates)):                                   # holes in a few crates
        b = st.crates[c].compound.bounds
        mid = b.mean(axis=0)
        st.strike(c, np.array([[mid[0] - 0.1, 0.6, b[0, 2] - 0.1], [mid[0] + 0.1, 0.9, b[0, 2] + 0.3]]),
                  (mid[0], b[0, 2] - 0.4))
    for _ in range(300):
        c = st.crates[rnd.randrange(len(st.crates))].compound.bounds
        lo = np.array([rnd.uniform(c[0, 0] - 0.8, c[1, 0] + 0.5), rnd.uniform(0.0, 1.5),
                       rnd.uniform(c[0, 2] - 0.8, c[1, 2] + 0.5)])
        limbs = np.stack([np.stack((lo + d, lo + d + [rnd.uniform(0.05, 0.4) for _ in range(3)]))
                          for d in ([0, 0, 0], [rnd.uniform(-0.3, 0.3), 0.1, rnd.uniform(-0.3, 0.3)])]
                         [:rnd.choice((1, 2))])
        origin = (float(lo[0] + rnd.uniform(-0.7, 0.2)), float(lo[2] + rnd.uniform(-0.7, 0.2)))
        for o in (None, origin):
            got = st.touch(limbs, o)
            want = reference_touch(st, limbs, o)
            if want is None:
                assert got is None
            else:
                k, ci, r = want
                assert got is not None and (got[0], got[1]) == (k, ci)
                assert np.array_equal(got[2], st.crates[ci].compound.boxes[r])


@pytest.mark.parametrize("move", ["lp", "hk_low"])
def test_B1_B2_in_play_a_point_blank_strike_opens_the_face_toward_the_attacker(move):
    """The same as above through ``Match.step``: P1 against crate_north's south face presses a
    jab or a sweep; the event's face normal is the south face's and the strike cut the south
    wall, the lid or floor only at its edge."""
    from game.sim import CrateStruck

    m = Match.new(seed=0)
    to_fight(m)
    i = index(m.stage, NORTH)
    comp = m.stage.crates[i].compound
    z0, t = comp.bounds[0, 2], comp.thickness
    for f, (x, z) in zip(m.fighters, ((0.0, z0 - 0.3), (0.0, 8.0))):
        f.x, f.z = x, z
    m.step(NEUTRAL, NEUTRAL)
    events = list(m.step(FrameInput(**BUTTONS[move]), NEUTRAL))
    for _ in range(30):
        events += m.step(FrameInput(down=move == "hk_low"), NEUTRAL)
    struck = [e for e in events if isinstance(e, CrateStruck)]
    assert len(struck) == 1 and struck[0].crate == i
    assert struck[0].normal.tolist() == [0.0, 0.0, -1.0]
    assert struck[0].point[2] <= z0 + t + 1e-9
    result = m.stage.crates[i].last_strike
    assert 4 in result.layers.tolist()
    margin = HEAVY_STRIKE_MARGIN if m.data.moves[move].heavy else STRIKE_MARGIN
    assert all(tun[1, 2] <= z0 + t + margin + 1e-9 for tun in result.tunnels)


def test_B1_B7_punch_leaves_a_hole_at_the_collision_point_and_a_second_punch_tears_its_rim(at_crate):
    m = at_crate
    c = crate(m, "crate_north")
    start = (m.fighters[0].x, m.fighters[0].z)
    struck, _ = punch_crate(m)
    assert len(struck) == 1 and struck[0].name == "crate_north" and struck[0].limb == "forearm_r"
    p = struck[0].point
    assert struck[0].removed > 0 and not struck[0].broke
    assert struck[0].normal.tolist() == [0.0, 0.0, -1.0]          # the south face, toward the puncher
    # The hole is where the fist met the wall: a thin rod through the south wall at the
    # collision point's (x, y) meets no small box, and one 3 cm past the hole's side does.
    wall_z = c.obj.aabb[0, 2]
    rod = np.array([[p[0] - 0.01, p[1] - 0.01, wall_z - 0.05], [p[0] + 0.01, p[1] + 0.01, wall_z + 0.2]])
    assert not overlaps(rod, c.compound.boxes).any()
    tunnel = c.last_strike.tunnels[c.last_strike.layers.tolist().index(4)]
    assert tunnel[0, 0] < p[0] < tunnel[1, 0]
    assert overlaps(rod + [tunnel[1, 0] - p[0] + 0.03, 0, 0], c.compound.boxes).any()
    c.compound.validate()
    # The same punch from the same spot goes through the hole (its fist meets no crate box)
    # and tears the hole's rim (B3): the hole grows on every side the rim was near.
    f = m.fighters[0]
    f.x, f.z = start
    m.step(NEUTRAL, NEUTRAL)
    before = c.compound.boxes
    struck2, active = punch_crate(m)
    assert len(struck2) == 1 and struck2[0].removed > 0 and active
    for boxes in active:
        assert not overlaps(boxes[:, None], before[None]).any()
    grown = c.last_strike.tunnels[c.last_strike.layers.tolist().index(4)]
    assert grown[0, 0] < tunnel[0, 0] - 0.05 and grown[1, 0] > tunnel[1, 0] + 0.05


def test_B7_C_struck_crate_updates_its_scene_model(at_crate):
    m = at_crate
    c = crate(m, "crate_north")
    sc = m.stage.scene
    before = sc.models[c.obj.model].triangles.shape[0]
    struck, _ = punch_crate(m)
    p = struck[0].point
    assert sc.models[c.obj.model].triangles.shape[0] > before
    # A ray through the hole along the wall normal passes the south wall and meets the north wall's inside.
    hit = sc.cast_nearest([p[0], p[1], 3.0], [0, 0, 1], 5.0, level=0)
    assert hit is not None and hit.model == c.obj.model
    assert hit.point[2] > c.obj.aabb[1, 2] - 0.1            # the far wall, not the near one
    beside = sc.cast_nearest([p[0] + 0.3, p[1], 3.0], [0, 0, 1], 5.0, level=0)
    assert beside is not None and beside.point[2] == pytest.approx(c.obj.aabb[0, 2])


@pytest.mark.slow
def test_B9_crates_break_after_enough_strikes_and_stop_blocking(at_crate):
    m = at_crate
    c = crate(m, "crate_north")
    f = m.fighters[0]
    for i in range(40):
        f.x, f.z = 0.2 * ((i % 7) - 3), 3.72
        m.step(NEUTRAL, NEUTRAL)
        struck, _ = punch_crate(m, ("hp", "lk", "lp")[i % 3])
        c.compound.validate()
        if c.broken:
            break
    assert c.broken and any(e.broke for e in struck)
    assert not m.stage.scene.cast_any([0, 0.75, 3.0], [0, 0, 1], 4.0, level=0)
    assert m.stage.touch(c.obj.aabb[None].copy()) is None                 # limbs pass where it stood
    place(m, (0.0, 4.2), (0.0, 8.0))                            # stand where the crate was
    assert m.fighters[0].z == pytest.approx(4.2)


def _touch_at_one_crate_two_at_once_and_on_ties():
    """Limbs at one crate, at two at once, and on exact ties (limbs made as copies of one
    another): the largest overlap, the first of equals."""
    m = Match.new(seed=0)
    to_fight(m)
    st = m.stage
    rng = np.random.default_rng(5)
    for c in st.crates[:3]:                     # holes first, so rows and volumes vary
        for _ in range(8):
            p = rng.uniform(c.compound.bounds[0], c.compound.bounds[1])
            st.strike(st.crates.index(c), np.stack((p - 0.1, p + 0.1)))
    standing = [c for c in st.crates if not c.broken]
    checked = 0
    for trial in range(60):
        picks = [standing[int(rng.integers(len(standing)))] for _ in range(int(rng.integers(1, 3)))]
        limbs = []
        for c in picks:
            lo, hi = c.compound.bounds
            centre = rng.uniform(lo, hi)
            centre[int(rng.integers(3))] = (lo if rng.random() < 0.5 else hi)[0]   # near a wall
            h = rng.uniform(0.03, 0.25, 3)
            limbs.append(np.stack((centre - h, centre + h)))
        if trial % 3 == 0:
            limbs.append(limbs[0].copy())        # a tie: the same box twice
        limbs = np.array(limbs)
        got, want = st.touch(limbs), reference_touch(st, limbs)
        assert (got is None) == (want is None)
        if got is not None:
            k, ci, row = want
            assert got[:2] == (k, ci) and np.array_equal(got[2], st.crates[ci].compound.boxes[row])
            checked += 1
    assert checked > 20


@pytest.mark.slow
def test_B9_break_test_reads_one_volume_pass_like_its_two_parts():
    """``Crate.too_little_left`` computes the boxes' volumes once; it agrees, strike after
    strike, with its two parts as written: the thinnest wall's share against BREAK_WALL,
    the compound's solid fraction against BREAK_TOTAL."""
    from game.sim.stage import BREAK_TOTAL, BREAK_WALL

    m = Match.new(seed=0)
    rng = np.random.default_rng(4)
    seen = set()
    for c in m.stage.crates:
        lo, hi = c.compound.bounds
        for _ in range(80):
            p = rng.uniform(lo, hi)
            h = rng.uniform(0.05, 0.2, 3)
            c.compound.strike(np.array([p - h, p + h]), margin=0.03)
            want = bool((c.wall_volumes() / c._wall0).min() < BREAK_WALL
                        or c.compound.solid_fraction() < BREAK_TOTAL)
            assert c.too_little_left() == want
            seen.add(want)
    assert seen == {False, True}
