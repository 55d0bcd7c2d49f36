"""Shared by the command-line tests: main.py run in a child and its usage errors checked, a
private copy of the program to damage, and ``sitecustomize`` shims that make a child process
behave as if something were missing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Shim code (``.format(package=...)``): behave as if pip had not installed the package.
NO_PACKAGE_SHIM = textwrap.dedent(r'''
    # Test shim: behave as if pip had not installed the package {package!r}.
    import sys
    class _NoPackage:
        def find_spec(self, name, path=None, target=None):
            if name == {package!r} or name.startswith({package!r} + "."):
                raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
            return None
    sys.meta_path.insert(0, _NoPackage())
''')


def sitecustomize(tmp_path: Path, code: str) -> Path:
    """A folder whose sitecustomize.py runs ``code`` at start-up in a child put on PYTHONPATH."""
    shim = tmp_path / "shim"
    shim.mkdir(exist_ok=True)
    (shim / "sitecustomize.py").write_text(code)
    return shim


def copy_program(tmp_path: Path) -> tuple[Path, Path]:
    """A private copy of the program (main.py, game/, shaders/, assets/) to damage:
    ``(main.py path, assets folder)``."""
    ign = shutil.ignore_patterns("__pycache__", "*.pyc")
    dst = tmp_path / "rb"
    dst.mkdir()
    shutil.copy2(ROOT / "main.py", dst / "main.py")
    for d in ("game", "shaders", "assets"):
        if (ROOT / d).is_dir():
            shutil.copytree(ROOT / d, dst / d, ignore=ign)
    return dst / "main.py", dst / "assets"


def run_main(args, cwd=None, env=None, main: Path | None = None, timeout: float = 120):
    """``python main.py ARGS`` (``main``: another copy's) in a child with no display and headless
    EGL; ``env`` entries override the environment, None removes one.  A child still running
    after ``timeout`` seconds fails the test."""
    e = dict(os.environ)
    e.pop("DISPLAY", None)
    e["PYGLET_HEADLESS"] = "1"
    for k, v in (env or {}).items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = v
    try:
        return subprocess.run([sys.executable, str(main or ROOT / "main.py"), *args], cwd=cwd, env=e,
                              capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"main.py {' '.join(args)} was still running after {timeout} s")


def assert_usage_error(p, *words) -> None:
    """The child exited 2 with one stderr line, no traceback, that holds every one of ``words``."""
    assert p.returncode == 2, f"exit {p.returncode}; stderr: {p.stderr!r}"
    lines = p.stderr.splitlines()
    assert len(lines) == 1, f"expected one stderr line, got: {p.stderr!r}"
    assert "Traceback" not in p.stderr
    for w in words:
        assert w in lines[0], f"{w!r} not in {lines[0]!r}"
