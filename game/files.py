"""Saving a file, and reading a file the game needs without hanging or filling the memory.

Two jobs, both standard library only (so any package may import this module):

* a save: :func:`existing_kind` says what a save would replace (used by the CLI's up-front
  checks, the replay and scene-file writers and the bake tool), and :func:`write_atomic`
  saves through a temp file in the same folder and a rename, so a crash never leaves half
  a file;
* a read: :func:`read_bounded` is how every file the game reads is read (asset JSON, the
  arena description and its ``.obj`` meshes, the two scene files, replays, shaders).  The
  path is checked with ``stat`` before it is opened: a directory, FIFO, device, socket or
  symbolic-link loop is refused unread (a FIFO would block forever, ``/dev/zero`` would never
  end), and so is a file over the reader's size cap.  The open is non-blocking and its
  ``fstat`` is checked again (something swapped in after the ``stat``), and the read stops
  one byte past the cap (a file that grows while it is read).  Each problem raises
  :class:`FileUnusable` with a ``reason``; each reader turns it into its own error class
  with its own fix (a missing scene file: re-bake; an unreadable one: its permissions).
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

#: :func:`existing_kind`'s answers for a regular file and a directory
REGULAR = "a regular file"
DIRECTORY = "a directory"

_SPECIAL_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                  (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))

#: :attr:`FileUnusable.kind` of a symbolic link that (through others) points back at itself
LINK_LOOP = "a symbolic link loop"

#: :attr:`FileUnusable.reason` values: nothing at the path (or a parent is not a folder) ...
MISSING = "missing"
#: ... the file is there but may not be read (its permissions, or a folder's on the way) ...
PERMISSION = "permission"
#: ... a directory, FIFO, device or socket, or a symbolic link that loops ...
NOT_REGULAR = "not regular"
#: ... more bytes than the reader's cap ...
TOO_LARGE = "too large"
#: ... any other error of the system (an I/O error, a name too long).
UNREADABLE = "unreadable"

#: Bytes asked of the system per read past the size ``stat`` gave (a file that grows).
_CHUNK = 1 << 16


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


def names_a_folder(path) -> bool:
    """True when ``path`` ends as only a folder's name can: in a separator, ``.`` or ``..``
    (``k/``, ``k/.``).  A shell refuses to write a file there; ``pathlib`` and ``abspath``
    would silently drop the ending and name ``k`` itself."""
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    return text != "" and os.path.basename(text) in ("", ".", "..")


class FileUnusable(Exception):
    """A path that cannot be read as the file a reader needs.

    ``reason`` is one of :data:`MISSING`, :data:`PERMISSION`, :data:`NOT_REGULAR`,
    :data:`TOO_LARGE`, :data:`UNREADABLE`; ``detail`` says what is wrong, and ``str(exc)`` is
    ``"<path>: <detail>"``, for the reader to end with its own fix.  ``kind`` is what is there
    for :data:`NOT_REGULAR` (:data:`DIRECTORY`, "a FIFO", ..., :data:`LINK_LOOP`); for
    :data:`TOO_LARGE`, ``cap`` is the cap and ``size`` the file's size, or the bytes read when
    it ``grew`` past the cap while it was read."""

    def __init__(self, path, reason: str, detail: str, *, kind: str | None = None, size: int | None = None,
                 cap: int | None = None, grew: bool = False):
        super().__init__(f"{os.fspath(path)}: {detail}")
        self.path = path
        self.reason = reason
        self.detail = detail
        self.kind = kind
        self.size = size
        self.cap = cap
        self.grew = grew


def _stat_failure(path, exc: OSError) -> FileUnusable:
    """The :class:`FileUnusable` for an ``OSError`` of a ``stat`` or ``open`` of ``path``."""
    if exc.errno == errno.ENOENT:
        return FileUnusable(path, MISSING, "file not found")
    if exc.errno == errno.ENOTDIR:
        if names_a_folder(path):
            return FileUnusable(path, MISSING, f"not found: the path ends in {os.sep!r}, so it names a folder, "
                                f"and a part of it is a file (drop the {os.sep!r} to name that file)")
        return FileUnusable(path, MISSING, "file not found (a part of the path is a file, not a folder)")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return FileUnusable(path, PERMISSION, f"cannot read ({exc.strerror})")
    if exc.errno == errno.ELOOP:
        return FileUnusable(path, NOT_REGULAR, f"is {LINK_LOOP} (too many levels of symbolic links), "
                            "not a regular file", kind=LINK_LOOP)
    return FileUnusable(path, UNREADABLE, f"cannot read ({exc.strerror or exc})")


def _kind_failure(path, mode: int, what: str) -> FileUnusable:
    if stat.S_ISDIR(mode):
        return FileUnusable(path, NOT_REGULAR, f"is a directory, not {what}", kind=DIRECTORY)
    kind = special_kind(mode)
    return FileUnusable(path, NOT_REGULAR, f"is {kind}, not a regular file", kind=kind)


def _too_large(path, size: int, cap: int, what: str, grew: bool = False) -> FileUnusable:
    said = f"grew past {cap:,} bytes while it was read" if grew else f"is {size:,} bytes"
    return FileUnusable(path, TOO_LARGE, f"{said}, more than {what} can be (at most {cap:,} bytes)",
                        size=size, cap=cap, grew=grew)


def check_regular(path, what: str, cap: int) -> os.stat_result:
    """``stat`` ``path`` (following links) and raise :class:`FileUnusable` unless it is a
    regular file of at most ``cap`` bytes; ``what`` names the file for a message
    ("a replay file").  Nothing is opened."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise _stat_failure(path, exc) from None
    except ValueError:                           # a NUL in the name
        raise FileUnusable(path, MISSING, "not a usable path (it holds a NUL character)") from None
    if not stat.S_ISREG(st.st_mode):
        raise _kind_failure(path, st.st_mode, what)
    if st.st_size > cap:
        raise _too_large(path, st.st_size, cap, what)
    return st


def read_bounded(path, what: str, cap: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``cap`` of them; anything else raises
    :class:`FileUnusable` (see the module docstring).  ``what`` names the file for a message
    (``"a replay file"``, ``"an asset JSON file"``).

    The kind and size are checked with ``stat`` before the open; the open is non-blocking (a
    FIFO swapped in after the ``stat`` cannot block it) and the opened file is checked again
    with ``fstat``; the read asks for the size ``stat`` gave plus one byte, then reads on in
    small chunks only while the file grows, and stops one byte past ``cap``."""
    check_regular(path, what, cap)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise _stat_failure(path, exc) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _kind_failure(path, st.st_mode, what)
        if st.st_size > cap:
            raise _too_large(path, st.st_size, cap, what)
        chunks: list[bytes] = []
        got = 0
        ask = st.st_size + 1
        while got <= cap:
            try:
                chunk = os.read(fd, min(ask, cap + 1 - got))
            except OSError as exc:
                raise FileUnusable(path, UNREADABLE, f"cannot read ({exc.strerror or exc})") from None
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
            ask = _CHUNK
    finally:
        os.close(fd)
    if got > cap:
        raise _too_large(path, got, cap, what, grew=True)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)
