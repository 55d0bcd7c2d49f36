"""Meshes the renderer builds (game/render/geometry.py): the fighters' outward winding (back faces
can be culled) and the coarse floor covering exactly the scene's floor (no GL)."""

from __future__ import annotations

import numpy as np

from game.sim import Match


def test_render_fighter_mesh_is_outward_wound_so_back_faces_can_be_culled():
    """The fighters pass culls back faces (GL_CULL_FACE, counter-clockwise front): safe
    only if every triangle of every limb is wound counter-clockwise seen from outside,
    i.e. its geometric normal agrees with the mesh's outward vertex normals."""
    from game.render.geometry import fighter_mesh

    m = Match.new(seed=0)
    for detail in (None, 1):        # the drawn mesh and the shadows' coarser one
        _assert_outward(*fighter_mesh(m.data.skeleton, list(m.data.fighters),
                                      **({} if detail is None else {"detail": detail})))


def _assert_outward(verts, idx):
    tri = idx.reshape(-1, 3)
    p = verts[:, :3].astype(float)[tri]                                   # (T, 3, 3)
    n = verts[:, 3:6].astype(float)[tri].sum(axis=1)                      # (T, 3)
    geo = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    area = np.linalg.norm(geo, axis=1)
    real = area > 1e-12
    assert real.sum() > 0.9 * len(tri)
    cos = np.einsum("ij,ij->i", geo[real], n[real]) / (area[real] * np.linalg.norm(n[real], axis=1))
    assert cos.min() > 0.0, f"{int((cos <= 0).sum())} inward-wound triangles"


def test_render_coarse_floor_covers_exactly_the_scene_floor_facing_up():
    """The drawn floor is the scene's 1 m-tile floor model re-cut into ~3 m squares: the
    same rectangle, no gap or overlap (every sample point inside exactly one triangle),
    every triangle facing up; a floor that is not a flat rectangle is left as it is."""
    from game.render.geometry import coarse_floor
    from game.sim.arena import load_arena

    arena = load_arena()
    floor = next(o for o in arena.objects if o.kind == "floor")
    tiles = np.asarray(arena.scene.models[floor.model].world_triangles, dtype=float)
    grid = coarse_floor(tiles)
    assert len(grid) * 4 < len(tiles)
    lo, hi = tiles.reshape(-1, 3).min(axis=0), tiles.reshape(-1, 3).max(axis=0)
    np.testing.assert_array_equal(grid.reshape(-1, 3).min(axis=0), lo)
    np.testing.assert_array_equal(grid.reshape(-1, 3).max(axis=0), hi)
    n = np.cross(grid[:, 1] - grid[:, 0], grid[:, 2] - grid[:, 0])
    assert (n[:, 1] > 0).all() and np.abs(n[:, [0, 2]]).max() == 0
    # per-point reference: how many triangles hold each of a lattice of points (edges avoided)
    pts = np.stack(np.meshgrid(np.linspace(lo[0], hi[0], 41)[:-1] + 0.013,
                               np.linspace(lo[2], hi[2], 37)[:-1] + 0.017), -1).reshape(-1, 2)
    a, b, c = (grid[:, k, [0, 2]] for k in range(3))
    def side(p, q, r):
        return (q[None, :, 0] - p[None, :, 0]) * (r[:, None, 1] - p[None, :, 1]) - \
               (q[None, :, 1] - p[None, :, 1]) * (r[:, None, 0] - p[None, :, 0])
    s1, s2, s3 = side(a, b, pts), side(b, c, pts), side(c, a, pts)
    inside = ((s1 >= 0) & (s2 >= 0) & (s3 >= 0)) | ((s1 <= 0) & (s2 <= 0) & (s3 <= 0))
    assert (inside.sum(axis=1) == 1).all()
    # not a flat rectangle: unchanged
    tilted = tiles.copy()
    tilted[0, 0, 1] = 0.5
    np.testing.assert_array_equal(coarse_floor(tilted), tilted)
    np.testing.assert_array_equal(coarse_floor(tiles[:-1]), tiles[:-1])
