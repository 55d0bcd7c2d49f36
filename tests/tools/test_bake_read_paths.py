"""The bake tool on descriptions that are not regular files, a path named as a folder, and
scenes larger than the scene files hold: exit 2 with one line, never a hang or a traceback."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from game.collision import scene_save
from game.sim.arena import DESCRIPTION_NAME, MODELS_NAME, QUADTREE_NAME
from game.tools import bake

ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "assets"


def bake_child(args, cwd, timeout=60):
    """``python3 -m game.tools.bake ARGS`` in a child with a timeout (a FIFO must not block it)."""
    return subprocess.run([sys.executable, "-m", "game.tools.bake", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, check=False, env=dict(os.environ, PYGLET_HEADLESS="1"))


def one_line(p, *words) -> str:
    assert p.returncode == 2, f"exit {p.returncode}; stderr: {p.stderr!r}"
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    for w in words:
        assert w in lines[0], f"{w!r} not in {lines[0]!r}"
    return lines[0]


def test_bake_description_that_is_a_fifo_exits_2_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "desc.json")
    one_line(bake_child(["--description", str(tmp_path / "desc.json"), "--out-dir", str(tmp_path / "o")], tmp_path),
             "--description", "desc.json", "is a FIFO")
    assert not (tmp_path / "o" / MODELS_NAME).exists()


def test_bake_description_that_is_a_symlink_loop_exits_2(tmp_path):
    (tmp_path / "a.json").symlink_to(tmp_path / "b.json")
    (tmp_path / "b.json").symlink_to(tmp_path / "a.json")
    one_line(bake_child(["--description", str(tmp_path / "a.json"), "--out-dir", str(tmp_path / "o")], tmp_path),
             "--description", "a.json", "symbolic link loop")


def test_bake_description_named_as_a_folder_is_refused(tmp_path, capsys):
    desc = tmp_path / DESCRIPTION_NAME
    shutil.copy2(ASSETS / DESCRIPTION_NAME, desc)
    assert bake.main(["--description", f"{desc}/", "--out-dir", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "ends as a folder's name does" in err, err
    assert not (tmp_path / "o").exists()


def test_bake_out_dir_file_that_is_a_symlink_loop_exits_2(tmp_path, capsys):
    out = tmp_path / "o"
    out.mkdir()
    (out / MODELS_NAME).symlink_to(out / "x")
    (out / "x").symlink_to(out / MODELS_NAME)
    assert bake.main(["--out-dir", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and MODELS_NAME in err and "Traceback" not in err, err


def test_a_description_of_more_triangles_than_the_scene_files_hold_is_refused(tmp_path, capsys):
    from game.collision.scene_format import MAX_TRIANGLES

    doc = json.loads((ASSETS / DESCRIPTION_NAME).read_text())
    doc["objects"][0]["shape"]["cells"] = [512, 512]                  # 524,288 floor triangles
    desc = tmp_path / DESCRIPTION_NAME
    desc.write_text(json.dumps(doc))
    shutil.copy2(ASSETS / "arena_grass.obj", tmp_path)
    assert bake.main(["--description", str(desc)]) == 2
    err = capsys.readouterr().err.strip()
    assert f"objects[0].shape: expected objects of at most {MAX_TRIANGLES:,} triangles in all" in err, err
    assert not (tmp_path / MODELS_NAME).exists() and not (tmp_path / QUADTREE_NAME).exists()


def test_a_scene_over_a_cap_is_not_written(tmp_path, capsys, monkeypatch):
    """The bake never writes files the reader would refuse (here: a cap lowered below the arena)."""
    from game.collision import SceneTooLargeError

    monkeypatch.setattr(scene_save, "MAX_NODES", 4)
    assert bake.main(["--out-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "quadtree nodes, the scene files hold at most 4; raise the quadtree's leaf_capacity" in err, err
    assert list(tmp_path.iterdir()) == []
    from game.sim.arena import build_arena_scene, read_description

    with pytest.raises(SceneTooLargeError):
        scene_save.scene_to_bytes(build_arena_scene(read_description()))
