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
                          env=env, cwd=ROOT, timeout=60)


def test_render_cli_no_display_exits_2_naming_the_fix():
    out = _run([], drop=("DISPLAY", "WAYLAND_DISPLAY", "PYGLET_HEADLESS"))
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "no display" in lines[0] and "--screenshot" in lines[0] and "PYGLET_HEADLESS=1" in lines[0]


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
