"""The arena as data: description, bake tool, baked files, load_arena (method C in the game)."""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from game.collision import load_scene
from game.reference.scene import brute_nearest
from game.sim.arena import (
    DESCRIPTION_NAME,
    MODELS_NAME,
    QUADTREE_NAME,
    ArenaAssetError,
    ArenaDescriptionError,
    default_assets_dir,
    load_arena,
    read_description,
)
from game.tools import bake

ASSETS = default_assets_dir()


def _copy_assets(tmp_path: Path) -> Path:
    for name in (DESCRIPTION_NAME, MODELS_NAME, QUADTREE_NAME, "arena_grass.obj"):
        shutil.copy(ASSETS / name, tmp_path / name)
    return tmp_path


def test_C3_C4_baked_arena_files_are_up_to_date_with_the_description(tmp_path):
    out = tmp_path / "out"
    mp, qp, _ = bake.bake(ASSETS / DESCRIPTION_NAME, out)
    same = mp.read_bytes() == (ASSETS / MODELS_NAME).read_bytes() and \
        qp.read_bytes() == (ASSETS / QUADTREE_NAME).read_bytes()
    if not same:  # allow last-ulp trig differences between machines, nothing more
        fresh, baked = load_scene(mp, qp), load_scene(ASSETS / MODELS_NAME, ASSETS / QUADTREE_NAME)
        assert len(fresh) == len(baked), "stale bake: run python3 -m game.tools.bake"
        for a, b in zip(fresh.models, baked.models):
            assert a.level == b.level and a.triangles.shape == b.triangles.shape
            np.testing.assert_allclose(a.world_triangles, b.world_triangles, atol=1e-9)
        assert fresh.quadtree.children == baked.quadtree.children
        assert fresh.quadtree.models == baked.quadtree.models


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
    with pytest.raises(ArenaAssetError, match=r"arena\.models\.bin: field magic at byte 0.*python3 -m game\.tools\.bake"):
        load_arena(base)
    base = _copy_assets(tmp_path)
    desc = json.loads((base / DESCRIPTION_NAME).read_text())
    desc["objects"] = desc["objects"][:-1]
    (base / DESCRIPTION_NAME).write_text(json.dumps(desc))
    with pytest.raises(ArenaAssetError, match=r"stale bake.*python3 -m game\.tools\.bake"):
        load_arena(base)


def _bad_description(tmp_path, mutate) -> Path:
    base = _copy_assets(tmp_path)
    desc = json.loads((base / DESCRIPTION_NAME).read_text())
    mutate(desc)
    (base / DESCRIPTION_NAME).write_text(json.dumps(desc))
    return base / DESCRIPTION_NAME


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d["objects"][1].update(level=5), r"objects\[1\]\.level"),
    (lambda d: d["objects"][2].update(kind="tower"), r"objects\[2\]\.kind"),
    (lambda d: d["objects"][9]["shape"].update(size=[1, -1, 1]), r"objects\[9\]\.shape\.size\[1\]"),
    (lambda d: d["objects"][9]["shape"].update(center=[1.0, 0.5, 0.0]), r"objects\[9\] \(crate_north\).*clear"),
    (lambda d: d["objects"][14]["bounding_sphere"].update(radius=0.2), r"bounding_sphere"),
    (lambda d: d["objects"][3].pop("name"), r"objects\[3\]\.name: missing"),
    (lambda d: d["objects"][19]["shape"].update(path="nope.obj"), r"objects\[19\]\.shape\.path"),
])
def test_C3_C4_bake_bad_input_exits_2_with_one_line_naming_file_and_field(tmp_path, capsys, mutate, field):
    path = _bad_description(tmp_path, mutate)
    assert bake.main(["--description", str(path), "--out-dir", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and str(path) in err and "Traceback" not in err
    assert re.search(field, err), err
    with pytest.raises(ArenaDescriptionError):
        read_description(path)


def test_bake_cli_and_arena_module_do_not_import_pyglet(tmp_path):
    code = ("import sys; from game.sim.arena import load_arena; load_arena(); "
            "assert 'pyglet' not in sys.modules, 'pyglet imported'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ASSETS.parent)
    out = subprocess.run([sys.executable, "-m", "game.tools.bake", "--out-dir", str(tmp_path)],
                         cwd=ASSETS.parent, capture_output=True, text=True)
    assert out.returncode == 0 and "models" in out.stdout
    assert (tmp_path / MODELS_NAME).read_bytes() == (ASSETS / MODELS_NAME).read_bytes()
