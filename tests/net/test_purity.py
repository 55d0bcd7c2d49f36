"""game/net is pure logic: it imports no pyglet, no socket and no clock, and nothing on the
network path can run code (no pickle, marshal, eval or exec)."""

from __future__ import annotations

from pathlib import Path

from purity import forbidden_uses

NET = Path(__file__).resolve().parents[2] / "game" / "net"
FORBIDDEN_MODULES = {"pyglet", "socket", "time", "datetime", "random", "pickle", "marshal", "shelve", "select",
                     "asyncio", "threading"}


def test_game_net_imports_no_window_socket_clock_or_code_loader():
    files = sorted(NET.glob("*.py"))
    assert len(files) >= 10
    assert forbidden_uses(files, FORBIDDEN_MODULES) == []
