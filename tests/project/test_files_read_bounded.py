"""``game.files.read_bounded``, the one way the game reads a file, on real filesystem objects of
every kind: what it refuses (unread, without blocking), with which reason, and that the cap
holds both against ``st_size`` and while reading."""

from __future__ import annotations

import errno
import os
import socket
import threading

import pytest

from game import files
from game.files import read_bounded


@pytest.fixture
def kinds(tmp_path):
    """A folder holding one path of each kind a reader may be handed."""
    (tmp_path / "file").write_bytes(b"0123456789")
    (tmp_path / "dir").mkdir()
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "loop_a").symlink_to(tmp_path / "loop_b")
    (tmp_path / "loop_b").symlink_to(tmp_path / "loop_a")
    (tmp_path / "link").symlink_to(tmp_path / "file")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    yield tmp_path
    sock.close()


def _refusal(path, cap=1 << 20) -> files.FileUnusable:
    with pytest.raises(files.FileUnusable) as info:
        read_bounded(path, "a test file", cap)
    assert "\n" not in str(info.value) and str(info.value).startswith(f"{path}: ")
    return info.value


def test_a_regular_file_and_a_link_to_one_are_read_whole(kinds):
    assert read_bounded(kinds / "file", "a test file", 10) == b"0123456789"
    assert read_bounded(kinds / "link", "a test file", 10) == b"0123456789"
    assert read_bounded(str(kinds / "file"), "a test file", 100) == b"0123456789"


@pytest.mark.parametrize("name, kind", [("dir", files.DIRECTORY), ("fifo", "a FIFO"), ("sock", "a socket"),
                                        ("loop_a", files.LINK_LOOP)])
def test_a_path_that_is_not_a_regular_file_is_refused_unread(kinds, name, kind):
    exc = _refusal(kinds / name)
    assert exc.reason == files.NOT_REGULAR and exc.kind == kind
    assert kind in str(exc)


def test_a_character_device_is_refused_before_it_is_opened():
    exc = _refusal("/dev/zero")              # would never end if read
    assert exc.reason == files.NOT_REGULAR and exc.kind == "a character device"


def test_missing_paths_say_not_found(kinds):
    exc = _refusal(kinds / "none")
    assert exc.reason == files.MISSING and "file not found" in str(exc)
    exc = _refusal(kinds / "file" / "below")                 # a parent that is a file
    assert exc.reason == files.MISSING and "a part of the path is a file" in str(exc)
    exc = _refusal(f"{kinds / 'file'}/")                     # a file named as a folder
    assert exc.reason == files.MISSING and "names a folder" in str(exc)
    assert _refusal(f"{kinds / 'dir'}/").kind == files.DIRECTORY
    assert _refusal(str(kinds / "a\0b")).reason == files.MISSING


def test_a_file_over_the_cap_is_refused_from_its_size_without_reading_it(kinds, monkeypatch):
    big = kinds / "big"
    with open(big, "wb") as fh:
        fh.truncate(10 << 30)                                # sparse: 10 GB that take no space
    monkeypatch.setattr(os, "open", lambda *a, **k: pytest.fail("a file over the cap was opened"))
    exc = _refusal(big, cap=1000)
    assert exc.reason == files.TOO_LARGE and exc.size == 10 << 30 and exc.cap == 1000 and not exc.grew
    assert "10,737,418,240 bytes" in str(exc) and "at most 1,000 bytes" in str(exc)


def test_the_cap_holds_while_reading_a_file_larger_than_its_size_says():
    # /proc files report st_size 0 and hold more: the read must stop one byte past the cap
    exc = _refusal("/proc/self/status", cap=16)
    assert exc.reason == files.TOO_LARGE and exc.grew and exc.size == 17
    assert b"Name:" in read_bounded("/proc/self/status", "a test file", 1 << 20)


def test_a_fifo_swapped_in_after_the_stat_is_refused_without_blocking(kinds, monkeypatch):
    """The race the non-blocking open is for: the stat saw a regular file, the open gets a FIFO."""
    real_stat = os.stat
    monkeypatch.setattr(files, "check_regular", lambda path, what, cap: real_stat(kinds / "file"))
    result: list = []
    worker = threading.Thread(target=lambda: result.append(_refusal(kinds / "fifo")), daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), "read_bounded blocked on a FIFO"
    assert result[0].reason == files.NOT_REGULAR and result[0].kind == "a FIFO"


@pytest.mark.parametrize("err, reason", [(errno.EACCES, files.PERMISSION), (errno.EPERM, files.PERMISSION),
                                         (errno.EIO, files.UNREADABLE)])
def test_an_open_that_fails_gets_its_own_reason(kinds, monkeypatch, err, reason):
    """Root reads every file whatever its mode, so a permission error is made by the open."""
    def denied(path, flags, *args):
        raise OSError(err, os.strerror(err), str(path))
    monkeypatch.setattr(os, "open", denied)
    exc = _refusal(kinds / "file")
    assert exc.reason == reason and os.strerror(err) in str(exc)


@pytest.mark.parametrize("path, folder", [("k/", True), ("k/.", True), ("k/..", True), (".", True), ("/", True),
                                          ("k", False), ("a/k", False), ("k.rpl", False), ("", False)])
def test_names_a_folder(path, folder):
    assert files.names_a_folder(path) is folder
