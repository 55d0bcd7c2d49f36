"""The simulation's arithmetic gives the same bits on every CPU: no BLAS on its path.

``np.matmul`` / ``@`` / ``np.dot`` / ``np.einsum`` / ``np.linalg.norm`` of a vector hand float64
sums of products to a kernel the CPU picks at run time (with FMA or not), so the same inputs
round differently on another machine and a replay or a rollback peer diverges
(``tests/sim/test_determinism.py`` shows it with ``OPENBLAS_CORETYPE``).  DEVELOPERS.md states
the rule; this test finds a new call that breaks it in the modules a frame runs."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import game.sim

SIM = Path(game.sim.__file__).parent


#: the loaders: they read the assets and build tables and scenes once, at start
LOAD_TIME = ("arena.py", "arena_shapes.py", "body.py", "data.py", "fields.py", "limits.py", "moves.py")


#: every other module of the simulation (the CPU's included) may run on a frame
PER_FRAME = tuple(p.relative_to(SIM).as_posix() for p in sorted(SIM.rglob("*.py")) if p.name not in LOAD_TIME)


#: the one allowed product: every output has a single non-zero term (Skeleton.place_rows)
ALLOWED = {("skeleton.py", "place_rows")}


BLAS_NAMES = {"matmul", "dot", "einsum", "inner", "tensordot", "vdot", "norm", "multi_dot"}


def _calls(tree: ast.AST):
    """(function name, call name or '@', line) of every BLAS-like call or ``@``, by enclosing def."""
    out = []

    def visit(node, fn):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            fn = node.name
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            out.append((fn, "@", node.lineno))
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else (f.id if isinstance(f, ast.Name) else None)
            if name in BLAS_NAMES:
                out.append((fn, name, node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child, fn)

    visit(tree, None)
    return out


@pytest.mark.slow
def test_no_blas_products_in_the_per_frame_simulation_code():
    assert all((SIM / name).is_file() for name in LOAD_TIME), "a loader named here is gone: update LOAD_TIME"
    assert {"match.py", "stage.py", "skeleton.py", "combat.py", "movement.py",
            "ai/rules.py", "ai/choices.py"} <= set(PER_FRAME)
    found = []
    for name in PER_FRAME:
        for fn, call, line in _calls(ast.parse((SIM / name).read_text())):
            if (name, fn) not in ALLOWED:
                found.append(f"game/sim/{name}:{line} {fn}(): {call}")
    assert not found, "BLAS on the simulation's path (other CPUs round otherwise):\n" + "\n".join(found)


def test_the_scan_finds_what_it_looks_for():
    src = "import numpy as np\ndef f(a, b):\n    return a @ b, np.linalg.norm(a), np.dot(a, b)\n"
    assert [c for _, c, _ in _calls(ast.parse(src))] == ["@", "norm", "dot"]
