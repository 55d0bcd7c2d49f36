"""A bake made from another description is refused at start, naming the command.

``load_arena`` compared only the model count, levels and triangle counts: a barrel moved
3 m without a re-bake played with its compound from the description and its mesh from the
old bake, and a crate resized from 1 m to 3 m was silently ignored.  The model data file now
carries the digest of the bake's inputs (docs/scene-format.md, "Source digest")."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from game.collision import save_scene
from game.sim.arena import (
    DESCRIPTION_NAME,
    MODELS_NAME,
    QUADTREE_NAME,
    ArenaAssetError,
    build_arena_scene,
    load_arena,
    read_description,
)
from game.tools import bake

ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "assets"


@pytest.fixture
def assets(tmp_path):
    dst = tmp_path / "assets"
    shutil.copytree(ASSETS, dst)
    return dst


def _edit(assets: Path, change) -> None:
    path = assets / DESCRIPTION_NAME
    doc = json.loads(path.read_text())
    change({o["name"]: o for o in doc["objects"]}, doc)
    path.write_text(json.dumps(doc, indent=2))


def _move_barrel(objs, doc):
    shape, sphere = objs["barrel"]["shape"], objs["barrel"]["bounding_sphere"]
    shape["base"][0] -= 3
    sphere["center"][0] -= 3


def _grow_crate(objs, doc):
    objs["crate_north"]["shape"]["size"] = [3.0, 1.5, 3.0]


def _quadtree_setting(objs, doc):
    doc["quadtree"]["leaf_capacity"] += 1


def _stale_message(assets: Path) -> str:
    with pytest.raises(ArenaAssetError) as info:
        load_arena(assets)
    msg = str(info.value)
    assert "\n" not in msg
    return msg


@pytest.mark.parametrize("change", [_move_barrel, _grow_crate, _quadtree_setting])
def test_a_description_edited_without_a_rebake_is_refused_as_stale(assets, change):
    _edit(assets, change)
    msg = _stale_message(assets)
    assert msg.startswith(f"{assets / MODELS_NAME}: stale bake: made from another version of "
                          f"{assets / DESCRIPTION_NAME}"), msg
    assert msg.endswith("re-bake both files with `python3 -m game.tools.bake`"), msg


def test_an_obj_mesh_edited_without_a_rebake_is_refused_as_stale(assets):
    mesh = assets / "arena_grass.obj"
    mesh.write_text(mesh.read_text().replace("v ", "v  ", 1) + "\n# edited\n")
    assert "stale bake" in _stale_message(assets)


def test_the_stale_bake_exits_2_in_one_line_through_main(tmp_path):
    dst = tmp_path / "rb"
    dst.mkdir()
    shutil.copy2(ROOT / "main.py", dst / "main.py")
    for d in ("game", "assets"):
        shutil.copytree(ROOT / d, dst / d, ignore=shutil.ignore_patterns("__pycache__"))
    _edit(dst / "assets", _move_barrel)
    p = subprocess.run([sys.executable, str(dst / "main.py"), "--headless", "--frames", "10"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120, env=dict(os.environ, PYGLET_HEADLESS="1"))
    assert p.returncode == 2 and len(p.stderr.splitlines()) == 1, p.stderr
    assert "stale bake" in p.stderr and "python3 -m game.tools.bake" in p.stderr


@pytest.mark.parametrize("change", [_move_barrel, _grow_crate])
def test_a_rebake_makes_the_edited_description_load_with_its_own_geometry(assets, change):
    _edit(assets, change)
    assert bake.main(["--description", str(assets / DESCRIPTION_NAME)]) == 0
    arena = load_arena(assets)
    desc = read_description(assets / DESCRIPTION_NAME)
    for o, m in zip(desc.objects, arena.scene.models):
        assert np.array_equal(o.triangles, m.triangles) and np.array_equal(o.transform, m.transform)


def test_edits_the_bake_does_not_read_need_no_rebake(assets):
    """Formatting, key order, comments, names, starts and clear_radius are read at every start."""
    path = assets / DESCRIPTION_NAME
    doc = json.loads(path.read_text())
    doc["_note"] = "a comment"
    doc["objects"][14]["shape"]["_why"] = "a comment in a shape"
    doc["objects"][3]["name"] = "wall_renamed"
    doc["fighter_starts"] = [[-2.0, 0, 0.5], [2.0, 0, -0.5]]
    doc["clear_radius"] = 2.5
    doc["comment"] = "edited"
    path.write_text(json.dumps(dict(reversed(list(doc.items()))), indent=7, sort_keys=False))
    arena = load_arena(assets)
    assert arena.object("wall_renamed").model == 3
    assert arena.fighter_starts.tolist() == [[-2.0, 0, 0.5], [2.0, 0, -0.5]]


def test_a_scene_saved_without_a_digest_is_stale_for_the_arena(assets):
    desc = read_description(assets / DESCRIPTION_NAME)
    save_scene(build_arena_scene(desc), assets / MODELS_NAME, assets / QUADTREE_NAME)
    assert "made from no description" in _stale_message(assets)
    save_scene(build_arena_scene(desc), assets / MODELS_NAME, assets / QUADTREE_NAME, source_digest=desc.digest)
    load_arena(assets)


def test_the_shipped_bake_carries_the_shipped_description_s_digest():
    from game.collision import load_baked

    baked = load_baked(ASSETS / MODELS_NAME, ASSETS / QUADTREE_NAME)
    assert baked.source_digest == read_description(ASSETS / DESCRIPTION_NAME).digest
