"""game/online reads the network: nothing in it can run code a datagram carries (no pickle,
marshal, eval or exec), and it never imports the window (the window imports it)."""

from __future__ import annotations

from pathlib import Path

from purity import forbidden_uses

ONLINE = Path(__file__).resolve().parents[2] / "game" / "online"
FORBIDDEN_MODULES = {"pyglet", "pickle", "marshal", "shelve", "game.render", "game.cli"}


def test_game_online_has_no_code_loader_and_no_window():
    files = sorted(ONLINE.glob("*.py"))
    assert len(files) >= 4
    assert forbidden_uses(files, FORBIDDEN_MODULES) == []


def test_the_check_finds_an_import_and_a_call(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import pickle\nfrom game.render.hud import Hud\neval('1')\n")
    assert forbidden_uses([bad], FORBIDDEN_MODULES) == ["bad.py imports pickle", "bad.py imports game.render.hud",
                                                         "bad.py calls eval"]
