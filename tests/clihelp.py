"""Shared by the command-line tests: a private copy of the program to damage, and
``sitecustomize`` shims that make a child process behave as if something were missing."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

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
