"""A recorded match in a real window (a virtual X server, Xvfb) ended from outside: a signal to
the game, or the X server killed mid-match (issue #33, point 2).  Each saves a replay of the
frames played that verifies, says so in one line, and exits with the README's status (143
SIGTERM, 130 SIGINT, 129 SIGHUP, 131 SIGQUIT, 69 the display lost; Xlib's own handler would
print "X connection ... broken" and exit 1 with nothing saved).

Each test starts its own Xvfb on a display number the server picks (``-displayfd``), and is
skipped where Xvfb is not installed.  The game runs attract mode (both sides CPU, so the match
starts at once) through ``interrupted_child.py``, which marks when the window loop has stepped
60 frames; the test acts a seeded random moment after that."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

CHILD = Path(__file__).with_name("interrupted_child.py")

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("Xvfb") is None,
                                                   reason="Xvfb is not installed (apt-get install xvfb)")]


@pytest.fixture
def xvfb():
    """A fresh Xvfb: ``(process, ":N")``; killed at the end if the test has not."""
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x720x24", "-nolisten", "tcp"],
                              pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as fh:
        number = fh.readline().strip()
    if not number:
        server.kill()
        pytest.fail("Xvfb did not report its display number")
    yield server, f":{number}"
    if server.poll() is None:
        server.terminate()
        server.wait(timeout=30)


def _wait_for_play(game: subprocess.Popen, marks: Path, timeout: float = 240) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if marks.exists() and "play " in marks.read_text():
            return
        if game.poll() is not None:
            pytest.fail(f"the game ended before its match: {game.communicate()[1][-2000:]}")
        time.sleep(0.05)
    game.kill()
    pytest.fail("the window loop did not step 60 frames in time")


def _run_and_end(tmp_path: Path, xvfb, seed: int, end) -> tuple[subprocess.CompletedProcess, Path]:
    """Start the recorded attract-mode game on ``xvfb``, call ``end(game)`` a random moment into
    its match, and return its result and the replay's path."""
    server, display = xvfb
    env = dict(os.environ, DISPLAY=display)
    env.pop("PYGLET_HEADLESS", None)
    game = subprocess.Popen([sys.executable, str(CHILD), str(tmp_path / "marks"), "0", "--p1", "cpu", "--p2", "cpu",
                             "--record", "w.rpl", "--mute"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_play(game, tmp_path / "marks")
        time.sleep(random.Random(seed).uniform(0.0, 1.5))
        end(game)
        out, err = game.communicate(timeout=120)
    finally:
        if game.poll() is None:
            game.kill()
            game.wait()
    return subprocess.CompletedProcess(game.args, game.returncode, out, err), tmp_path / "w.rpl"


def _assert_verified(path: Path, at_least: int) -> int:
    from game.replay import load_replay, play_replay

    replay = load_replay(path)
    assert replay.frames >= at_least
    out = play_replay(replay)
    assert out["ok"] and out["frames"] == replay.frames
    return replay.frames


@pytest.mark.parametrize("sig, words", [
    (signal.SIGTERM, "stopped by SIGTERM"),
    (signal.SIGINT, "interrupted (SIGINT)"),
    (signal.SIGHUP, "the terminal hung up (SIGHUP)"),
    (signal.SIGQUIT, "quit by SIGQUIT"),
])
def test_a_signal_to_the_windowed_game_saves_the_match(tmp_path, xvfb, sig, words, sighup_default):
    p, path = _run_and_end(tmp_path, xvfb, int(sig), lambda game: game.send_signal(sig))
    assert p.returncode == 128 + sig, p.stderr[-2000:]
    frames = _assert_verified(path, 60)
    last = p.stderr.strip().splitlines()[-1]
    assert last == f"main.py: {words}; --record: match 1 saved to w.rpl ({frames} frames)", p.stderr


def test_the_x_server_killed_mid_match_saves_the_match(tmp_path, xvfb):
    server, _display = xvfb

    def kill_the_display(game: subprocess.Popen) -> None:
        server.kill()
        server.wait(timeout=30)
    p, path = _run_and_end(tmp_path, xvfb, 69, kill_the_display)
    assert p.returncode == 69, p.stderr[-2000:]
    frames = _assert_verified(path, 60)
    assert "X connection" not in p.stderr and "Traceback" not in p.stderr, p.stderr
    last = p.stderr.strip().splitlines()[-1]
    assert last == f"main.py: the connection to the display was lost; --record: match 1 saved to w.rpl " \
                   f"({frames} frames)", p.stderr
