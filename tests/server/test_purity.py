"""game/server reads datagrams from anyone: nothing in it can run code a datagram carries (no
pickle, marshal, eval or exec), and it never imports the window or the game's command line."""

from __future__ import annotations

from pathlib import Path

from purity import forbidden_uses

SERVER = Path(__file__).resolve().parents[2] / "game" / "server"
FORBIDDEN_MODULES = {"pyglet", "pickle", "marshal", "shelve", "game.render", "game.cli"}


def test_game_server_has_no_code_loader_and_no_window():
    files = sorted(SERVER.glob("*.py"))
    assert len(files) >= 7
    assert forbidden_uses(files, FORBIDDEN_MODULES) == []
