"""What main.py says when something outside the game is missing: no display, no GL or EGL
libraries, no pyglet, numpy or pyrr (a ``sitecustomize`` shim hides them from the child): one
line naming the fix (the set-up command, ``--headless``, ``PYGLET_HEADLESS=1``), exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from clihelp import NO_PACKAGE_SHIM, ROOT, assert_usage_error, run_main, sitecustomize


# ------------------------------------------------------------------ no display, no GL
@pytest.mark.slow
def test_no_display_names_the_headless_option(tmp_path):
    p = run_main([], cwd=tmp_path, env={"DISPLAY": None, "PYGLET_HEADLESS": None, "WAYLAND_DISPLAY": None})
    assert_usage_error(p, "no display", "--screenshot", "PYGLET_HEADLESS=1", "--headless")


GL_SHIM = textwrap.dedent(r'''
    # Test shim: behave as if the OpenGL/EGL libraries were not installed.
    import ctypes, ctypes.util, re
    _BLOCK = re.compile(r"(^|/)(lib)?(GL|EGL|GLX|OpenGL)(\.so.*)?$")
    _load, _find = ctypes.cdll.LoadLibrary, ctypes.util.find_library
    def _no_gl_load(name, *a, **k):
        if _BLOCK.search(str(name)):
            raise OSError(f"{name}: cannot open shared object file (blocked by test shim)")
        return _load(name, *a, **k)
    def _no_gl_find(name):
        return None if _BLOCK.search(str(name)) else _find(name)
    ctypes.cdll.LoadLibrary = _no_gl_load
    ctypes.util.find_library = _no_gl_find
''')


@pytest.mark.slow
@pytest.mark.parametrize("args, env", [
    ([], {"PYGLET_HEADLESS": None, "DISPLAY": ":99"}),     # a display but no GL
    ([], {"PYGLET_HEADLESS": "1"}),                         # headless EGL, no EGL
    (["--screenshot", "x.png"], {}),
])
def test_no_gl_libraries_names_the_headless_option(args, env, tmp_path):
    shim = sitecustomize(tmp_path, GL_SHIM)
    env = dict(env, PYTHONPATH=str(shim))
    p = run_main(args, cwd=tmp_path, env=env)
    if "--screenshot" in args:      # --headless cannot go with --screenshot: not offered
        assert_usage_error(p, "not found")
        assert "--headless" not in p.stderr
    else:
        assert_usage_error(p, "not found", "--headless")
    # the shim does not get in the way of the headless game
    q = run_main(["--headless", "--frames", "5"], cwd=tmp_path, env=env)
    assert q.returncode == 0, q.stderr


NO_PYGLET_SHIM = NO_PACKAGE_SHIM.format(package="pyglet")


@pytest.mark.slow
@pytest.mark.parametrize("args", [[], ["--screenshot", "x.png"]])
def test_no_pyglet_package_names_the_setup_command(args, tmp_path):
    shim = sitecustomize(tmp_path, NO_PYGLET_SHIM)
    env = {"PYTHONPATH": str(shim), "PYGLET_HEADLESS": "1"}
    p = run_main(args, cwd=tmp_path, env=env)
    assert_usage_error(p, "pyglet", "not installed", "scripts/setup.sh")
    if "--screenshot" in args:      # --headless cannot go with --screenshot: not offered
        assert "--headless" not in p.stderr
    else:
        assert "--headless" in p.stderr
    # the headless game needs no pyglet at all
    q = run_main(["--headless", "--frames", "5"], cwd=tmp_path, env=env)
    assert q.returncode == 0, q.stderr


@pytest.mark.slow
def test_render_benchmark_without_pyglet_exits_2_with_one_line(tmp_path):
    shim = sitecustomize(tmp_path, NO_PYGLET_SHIM)
    p = subprocess.run([sys.executable, "-m", "game.bench", "render", "--quick"], cwd=ROOT, capture_output=True,
                       text=True, env=dict(os.environ, PYTHONPATH=f"{shim}{os.pathsep}{ROOT}"), timeout=120,
                       check=False)
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr
    assert "pyglet" in p.stderr and "scripts/setup.sh" in p.stderr
    assert "--headless" not in p.stderr      # main.py's alternative: the benchmark has no such flag


@pytest.mark.slow
@pytest.mark.parametrize("package", ["numpy", "pyrr"])
@pytest.mark.parametrize("args", [["--headless", "--frames", "5"], ["--screenshot", "x.png"]])
def test_no_numpy_or_pyrr_package_names_the_setup_command(package, args, tmp_path):
    shim = sitecustomize(tmp_path, NO_PACKAGE_SHIM.format(package=package))
    p = run_main(args, cwd=tmp_path, env={"PYTHONPATH": str(shim), "PYGLET_HEADLESS": "1"})
    # the interpreter that lacks it (most likely the system's, run in place of .venv's) and the fix
    assert_usage_error(p, package, f"not installed for {sys.executable}", "scripts/setup.sh", ".venv/bin/python")




