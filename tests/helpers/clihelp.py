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


def assert_one_line(err: str, *words: str) -> None:
    """``err`` (what a run printed on stderr) is one line that holds every one of ``words``."""
    assert len(err.splitlines()) == 1, err
    for w in words:
        assert w in err, (w, err)


def assert_usage_error(p, *words) -> None:
    """The child exited 2 with one stderr line, no traceback, that holds every one of ``words``."""
    assert p.returncode == 2, f"exit {p.returncode}; stderr: {p.stderr!r}"
    lines = p.stderr.splitlines()
    assert len(lines) == 1, f"expected one stderr line, got: {p.stderr!r}"
    assert "Traceback" not in p.stderr
    for w in words:
        assert w in lines[0], f"{w!r} not in {lines[0]!r}"


#: a child's sitecustomize that makes every write to a file in one folder fail (a full disk)
FULL_DISK_SHIM = textwrap.dedent(r'''
    # Test shim: every write to a file inside RB_FULL_DIR fails with errno RB_FULL_ERRNO
    # (creating an empty file still works, as on a full disk with free inodes).
    import builtins, io, os
    _DIR = os.path.realpath(os.environ["RB_FULL_DIR"]) + os.sep
    _ERRNO = int(os.environ["RB_FULL_ERRNO"])
    _open = io.open

    def _path(file):
        try:
            if isinstance(file, int):
                return os.readlink(f"/proc/self/fd/{file}")
            return os.path.realpath(os.fspath(file))
        except (OSError, TypeError):
            return ""

    class _Full:
        def __init__(self, fh):
            self._fh = fh
        def write(self, data):
            raise OSError(_ERRNO, os.strerror(_ERRNO))
        def __getattr__(self, name):
            return getattr(self._fh, name)
        def __enter__(self):
            return self
        def __exit__(self, *exc):
            self._fh.close()

    def _full_open(file, mode="r", *args, **kwargs):
        fh = _open(file, mode, *args, **kwargs)
        if any(c in mode for c in "wax+") and _path(file).startswith(_DIR):
            return _Full(fh)
        return fh

    builtins.open = io.open = _full_open
''')


def full_disk_env(tmp_path, full_dir, err="ENOSPC", tmpdir=None):
    """The environment of a child whose writes into ``full_dir`` fail with ``err`` (an errno
    name); ``tmpdir``: its temp folder."""
    import errno

    shim = sitecustomize(tmp_path, FULL_DISK_SHIM)
    env = {"PYTHONPATH": str(shim), "RB_FULL_DIR": str(full_dir), "RB_FULL_ERRNO": str(getattr(errno, err))}
    if tmpdir is not None:
        env["TMPDIR"] = str(tmpdir)
    return env
