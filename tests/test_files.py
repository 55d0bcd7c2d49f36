"""``game.files`` (what sits at a path a save would replace), checked directly on real
filesystem objects of every kind, and a save through a symbolic link."""

from __future__ import annotations

import errno
import os
import socket
import stat

import pytest

from game.files import DIRECTORY, REGULAR, existing_kind, special_kind


def test_existing_kind_of_every_kind_of_path(tmp_path):
    (tmp_path / "f").write_bytes(b"x")
    (tmp_path / "d").mkdir()
    os.mkfifo(tmp_path / "p")
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind(str(tmp_path / "s"))
        kinds = {name: existing_kind(tmp_path / name) for name in ("f", "d", "p", "s", "none")}
    finally:
        s.close()
    assert kinds == {"f": REGULAR, "d": DIRECTORY, "p": "a FIFO", "s": "a socket", "none": None}
    assert existing_kind(tmp_path / "f" / "below") is None          # a parent that is not a folder
    assert existing_kind("/dev/null") == "a character device"


def test_existing_kind_raises_other_stat_errors(tmp_path):
    with pytest.raises(OSError) as ei:
        existing_kind(tmp_path / ("n" * 300))
    assert ei.value.errno == errno.ENAMETOOLONG


@pytest.mark.parametrize("mode, kind", [(stat.S_IFIFO, "a FIFO"), (stat.S_IFCHR, "a character device"),
                                        (stat.S_IFBLK, "a block device"), (stat.S_IFSOCK, "a socket"),
                                        (0, "not a regular file")])
def test_special_kind_names_each_file_type(mode, kind):
    assert special_kind(mode | 0o644) == kind


def test_save_through_a_symbolic_link_replaces_its_target_and_keeps_the_link(tmp_path):
    """``--record link --force`` with ``link`` a symlink: the file it points to gets the new
    bytes and the link stays a link (not replaced by a regular file, the target left stale); a
    dangling link creates its target."""
    from game.files import check_writable, write_atomic

    target = tmp_path / "real" / "match.rpl"
    target.parent.mkdir()
    target.write_bytes(b"old")
    link = tmp_path / "link.rpl"
    link.symlink_to(target)
    check_writable(link)
    write_atomic(link, b"new", force=True)
    assert link.is_symlink() and target.read_bytes() == b"new"
    assert sorted(p.name for p in target.parent.iterdir()) == ["match.rpl"]     # no temp file left
    dangling = tmp_path / "dangling.rpl"
    dangling.symlink_to(tmp_path / "real" / "fresh.rpl")
    write_atomic(dangling, b"first")
    assert dangling.is_symlink() and (tmp_path / "real" / "fresh.rpl").read_bytes() == b"first"
