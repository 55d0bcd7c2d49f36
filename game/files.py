"""What already sits at a path a save would replace (used by main.py, the replay and scene-file
writers and the bake tool; imports only the standard library, so any package may import it)."""

from __future__ import annotations

import os
import stat

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
