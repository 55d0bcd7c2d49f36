"""The command-line tools ``python3 -m game.tools.bake`` and ``python3 -m game.tools.soak``: bad input
gets one stderr line naming the flag or file and the fix, exit 2, and a failed bake loses nothing."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from clihelp import NO_PACKAGE_SHIM, sitecustomize
from game.collision import load_scene, scene_save
from game.sim.arena import (
    DESCRIPTION_NAME,
    MODELS_NAME,
    QUADTREE_NAME,
    default_assets_dir,
)
from game.tools import bake, soak

ROOT = Path(__file__).resolve().parents[1]
ASSETS = default_assets_dir()


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


# ---- flags --------------------------------------------------------------------------------------
@pytest.mark.parametrize("args, words", [
    (["--bogus"], ["bake: ", "--bogus", "python3 -m game.tools.bake --help"]),
    (["--out-dir"], ["--out-dir", "expected one argument"]),
    (["extra"], ["extra"]),
])
def test_bake_bad_flags_one_line_exit_2(args, words, capsys):
    assert bake.main(args) == 2
    assert one_line(capsys, *words).startswith("bake: ")


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


def test_bake_help_names_the_description_default(capsys):
    with pytest.raises(SystemExit) as info:
        bake.main(["--help"])
    assert info.value.code == 0 and DESCRIPTION_NAME in capsys.readouterr().out


# ---- soak's flags -------------------------------------------------------------------------------
@pytest.mark.parametrize("args, words", [
    (["--bogus"], ["soak: ", "--bogus", "python3 -m game.tools.soak --help"]),
    (["--frames", "abc"], ["--frames", "'abc'"]),
    (["--seed", "-1"], ["--seed", "0 or more"]),
])
def test_soak_bad_flags_one_line_exit_2(args, words, capsys):
    with pytest.raises(SystemExit) as info:
        soak.main(args)
    assert info.value.code == 2
    assert one_line(capsys, *words).startswith("soak: ")


# ---- a missing package: one line naming the set-up command, exit 2 --------------------------------


@pytest.mark.parametrize("package", ["numpy", "pyrr"])
@pytest.mark.parametrize("tool", ["bake", "soak"])
def test_tool_without_a_required_package_names_the_setup_command(tool, package, tmp_path):
    shim = sitecustomize(tmp_path, NO_PACKAGE_SHIM.format(package=package))
    args = ["--out-dir", str(tmp_path / "o")] if tool == "bake" else ["--frames", "1", "--quiet"]
    p = subprocess.run([sys.executable, "-m", f"game.tools.{tool}", *args], check=False, cwd=ROOT,
                       capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=f"{shim}{os.pathsep}{ROOT}"))
    assert p.returncode == 2, p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    assert lines[0].startswith(f"{tool}: ") and package in lines[0] and "scripts/setup.sh" in lines[0]
    assert not (tmp_path / "o").exists()
