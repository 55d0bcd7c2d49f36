"""The barrel as drawn and as it collides: the same surface, intact and struck.

The drawn surface is the barrel's mesh as the game draws it (``Game.draw``, headless GL: the
vertices of its range in the crate meshes); the collision volume is its compound's small
boxes (method A: limbs, fireballs' cubes), its scene model (method C: rays) and the
rectangle that stops a fighter's pushbox.  Horizontal rays from all round meet the drawn
triangles and the boxes at the same distance, to within ``GAP``."""

from __future__ import annotations

import os

os.environ.setdefault("PYGLET_HEADLESS", "1")

import math

import numpy as np
import pytest

from game.sim import CrateStruck, FrameInput

W, H = 320, 180
GAP = 0.03                   # m: "a few centimetres" (the mesh's seam overlap is 1 mm)
NEUTRAL = FrameInput()


@pytest.fixture(scope="module")
def env():
    from glhelp import game_env

    yield from game_env(W, H, p1="human", p2="human")


def first_hit_triangles(o, d, tris) -> float:
    """Nearest distance along the unit ray ``o + t d`` to the triangles ``(T, 3, 3)`` (Moller-Trumbore,
    per triangle), ``inf`` for none."""
    v0, e1, e2 = tris[:, 0], tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]
    p = np.cross(d, e2)
    det = (e1 * p).sum(axis=1)
    ok = np.abs(det) > 1e-12
    inv = np.where(ok, 1.0 / np.where(ok, det, 1.0), 0.0)
    s = o - v0
    u = (s * p).sum(axis=1) * inv
    q = np.cross(s, e1)
    v = (q @ d) * inv
    t = (e2 * q).sum(axis=1) * inv
    hit = ok & (u >= 0) & (v >= 0) & (u + v <= 1) & (t > 0)
    return float(t[hit].min()) if hit.any() else math.inf


def first_hit_boxes(o, d, boxes) -> float:
    """Nearest entry distance along the unit ray ``o + t d`` into the boxes ``(K, 2, 3)`` (slab test)."""
    best = math.inf
    for lo, hi in np.asarray(boxes).tolist():
        t0, t1 = 0.0, math.inf
        for a in range(3):
            if abs(d[a]) < 1e-12:
                if not lo[a] <= o[a] <= hi[a]:
                    t0, t1 = math.inf, -math.inf
            else:
                u0, u1 = (lo[a] - o[a]) / d[a], (hi[a] - o[a]) / d[a]
                t0, t1 = max(t0, min(u0, u1)), min(t1, max(u0, u1))
        if t0 <= t1:
            best = min(best, t0)
    return best


def gaps(g, barrel_index: int) -> tuple[float, float, int]:
    """``(drawn vs boxes, scene vs boxes, rays)``: the largest difference in first-hit
    distance over horizontal rays aimed at the barrel's axis from 1.2 m out, every 5 degrees,
    at heights 0.15-1.05 m (rays that meet nothing on both sides count 0)."""
    from game.render.offscreen import frame_pixels

    frame_pixels(g)
    frame_pixels(g)                    # a struck barrel's mesh is built on the frame after the strike
    barrel = g.match.stage.crates[barrel_index]
    verts = g.world.crates._verts[barrel_index][:, :3].astype(float)
    tris = verts.reshape(-1, 3, 3)
    boxes = barrel.compound.boxes
    cx, cz = barrel.obj.aabb.mean(axis=0)[[0, 2]]
    scene = g.match.stage.scene
    drawn = model = 0.0
    rays = 0
    for deg in range(0, 360, 5):
        a = math.radians(deg)
        d = np.array([-math.cos(a), 0.0, -math.sin(a)])
        for y in np.arange(0.15, 1.1, 0.15):
            o = np.array([cx + 1.2 * math.cos(a), y, cz + 1.2 * math.sin(a)])
            tb, td = first_hit_boxes(o, d, boxes), first_hit_triangles(o, d, tris)
            hit = scene.cast_nearest(o, d, 2.4)
            ts = hit.distance if hit is not None and hit.model == barrel.obj.model else math.inf
            rays += 1
            if math.isfinite(tb) or math.isfinite(td):
                drawn = max(drawn, abs(td - tb))
            if math.isfinite(tb) or math.isfinite(ts):
                model = max(model, abs(ts - tb))
    return drawn, model, rays


@pytest.mark.gl
@pytest.mark.slow
def test_render_B6_B7_the_barrel_is_drawn_where_it_collides_before_and_after_strikes(env):
    from glhelp import fresh

    _, _, g = env
    fresh(g, p1="human", p2="human")
    g.script = [NEUTRAL]
    g.input_source = lambda: (g.script[0], NEUTRAL)
    while g.match.phase != "fight":
        g.step()
    i = next(k for k, c in enumerate(g.match.stage.crates) if c.obj.kind == "barrel")
    barrel = g.match.stage.crates[i]
    drawn, model, rays = gaps(g, i)
    assert rays > 500
    assert drawn <= GAP, f"intact: the drawn barrel is {drawn:.3f} m from its collision boxes"
    assert model <= GAP, f"intact: the barrel's scene model is {model:.3f} m from its boxes"
    # P1 walks into the barrel from the south (P2 behind it): the pushbox stops at the drawn face
    (x0, _y0, z0), (x1, _y1, z1) = barrel.obj.aabb.tolist()
    cx = 0.5 * (x0 + x1)
    p1, p2 = g.match.fighters
    p1.x, p1.z, p2.x, p2.z = cx, z0 - 1.0, cx, z1 + 2.5
    g.script[0] = FrameInput(forward=True)
    for _ in range(60):
        g.step()
    g.script[0] = NEUTRAL
    g.step()
    face_z = float(g.world.crates._verts[i][:, 2].min())
    radius = g.match.data.pushbox_radius
    assert abs(face_z - (p1.z + radius)) <= GAP, f"P1 stops {face_z - p1.z - radius:.3f} m short of the barrel"
    # two front kicks a step apart: holes in its south face; still drawn where it collides
    struck = []
    for dx in (-0.12, 0.12):
        p1.x = cx + dx
        g.script[0] = FrameInput(lk=True)
        g.step()
        g.script[0] = NEUTRAL
        for _ in range(40):
            g.step()
            struck += [e for e in g.last_events if isinstance(e, CrateStruck) and e.crate == i]
    assert len(struck) == 2 and not barrel.broken, struck
    drawn, model, _ = gaps(g, i)
    assert drawn <= GAP, f"struck: the drawn barrel is {drawn:.3f} m from its collision boxes"
    assert model <= GAP, f"struck: the barrel's scene model is {model:.3f} m from its boxes"
