"""main.py's flags and values: a bad one, or one that cannot take effect with the others, exits
2 with one stderr line naming the flag and the fix, before any match is played."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from clihelp import ROOT, assert_usage_error, run_main


# ------------------------------------------------------------------ flags and values
@pytest.mark.slow
@pytest.mark.parametrize("args, words", [
    (["--bogus"], ["--bogus"]),
    (["--headless", "extra"], ["extra"]),
    (["--seed", "abc"], ["--seed", "'abc'"]),
    (["--seed", "-3"], ["--seed", "0 or more"]),
    (["--headless", "--seed", str(2**64)], ["--seed", "2**64 - 1"]),
    (["--frames", "1.5"], ["--frames", "whole number"]),
    (["--headless", "--frames", "ten"], ["--frames", "'ten'"]),
    (["--p1", "robot"], ["--p1", "robot", "human"]),
    (["--p2", "ghost"], ["--p2", "ghost"]),
    (["--level", "insane"], ["--level", "insane", "hard"]),
    (["--record"], ["--record", "expected one argument"]),
    (["--replay"], ["--replay"]),
    (["--headless", "--force"], ["--force", "--record"]),
    (["--headless", "--record", "a.rpl", "--replay", "b.rpl"], ["--record", "--replay"]),
    (["--headless", "--record", "no/such/dir/a.rpl"], ["--record", "does not exist"]),
    (["--headless", "--record", "."], ["--record", "directory"]),
    (["--screenshot", "shot.jpg"], ["--screenshot", ".png"]),
])
def test_bad_flag_or_value(args, words, tmp_path):
    assert_usage_error(run_main(args, cwd=tmp_path), *words)


@pytest.mark.slow
@pytest.mark.parametrize("extra", [["--seed", "0"], ["--p1", "cpu"], ["--level", "hard", "--p2", "human"]])
def test_replay_refuses_match_settings_it_would_ignore(tmp_path, extra):
    rec = tmp_path / "r.rpl"
    ok = run_main(["--headless", "--frames", "30", "--record", str(rec)])
    assert ok.returncode == 0, ok.stderr
    p = run_main(["--headless", "--replay", str(rec), *extra])
    assert_usage_error(p, "--replay", extra[0])


@pytest.fixture(scope="module")
def good_replay(tmp_path_factory):
    """A 300-frame replay (P2 CPU) and the folder it is in."""
    d = tmp_path_factory.mktemp("rpl")
    p = run_main(["--headless", "--p2", "cpu", "--frames", "300", "--record", "good.rpl"], cwd=d)
    assert p.returncode == 0, p.stderr
    return d / "good.rpl"


# ------------------------------------------------------------------ --seed (point 4)
@pytest.mark.slow
def test_seed_of_2_to_the_64_exits_2_naming_the_range(tmp_path):
    p = run_main(["--headless", "--frames", "5", "--seed", str(2**64), "--record", "s.rpl"], cwd=tmp_path)
    assert_usage_error(p, "--seed", "2**64 - 1", str(2**64))
    assert not (tmp_path / "s.rpl").exists()


# ------------------------------------------------------------------ flags that cannot take effect (point 8)
@pytest.mark.slow
@pytest.mark.parametrize("args, words", [
    (["--headless", "--screenshot", "x.png"], ["--screenshot", "--headless", "drop --headless"]),
    (["--headless", "--training"], ["--training", "--headless"]),
    (["--headless", "--debug"], ["--debug", "--headless"]),
    (["--headless", "--fullscreen"], ["--fullscreen", "--headless"]),
    (["--headless", "--fps"], ["--fps", "--headless"]),
    (["--screenshot", "x.png", "--fullscreen"], ["--fullscreen", "--screenshot"]),
])
def test_flag_that_cannot_take_effect_exits_2_naming_both(tmp_path, args, words):
    p = run_main([*args, "--frames", "5"], cwd=tmp_path)
    assert_usage_error(p, *words)
    assert not (tmp_path / "x.png").exists()


@pytest.mark.slow
def test_headless_replay_with_screenshot_exits_2(good_replay, tmp_path):
    p = run_main(["--headless", "--replay", str(good_replay), "--screenshot", "x.png"], cwd=tmp_path)
    assert_usage_error(p, "--screenshot", "--headless")


@pytest.mark.slow
@pytest.mark.parametrize("args", [
    ["--headless", "--frames", "5", "--p2", "human", "--level", "hard"],
    ["--headless", "--frames", "5", "--p1", "human", "--p2", "human", "--level", "easy"],
])
def test_level_without_a_cpu_side_exits_2(args, tmp_path):
    p = run_main(args)
    assert_usage_error(p, "--level", "cpu")


@pytest.mark.slow
@pytest.mark.parametrize("force", [[], ["--force"]])
def test_screenshot_and_record_to_the_same_file_exits_2(force, tmp_path):
    """--screenshot shot.png --record shot.png: the replay would overwrite the PNG (with
    --force) or fail at the end and land in the temp folder; refused before the match."""
    p = subprocess.run([sys.executable, str(ROOT / "main.py"), "--screenshot", "shot.png", "--record",
                        "./shot.png", "--frames", "5", *force], cwd=tmp_path, capture_output=True, text=True,
                       timeout=120, check=False, env=dict(os.environ, PYGLET_HEADLESS="1"))
    assert_usage_error(p, "--screenshot shot.png", "--record ./shot.png", "same file")
    assert not (tmp_path / "shot.png").exists()


@pytest.mark.slow
@pytest.mark.gl  # main.py loads GL before it refuses
@pytest.mark.parametrize("args", [[], ["--p1", "cpu", "--p2", "cpu"], ["--record", "x.rpl"]])
def test_invisible_window_that_would_never_end_exits_2(args, tmp_path):
    """PYGLET_HEADLESS=1 (which the no-display message suggests) gives a window no one can
    see or press a key in: without --frames (or a replay, which ends) the game would run
    forever, holding the terminal.  It must say so and name the ways out."""
    e = dict(os.environ, PYGLET_HEADLESS="1")
    e.pop("DISPLAY", None)
    try:
        p = subprocess.run([sys.executable, str(ROOT / "main.py"), *args], env=e, cwd=tmp_path,
                           capture_output=True, text=True, timeout=60, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"main.py {' '.join(args)} under PYGLET_HEADLESS=1 never ended")
    if p.returncode == 2 and "not found" in p.stderr:
        pytest.skip(f"no GL libraries here: {p.stderr.strip()}")
    assert_usage_error(p, "PYGLET_HEADLESS", "--frames", "--headless")
    assert not (tmp_path / "x.rpl").exists()




