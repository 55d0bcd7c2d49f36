"""The reader every field of a method C scene file goes through (C3, C4), and the errors it
raises: a bounds-checked little-endian cursor whose every failure names the file, the field,
the byte offset and, for damage, the fix (:data:`REBAKE`); and the checks of the header's
prefix (magic, version, reserved), its file size and its CRC-32, common to both files.
"""

from __future__ import annotations

import struct
from typing import Any, NoReturn

import numpy as np
from numpy.typing import DTypeLike

from .scene_format import FORMAT_VERSION, OLD_VERSIONS, PREFIX, crc

#: The command that rewrites the arena's scene files (the fix for any damaged or old file).
REBAKE = "re-bake both files with `python3 -m game.tools.bake`"


class SceneFileError(ValueError):
    """A scene file is missing, truncated, corrupt or malformed; the message names file, field and byte offset.

    ``names_fix`` is True when the message already ends with the fix (:data:`REBAKE`)."""

    def __init__(self, message: str, names_fix: bool = False):
        super().__init__(message)
        self.names_fix = names_fix


class SceneFileUnusable(SceneFileError):
    """A scene file's path cannot be read as one: missing, a directory, a FIFO, a device, a
    socket, a symbolic-link loop, unreadable, or larger than the caps allow; read nothing.
    ``reason`` is :attr:`game.files.FileUnusable.reason`, ``path`` the path."""

    def __init__(self, message: str, reason: str, path: str, names_fix: bool = False):
        super().__init__(message, names_fix)
        self.reason = reason
        self.path = path


class Reader:
    """Bounds-checked little-endian reader that reports file, field and offset."""

    def __init__(self, data: bytes, name: str):
        self.data = memoryview(data)
        self.name = name
        self.pos = 0

    def fail(self, field: str, problem: str, at: int | None = None, rebake: bool = False) -> NoReturn:
        """Raise :class:`SceneFileError` naming file, field and offset; ``rebake`` appends :data:`REBAKE`."""
        raise SceneFileError(f"{self.name}: field {field} at byte {self.pos if at is None else at}: {problem}"
                             + (f"; {REBAKE}" if rebake else ""), names_fix=rebake)

    def need(self, n: int, field: str) -> None:
        """Fail unless ``n`` more bytes remain for ``field``."""
        if n > len(self.data) - self.pos:
            self.fail(field, f"file truncated: needs {n} bytes, only {len(self.data) - self.pos} remain")

    def unpack(self, st: struct.Struct, field: str) -> tuple[Any, ...]:
        """The next ``st.size`` bytes as ``field``'s values; moves past them."""
        self.need(st.size, field)
        v = st.unpack_from(self.data, self.pos)
        self.pos += st.size
        return v

    def array(self, dtype: DTypeLike, count: int, field: str) -> np.ndarray:
        """The next ``count`` records of ``dtype`` (a read-only view of the file); moves past them."""
        dt = np.dtype(dtype)
        self.need(dt.itemsize * count, field)
        a = np.frombuffer(self.data, dtype=dt, count=count, offset=self.pos)
        self.pos += dt.itemsize * count
        return a


def check_prefix(rd: Reader, want_magic: bytes) -> None:
    """Magic, version and reserved: checked before the rest of the header, whose size depends on the version."""
    magic, version, reserved = rd.unpack(PREFIX, "header")
    if magic != want_magic:
        rd.fail("magic", f"expected {want_magic!r}, got {bytes(magic)!r} (not a Rangebox scene file of this kind)", 0)
    if version in OLD_VERSIONS:
        rd.fail("version", f"version {version} is an older format ({OLD_VERSIONS[version]}) that this build no "
                f"longer reads (it reads version {FORMAT_VERSION})", 8, rebake=True)
    if version != FORMAT_VERSION:
        rd.fail("version", f"unsupported version {version}, this build reads version {FORMAT_VERSION} "
                "(a newer build wrote it, or the file is damaged)", 8, rebake=True)
    if reserved != 0:
        rd.fail("reserved", f"must be 0, got {reserved} (file damaged)", 10, rebake=True)
    rd.pos = 0


def check_size_and_crc(rd: Reader, file_size: int, size_at: int, stored_crc: int, crc_at: int) -> None:
    """The header's file size against the file's, then its CRC-32 against the one computed."""
    if file_size != len(rd.data):
        rd.fail("file_size", f"header says {file_size} bytes but the file has {len(rd.data)} "
                "(truncated or trailing data)", size_at, rebake=True)
    computed = crc(rd.data, crc_at)
    if computed != stored_crc:
        rd.fail("crc32", f"checksum mismatch: stored 0x{stored_crc:08x}, computed 0x{computed:08x} "
                "(the file is corrupted)", crc_at, rebake=True)
