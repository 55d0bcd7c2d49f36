"""Which tests guard each requirement of docs/spec.md.

The spec defines the IDs (A1-A8, B1-B9, C1-C9: its bold headings ``**A1. Storage.**``); a test
guards the requirements whose IDs its name carries as words (``test_B3_B4_...``).  The test
names are read from the test files as pytest collects them (functions named ``test_*`` in
files named ``test_*.py``, at module level or in a ``Test*`` class), so the list is the same
whichever tests a run selects.  ``tests/project/test_requirements_coverage.py`` checks it;
``python3 tests/helpers/speccoverage.py`` prints it.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "docs" / "spec.md"
TESTS = ROOT / "tests"

#: a word of a test name that has the form of a requirement ID
ID_WORD = re.compile(r"^[ABC][0-9]+$")


def spec_ids(text: str | None = None) -> list[str]:
    """The IDs docs/spec.md defines, in its order."""
    text = SPEC.read_text() if text is None else text
    return re.findall(r"^\*\*([ABC][0-9]+)\b", text, flags=re.M)


@functools.cache
def collected_tests(root: Path = TESTS) -> tuple[str, ...]:
    """``path::name`` of every test function in the test files under ``root`` (read once)."""
    out = []
    for path in sorted(root.rglob("test_*.py")):
        tree = ast.parse(path.read_text())
        rel = path.relative_to(root.parent).as_posix()
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                out += [f"{rel}::{node.name}::{f.name}" for f in node.body
                        if isinstance(f, ast.FunctionDef) and f.name.startswith("test")]
            elif isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                out.append(f"{rel}::{node.name}")
    return tuple(out)


def ids_of(test: str) -> list[str]:
    """The requirement IDs a test's name carries (``tests/x.py::test_B3_B4_cut`` -> B3, B4)."""
    return [w for w in test.rsplit("::", 1)[-1].split("_") if ID_WORD.match(w)]


def coverage(tests: tuple[str, ...] | None = None) -> dict[str, list[str]]:
    """For every ID the spec defines, the tests whose names carry it (maybe none); IDs that
    tests carry but the spec does not define are keys too, after the spec's."""
    tests = collected_tests() if tests is None else tests
    out: dict[str, list[str]] = {i: [] for i in spec_ids()}
    for t in tests:
        for i in ids_of(t):
            out.setdefault(i, []).append(t)
    return out


def main() -> None:
    defined = set(spec_ids())
    for i, tests in coverage().items():
        note = "" if i in defined else "  (not in docs/spec.md)"
        print(f"{i}: {len(tests)} test(s){note}")
        for t in tests:
            print(f"    {t}")


if __name__ == "__main__":
    main()
