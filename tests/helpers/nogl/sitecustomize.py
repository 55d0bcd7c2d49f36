"""Put this folder on PYTHONPATH to run Python as on a machine without OpenGL: loading the GL,
EGL or GLX libraries fails, in the process and in its children.  With it, the tests not marked
``gl`` must still pass: ``PYTHONPATH=tests/helpers/nogl PYGLET_HEADLESS=1 .venv/bin/python -m
pytest -q -m "not gl"`` (DEVELOPERS.md)."""

import ctypes
import ctypes.util
import re

_BLOCK = re.compile(r"(^|/)(lib)?(GL|EGL|GLX|OpenGL)(\.so.*)?$")
_load, _find = ctypes.cdll.LoadLibrary, ctypes.util.find_library


def _no_gl_load(name, *args, **kwargs):
    if _BLOCK.search(str(name)):
        raise OSError(f"{name}: cannot open shared object file (hidden by tests/helpers/nogl)")
    return _load(name, *args, **kwargs)


def _no_gl_find(name):
    return None if _BLOCK.search(str(name)) else _find(name)


ctypes.cdll.LoadLibrary = _no_gl_load
ctypes.util.find_library = _no_gl_find
