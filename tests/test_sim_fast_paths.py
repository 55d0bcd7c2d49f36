"""Fast paths of ``Match.step`` against their simple references: the same bits, the same verdicts.

* one pose's Euler rotations on Python floats (``skeleton._euler_one``) against the batched
  numpy columns;
* the projectile verdict on Python floats (``combat.judge_projectiles``, A2-A4) against
  ``overlaps`` and ``judgement_points`` on the same boxes, touching faces included
  (``game.reference.combat.projectile_verdict``).
"""

from __future__ import annotations

import numpy as np

from game.reference.combat import projectile_verdict as _reference_projectile_verdict
from game.sim import Match, combat
from game.sim.skeleton import euler_matrices
from game.sim.stage import Projectile


def test_euler_matrices_of_one_pose_have_the_batched_paths_bits():
    rng = np.random.default_rng(7)
    for _ in range(200):
        a = rng.uniform(-4.0, 4.0, (11, 3))
        a[rng.random(a.shape) < 0.2] = 0.0
        a[rng.random(a.shape) < 0.1] = -0.0           # signed zeros must come out the same too
        one = euler_matrices(a)                        # (L, 3): the Python-float path
        batched = euler_matrices(a[None])[0]           # (1, L, 3): numpy's columns
        assert one.shape == batched.shape == (11, 3, 3)
        assert one.tobytes() == batched.tobytes()


def _fast_projectile_verdict(m: Match) -> tuple[list, list]:
    proj, clash = combat.judge_projectiles(m)
    return ([(i, p, best, box.tolist()) for i, p, best, box in proj],
            [(i, j, a.tolist(), b.tolist()) for i, j, a, b in clash])


def test_A2_A4_projectile_verdict_on_floats_matches_overlaps_touching_faces_included():
    m = Match.new(seed=2)
    half = m.projectile_spec.half
    boxes = m.limbs.boxes[1].tolist()                       # P2's limbs, struck by P1's projectile
    touching = hits = misses = 0
    for limb, ((x0, y0, z0), (x1, y1, z1)) in enumerate(boxes):
        centre = [(x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2]
        for axis, (lo, hi) in enumerate(((x0, x1), (y0, y1), (z0, z1))):
            for face, sign in ((lo, -1.0), (hi, 1.0)):
                c = face + sign * half                 # the cube's near face on the limb's face ...
                for ulps in range(-3, 4):              # ... and a few ulps either way
                    at = list(centre)
                    at[axis] = float(c)
                    for _ in range(abs(ulps)):
                        at[axis] = float(np.nextafter(at[axis], np.inf if ulps > 0 else -np.inf))
                    m.stage.projectiles = (Projectile(0, at[0], at[1], at[2], 0.1, 0.0, 0),)
                    near = at[axis] - sign * half      # the cube's face toward the limb
                    touching += near == face
                    ref = _reference_projectile_verdict(m)
                    assert _fast_projectile_verdict(m) == ref, (limb, axis, sign, ulps)
                    hits += bool(ref[0])
                    misses += not ref[0]
    assert touching > 0 and hits > 0 and misses > 0     # the boundary was met, both ways
    # a knocked-down victim is struck by nothing; two projectiles that meet clash instead
    p = Projectile(0, *[(a + b) / 2 for a, b in zip(*boxes[0])], 0.1, 0.0, 0)
    m.stage.projectiles = (p,)
    m.fighters[1].state = "knockdown"
    assert _fast_projectile_verdict(m) == _reference_projectile_verdict(m) == ([], [])
    m.fighters[1].state = "idle"
    m.stage.projectiles = (p, Projectile(1, p.x + half, p.y, p.z, -0.1, 0.0, 0))
    fast = _fast_projectile_verdict(m)
    assert fast == _reference_projectile_verdict(m) and fast[1] and not fast[0]


def test_fighter_scalars_are_plain_attributes_so_set_scalars_may_write_the_dict():
    """``Fighter.set_scalars`` (every restore) writes the instance dict in one call: right
    only while no name of ``SCALARS`` is a property or a slot with its own setter; and a
    round trip through ``scalars`` / ``set_scalars`` gives the values back."""
    from game.sim.fighter import SCALARS, Fighter

    assert not [n for n in SCALARS if hasattr(Fighter, n)], "a class attribute would shadow or bypass set_scalars"
    m = Match.new(seed=2)
    for _ in range(90):
        m.step()
    f, g = m.fighters
    vals = f.scalars()
    assert len(vals) == len(SCALARS) and vals == tuple(vars(f)[n] for n in SCALARS)
    g.set_scalars(vals)
    assert g.scalars() == vals
