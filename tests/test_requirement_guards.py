"""Guards for requirements whose deliberate code changes ("mutants") once survived the suite.

Each test names its requirement and is built so that the named mutant fails it:

* C9 on the simulation's projectile ray (``Stage.path_blocked`` must pass its level);
* C9 on the ground ray (``Stage.ground_height`` must pass ``GROUND_LEVEL``);
* C8's early exit, on the scalar single-ray walker and on the batched walker;
* A7 at crate contacts (the diagonal-ratio split, not the midpoint of the centres);
* C9 ray levels: only None, 0, 1 or 2 are accepted by every cast.
"""

import numpy as np
import pytest

from game.collision import CollisionModel, Scene, box_centers, box_diagonals, collision_point, overlaps
from game.collision.aabb_tree import LEAF_SIZE
from game.sim import CrateStruck, FrameInput, Match, ProjectileImpact
from game.sim.stage import GROUND_LEVEL, GROUND_RAY_DOWN, GROUND_RAY_UP, Projectile, Stage

from simhelp import NEUTRAL, to_fight


def _place(m, p1, p2):
    """Fighters at x–z points ``p1``, ``p2``; one neutral frame settles facing and ground."""
    for f, (x, z) in zip(m.fighters, (p1, p2)):
        f.x, f.z = float(x), float(z)
    m.step(NEUTRAL, NEUTRAL)


# ---------------------------------------------------------------- C9: projectile ray
# railing_north runs from (-4, 0, 13) to (4, 0, 13), 1 m high, level 0: a rail at
# y 0.94..1.0 and posts at x = -4, -2, 0, 2, 4.  A path along +z from z = 12.5 to 13.5
# crosses it and nothing else (the north wall starts at z = 15).
RAILING_PATHS = {"rail": (1.0, 0.97), "post": (0.0, 0.5)}


@pytest.mark.parametrize("where", sorted(RAILING_PATHS))
def test_C9_projectile_path_passes_the_low_railing_a_levelless_ray_hits(where):
    m = Match.new(seed=0)
    level = m.data.moves["fireball"].projectile.level
    sc = m.stage.scene
    rail = m.arena.object("railing_north")
    assert sc.models[rail.model].level <= level          # not above the fireball's level
    x, y = RAILING_PATHS[where]
    start, step = np.array([x, y, 12.5]), np.array([0.0, 0.0, 1.0])
    # the case discriminates: without a level the same segment is blocked, by the railing
    assert sc.cast_any(start, step, 1.0)
    hit = sc.cast_nearest(start, step, 1.0)
    assert hit is not None and hit.model == rail.model
    assert not m.stage.path_blocked(start, step, level)
    assert m.stage.rays[-1].kind == "ray_any" and not m.stage.rays[-1].hit
    # ... while a model above the level on such a path does block it (crate_north, level 1)
    assert m.stage.path_blocked(np.array([0.0, 0.75, 4.0]), step, level)


@pytest.mark.parametrize("where", sorted(RAILING_PATHS))
def test_C9_projectile_in_flight_crosses_the_railing_and_stops_at_the_wall(where):
    # A thrown fireball's height follows the throw pose (moves.json); this one is put in
    # flight at the railing's height (as test_stage's _fly), so only the levels let it by.
    m = Match.new(seed=0)
    to_fight(m)
    _place(m, (-6.0, -2.0), (-3.0, -2.0))                 # out of the way
    spec = m.data.moves["fireball"].projectile
    rail = m.arena.object("railing_north")
    x, y = RAILING_PATHS[where]
    m.stage.projectiles = (Projectile(0, x, y, 11.0, 0.0, spec.speed, 0),)
    crossed, impact = False, None
    for _ in range(spec.lifetime):
        impacts = [e for e in m.step(NEUTRAL, NEUTRAL) if isinstance(e, ProjectileImpact)]
        if impacts:
            impact = impacts[0]
            break
        crossed |= bool(m.stage.projectiles) and m.stage.projectiles[0].z > rail.aabb[1, 2]
    assert impact is not None, "the projectile never hit anything"
    assert impact.start[2] > rail.aabb[1, 2], f"stopped at the railing: {impact}"
    assert crossed
    seg = impact.end - impact.start
    near = m.stage.scene.cast_nearest(impact.start, seg, np.linalg.norm(seg), level=impact.level)
    assert near.model == m.arena.object("wall_north").model


# ---------------------------------------------------------------- C9: ground ray
@pytest.mark.parametrize("x, z, prop, top", [(0.0, 5.0, "crate_north", 1.5), (-10.0, 3.0, "grass_0", 0.35)])
def test_C9_ground_ray_sees_only_high_models(x, z, prop, top):
    stage = Stage.load()
    assert stage.ground_height(x, z, 0.0) == 0.0
    assert stage.rays[-1].point[1] == 0.0
    # the case discriminates: a levelless ray from the same origin lands on the prop
    origin = (x, 0.0 + GROUND_RAY_UP, z)
    hit = stage.scene.cast_nearest(origin, (0.0, -1.0, 0.0), GROUND_RAY_DOWN)
    assert hit is not None and hit.model == stage.arena.object(prop).model
    assert hit.point[1] == pytest.approx(top)
    assert stage.scene.models[hit.model].level <= GROUND_LEVEL


def test_C9_fighter_on_the_grass_stands_on_the_floor():
    m = Match.new(seed=0)
    to_fight(m)
    _place(m, (-10.0, 3.0), (-6.0, 3.0))
    f = m.fighters[0]
    assert (f.x, f.z) == (-10.0, 3.0)
    assert f.ground_y == 0.0
    assert f.limb_boxes()[:, 0, 1].min() == pytest.approx(0.0, abs=0.05)


# ---------------------------------------------------------------- C8: early exit
def _spires(n):
    """``n`` one-triangle models, each slanted from y = i (z = 0) up to y = 10 (z = 3): every
    model's box is entered at the same distance by a ray coming down at x = z = 0.5, which
    crosses model i at y = i + (10 - i) / 6, so a nearest search cannot prune any of them."""
    return [CollisionModel([[[-1.0, i, 0.0], [2.0, i, 0.0], [0.5, 10.0, 3.0]]], 0) for i in range(n)]


def test_C8_single_any_hit_stops_at_its_first_triangle():
    models = _spires(5)
    o, d = [0.5, 100.0, 0.5], [0.0, -1.0, 0.0]
    for mdl in models:                                        # the ray crosses every model's triangle
        assert Scene.build([mdl]).cast_any(o, d, 200.0)
    sc = Scene.build(models)
    h = sc.cast_nearest(o, d, 200.0)
    assert h.model == 4 and h.distance == pytest.approx(100.0 - (4 + 6 / 6))
    nearest_tris = sc.stats.triangles_tested
    assert nearest_tris == 5
    assert sc.cast_any(o, d, 200.0)
    assert sc.stats.triangles_tested == 1 < nearest_tris      # the first triangle tested hit: stop there


def test_C8_batched_any_hit_drops_a_finished_ray_from_deeper_nodes():
    # model 0: one floor at y = 20, its root is a leaf; model 1: 40 floors (y = 0..39), a deep tree.
    # Both roots are in the first frontier; model 0's leaf hits, so the any policy must not
    # descend model 1 (nearest must: model 1's box starts at y = 39, before the y = 20 hit).
    floor = [[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 0.0, 4.0]]
    near = CollisionModel(np.array([floor]) + [0.0, 20.0, 0.0], 0)
    stack = CollisionModel(np.array([floor] * 40) + np.arange(40.0)[:, None, None] * [0.0, 1.0, 0.0], 0)
    assert stack.tree.node_count > 1
    sc = Scene.build([near, stack])
    o = np.tile([0.5, 100.0, 0.5], (3, 1))
    d = np.tile([0.0, -1.0, 0.0], (3, 1))
    assert sc.cast_any_many(o, d, 200.0).all()
    any_tris = sc.stats.triangles_tested
    assert any_tris == 3 * LEAF_SIZE                          # model 0's leaf block, once per ray
    assert sc.cast_nearest_many(o, d, 200.0).model.tolist() == [1, 1, 1]
    assert any_tris < sc.stats.triangles_tested


# ---------------------------------------------------------------- A7 at crate contacts
def test_A7_crate_strike_point_splits_the_centres_by_the_diagonals():
    m = Match.new(seed=0)
    to_fight(m)
    _place(m, (0.0, 3.6), (0.0, 8.0))                    # P1 south of crate_north, facing it: the fist ends in its wall
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


# ---------------------------------------------------------------- C9: ray levels
def _level_scene():
    """Floors under (0.5, *, 0.5): level 2 at y = 0, level 1 at y = 1, level 0 at y = 2."""
    tri = np.array([[[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [0.0, 0.0, 4.0]]])
    return Scene.build([CollisionModel(tri + [0.0, 2.0 - lv, 0.0], lv) for lv in (2, 1, 0)])


_O, _D = [0.5, 5.0, 0.5], [0.0, -1.0, 0.0]
CASTS = {
    "cast_nearest": lambda sc, lv: sc.cast_nearest(_O, _D, 10.0, level=lv),
    "cast_nearest_distance": lambda sc, lv: sc.cast_nearest_distance(_O, _D, 10.0, level=lv),
    "cast_any": lambda sc, lv: sc.cast_any(_O, _D, 10.0, level=lv),
    "cast_nearest_many": lambda sc, lv: sc.cast_nearest_many([_O], [_D], 10.0, level=lv),
    "cast_any_many": lambda sc, lv: sc.cast_any_many([_O], [_D], 10.0, level=lv),
}
BAD_LEVELS = [3, 5, -1, np.int64(7), True, False, 1.0, "1"]


@pytest.mark.parametrize("bad", BAD_LEVELS, ids=repr)
@pytest.mark.parametrize("cast", sorted(CASTS))
def test_C9_ray_level_must_be_none_or_0_1_2(cast, bad):
    with pytest.raises(ValueError, match=r"^level: .*0 \(low\), 1 \(medium\) or 2 \(high\), got "):
        CASTS[cast](_level_scene(), bad)


@pytest.mark.parametrize("cast", sorted(CASTS))
def test_C9_ray_levels_none_0_1_2_are_accepted(cast):
    sc = _level_scene()
    # distance from y = 5 to the first model above the ray's level (C9): None sees all three
    want = [(None, 3.0), (0, 4.0), (np.int64(0), 4.0), (1, 5.0), (np.int32(1), 5.0), (2, None)]
    for lv, dist in want:
        r = CASTS[cast](sc, lv)
        if cast == "cast_any":
            assert r is (dist is not None)
        elif cast == "cast_any_many":
            assert r.tolist() == [dist is not None]
        elif cast == "cast_nearest_many":
            assert r.distance.tolist() == [np.inf if dist is None else dist]
        elif cast == "cast_nearest":
            assert (r is None) if dist is None else r.distance == dist
        else:
            assert r == dist
