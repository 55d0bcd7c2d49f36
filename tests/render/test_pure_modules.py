"""The render side's pure-logic modules run without pyglet (the simulation's tools import them)."""

from __future__ import annotations

import subprocess
import sys

import pytest

#: every test here runs for more than about half a second
pytestmark = pytest.mark.slow


def test_render_pure_modules_do_not_import_pyglet():
    code = ("import sys; import game.render.camera, game.render.sparks, game.render.overlay, "
            "game.render.training, game.render.controls, game.render.geometry; "
            "print('pyglet' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
