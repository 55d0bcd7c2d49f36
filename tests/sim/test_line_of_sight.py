"""Rays the simulation and the presentation ask about a projectile (method C's "client and
server" roles): the CPU's line of sight before it throws a fireball (C8 any-hit, at the
fireball's level, C9), and the impact spark's nearest hit (C7), at the same level."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from game.sim import Match, ProjectileImpact
from game.sim.stage import Projectile
from simhelp import NEUTRAL, place, to_fight


def fireball(m):
    return m.data.moves["fireball"].projectile


def test_C8_C9_line_of_sight_is_blocked_by_a_crate_and_clear_beside_it(across_crate):
    m = across_crate
    level = fireball(m).level
    y = float(m.fighters[0].limb_boxes()[fireball(m).limb, :, 1].mean())
    assert 0.0 < y < 1.5                                 # the fireball flies below the crate's top
    assert not m.stage.line_of_sight((0.0, y, 3.5), (0.0, y, 6.5), level)
    assert m.stage.line_of_sight((1.2, y, 3.5), (1.2, y, 6.5), level)          # 0.7 m beside it
    assert m.stage.line_of_sight((0.0, 1.7, 3.5), (0.0, 1.7, 6.5), level)      # over it
    # the answer is the fireball's own: a thrown one stops at the crate, one beside it flies on
    assert m.stage.path_blocked(np.array([0.0, y, 4.0]), np.array([0.0, 0.0, 0.6]), level)
    assert not m.stage.path_blocked(np.array([1.2, y, 4.0]), np.array([0.0, 0.0, 0.6]), level)


def test_C9_line_of_sight_passes_a_low_prop_that_a_levelless_ray_would_hit():
    m = Match.new(seed=0)
    to_fight(m)
    level = fireball(m).level
    a, b = np.array([0.0, 0.5, 11.5]), np.array([0.0, 0.5, 14.0])   # across railing_north (level 0)
    assert m.stage.line_of_sight(a, b + [0, 0, -0.9], level)          # stops short of the wall (z 15)
    assert m.stage.scene.cast_any(a, b - a, 2.5 - 0.9, level=None)      # a levelless ray hits the railing


def test_C8_line_of_sight_is_recorded_for_the_overlay(across_crate):
    m = across_crate
    m.stage.begin_frame()
    m.stage.line_of_sight((0.0, 1.0, 3.5), (0.0, 1.0, 6.5), fireball(m).level)
    (ray,) = m.stage.rays
    assert ray.kind == "ray_any" and ray.hit and np.allclose(ray.end, (0.0, 1.0, 6.5))


@pytest.mark.gl  # game.render.game loads pyglet.gl
def test_C7_C9_impact_spark_lands_where_the_projectile_was_stopped():
    """Presentation places the spark with a nearest hit at the projectile's level: on the wall
    behind the north banner (level 0) the fireball flew through, not on the banner."""
    from game.render.effects import impact_point

    m = Match.new(seed=0)
    to_fight(m)
    place(m, (-1.5, -3.0), (1.5, -3.0))
    m.stage.projectiles = (Projectile(0, 0.0, 2.5, 13.0, 0.0, 0.16, 0),)
    impact = next(e for _ in range(120) for e in m.step(NEUTRAL, NEUTRAL) if isinstance(e, ProjectileImpact))
    assert impact.level == fireball(m).level
    game = SimpleNamespace(match=m, view_rays=[])
    point = impact_point(game.match, impact, game.view_rays)
    wall = m.arena.object("wall_north").aabb
    banner = m.arena.object("banner_north").aabb
    assert point[2] == pytest.approx(wall[0, 2]) and point[2] > banner[1, 2]
    (ray,) = game.view_rays                      # the cast is kept for the overlay, hit and all
    assert ray.kind == "ray_nearest" and np.allclose(ray.point, point)
