"""``python3 -m game.tools.bake``: the baked arena files are up to date with the description, bad
input exits 2 with one line naming the file and field, a failed bake loses nothing and a good
one leaves exactly the pair."""

from __future__ import annotations

import errno
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from game.collision import load_scene, scene_save
from game.sim.arena import (
    DESCRIPTION_NAME,
    MODELS_NAME,
    QUADTREE_NAME,
    ArenaDescriptionError,
    default_assets_dir,
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


@pytest.mark.slow
def test_bake_cli_and_arena_module_do_not_import_pyglet(tmp_path):
    code = ("import sys; from game.sim.arena import load_arena; load_arena(); "
            "assert 'pyglet' not in sys.modules, 'pyglet imported'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ASSETS.parent)
    out = subprocess.run([sys.executable, "-m", "game.tools.bake", "--out-dir", str(tmp_path)],
                         cwd=ASSETS.parent, capture_output=True, text=True)
    assert out.returncode == 0 and "models" in out.stdout
    assert (tmp_path / MODELS_NAME).read_bytes() == (ASSETS / MODELS_NAME).read_bytes()


def one_line(capsys, *words) -> str:
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1, f"expected one stderr line, got {err!r}"
    assert "Traceback" not in err and "usage:" not in err
    for w in words:
        assert w in lines[0], f"{w!r} not in {lines[0]!r}"
    return lines[0]


def state(folder: Path):
    return sorted((p.name, p.read_bytes() if p.is_file() else "dir") for p in folder.iterdir())


@pytest.fixture
def baked(tmp_path, capsys):
    """An output folder holding a good bake of the shipped description, and its state."""
    out = tmp_path / "out"
    assert bake.main(["--out-dir", str(out)]) == 0
    capsys.readouterr()
    return out, state(out)


def test_bake_out_dir_that_is_a_file_names_the_flag_and_fix(tmp_path, capsys):
    f = tmp_path / "afile"
    f.write_text("mine")
    assert bake.main(["--out-dir", str(f)]) == 2
    one_line(capsys, "--out-dir", str(f), "is a file, not a folder", "give a folder")
    assert f.read_text() == "mine"


def test_bake_description_missing_suggests_git_only_inside_assets(tmp_path, capsys):
    mine = tmp_path / "my_arena.json"
    assert bake.main(["--description", str(mine), "--out-dir", str(tmp_path)]) == 2
    line = one_line(capsys, "--description", str(mine), "not found")
    assert "git" not in line
    shipped = ASSETS / "no_such_description.json"
    assert not shipped.exists()
    assert bake.main(["--description", str(shipped), "--out-dir", str(tmp_path)]) == 2
    one_line(capsys, "--description", str(shipped), "git checkout -- assets")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("content", [bytes(range(256)) * 4, b'{"format": "rangebox-arena"\xff\xfe}'])
def test_bake_binary_description_exits_2_naming_the_flag_and_file(tmp_path, capsys, content):
    blob = tmp_path / "blob.json"
    blob.write_bytes(content)
    assert bake.main(["--description", str(blob), "--out-dir", str(tmp_path / "o")]) == 2
    one_line(capsys, "--description", str(blob), "not a UTF-8 text file")
    assert not (tmp_path / "o").exists()
    with pytest.raises(ArenaDescriptionError, match=r"blob\.json: not a UTF-8 text file"):
        read_description(blob)             # the library's own check, under the bake tool's


def test_bake_description_that_is_a_folder(tmp_path, capsys):
    assert bake.main(["--description", str(tmp_path), "--out-dir", str(tmp_path / "o")]) == 2
    one_line(capsys, "--description", str(tmp_path), "is a folder")


# ---- the pair is written as a unit --------------------------------------------------------------
def test_bake_quadtree_target_is_a_directory_changes_nothing(baked, capsys):
    out, _ = baked
    (out / QUADTREE_NAME).unlink()
    (out / QUADTREE_NAME).mkdir()
    before = state(out)
    assert bake.main(["--out-dir", str(out)]) == 2
    one_line(capsys, "--out-dir", QUADTREE_NAME, "not a regular file", "remove it")
    assert state(out) == before                                   # models file as it was, no .tmp


@pytest.mark.parametrize("fail_at", [1, 2])
def test_bake_full_disk_keeps_the_old_pair_and_leaves_no_tmp(baked, capsys, monkeypatch, fail_at):
    out, before = baked
    real = scene_save._write_synced
    calls = []

    def write(path, data):
        calls.append(path)
        if len(calls) == fail_at:
            path.write_bytes(data[: len(data) // 3])              # a partial temp file, then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        real(path, data)
    monkeypatch.setattr(scene_save, "_write_synced", write)
    assert bake.main(["--out-dir", str(out)]) == 2
    one_line(capsys, "No space left", "old scene files are unchanged", "free some disk space")
    assert state(out) == before
    load_scene(out / MODELS_NAME, out / QUADTREE_NAME)


def test_bake_success_leaves_exactly_the_pair(tmp_path, capsys):
    out = tmp_path / "new" / "dir"                                  # created
    assert bake.main(["--out-dir", str(out)]) == 0
    assert "models" in capsys.readouterr().out
    assert sorted(p.name for p in out.iterdir()) == sorted([MODELS_NAME, QUADTREE_NAME])
    assert (out / MODELS_NAME).read_bytes() == (ASSETS / MODELS_NAME).read_bytes()
    assert (out / QUADTREE_NAME).read_bytes() == (ASSETS / QUADTREE_NAME).read_bytes()
