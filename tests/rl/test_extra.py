"""gymnasium is optional (the ``rl`` extra): only game/rl imports it, pyproject declares it
capped below its next major, and the set-up installs it.  These run without gymnasium."""

from __future__ import annotations

import ast
import tomllib

import pytest

from clihelp import ROOT


@pytest.mark.slow
def test_only_game_rl_and_its_tests_import_gymnasium():
    """And the rl benchmark, inside its run(), after checking that gymnasium is there."""
    found = []
    for path in [ROOT / "main.py", *(ROOT / "game").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(n.split(".")[0] == "gymnasium" for n in names):
                rel = path.relative_to(ROOT)
                found.append(rel.as_posix() if rel.parts[:2] != ("game", "rl") else "game/rl")
    assert found, "the scan found no import of gymnasium at all: it is broken"
    assert set(found) == {"game/rl", "game/bench/rl.py"}, found


def test_the_rl_extra_is_gymnasium_below_its_next_major_and_the_set_up_installs_it():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    (line,) = extras["rl"]
    assert line.startswith("gymnasium>=1.") and "<2" in line
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    assert 'INSTALL=(-e ".[dev,rl]")' in setup
