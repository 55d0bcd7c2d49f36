"""main.py's window-side flags: --screenshot renders headless; no display exits 2 with the fix."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(args, env_changes=None, drop=()):
    env = dict(os.environ)
    for k in drop:
        env.pop(k, None)
    env.update(env_changes or {})
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=60, check=False)


def test_render_cli_no_display_exits_2_naming_the_fix():
    out = _run([], drop=("DISPLAY", "WAYLAND_DISPLAY", "PYGLET_HEADLESS"))
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "no display" in lines[0] and "--screenshot" in lines[0] and "PYGLET_HEADLESS=1" in lines[0]


def test_render_cli_screenshot_bad_folder_exits_2(tmp_path):
    out = _run(["--screenshot", str(tmp_path / "missing" / "x.png"), "--frames", "3"])
    assert out.returncode == 2 and "does not exist" in out.stderr and out.stderr.count("\n") == 1


def test_render_cli_screenshot_writes_the_png(tmp_path):
    path = tmp_path / "shot.png"
    out = _run(["--screenshot", str(path), "--frames", "40", "--debug", "--p1", "cpu", "--p2", "cpu"])
    if out.returncode == 2 and "not found" in out.stderr:
        pytest.skip(f"no GL libraries here: {out.stderr.strip()}")
    assert out.returncode == 0, out.stderr
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000
    import struct
    w, h = struct.unpack(">II", data[16:24])
    assert (w, h) == (1280, 720)


def test_render_game_loop_warms_the_glyphs_and_freezes_the_start_up_heap(tmp_path):
    """The window loop (game/cli/window.py) calls Game.prepare_for_play before its first frame:
    every HUD glyph is in the font atlas, every draw state has been drawn once (Game.warm_draws),
    and (boot.settle_heap) every object alive after start-up sits in the permanent generation (a full
    collection no longer walks them), and a reference cycle made during play is still collected."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import gc, json, os, sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "os.environ['PYGLET_HEADLESS'] = '1'\n"
        "from game.cli.parser import apply_defaults, build_parser\n"
        "from game.cli.window import run_window\n"
        "from game.render.boot import load_pyglet\n"
        "pyglet = load_pyglet(True)\n"
        "seen = {}\n"
        "from game.render.game import Game\n"
        "from game.render.hud import GLYPHS\n"
        "prepare = Game.prepare_for_play\n"
        "def spy(game):\n"
        "    seen['calls'] = seen.get('calls', 0) + 1\n"
        "    prepare(game)\n"
        "    seen['warm'] = all(c in f.glyphs for f in game.hud.fonts() for c in GLYPHS)\n"
        "Game.prepare_for_play = spy\n"
        "warm_draws = Game.warm_draws\n"
        "def warm_spy(game):\n"
        "    seen['warm_draws'] = seen.get('warm_draws', 0) + 1\n"
        "    warm_draws(game)\n"
        "Game.warm_draws = warm_spy\n"
        "def run(*a, **k):\n"
        "    seen['frozen'] = gc.get_freeze_count()\n"
        "    seen['tracked'] = len(gc.get_objects())\n"
        "    class Node: pass\n"
        "    a, b = Node(), Node(); a.b, b.a = b, a\n"
        "    del a, b\n"
        "    seen['cycle'] = gc.collect()\n"
        "pyglet.app.run = run\n"
        "args = build_parser().parse_args(['--frames', '3', '--p1', 'cpu', '--p2', 'cpu'])\n"
        "apply_defaults(args)\n"
        "run_window(args)\n"
        "print(json.dumps(seen))\n")
    out = subprocess.run([sys.executable, str(probe)], capture_output=True, text=True, cwd=ROOT, timeout=120,
                         env=dict(os.environ, PYGLET_HEADLESS="1"), check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    import json

    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["calls"] == 1 and seen["warm"], seen           # every HUD glyph in the atlas
    assert seen["warm_draws"] == 1, seen                      # every draw state drawn once (test_render_warm)
    assert seen["frozen"] > 20_000, seen                      # pyglet, numpy, the game: frozen
    assert seen["tracked"] < seen["frozen"] / 20, seen        # what a full collection still walks
    assert seen["cycle"] >= 2, seen                           # a cycle made later is still freed
