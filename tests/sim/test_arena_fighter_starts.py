"""The arena description's fighter starts: a round must be able to begin from them.

Equal starts crashed the round start (``ZeroDivisionError`` in the facing); starts closer
than two pushbox radii, outside the walls or inside a solid began a round the pushbox
resolution had to repair.  The validator refuses each with one line naming the field."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from game.sim.arena import DESCRIPTION_NAME, ArenaDescriptionError, read_description
from game.sim.data import load_game_data

ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "assets"
RADIUS = load_game_data().pushbox_radius


def _description(tmp_path: Path, starts, **top) -> Path:
    """A copy of the shipped description (and its mesh) with ``fighter_starts`` and top-level
    fields replaced."""
    doc = json.loads((ASSETS / DESCRIPTION_NAME).read_text())
    doc["fighter_starts"] = starts
    doc.update(top)
    shutil.copy2(ASSETS / "arena_grass.obj", tmp_path / "arena_grass.obj")
    path = tmp_path / DESCRIPTION_NAME
    path.write_text(json.dumps(doc))
    return path


def test_equal_fighter_starts_are_refused_naming_the_field(tmp_path):
    path = _description(tmp_path, [[2, 0, 1], [2, 0, 1]])
    with pytest.raises(ArenaDescriptionError) as info:
        read_description(path)
    msg = str(info.value)
    assert msg.startswith(f"{path}: fighter_starts: expected two starts at least {2 * RADIUS:g} m apart"), msg
    assert "same x-z point" in msg and "move them apart" in msg and "\n" not in msg


def test_equal_fighter_starts_exit_2_in_one_line_instead_of_crashing_the_round(tmp_path):
    """Through main.py on a copy of the program: exit 2, one line, no ZeroDivisionError."""
    dst = tmp_path / "rb"
    dst.mkdir()
    shutil.copy2(ROOT / "main.py", dst / "main.py")
    for d in ("game", "assets"):
        shutil.copytree(ROOT / d, dst / d, ignore=shutil.ignore_patterns("__pycache__"))
    _description(dst / "assets", [[0, 0, 0], [0, 0, 0]])
    p = subprocess.run([sys.executable, str(dst / "main.py"), "--headless", "--frames", "10"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120, env=dict(os.environ, PYGLET_HEADLESS="1"))
    assert p.returncode == 2, p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and "fighter_starts" in lines[0] and "Traceback" not in p.stderr, p.stderr


@pytest.mark.parametrize("gap_in_radii", [0.5, 1.0, 1.99])
def test_starts_closer_than_two_pushbox_radii_are_refused(tmp_path, gap_in_radii):
    d = gap_in_radii * RADIUS
    path = _description(tmp_path, [[-d / 2, 0, 0], [d / 2, 0, 0]])
    with pytest.raises(ArenaDescriptionError, match=r"fighter_starts: expected two starts at least .* apart"):
        read_description(path)


def test_starts_two_pushbox_radii_apart_are_accepted(tmp_path):
    path = _description(tmp_path, [[-RADIUS, 0, 0], [RADIUS, 0, 0]])
    assert read_description(path).fighter_starts.tolist() == [[-RADIUS, 0, 0], [RADIUS, 0, 0]]


@pytest.mark.parametrize("start", [[-40, 0, 0], [0, 0, 14.9], [14.8, 0, -14.8]])
def test_a_start_outside_the_walls_is_refused(tmp_path, start):
    path = _description(tmp_path, [start, [1.5, 0, 0]], clear_radius=0.0)
    with pytest.raises(ArenaDescriptionError, match=r"fighter_starts\[0\]: expected a start inside the walls "
                       r"with room for the pushbox .*x from -14\.7 to 14\.7.*move it inside the walls"):
        read_description(path)


@pytest.mark.parametrize("start, name", [([7, 0, 7], "pillar_en"), ([7.6, 0, -7], "pillar_es"),
                                         ([0.2, 0, 5], "crate_north"), ([5, 0, 4.1], "barrel")])
def test_a_start_inside_a_solid_is_refused_even_with_no_clear_radius(tmp_path, start, name):
    path = _description(tmp_path, [start, [1.5, 0, 0]], clear_radius=0.0)
    with pytest.raises(ArenaDescriptionError, match=rf"fighter_starts\[0\]: expected a start whose pushbox .* is "
                       rf"clear of every pillar, wall, crate and barrel, got .*\({name}\); move the start"):
        read_description(path)


def test_a_start_beside_a_solid_is_accepted_with_no_clear_radius(tmp_path):
    # the barrel's sphere (radius 0.73 at x = z = 5) bounds its obstacle: a pushbox just outside it
    z = 5 + 0.73 + RADIUS + 1e-6
    path = _description(tmp_path, [[5, 0, z], [1.5, 0, 0]], clear_radius=0.0)
    assert math.isclose(read_description(path).fighter_starts[0][2], z)


def test_the_starts_are_checked_with_the_pushbox_radius_of_the_fighters_beside_them(tmp_path):
    path = _description(tmp_path, [[-1.5, 0, 0], [1.5, 0, 0]])
    read_description(path)                                   # the shipped radius: 3 m apart is plenty
    fighters = json.loads((ASSETS / "fighters.json").read_text())
    fighters["pushbox_radius"] = 1.6
    (tmp_path / "fighters.json").write_text(json.dumps(fighters))
    with pytest.raises(ArenaDescriptionError, match=r"at least 3\.2 m apart in x-z \(twice the pushbox_radius "
                       rf"1\.6 m of {tmp_path / 'fighters.json'}\)"):
        read_description(path)
    assert read_description(path, pushbox_radius=0.3).fighter_starts.shape == (2, 3)
