"""game/net is pure logic: it imports no pyglet, no socket and no clock, and nothing on the
network path can run code (no pickle, marshal, eval or exec)."""

from __future__ import annotations

import ast
from pathlib import Path

NET = Path(__file__).resolve().parents[2] / "game" / "net"
FORBIDDEN_MODULES = {"pyglet", "socket", "time", "datetime", "random", "pickle", "marshal", "shelve", "select",
                     "asyncio", "threading"}
FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__"}


def test_game_net_imports_no_window_socket_clock_or_code_loader():
    files = sorted(NET.glob("*.py"))
    assert len(files) >= 10
    for path in files:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                names = []
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN_MODULES, f"{path.name} imports {name}"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in FORBIDDEN_CALLS, f"{path.name} calls {node.func.id}"
