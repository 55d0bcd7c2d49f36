"""main.py on files it reads that are not regular files, and on output paths that name a
folder: exit 2 with one line naming the path and what it is, never a hang, a traceback or a
message for another case ("missing" for a FIFO, "re-bake" for a permission error).

Each case runs main.py on a private copy of the program (``clihelp.copy_program``) with a
timeout, so a reader that blocks on a FIFO fails the test instead of hanging it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from clihelp import ROOT, copy_program, sitecustomize

pytestmark = pytest.mark.slow


def run(main: Path, args, cwd, env=None, timeout=60):
    e = dict(os.environ)
    e.pop("DISPLAY", None)
    e["PYGLET_HEADLESS"] = "1"
    e.update(env or {})
    return subprocess.run([sys.executable, str(main), *args], cwd=cwd, env=e, capture_output=True, text=True,
                          timeout=timeout, check=False)


def one_line(p, *words) -> str:
    assert p.returncode == 2, f"exit {p.returncode}; stderr: {p.stderr!r}"
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    for w in words:
        assert w in lines[0], f"{w!r} not in {lines[0]!r}"
    return lines[0]


def _loop(path: Path) -> None:
    path.unlink()
    path.symlink_to(path.with_name(path.name + ".b"))
    path.with_name(path.name + ".b").symlink_to(path)


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _dir(path: Path) -> None:
    path.unlink()
    path.mkdir()


@pytest.mark.parametrize("make, words", [(_loop, "symbolic link loop"), (_fifo, "is a FIFO")])
def test_moves_json_that_is_a_link_loop_or_a_fifo_exits_2(tmp_path, make, words):
    main, assets = copy_program(tmp_path)
    make(assets / "moves.json")
    one_line(run(main, ["--headless", "--frames", "5"], tmp_path, timeout=60), "moves.json", words)


@pytest.mark.parametrize("make, words", [(_dir, "is a directory"), (_fifo, "is a FIFO")])
@pytest.mark.parametrize("name", ["arena.models.bin", "arena.quadtree.bin"])
def test_a_baked_file_that_is_a_folder_or_a_fifo_is_named_as_such(tmp_path, make, words, name):
    main, assets = copy_program(tmp_path)
    make(assets / name)
    line = one_line(run(main, ["--headless", "--frames", "5"], tmp_path), name, words, "python3 -m game.tools.bake")
    assert "missing" not in line


DENY_SHIM = textwrap.dedent(r'''
    # Test shim: opening RB_DENY (with os.open or open) fails with EACCES, as for a user
    # without read permission (the tests run as root, which reads any file whatever its mode).
    import builtins, errno, io, os
    _deny = os.path.realpath(os.environ["RB_DENY"])
    def _refuse(path):
        if not isinstance(path, int) and os.path.realpath(path) == _deny:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
    def _wrap(real):
        def opener(path, *args, **kwargs):
            _refuse(path)
            return real(path, *args, **kwargs)
        return opener
    os.open = _wrap(os.open)
    io.open = builtins.open = _wrap(io.open)
''')


@pytest.mark.parametrize("name", ["arena.models.bin", "moves.json", "arena.scene.json"])
def test_a_file_that_may_not_be_read_is_told_to_fix_its_permissions(tmp_path, name):
    main, assets = copy_program(tmp_path)
    shim = sitecustomize(tmp_path, DENY_SHIM)
    line = one_line(run(main, ["--headless", "--frames", "5"], tmp_path,
                        env={"PYTHONPATH": str(shim), "RB_DENY": str(assets / name)}),
                    name, "Permission denied", "chmod u+r")
    assert "re-bake" not in line and "missing" not in line


def test_record_into_a_file_named_as_a_folder_with_force_leaves_the_file(tmp_path):
    (tmp_path / "k").write_bytes(b"keep")
    one_line(run(ROOT / "main.py", ["--headless", "--frames", "5", "--record", "k/", "--force"], tmp_path),
             "--record k/", "names a folder", "give a file name")
    assert (tmp_path / "k").read_bytes() == b"keep"


def test_record_into_a_new_folder_name_creates_nothing(tmp_path):
    one_line(run(ROOT / "main.py", ["--headless", "--frames", "5", "--record", "new/"], tmp_path),
             "--record new/", "names a folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_record_into_an_existing_file_named_as_a_folder_is_refused_before_the_match(tmp_path):
    (tmp_path / "existing").write_bytes(b"keep")
    start = time.monotonic()
    line = one_line(run(ROOT / "main.py", ["--headless", "--p1", "cpu", "--p2", "cpu", "--record", "existing/"],
                        tmp_path), "--record existing/", "names a folder")
    assert "already exists" not in line
    # a whole CPU match takes minutes; the refusal comes before its first frame
    assert time.monotonic() - start < 30
    assert (tmp_path / "existing").read_bytes() == b"keep"


def test_screenshot_named_as_a_folder_is_refused(tmp_path):
    one_line(run(ROOT / "main.py", ["--screenshot", "shot.png/", "--frames", "5"], tmp_path),
             "--screenshot shot.png/", "names a folder")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.gl
def test_a_shader_that_is_a_fifo_exits_2_in_one_line(tmp_path):
    main, _ = copy_program(tmp_path)
    shader = main.parent / "shaders" / "lit.frag"
    _fifo(shader)
    one_line(run(main, ["--screenshot", str(tmp_path / "s.png"), "--frames", "2"], tmp_path, timeout=120),
             "lit.frag", "is a FIFO")
