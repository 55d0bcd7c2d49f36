"""A replay file's header: its layout in each format version, and its checks.

``docs/replay-format.md`` is the layout; ``game/replay.py`` the rest of the file (payload,
recording, playback).  Version 4 adds ``tags`` after ``timer``: 1 when the payload holds a
state tag after every frame (as every earlier version does), 0 when it holds the checkpoints
only (a match played online, recorded as its server's referee checks it: every
:data:`ONLINE_INTERVAL` frames).  Version 3 added the match's ``rounds`` (best of) and round
``timer`` (seconds) after ``arena``; a file of versions 1 and 2 was recorded with the
defaults (best of 3, 60 s) and is read so.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from game.sim.match import INTRO_FRAMES, KO_FRAMES, MATCH_ROUNDS, MAX_ROUNDS, ROUND_FRAMES

MAGIC = b"RBXR"
FORMAT_VERSION = 4
#: Format versions this build reads: version 3 is version 4 without ``tags`` (every frame
#: tagged), version 2 version 3 without ``rounds`` and ``timer`` (recorded best of 3, 60 s
#: rounds), version 1 version 2 without ``arena`` (every version-1 replay was recorded on the
#: arena).
READ_VERSIONS = (1, 2, 3, 4)
#: Frames between two checkpoints of a replay with a tag every frame (one played offline).
CHECK_INTERVAL = 60
#: Frames between two checkpoints of a replay of an online match, which has no per-frame tags:
#: the frames whose hashes the players report and the server's referee checks (every 30).
ONLINE_INTERVAL = 30
#: CPU config <-> byte code.
CPU_CODES = {None: 0, "easy": 1, "normal": 2, "hard": 3, "medium": 4}
CPU_NAMES = {v: k for k, v in CPU_CODES.items()}

#: Header (version 4): magic, format version, header size, game version (ASCII, NUL padded),
#: seed, p1 cpu, p2 cpu, checkpoint interval, frames, runs, checkpoints,
#: payload size (compressed), payload CRC-32, arena (0 a bare floor, 1 the arena),
#: rounds (the match is best of this many), timer (seconds a round lasts), tags (1 a state
#: tag after every frame, 0 none: the checkpoints only).
HEADER = struct.Struct("<4sHH16sQBBHIIIIIIHHH")
#: The version-3 header: the same fields at the same offsets, without ``tags``.
HEADER_V3 = struct.Struct("<4sHH16sQBBHIIIIIIHH")
#: The version-2 header: version 3 without ``rounds`` and ``timer``.
HEADER_V2 = struct.Struct("<4sHH16sQBBHIIIIII")
#: The version-1 header: version 2 without ``arena``.
HEADER_V1 = struct.Struct("<4sHH16sQBBHIIIII")
#: Each format version this build reads: its header.
HEADERS = {1: HEADER_V1, 2: HEADER_V2, 3: HEADER_V3, 4: HEADER}
#: Header size of each format version this build reads.
HEADER_SIZES = {v: h.size for v, h in HEADERS.items()}
TRAILER = struct.Struct("<I")              # CRC-32 of everything before it
RUN = np.dtype([("p1", "<u2"), ("p2", "<u2"), ("count", "<u2")])
_FIELDS = ("magic", "format_version", "header_size", "game_version", "seed", "p1_cpu", "p2_cpu",
           "interval", "frames", "runs", "checkpoints", "payload_size", "payload_crc", "arena", "rounds", "timer",
           "tags")
OFFSETS = dict(zip(_FIELDS, (0, 4, 6, 8, 24, 32, 33, 34, 36, 40, 44, 48, 52, 56, 60, 62, 64)))
#: The ``arena`` field's values.
ARENA_CODES = {False: 0, True: 1}
#: The ``tags`` field's values: True, a state tag after every frame; False, none.
TAGS_CODES = {False: 0, True: 1}
assert HEADER.size == 66 and HEADER_V3.size == 64 and HEADER_V2.size == 60 and HEADER_V1.size == 56
#: The match length and round timer of a file of version 1 or 2 (the defaults of ``Match.new``).
OLD_ROUNDS, OLD_TIMER = 3, ROUND_FRAMES // 60

#: The longest match: five rounds that each run to time over (19,200 frames).  A recording
#: ends with its match, so no real replay holds more frames.
MAX_MATCH_FRAMES = MAX_ROUNDS * (INTRO_FRAMES + ROUND_FRAMES + KO_FRAMES)


def _max_file_size(frames: int) -> int:
    """Largest file ``frames`` frames can make: one 6-byte run and a 2-byte tag per frame, the
    checkpoints and final hash, zlib's worst-case growth (``compressBound``), header, trailer."""
    raw = frames * (RUN.itemsize + 2) + frames // CHECK_INTERVAL * 8 + 8
    return HEADER.size + raw + (raw >> 12) + (raw >> 14) + (raw >> 25) + 13 + TRAILER.size


#: ``load_replay`` refuses a bigger file before reading it (156,298 bytes).
MAX_FILE_SIZE = _max_file_size(MAX_MATCH_FRAMES)
#: The fix for a file of another format version.
_FIX_OTHER = "record it again with this version (python3 main.py --record FILE --force)"


class Header(NamedTuple):
    """A replay's header fields as read (:data:`HEADER` or :data:`HEADER_V1`), not yet checked."""

    size: int               # the header's size in bytes (its format version's)
    game_version: bytes     # ASCII, NUL padded
    seed: int
    cpu_codes: tuple[int, int]      # P1's and P2's CPU config codes (:data:`CPU_CODES`)
    interval: int           # frames between checkpoints
    frames: int
    runs: int               # input run records in the payload
    checkpoints: int
    payload_size: int       # compressed payload bytes
    payload_crc: int
    arena_code: int         # :data:`ARENA_CODES` (a version-1 file: always the arena)
    rounds: int             # the match is best of this many rounds (version 1 and 2: 3)
    timer: int              # seconds a round lasts (version 1 and 2: 60)
    tags_code: int          # :data:`TAGS_CODES` (versions 1 to 3: always 1, a tag every frame)

    @property
    def tagged(self) -> bool:
        """The payload holds a state tag after every frame."""
        return self.tags_code == TAGS_CODES[True]

    @property
    def file_size(self) -> int:
        """The file's size the header implies: header, payload, trailer."""
        return self.size + self.payload_size + TRAILER.size

    @property
    def raw_size(self) -> int:
        """The decompressed payload's size the header implies."""
        return self.runs * RUN.itemsize + self.frames * 2 * self.tagged + self.checkpoints * 8 + 8


#: ``(field, what, fix=...) -> ReplayError`` naming the file, the field and its byte offset
ErrorFactory = Callable[..., ValueError]


def read_header(data: bytes, err: ErrorFactory) -> Header:
    """The header of ``data``, after its magic, format version and size are checked."""
    if len(data) < 8:
        raise err("magic", f"file is {len(data)} bytes, too short for a replay header")
    if data[:4] != MAGIC:
        raise err("magic", f"expected {MAGIC!r}, found {bytes(data[:4])!r} (not a Rangebox replay)",
                  "pass a file written by python3 main.py --record")
    version, hsize = struct.unpack_from("<HH", data, 4)
    if version not in HEADER_SIZES:
        raise err("format_version", f"replay format version {version}, this build reads versions "
                  f"{READ_VERSIONS[0]} to {READ_VERSIONS[-1]}", _FIX_OTHER)
    head = HEADERS[version]
    if hsize != head.size:
        raise err("header_size", f"expected {head.size}, found {hsize} (format version {version})")
    if len(data) < head.size + TRAILER.size:
        raise err("header_size", f"file is {len(data)} bytes, shorter than its {head.size}-byte header "
                  f"(truncated)")
    (_, _, _, gv, seed, c1, c2, interval, frames, nruns, nchk, psize, pcrc, *rest) = head.unpack_from(data, 0)
    arena_code = rest[0] if rest else ARENA_CODES[True]      # version 1: always the arena
    best_of, timer = rest[1:3] if len(rest) >= 3 else (OLD_ROUNDS, OLD_TIMER)
    tags_code = rest[3] if len(rest) == 4 else TAGS_CODES[True]       # versions 1 to 3: every frame
    return Header(head.size, gv, seed, (c1, c2), interval, frames, nruns, nchk, psize, pcrc, arena_code,
                  best_of, timer, tags_code)


def check_file(data: bytes, h: Header, err: ErrorFactory) -> None:
    """The file's size is the header's, and both CRC-32s (the file's, the payload's) match."""
    expected = h.file_size
    if len(data) != expected:
        raise err("payload_size", f"header says the file is {expected} bytes, it is {len(data)} "
                  f"({'truncated' if len(data) < expected else 'extra bytes at the end'})")
    (crc,) = TRAILER.unpack_from(data, expected - TRAILER.size)
    if crc != zlib.crc32(data[:expected - TRAILER.size]):
        raise err("crc", "CRC-32 of the file does not match (corrupted)")
    if zlib.crc32(data[h.size:h.size + h.payload_size]) != h.payload_crc:
        raise err("payload_crc", "CRC-32 of the payload does not match (corrupted)")


def check_fields(h: Header, err: ErrorFactory) -> str:
    """The header's values are ones this build knows; returns the game version."""
    try:
        game_version = h.game_version.rstrip(b"\0").decode("ascii")
    except UnicodeDecodeError:
        raise err("game_version", f"not ASCII: {h.game_version!r}") from None
    c1, c2 = h.cpu_codes
    if c1 not in CPU_NAMES or c2 not in CPU_NAMES:
        bad = "p1_cpu" if c1 not in CPU_NAMES else "p2_cpu"
        raise err(bad, f"unknown CPU code {c1 if bad == 'p1_cpu' else c2}")
    if h.rounds not in MATCH_ROUNDS:
        raise err("rounds", f"best of {h.rounds} rounds; a match is best of {', '.join(map(str, MATCH_ROUNDS))}")
    if not 1 <= h.timer <= ROUND_FRAMES // 60:
        raise err("timer", f"a {h.timer} s round timer; a round lasts 1 to {ROUND_FRAMES // 60} s")
    if h.arena_code not in ARENA_CODES.values():
        raise err("arena", f"unknown arena code {h.arena_code} (0 a bare floor, 1 the arena)")
    if h.tags_code not in TAGS_CODES.values():
        raise err("tags", f"unknown tags code {h.tags_code} (1 a tag every frame, 0 checkpoints only)")
    if h.interval == 0:
        raise err("interval", "checkpoint interval is 0")
    # the counts within what a match can record, before anything is allocated for them (a
    # crafted file can have valid CRCs and claim millions of frames)
    if h.frames > MAX_MATCH_FRAMES:
        raise err("frames", f"{h.frames:,} frames, more than the longest match ({MAX_MATCH_FRAMES:,}: five rounds "
                  f"to time over)")
    if h.runs > h.frames:
        raise err("runs", f"{h.runs:,} input runs for {h.frames:,} frames (a run is at least one frame)")
    if h.checkpoints != h.frames // h.interval:
        raise err("checkpoints", f"{h.checkpoints} checkpoints for {h.frames} frames every {h.interval}, "
                  f"expected {h.frames // h.interval}")
    return game_version
