"""``--replay`` in the window loop (game/cli/window.py): the viewer's speed reaches the loop's
accumulator, so fast forward runs more steps per displayed frame and slow motion fewer, and
a headless window ends with the replay (exit 0).

A child process runs ``run_window`` with pyglet's event loop replaced by one that draws 80
frames on a fake clock of exactly 1/60 s a frame, pressing F, then F, then S on the way.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, os, sys, types
sys.path.insert(0, {root!r})
os.environ["PYGLET_HEADLESS"] = "1"
from game.sim import Match
from game.replay import ReplayRecorder
m = Match.new(seed=5, p1_cpu="easy", p2_cpu="easy")
rec = ReplayRecorder.for_match(m)
while m.frame < 300:
    m.step()
    rec.record(m)
rec.save({path!r}, force=True)
import game.cli.window as window_mod
from game.cli.parser import apply_defaults, build_parser
from game.cli.replay_io import prepare_window_replay
from game.render.boot import load_pyglet
pyglet = load_pyglet(True)
from pyglet.window import key
clock = [0.0]
window_mod.time = types.SimpleNamespace(perf_counter=lambda: clock[0])
opened = {{}}
real_open = window_mod.open_game
def open_game(*a, **k):
    opened["pyglet"], opened["window"], opened["game"] = out = real_open(*a, **k)
    return out
window_mod.open_game = open_game
steps = []
def run(*a, **k):
    w, g = opened["window"], opened["game"]
    for i in range(80):
        if i in (20, 40, 60):
            w.dispatch_event("on_key_press", key.S if i == 60 else key.F, 0)
            w.dispatch_events()
        before = g.match.frame
        clock[0] += 1 / 60
        w.dispatch_event("on_draw")
        w.dispatch_events()
        steps.append(g.match.frame - before)
    w.dispatch_event("on_key_press", key.F, 0)      # 2x to the end
    while not g.quit and len(steps) < 2000:
        clock[0] += 1 / 60
        w.dispatch_event("on_draw")
        w.dispatch_events()
    steps.append(g.match.frame)
pyglet.app.run = run
args = build_parser().parse_args(["--replay", {path!r}])
apply_defaults(args)
prepare_window_replay(args)
status = window_mod.run_window(args)
print(json.dumps({{"steps": steps, "status": status}}))
"""


@pytest.mark.gl
@pytest.mark.slow
def test_replay_speed_reaches_the_window_loop_and_a_headless_window_ends_with_it(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE.format(root=str(ROOT), path=str(tmp_path / "r.rpl")))
    out = subprocess.run([sys.executable, str(probe)], capture_output=True, text=True, cwd=ROOT, timeout=300,
                         env=dict(os.environ, PYGLET_HEADLESS="1"), check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    steps = seen["steps"]
    # steps per displayed frame at 1x, 2x (F), 4x (F again) and half speed (S), 20 frames each
    # (the clock's float sums put a step on the frame before or after now and then)
    for k, speed in enumerate((1, 2, 4, 0.5)):
        run = steps[20 * k:20 * k + 20]
        assert abs(sum(run) - 20 * speed) <= 1 and max(run) <= max(speed, 1) + 1, (speed, run)
    assert steps[20:40].count(2) >= 16 and steps[40:60].count(4) >= 16, steps
    assert steps[80] == 300 and seen["status"] == 0
