"""``--screenshot``: the PNG is written whole (a failed write keeps the old one), an unwritable
path is refused before the match, and the picture is the frame asked for, the match's last at
most."""

from __future__ import annotations

import json
import os
import stat

import pytest

from clihelp import ROOT, assert_usage_error, full_disk_env, run_main


# ------------------------------------------------------------------ --screenshot (points 1, 6, 9)
@pytest.mark.slow
@pytest.mark.parametrize("err, words", [("ENOSPC", "No space left"), ("EIO", "Input/output error")])
def test_screenshot_failed_write_keeps_the_old_png_and_exits_2(tmp_path, err, words):
    out = tmp_path / "out"
    out.mkdir()
    png = out / "shot.png"
    png.write_bytes(b"the old screenshot")
    p = run_main(["--screenshot", str(png), "--frames", "2"], cwd=tmp_path, env=full_disk_env(tmp_path, out, err))
    assert_usage_error(p, "--screenshot", str(png), words, "unchanged")
    assert png.read_bytes() == b"the old screenshot"
    assert [x.name for x in out.iterdir()] == ["shot.png"]           # no temp file left behind


@pytest.mark.slow
@pytest.mark.gl  # the --screenshot run renders
def test_screenshot_replaces_an_existing_png_whole(tmp_path):
    png = tmp_path / "shot.png"
    png.write_bytes(b"the old screenshot")
    p = run_main(["--screenshot", "shot.png", "--frames", "2"], cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [x.name for x in tmp_path.iterdir()] == ["shot.png"]


def _not_a_folder(tmp_path):
    (tmp_path / "plain").write_text("a file")
    return "plain/x.png", ["not a folder"]


def _directory(tmp_path):
    (tmp_path / "some_dir.png").mkdir()
    return "some_dir.png", ["is a directory"]


def _fifo(tmp_path):
    os.mkfifo(tmp_path / "pipe.png")
    return "pipe.png", ["FIFO", "not a regular file"]


def _missing_folder(tmp_path):
    return "missing/x.png", ["does not exist"]


def _long_name(tmp_path):
    return "a" * 250 + ".png", ["too long", "shorter name"]


@pytest.mark.slow
@pytest.mark.parametrize("make", [_not_a_folder, _missing_folder, _directory, _fifo, _long_name,
                                  lambda d: ("", ["empty path"])])
def test_screenshot_unwritable_path_exits_2_before_the_match(tmp_path, make):
    path, words = make(tmp_path)
    p = run_main(["--screenshot", path, "--frames", "2"], cwd=tmp_path, timeout=30)
    assert_usage_error(p, "--screenshot", *words)
    if path == "pipe.png":
        assert stat.S_ISFIFO(os.stat(tmp_path / path).st_mode)


@pytest.mark.slow
def test_screenshot_frames_beyond_the_longest_match_exits_2(tmp_path):
    p = run_main(["--screenshot", "x.png", "--frames", "999999999"], cwd=tmp_path, timeout=30)
    assert_usage_error(p, "--frames", "999999999", "19200", "--screenshot")
    assert not (tmp_path / "x.png").exists()


@pytest.mark.slow
@pytest.mark.gl  # the --screenshot run renders
def test_screenshot_stops_stepping_at_the_end_of_the_match(tmp_path):
    """Attract mode would start a new match after the end: the screenshot shows the last frame
    of the first one (the recording made alongside ends on the headless run's last frame)."""
    match = ["--p1", "cpu", "--p2", "cpu", "--level", "hard", "--seed", "0"]
    head = run_main(["--headless", *match], cwd=tmp_path)
    assert head.returncode == 0, head.stderr
    end = json.loads(head.stdout)["frames"]
    assert end < 19200
    p = run_main(["--screenshot", "end.png", "--frames", "19200", "--record", "end.rpl", *match], cwd=tmp_path,
            timeout=120)
    assert p.returncode == 0, p.stderr
    check = run_main(["--headless", "--replay", "end.rpl"], cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    assert json.loads(check.stdout)["frames"] == end
    assert json.loads(check.stdout)["final_hash"] == json.loads(head.stdout)["state_hash"]




@pytest.mark.gl  # the --screenshot run renders
def test_render_cli_screenshot_writes_the_png(tmp_path):
    path = tmp_path / "shot.png"
    out = run_main(["--screenshot", str(path), "--frames", "40", "--debug", "--p1", "cpu", "--p2", "cpu"], cwd=ROOT)
    if out.returncode == 2 and "not found" in out.stderr:
        pytest.skip(f"no GL libraries here: {out.stderr.strip()}")
    assert out.returncode == 0, out.stderr
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000
    import struct
    w, h = struct.unpack(">II", data[16:24])
    assert (w, h) == (1280, 720)
