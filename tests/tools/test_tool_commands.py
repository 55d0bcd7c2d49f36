"""The tools' command lines (``game.tools.bake``, ``game.tools.soak``): a bad flag or a missing
package gets one stderr line naming the flag or the set-up command, exit 2."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from clihelp import NO_PACKAGE_SHIM, ROOT, sitecustomize
from game.sim.arena import (
    DESCRIPTION_NAME,
)
from game.tools import bake, soak


def one_line(capsys, *words) -> str:
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1, f"expected one stderr line, got {err!r}"
    assert "Traceback" not in err and "usage:" not in err
    for w in words:
        assert w in lines[0], f"{w!r} not in {lines[0]!r}"
    return lines[0]


# ---- flags --------------------------------------------------------------------------------------
@pytest.mark.parametrize("args, words", [
    (["--bogus"], ["bake: ", "--bogus", "python3 -m game.tools.bake --help"]),
    (["--out-dir"], ["--out-dir", "expected one argument"]),
    (["extra"], ["extra"]),
])
def test_bake_bad_flags_one_line_exit_2(args, words, capsys):
    assert bake.main(args) == 2
    assert one_line(capsys, *words).startswith("bake: ")


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


@pytest.mark.slow
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
