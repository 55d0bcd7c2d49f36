"""Rendering: ms per frame at 1280x720 headless (llvmpipe), CPU vs CPU, with and
without the debug overlay; and the time from start to the first frame.

Each frame is one fixed simulation step plus one full draw (shadow pass, sky,
arena, fighters, sparks, HUD; overlay when on) followed by ``glFinish`` so the
GPU (here: the CPU rasteriser) work is inside the measured time.  Start-up is
the wall time of ``python main.py --screenshot ... --frames 1`` as a
subprocess: interpreter, imports, GL context, shaders, meshes, fonts, one
frame and the PNG write.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .common import report

ROOT = Path(__file__).resolve().parents[2]


def _frames(game, gl, n: int, overlay: bool) -> list[float]:
    game.overlay.enabled = overlay
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        game.step()
        game.draw(1.0)
        gl.glFinish()
        times.append(time.perf_counter() - t0)
        if game.match.over:
            game.new_match(game.seed + 1)
    return times


def _draw_only(game, gl, n: int) -> list[float]:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        game.draw(0.5)
        gl.glFinish()
        times.append(time.perf_counter() - t0)
    return times


def run(args) -> None:
    os.environ["PYGLET_HEADLESS"] = "1"
    from game.render.offscreen import open_game

    pyglet, window, game = open_game(1280, 720, p1="cpu", p2="cpu", level="hard", seed=7)
    from pyglet import gl

    n = 120 if args.quick else 360
    for _ in range(100):                       # into the fight, caches warm
        game.step()
    _frames(game, gl, 30, False)
    med = lambda xs: statistics.median(xs) * 1e3  # noqa: E731
    off = _frames(game, gl, n, False)
    on = _frames(game, gl, n, True)
    draw_off = _draw_only(game, gl, n // 2)
    game.overlay.enabled = True
    draw_on = _draw_only(game, gl, n // 2)
    print(f"  frames: {n} per figure, 1280x720, {gl.gl_info.get_renderer()}")
    report("ms per frame (step + draw + glFinish), overlay off", med(off), "ms", target="<= 16.7 ms")
    report("ms per frame (step + draw + glFinish), overlay on", med(on), "ms", target="<= 16.7 ms")
    report("  90th percentile, overlay on", statistics.quantiles(on, n=10)[-1] * 1e3, "ms")
    report("  draw only, overlay off", med(draw_off), "ms")
    report("  draw only, overlay on", med(draw_on), "ms")
    window.close()

    runs = 1 if args.quick else 3
    walls = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            env = dict(os.environ, PYGLET_HEADLESS="1")
            t0 = time.perf_counter()
            subprocess.run([sys.executable, str(ROOT / "main.py"), "--screenshot", str(Path(tmp) / f"s{i}.png"),
                            "--frames", "1"], check=True, env=env, cwd=ROOT, capture_output=True)
            walls.append(time.perf_counter() - t0)
    report(f"start to first frame (main.py --screenshot, median of {runs})", statistics.median(walls), "s",
           target="<= 2 s")
