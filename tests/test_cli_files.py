"""main.py and the files it reads and writes: every bad path, special file, failed save or
flag that cannot take effect exits 2 with one line naming the flag, and nothing is lost.

Each case runs main.py as a subprocess under ``tmp_path``; a full disk is simulated by a
``sitecustomize`` shim in the child (every write to a file in one folder fails), never by
touching a real device or file system.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import textwrap
from types import SimpleNamespace

import pytest

from clihelp import ROOT, assert_usage_error, run_main, sitecustomize


@pytest.fixture(scope="module")
def good_replay(tmp_path_factory):
    """A 300-frame replay (P2 CPU) and the folder it is in."""
    d = tmp_path_factory.mktemp("rpl")
    p = run_main(["--headless", "--p2", "cpu", "--frames", "300", "--record", "good.rpl"], cwd=d)
    assert p.returncode == 0, p.stderr
    return d / "good.rpl"


FULL_DISK_SHIM = textwrap.dedent(r'''
    # Test shim: every write to a file inside RB_FULL_DIR fails with errno RB_FULL_ERRNO
    # (creating an empty file still works, as on a full disk with free inodes).
    import builtins, io, os
    _DIR = os.path.realpath(os.environ["RB_FULL_DIR"]) + os.sep
    _ERRNO = int(os.environ["RB_FULL_ERRNO"])
    _open = io.open

    def _path(file):
        try:
            if isinstance(file, int):
                return os.readlink(f"/proc/self/fd/{file}")
            return os.path.realpath(os.fspath(file))
        except (OSError, TypeError):
            return ""

    class _Full:
        def __init__(self, fh):
            self._fh = fh
        def write(self, data):
            raise OSError(_ERRNO, os.strerror(_ERRNO))
        def __getattr__(self, name):
            return getattr(self._fh, name)
        def __enter__(self):
            return self
        def __exit__(self, *exc):
            self._fh.close()

    def _full_open(file, mode="r", *args, **kwargs):
        fh = _open(file, mode, *args, **kwargs)
        if any(c in mode for c in "wax+") and _path(file).startswith(_DIR):
            return _Full(fh)
        return fh

    builtins.open = io.open = _full_open
''')


def full_disk_env(tmp_path, full_dir, err="ENOSPC", tmpdir=None):
    import errno

    shim = sitecustomize(tmp_path, FULL_DISK_SHIM)
    env = {"PYTHONPATH": str(shim), "RB_FULL_DIR": str(full_dir), "RB_FULL_ERRNO": str(getattr(errno, err))}
    if tmpdir is not None:
        env["TMPDIR"] = str(tmpdir)
    return env


# ------------------------------------------------------------------ --screenshot (points 1, 6, 9)
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


def _long_name(tmp_path):
    return "a" * 250 + ".png", ["too long", "shorter name"]


@pytest.mark.parametrize("make", [_not_a_folder, _directory, _fifo, _long_name, lambda d: ("", ["empty path"])])
def test_screenshot_unwritable_path_exits_2_before_the_match(tmp_path, make):
    path, words = make(tmp_path)
    p = run_main(["--screenshot", path, "--frames", "2"], cwd=tmp_path, timeout=30)
    assert_usage_error(p, "--screenshot", *words)
    if path == "pipe.png":
        assert stat.S_ISFIFO(os.stat(tmp_path / path).st_mode)


def test_screenshot_frames_beyond_the_longest_match_exits_2(tmp_path):
    p = run_main(["--screenshot", "x.png", "--frames", "999999999"], cwd=tmp_path, timeout=30)
    assert_usage_error(p, "--frames", "999999999", "19200", "--screenshot")
    assert not (tmp_path / "x.png").exists()


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


# ------------------------------------------------------------------ --record (points 2, 3)
def test_record_refuses_a_fifo_even_with_force(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    p = run_main(["--headless", "--frames", "5", "--record", "pipe", "--force"], cwd=tmp_path, timeout=30)
    assert_usage_error(p, "--record", "pipe", "FIFO")
    assert stat.S_ISFIFO(os.stat(tmp_path / "pipe").st_mode)


@pytest.mark.parametrize("path, words", [
    ("", ["--record", "empty path"]),
    ("a" * 250 + ".rpl", ["--record", "too long", "shorter name"]),
    ("plain/x.rpl", ["--record", "not a folder"]),
])
def test_record_unwritable_path_exits_2_before_the_match(tmp_path, path, words):
    (tmp_path / "plain").write_text("a file")
    p = run_main(["--headless", "--frames", "5", "--record", path], cwd=tmp_path)
    assert_usage_error(p, *words)
    assert p.stdout == ""                                            # the match was not played


def test_record_failed_save_keeps_the_match_in_the_temp_folder(tmp_path):
    out, spare = tmp_path / "out", tmp_path / "spare"
    out.mkdir()
    spare.mkdir()
    (out / "m.rpl").write_bytes(b"the old replay")
    p = run_main(["--headless", "--p2", "cpu", "--frames", "30", "--record", str(out / "m.rpl"), "--force"],
            cwd=tmp_path, env=full_disk_env(tmp_path, out, tmpdir=spare))
    saved = list(spare.iterdir())
    assert len(saved) == 1, saved
    assert_usage_error(p, "--record", str(out / "m.rpl"), "No space left", str(saved[0]))
    assert (out / "m.rpl").read_bytes() == b"the old replay"
    assert [x.name for x in out.iterdir()] == ["m.rpl"]
    check = run_main(["--headless", "--replay", str(saved[0])], cwd=tmp_path)
    assert check.returncode == 0, check.stderr
    assert json.loads(check.stdout)["frames"] == 30 and json.loads(check.stdout)["ok"]


def test_record_failed_save_and_failed_copy_say_the_recording_is_lost(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    p = run_main(["--headless", "--frames", "5", "--record", str(out / "m.rpl")], cwd=tmp_path,
            env=full_disk_env(tmp_path, out, tmpdir=out))
    assert_usage_error(p, "--record", "No space left", "lost")
    assert list(out.iterdir()) == []


def test_record_existing_file_message_names_the_flag(tmp_path):
    (tmp_path / "mine.rpl").write_bytes(b"precious")
    p = run_main(["--headless", "--frames", "5", "--record", "mine.rpl"], cwd=tmp_path)
    assert_usage_error(p, "--record mine.rpl", "add --force to let --record overwrite it")
    assert (tmp_path / "mine.rpl").read_bytes() == b"precious"


def test_window_recording_ends_with_its_match(tmp_path):
    """The window keeps stepping after the match (the result screen): the recording stops
    on the match's last frame, so no replay is longer than the longest match."""
    from game.cli.replay_io import attach_replay_io
    from game.replay import load_replay
    from game.sim import FrameInput

    class FakeMatch:
        frame, over, seed, cpu = 0, False, 0, (None, None)
        last_inputs = (FrameInput(), FrameInput())

        def state_hash(self):
            return f"{self.frame:064x}"

    m = FakeMatch()
    game = SimpleNamespace(match=m, step_listeners=[])
    args = SimpleNamespace(replay_data=None, record=str(tmp_path / "w.rpl"), force=False)
    finish = attach_replay_io(args, game)
    for _ in range(25):
        m.frame += 1
        m.over = m.frame >= 10
        for listener in game.step_listeners:
            listener(m, ())
    finish()
    assert load_replay(tmp_path / "w.rpl").frames == 10


# ------------------------------------------------------------------ --seed (point 4)
def test_seed_of_2_to_the_64_exits_2_naming_the_range(tmp_path):
    p = run_main(["--headless", "--frames", "5", "--seed", str(2**64), "--record", "s.rpl"], cwd=tmp_path)
    assert_usage_error(p, "--seed", "2**64 - 1", str(2**64))
    assert not (tmp_path / "s.rpl").exists()


def test_largest_seed_records_and_replays(tmp_path):
    p = run_main(["--headless", "--frames", "5", "--seed", str(2**64 - 1), "--record", "s.rpl"], cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    q = run_main(["--headless", "--replay", "s.rpl"], cwd=tmp_path)
    assert q.returncode == 0 and json.loads(q.stdout)["final_hash"] == json.loads(p.stdout)["state_hash"]


# ------------------------------------------------------------------ --replay (points 3, 5, 7)
@pytest.mark.parametrize("extra", [["--headless"], []])
def test_replay_fifo_exits_2_without_opening_it(tmp_path, extra):
    os.mkfifo(tmp_path / "pipe.rpl")
    p = run_main([*extra, "--replay", "pipe.rpl"], cwd=tmp_path, timeout=30)
    assert_usage_error(p, "pipe.rpl", "FIFO", "--replay")


def test_replay_larger_than_any_match_exits_2_naming_the_bound(tmp_path):
    sys.path.insert(0, str(ROOT))
    from game.replay import MAX_FILE_SIZE

    with open(tmp_path / "huge.rpl", "wb") as fh:
        fh.truncate(MAX_FILE_SIZE + 1)                                 # sparse: nothing is written
    p = run_main(["--headless", "--replay", "huge.rpl"], cwd=tmp_path)
    assert_usage_error(p, "huge.rpl", f"{MAX_FILE_SIZE + 1:,} bytes", f"at most {MAX_FILE_SIZE:,}", "--record")


@pytest.mark.parametrize("extra", [["--headless"], []])
def test_replay_empty_path_names_the_flag(tmp_path, extra):
    assert_usage_error(run_main([*extra, "--replay", ""], cwd=tmp_path), "--replay", "empty path")


def test_zero_frame_replay_plays_back_in_the_window(tmp_path):
    rec = run_main(["--headless", "--frames", "0", "--record", "z.rpl"], cwd=tmp_path)
    assert rec.returncode == 0, rec.stderr
    shot = run_main(["--replay", "z.rpl", "--screenshot", "z.png"], cwd=tmp_path)
    assert shot.returncode == 0, shot.stderr
    assert (tmp_path / "z.png").read_bytes()[:4] == b"\x89PNG"
    window = run_main(["--replay", "z.rpl"], cwd=tmp_path)
    assert window.returncode == 0, window.stderr
    assert_usage_error(run_main(["--replay", "z.rpl", "--screenshot", "z.png", "--frames", "1"], cwd=tmp_path),
                       "--frames 1", "0 frames", "drop --frames")


@pytest.mark.parametrize("extra", [["--screenshot", "x.png"], ["--headless"], []])
def test_replay_frames_beyond_its_length_exits_2(good_replay, tmp_path, extra):
    p = run_main([*extra, "--replay", str(good_replay), "--frames", "400"], cwd=tmp_path)
    assert_usage_error(p, "--frames 400", "300 frames", "--frames 300")
    assert not (tmp_path / "x.png").exists()


def test_headless_replay_with_frames_checks_only_the_first_frames(good_replay, tmp_path):
    p = run_main(["--headless", "--replay", str(good_replay), "--frames", "90"], cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    ref = run_main(["--headless", "--p2", "cpu", "--frames", "90"], cwd=tmp_path)
    assert out == {"frames": 90, "hashes_checked": 1, "final_hash": json.loads(ref.stdout)["state_hash"],
                   "ok": True, "replay_frames": 300}


# ------------------------------------------------------------------ flags that cannot take effect (point 8)
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


def test_headless_replay_with_screenshot_exits_2(good_replay, tmp_path):
    p = run_main(["--headless", "--replay", str(good_replay), "--screenshot", "x.png"], cwd=tmp_path)
    assert_usage_error(p, "--screenshot", "--headless")
