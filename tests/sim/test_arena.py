"""The arena in the match (method C in the game): its layout, kinds and logic levels (C2, C9), rays
from the fighters (C6), and missing or corrupt arena files named with the fix (C5)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from game.reference.scene import brute_nearest
from game.sim.arena import (
    DESCRIPTION_NAME,
    MODELS_NAME,
    QUADTREE_NAME,
    ArenaAssetError,
    default_assets_dir,
    load_arena,
)

ASSETS = default_assets_dir()


def _copy_assets(tmp_path: Path) -> Path:
    for name in (DESCRIPTION_NAME, MODELS_NAME, QUADTREE_NAME, "arena_grass.obj"):
        shutil.copy(ASSETS / name, tmp_path / name)
    return tmp_path


def test_C2_C9_arena_layout_kinds_levels_and_clear_start_area():
    arena = load_arena()
    kinds = [o.kind for o in arena.objects]
    assert kinds.count("floor") == 1 and kinds.count("wall") == 4 and kinds.count("pillar") == 4
    assert kinds.count("crate") >= 4 and kinds.count("barrel") == 1
    assert {"banner", "grass", "railing"} <= set(kinds)
    for o in arena.objects:
        want = {"wall": 2, "pillar": 2, "crate": 1, "barrel": 1, "banner": 0, "grass": 0, "railing": 0}.get(o.kind)
        if want is not None:
            assert o.level == want, o.name
        assert arena.scene.models[o.model].level == o.level
        np.testing.assert_array_equal(o.aabb, arena.scene.models[o.model].aabb)
    floor = arena.object("floor")
    np.testing.assert_allclose(floor.aabb, [[-15, 0, -15], [15, 0, 15]])
    for crate in arena.by_kind("crate"):
        # chest-high, so that punches as well as kicks reach them
        np.testing.assert_allclose(crate.aabb[1] - crate.aabb[0], [1, 1.5, 1])
        assert crate.aabb[0, 1] == 0.0  # resting on the floor
    barrel = arena.by_kind("barrel")[0]
    r = barrel.sphere_radius
    assert r is not None and barrel.sphere_center is not None
    w = arena.scene.models[barrel.model].world_triangles.reshape(-1, 3)
    assert np.linalg.norm(w - barrel.sphere_center, axis=1).max() <= r + 1e-9  # the sphere bounds the barrel
    np.testing.assert_allclose(arena.bounds, [[-15, -15], [15, 15]])
    np.testing.assert_allclose(arena.fighter_starts, [[-1.5, 0, 0], [1.5, 0, 0]])
    for o in arena.objects:
        if o.kind == "floor":
            continue
        for s in arena.fighter_starts:
            q = np.clip(s, o.aabb[0], o.aabb[1])
            assert math.hypot(q[0] - s[0], q[2] - s[2]) >= 3.0, o.name


@pytest.mark.slow
def test_C6_C9_arena_rays_from_the_fighters():
    arena = load_arena()
    sc = arena.scene
    # ground check under each fighter hits the floor
    for s in arena.fighter_starts:
        h = sc.cast_nearest(s + [0, 1.0, 0], [0, -1, 0], 5)
        assert h.model == arena.object("floor").model and h.distance == pytest.approx(1.0)
    # line of sight between the fighters is clear; to a crate it is blocked at level 0, not at level 1
    p1, p2 = arena.fighter_starts + [0, 1.2, 0]
    assert not sc.cast_any(p1, p2 - p1, float(np.linalg.norm(p2 - p1)))
    crate = arena.object("crate_north")
    assert sc.cast_nearest([0, 0.5, 0], [0, 0, 1], 20, level=0).model == crate.model
    assert sc.cast_nearest([0, 0.5, 0], [0, 0, 1], 20, level=1).model == arena.object("wall_north").model
    # batched casts agree with brute force over the whole arena
    rng = np.random.default_rng(0)
    o = np.column_stack([rng.uniform(-14, 14, 500), rng.uniform(0.1, 3.5, 500), rng.uniform(-14, 14, 500)])
    d = rng.normal(size=(500, 3))
    for lv in (None, 0, 1):
        got = sc.cast_nearest_many(o, d, 40, lv)
        ref = brute_nearest(sc.models, o, d, 40, lv)
        for x, y in zip(got, ref):
            assert np.array_equal(x, y)
    # a level or downward ray inside the arena never escapes floor and walls (level 1 still hits them);
    # a level-2 ray hits nothing
    down = d[:, 1] <= 0
    assert down.sum() > 100
    assert sc.cast_any_many(o[down], d[down], 100, level=1).all()
    assert not sc.cast_any_many(o, d, 100, level=2).any()


def test_C5_arena_missing_or_corrupt_files_name_file_and_fix(tmp_path):
    base = _copy_assets(tmp_path)
    (base / QUADTREE_NAME).unlink()
    with pytest.raises(ArenaAssetError, match=r"arena\.quadtree\.bin.*python3 -m game\.tools\.bake"):
        load_arena(base)
    base = _copy_assets(tmp_path)
    data = bytearray((base / MODELS_NAME).read_bytes())
    data[0] ^= 0xFF
    (base / MODELS_NAME).write_bytes(bytes(data))
    with pytest.raises(ArenaAssetError,
                       match=r"arena\.models\.bin: field magic at byte 0.*python3 -m game\.tools\.bake"):
        load_arena(base)
    base = _copy_assets(tmp_path)
    desc = json.loads((base / DESCRIPTION_NAME).read_text())
    desc["objects"] = desc["objects"][:-1]
    (base / DESCRIPTION_NAME).write_text(json.dumps(desc))
    with pytest.raises(ArenaAssetError, match=r"stale bake.*python3 -m game\.tools\.bake"):
        load_arena(base)
