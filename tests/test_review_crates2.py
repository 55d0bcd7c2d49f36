"""Crates as a player strikes them (method B, second review): the wall a limb came through.

On its first active frame a limb's range box can already be past the wall facing the
attacker, inside the hollow shell: a jab or a sweep from point-blank range.  Judged by the
box alone, the strike then missed that wall and cut the lid or the floor it grazes from
inside (a 45 cm slot in the lid, a 60 cm strip of the floor no one sees) and three such
strikes broke a crate whose struck face was whole.  ``Stage.touch`` / ``Stage.strike`` with
the attacker's ``origin`` judge the limb's :func:`~game.sim.stage.reach_box` instead.

Limb boxes come from play: a match, P1 placed in front of crate_north, the move's first
active frame.  They are then struck on a fresh ``Stage``, so these tests do not depend on
how ``Match`` calls the stage.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from game.collision import overlaps
from game.reference.stage import touch as reference_touch
from game.sim import FrameInput, Match
from game.sim.reach import TEAR_REACH
from game.sim.stage import HEAVY_STRIKE_MARGIN, STRIKE_MARGIN, Stage

from simhelp import NEUTRAL, to_fight

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


def test_A4_B1_stage_touch_equals_brute_force_with_and_without_origin():
    """The quick x-z rejection and the reach boxes pick the same pair as testing every limb
    against every small box (random limbs around all crates and the barrel, some struck)."""
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
                          for d in ([0, 0, 0], [rnd.uniform(-0.3, 0.3), 0.1, rnd.uniform(-0.3, 0.3)])][:rnd.choice((1, 2))])
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
