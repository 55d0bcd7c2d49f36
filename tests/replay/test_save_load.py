"""Saving and loading replay files: atomic writes that never overwrite without force nor replace
a FIFO, nothing left by a failed write, the umask followed, and loads that refuse a FIFO or a
folder without opening it."""

from __future__ import annotations

import errno
import os
import stat

import pytest

# ------------------------------------------------------------------ RLE vs a per-frame reference
from game import files
from game import replay as rp
from game.replay import (
    ReplayError,
    ReplayRecorder,
    decode,
)


def test_load_replay_refuses_a_directory(tmp_path):
    with pytest.raises(ReplayError, match="is a directory"):
        rp.load_replay(tmp_path)


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_saved_replay_follows_the_umask_like_any_new_file(tmp_path, umask):
    old = os.umask(umask)
    try:
        ReplayRecorder(0, (None, None)).save(tmp_path / "a.rpl")
        (tmp_path / "plain").write_bytes(b"")
    finally:
        os.umask(old)
    mode = os.stat(tmp_path / "a.rpl").st_mode & 0o777
    assert mode == os.stat(tmp_path / "plain").st_mode & 0o777 == 0o666 & ~umask


def test_atomic_write_never_overwrites_without_force(tmp_path):
    p = tmp_path / "a.rpl"
    p.write_bytes(b"mine")
    rec = ReplayRecorder(0, (None, None))
    with pytest.raises(FileExistsError, match="--force with --record"):
        rec.save(p)
    assert p.read_bytes() == b"mine"
    rec.save(p, force=True)
    assert decode(p.read_bytes()).frames == 0
    assert [x.name for x in tmp_path.iterdir()] == ["a.rpl"]       # no temp file left behind


def test_failed_write_leaves_nothing(tmp_path, monkeypatch):
    p = tmp_path / "b.rpl"

    def boom(*a):
        raise OSError("disk full")
    monkeypatch.setattr(files.os, "replace", boom)
    with pytest.raises(OSError):
        files.write_atomic(p, b"data")
    assert list(tmp_path.iterdir()) == []


def test_atomic_write_never_replaces_a_fifo_even_with_force(tmp_path):
    p = tmp_path / "pipe"
    os.mkfifo(p)
    with pytest.raises(FileExistsError, match="FIFO"):
        files.write_atomic(p, b"data", force=True)
    assert stat.S_ISFIFO(os.stat(p).st_mode)
    assert [x.name for x in tmp_path.iterdir()] == ["pipe"]


def test_check_writable_creates_and_removes_the_save_temp_file(tmp_path):
    files.check_writable(tmp_path / "a.rpl")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(OSError) as ei:
        files.check_writable(tmp_path / ("a" * 250 + ".rpl"))     # the temp name adds 13 characters
    assert ei.value.errno == errno.ENAMETOOLONG


def test_load_replay_refuses_a_fifo_without_opening_it(tmp_path):
    os.mkfifo(tmp_path / "pipe.rpl")
    with pytest.raises(ReplayError, match="FIFO.*--replay"):
        rp.load_replay(tmp_path / "pipe.rpl")            # would block forever in open()
