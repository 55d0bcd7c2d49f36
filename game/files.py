"""Saving a file: what already sits at a path a save would replace, and the save itself
through a temp file in the same folder and a rename (used by main.py, the replay and
scene-file writers, screenshots and the bake tool; imports only the standard library, so
any package may import it)."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

#: :func:`existing_kind`'s answers for a regular file and a directory
REGULAR = "a regular file"
DIRECTORY = "a directory"

_SPECIAL_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                  (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def special_kind(mode: int) -> str:
    """What a non-regular, non-directory ``st_mode`` is, for a message ("a FIFO", ...)."""
    for test, name in _SPECIAL_KINDS:
        if test(mode):
            return name
    return "not a regular file"


def existing_kind(path) -> str | None:
    """What is at ``path``: None if nothing (or a parent is not a folder), :data:`REGULAR`,
    :data:`DIRECTORY`, or a special file's kind ("a FIFO", "a character device", ...) for a
    message "is {kind}".  Any other ``OSError`` of the ``stat`` (permission, name too long) is raised."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISREG(mode):
        return REGULAR
    if stat.S_ISDIR(mode):
        return DIRECTORY
    return special_kind(mode)


def save_target(path) -> Path:
    """The file a save to ``path`` replaces: ``path`` itself, or for a symbolic link the file
    it points to (as a shell's ``>`` writes through a link; the link stays a link)."""
    return Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)


def make_temp(path) -> tuple[int, str]:
    """Create the temp file :func:`write_atomic` writes ``path`` through: ``(fd, temp path)``,
    in the folder of ``save_target(path)``, named ``NAME.XXXXXXXX.tmp`` (13 characters longer
    than NAME)."""
    path = save_target(path)
    return tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)


def check_writable(path) -> None:
    """Create and remove the temp file a save to ``path`` would use; raise the ``OSError`` if
    that fails (no such folder, read-only, name too long, no space left, ...)."""
    fd, tmp = make_temp(path)
    os.close(fd)
    os.unlink(tmp)


def write_atomic(path, data: bytes, *, force: bool = False) -> None:
    """Write ``data`` to ``path`` via a temp file in the same folder and a rename,
    so a crash never leaves half a file.  An existing file needs ``force``; an existing
    directory, FIFO, device or socket is never replaced (``FileExistsError``).  A symbolic
    link is written through: the file it points to is replaced (:func:`save_target`)."""
    path = save_target(path)
    kind = existing_kind(path)
    if kind not in (None, REGULAR):
        raise FileExistsError(f"{path}: is {kind}, not a regular file; give a file name")
    if kind is not None and not force:
        raise FileExistsError(f"{path}: already exists; pass --force with --record to overwrite it")
    fd, tmp = make_temp(path)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)             # mkstemp makes 0600; a normal file follows the umask
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
