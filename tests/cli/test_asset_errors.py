"""A missing or damaged asset or scene file: ``python3 main.py`` exits 2 with one stderr line
naming the file, the field and the fix.  Each case runs a copy of the program (main.py, game/,
shaders/, assets/) in a temporary folder with the file removed or damaged, so the shared tree
is never touched."""

from __future__ import annotations

import json
import shutil

import pytest

from clihelp import assert_usage_error, copy_program, run_main

#: every test here runs for more than about half a second
pytestmark = pytest.mark.slow


# ------------------------------------------------------------------ assets and scene files
@pytest.fixture
def tree(tmp_path):
    """A private copy of the program to damage: (main.py path, assets folder)."""
    return copy_program(tmp_path)


def test_tree_copy_runs(tree):
    main, _ = tree
    p = run_main(["--headless", "--frames", "5"], main=main, cwd=main.parent)
    assert p.returncode == 0, p.stderr


def test_missing_assets_folder(tree):
    main, assets = tree
    shutil.rmtree(assets)
    # names the first asset file it looked for (the sim's or the arena's) inside the missing folder, and the fix
    assert_usage_error(run_main(["--headless", "--frames", "5"], main=main), str(assets), "restore")


@pytest.mark.parametrize("name", ["fighters.json", "moves.json"])
def test_missing_asset_file(tree, name):
    main, assets = tree
    (assets / name).unlink()
    assert_usage_error(run_main(["--headless", "--frames", "5"], main=main), name, "not found")


def test_asset_file_not_json(tree):
    main, assets = tree
    (assets / "moves.json").write_text("{ this is not json")
    assert_usage_error(run_main(["--headless", "--frames", "5"], main=main), "moves.json", "JSON")


def test_asset_field_missing(tree):
    import json
    main, assets = tree
    doc = json.loads((assets / "fighters.json").read_text())
    del doc["max_health"]
    (assets / "fighters.json").write_text(json.dumps(doc))
    assert_usage_error(run_main(["--headless", "--frames", "5"], main=main), "max_health")


@pytest.mark.gl  # the --screenshot runs load GL
@pytest.mark.parametrize("damage, words", [
    (lambda p: p.write_bytes(p.read_bytes()[:40]), ["arena.models.bin"]),
    (lambda p: p.write_bytes(b"JUNK" + p.read_bytes()[4:]), ["arena.models.bin"]),
    (lambda p: p.unlink(), ["arena.models.bin", "bake"]),
])
def test_corrupt_scene_file(tree, damage, words):
    main, assets = tree
    damage(assets / "arena.models.bin")
    for extra in (["--headless", "--frames", "5"], ["--screenshot", "x.png"]):
        assert_usage_error(run_main(extra, main=main, cwd=main.parent), *words)


def test_projectile_level_outside_the_three_logic_levels(tree):
    main, assets = tree
    doc = json.loads((assets / "moves.json").read_text())
    doc["moves"]["fireball"]["projectile"]["level"] = 7
    (assets / "moves.json").write_text(json.dumps(doc))
    assert_usage_error(run_main(["--headless", "--frames", "5"], main=main), "moves.json", "level")
