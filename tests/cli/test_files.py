"""main.py and the files it saves and reads: ``--record`` never overwrites without ``--force``,
refuses a FIFO, a folder or an unwritable path before the match, and loses nothing when the
save fails (the replay is kept in the temp folder); ``--replay`` refuses a FIFO, an empty path
and a file larger than any match.  A full disk is a ``sitecustomize`` shim in the child (every
write to a file in one folder fails), never a real device."""

from __future__ import annotations

import json
import os
import stat
import sys

import pytest

from clihelp import ROOT, assert_usage_error, full_disk_env, run_main


@pytest.mark.slow
def test_record_never_overwrites_without_force(tmp_path):
    (tmp_path / "mine.rpl").write_bytes(b"precious")
    p = run_main(["--headless", "--frames", "30", "--record", "mine.rpl"], cwd=tmp_path)
    assert_usage_error(p, "--record mine.rpl", "add --force to let --record overwrite it")
    assert (tmp_path / "mine.rpl").read_bytes() == b"precious"
    q = run_main(["--headless", "--frames", "30", "--record", "mine.rpl", "--force"], cwd=tmp_path)
    assert q.returncode == 0 and (tmp_path / "mine.rpl").read_bytes()[:4] == b"RBXR"


# ------------------------------------------------------------------ --record (points 2, 3)
@pytest.mark.slow
def test_record_refuses_a_fifo_even_with_force(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    p = run_main(["--headless", "--frames", "5", "--record", "pipe", "--force"], cwd=tmp_path, timeout=30)
    assert_usage_error(p, "--record", "pipe", "FIFO")
    assert stat.S_ISFIFO(os.stat(tmp_path / "pipe").st_mode)


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_record_failed_save_and_failed_copy_say_the_recording_is_lost(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    p = run_main(["--headless", "--frames", "5", "--record", str(out / "m.rpl")], cwd=tmp_path,
            env=full_disk_env(tmp_path, out, tmpdir=out))
    assert_usage_error(p, "--record", "No space left", "lost")
    assert list(out.iterdir()) == []


# ------------------------------------------------------------------ --replay (points 3, 5, 7)
@pytest.mark.slow
@pytest.mark.parametrize("extra", [["--headless"], []])
def test_replay_fifo_exits_2_without_opening_it(tmp_path, extra):
    os.mkfifo(tmp_path / "pipe.rpl")
    p = run_main([*extra, "--replay", "pipe.rpl"], cwd=tmp_path, timeout=30)
    assert_usage_error(p, "pipe.rpl", "FIFO", "--replay")


@pytest.mark.slow
def test_replay_larger_than_any_match_exits_2_naming_the_bound(tmp_path):
    sys.path.insert(0, str(ROOT))
    from game.replay import MAX_FILE_SIZE

    with open(tmp_path / "huge.rpl", "wb") as fh:
        fh.truncate(MAX_FILE_SIZE + 1)                                 # sparse: nothing is written
    p = run_main(["--headless", "--replay", "huge.rpl"], cwd=tmp_path)
    assert_usage_error(p, "huge.rpl", f"{MAX_FILE_SIZE + 1:,} bytes", f"at most {MAX_FILE_SIZE:,}", "--record")


@pytest.mark.slow
@pytest.mark.parametrize("extra", [["--headless"], []])
def test_replay_empty_path_names_the_flag(tmp_path, extra):
    assert_usage_error(run_main([*extra, "--replay", ""], cwd=tmp_path), "--replay", "empty path")
