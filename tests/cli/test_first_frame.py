"""The window shows something at once (issue #34, point 6): the game's title and a loading
line, drawn as soon as the window is open, before the seconds the game's modules, arena,
glyph atlas and warm-up draws take.  The window stayed black until then under a virtual
screen."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
W, H = 1280, 720


def _gold(img: np.ndarray) -> np.ndarray:
    """Pixels of the title's gold (red and green high, blue low)."""
    img = img.astype(int)
    return (img[..., 0] > 200) & (img[..., 1] > 150) & (img[..., 2] < 120)


@pytest.mark.gl
def test_the_loading_frame_shows_the_title_and_a_loading_line():
    from game.render.boot import RenderUnavailable

    try:
        from game.render.boot import check_fonts, load_pyglet, make_window
        pyglet = load_pyglet(True)
        window = make_window(pyglet, width=W, height=H, visible=False)
        check_fonts(pyglet)
    except RenderUnavailable as exc:
        pytest.skip(f"no headless GL here: {exc}")
    try:
        from game.render.boot import LOADING_BACKGROUND, draw_loading
        from game.render.glutil import read_pixels

        draw_loading(pyglet, window)
        img = read_pixels(W, H)
    finally:
        window.close()
    gold = _gold(img)
    assert gold.sum() > 2000, "no title"
    rows = np.nonzero(gold.any(axis=1))[0]
    assert H * 0.1 < rows.mean() < H * 0.35            # where the title screen has its title
    light = (img.astype(int).min(axis=-1) > 180) & ~gold
    assert light[int(H * 0.28):int(H * 0.36)].sum() > 200, "no loading line under it"
    corner = img[:40, :40].reshape(-1, 3).mean(axis=0)
    assert np.allclose(corner, np.array(LOADING_BACKGROUND) * 255, atol=3), corner   # not black: the background


@pytest.mark.gl
def test_the_window_loop_draws_the_loading_frame_before_it_builds_the_game(tmp_path):
    """``game.cli.window.open_game`` (the window loop's, and --screenshot's) has the loading
    frame in the window when it starts building the Game: a spy on Game.__init__ reads the
    colour buffer first."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import json, os, sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "os.environ['PYGLET_HEADLESS'] = '1'\n"
        "import numpy as np\n"
        "from game.cli.parser import apply_defaults, build_parser\n"
        "from game.cli.window import run_window\n"
        "from game.render.boot import load_pyglet\n"
        "pyglet = load_pyglet(True)\n"
        "from game.render.game import Game\n"
        "from game.render.glutil import read_pixels\n"
        "seen = {}\n"
        "init = Game.__init__\n"
        "def spy(self, pyglet, window, **kw):\n"
        "    w, h = window.get_framebuffer_size()\n"
        "    img = read_pixels(w, h).astype(int)\n"
        "    gold = (img[..., 0] > 200) & (img[..., 1] > 150) & (img[..., 2] < 120)\n"
        "    seen['gold'] = int(gold.sum())\n"
        "    init(self, pyglet, window, **kw)\n"
        "Game.__init__ = spy\n"
        "pyglet.app.run = lambda *a, **k: None\n"
        "args = build_parser().parse_args(['--frames', '3', '--p1', 'cpu', '--p2', 'cpu'])\n"
        "apply_defaults(args)\n"
        "run_window(args)\n"
        "print(json.dumps(seen))\n")
    out = subprocess.run([sys.executable, str(probe)], capture_output=True, text=True, cwd=ROOT, timeout=120,
                         env=dict(os.environ, PYGLET_HEADLESS="1"), check=False)
    if out.returncode == 2 and "not found" in out.stderr:
        pytest.skip(f"no GL libraries here: {out.stderr.strip()}")
    assert out.returncode == 0, out.stderr[-2000:]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["gold"] > 2000, seen
