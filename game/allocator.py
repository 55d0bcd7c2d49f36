"""The game process's C allocator setting: keep freed memory for numpy's next temporary.

glibc serves an allocation above its mmap threshold (128 KiB at start) with a fresh
``mmap``, zero-filled page by page on first touch, and unmaps it on ``free``; it also gives
the heap's top back to the system once more than twice the threshold lies free there.  The
threshold adapts upward only as large blocks are freed, and the trim keeps undoing it.  A
batched ray cast (C7 / C8 over thousands of rays) makes temporaries of a few hundred KiB to
a few MiB in every step of its walk, so in a fresh process much of a cast goes to page
faults, and ``cast_nearest_many`` runs markedly slower than once a larger block has been
freed (the figures: ``docs/performance.md``).

:func:`keep_freed_memory` fixes both thresholds (``mallopt``), so blocks up to ``limit``
come from the heap and freed pages stay mapped for the next one.  The process's resident
size then stays at its peak instead of shrinking back: a few tens of MiB for this game.
``main.py`` and ``python3 -m game.bench`` call it first thing; the library (``game.sim``,
``game.collision``) never does, since it is a setting of the whole process.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import platform

#: glibc's ``mallopt`` parameters (malloc.h)
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3

#: blocks up to this size come from the heap (glibc caps the mmap threshold at 32 MiB on 64-bit)
DEFAULT_LIMIT = 32 * 1024 * 1024

_state = {"active": False}


def keep_freed_memory(limit: int = DEFAULT_LIMIT) -> bool:
    """Serve blocks up to ``limit`` bytes from the heap and never trim it (glibc only).

    Returns True when both settings took; False, changing nothing, where the C library is
    not glibc or refuses (another libc, a sanitiser's allocator): the game runs the same,
    only its large temporaries cost page faults.
    """
    if not isinstance(limit, int) or not 0 < limit <= DEFAULT_LIMIT:
        raise ValueError(f"limit: expected bytes in 1..{DEFAULT_LIMIT}, got {limit!r}")
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    # the trim threshold first: with it at twice the limit, nothing the heap keeps is given back
    ok = mallopt(M_TRIM_THRESHOLD, 2 * limit) == 1 and mallopt(M_MMAP_THRESHOLD, limit) == 1
    _state["active"] = bool(ok)
    return bool(ok)


def active() -> bool:
    """Whether :func:`keep_freed_memory` took effect in this process."""
    return _state["active"]
