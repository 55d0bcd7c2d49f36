"""What a package's modules import and call that they must not: the network packages' checks
(``tests/net/test_purity.py``, ``tests/online/test_purity.py``)."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

#: Builtins that run code given as data.
CODE_RUNNERS = frozenset({"eval", "exec", "compile", "__import__"})


def forbidden_uses(files: Iterable[Path], modules: Iterable[str], calls: Iterable[str] = CODE_RUNNERS) -> list[str]:
    """``"file imports name"`` / ``"file calls name"`` for each import of one of ``modules`` (a
    name or a dotted prefix: ``game.render`` also forbids ``game.render.hud``) and each call of a
    builtin in ``calls``, in ``files``."""
    modules, calls = set(modules), set(calls)
    found = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                names = []
            found += [f"{path.name} imports {n}" for n in names
                      if any(n == m or n.startswith(m + ".") for m in modules)]
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in calls:
                found.append(f"{path.name} calls {node.func.id}")
    return found
