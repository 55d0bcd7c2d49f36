"""The window loop (game/cli/window.py) as main.py runs it: it warms the glyphs and draw states
and freezes the start-up heap before the first frame, and Ctrl-C ends it with one line and
keeps the frames recorded so far."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from clihelp import (
    ROOT,
)


@pytest.mark.gl  # the window renders
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


@pytest.mark.parametrize("args, runner", [
    (["--headless"], "run_headless"),
    (["--frames", "10"], "run_window"),
])
def test_ctrl_c_exits_quietly(args, runner, monkeypatch, capsys):
    """Ctrl-C in the terminal ends the game with one line and status 130, not a traceback
    from wherever the frame loop happened to be."""
    sys.path.insert(0, str(ROOT))
    import main
    from game.cli import app

    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(app, runner, interrupted)
    try:
        rc = main.main(args)
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C escaped main.main as a KeyboardInterrupt (a traceback in the terminal)")
    assert rc == 130
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "interrupted" in err, err


def test_ctrl_c_keeps_the_frames_recorded_so_far(monkeypatch, tmp_path, capsys):
    """Nothing is lost: Ctrl-C during a --record run saves the replay of the frames played."""
    sys.path.insert(0, str(ROOT))
    import main
    from game.cli import headless
    from game.replay import load_replay

    make = headless.make_match

    def make_interrupted(*a, **k):
        m = make(*a, **k)
        step = m.step

        def step_then_interrupt(p1, p2):
            if m.frame == 40:
                raise KeyboardInterrupt
            return step(p1, p2)
        m.step = step_then_interrupt
        return m
    monkeypatch.setattr(headless, "make_match", make_interrupted)
    path = tmp_path / "cut.rpl"
    try:
        rc = main.main(["--headless", "--p1", "cpu", "--p2", "cpu", "--record", str(path)])
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C escaped main.main as a KeyboardInterrupt")
    assert rc == 130, capsys.readouterr().err
    assert load_replay(path).frames == 40
