#!/usr/bin/env python3
"""Print every module of ``game/`` over the size limits, for review and CI.

    python3 scripts/size_limits.py [--check] [--root CHECKOUT]

The project's standard: one concept per module, no module over 600 lines and no function
or method over 80 lines (``DEVELOPERS.md``).  The script reads every ``game/**/*.py`` with
``ast`` and prints one line per module over ``MODULE_LINES`` and per function over
``FUNCTION_LINES``; a function counts from its ``def`` line to its last line, docstring
and nested functions included (decorators are not counted).  With ``--check`` it exits 1
when it printed anything, so CI fails on a new long module or function.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path
from typing import NamedTuple

MODULE_LINES = 600    # a module over this many lines is reported
FUNCTION_LINES = 80   # a function or method over this many lines is reported


class Oversize(NamedTuple):
    """One module or function over its limit."""

    path: str    # the module's path, relative to the checkout, with / separators
    name: str    # the function's qualified name (Class.method, outer.inner), "" for the module
    line: int    # the line where the module (1) or the function's ``def`` starts
    lines: int   # its length in lines
    limit: int   # the limit it is over


def _functions(tree: ast.Module) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function and method in ``tree``, nested ones too, with its qualified name."""
    found: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                found.append((name, child))
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def oversize(path: Path, rel: str) -> list[Oversize]:
    """The module at ``path`` and its functions that are over the limits."""
    source = path.read_text(encoding="utf-8")
    found = []
    n_lines = len(source.splitlines())
    if n_lines > MODULE_LINES:
        found.append(Oversize(rel, "", 1, n_lines, MODULE_LINES))
    for name, fn in _functions(ast.parse(source, filename=str(path))):
        length = (fn.end_lineno or fn.lineno) - fn.lineno + 1
        if length > FUNCTION_LINES:
            found.append(Oversize(rel, name, fn.lineno, length, FUNCTION_LINES))
    return found


def scan(root: Path) -> list[Oversize]:
    """Everything over the limits in ``root/game``, in path order."""
    found = []
    for path in sorted((root / "game").rglob("*.py")):
        found.extend(oversize(path, path.relative_to(root).as_posix()))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if anything is over its limit")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="the checkout to scan (default: this one)")
    args = parser.parse_args(argv)
    found = scan(args.root)
    for o in found:
        what = f"{o.path}:{o.line}: function {o.name}" if o.name else f"{o.path}: module"
        print(f"{what} has {o.lines} lines (limit {o.limit})")
    if not found:
        print(f"no module over {MODULE_LINES} lines, no function over {FUNCTION_LINES} lines")
    return 1 if (args.check and found) else 0


if __name__ == "__main__":
    sys.exit(main())
