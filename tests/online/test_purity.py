"""game/online reads the network: nothing in it can run code a datagram carries (no pickle,
marshal, eval or exec), and it never imports the window (the window imports it)."""

from __future__ import annotations

import ast
from pathlib import Path

ONLINE = Path(__file__).resolve().parents[2] / "game" / "online"
FORBIDDEN_MODULES = {"pyglet", "pickle", "marshal", "shelve", "game.render", "game.cli"}
FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__"}


def test_game_online_has_no_code_loader_and_no_window():
    files = sorted(ONLINE.glob("*.py"))
    assert len(files) >= 4
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                names = []
            for name in names:
                assert not any(name == f or name.startswith(f + ".") for f in FORBIDDEN_MODULES), \
                    f"{path.name} imports {name}"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in FORBIDDEN_CALLS, f"{path.name} calls {node.func.id}"
