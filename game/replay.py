"""Replay files: record a match's inputs and play them back, checking every frame.

Pure logic (no pyglet).  The format is documented in ``docs/replay-format.md``.

Design
------
A replay stores the seed, each side's CPU config, the arena setting (the arena
or a bare floor), the game version, the *effective* inputs of both sides on
every frame (``match.last_inputs``), a 2-byte tag of ``state_hash()`` after
every frame and an 8-byte prefix of ``state_hash()`` every ``interval`` (60)
frames and at the end.

A match played online is recorded without the per-frame tags (``tags=False``), with a
checkpoint every :data:`ONLINE_INTERVAL` (30) frames: the frames whose hashes the players
report and the server's referee checks.  The referee records every match it serves, and a
``state_hash`` after every frame would be most of its work (the hash reads the range boxes
and blend bodies that ``Match.step`` otherwise places only when something reads them); the
players and spectators record the same file, byte for byte.  Such a replay still checks
every recorded input of a CPU side after every frame, and names a divergence to within
``interval`` frames.

CPU sides: playback rebuilds the match with the **same CPU config** and lets
the CPU decide again; :meth:`ReplayPlayer.check` verifies that the CPU's
recomputed input equals the recorded one.  (Feeding the recorded inputs to a
match with no CPU plays the same fight but gives *different hashes*: the
hash covers the RNG and the CPU's plan, which a CPU-less match never
advances.)  Human sides get the recorded inputs.

Divergence is named to the exact frame: the recorded inputs of a CPU side
and the per-frame hash tag are compared after every step, and the 60-frame
checkpoints confirm it with 64 bits (a replay without tags: to the checkpoint
after it).

API
---
``ReplayRecorder.for_match(match)`` (or ``ReplayRecorder(seed, cpu, arena=True)``): call
``.record(match)`` after every step, then ``.save(path, force=False)`` (atomic: temp file +
rename).  ``load_replay(path) -> Replay``; ``ReplayPlayer(replay)`` is an input source:
``next_inputs(match) -> (FrameInput, FrameInput)`` before a step,
``check(match)`` after it (raises :class:`ReplayMismatch`), ``done``.
``play_replay(replay, make_match=None, frames=None)`` runs a replay headless, by default
into ``Match.new(seed=replay.seed, p1_cpu=..., p2_cpu=..., arena=replay.arena)``.
A match on the arena and one on a bare floor (``Match.new(arena=False)``) are both
recorded; the file says which (``arena``, format version 2; version-1 files, which have
no such field, were all recorded on the arena and are still read).
Every problem with a file raises :class:`ReplayError` (a ``ValueError``)
whose message names the file, the field, the byte offset and the fix.
``load_replay`` refuses anything but a regular file of at most
:data:`MAX_FILE_SIZE` bytes before opening it.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import game
from game import files
from game.files import write_atomic
from game.replay_header import (
    ARENA_CODES,
    CHECK_INTERVAL,
    CPU_CODES,
    CPU_NAMES,
    FORMAT_VERSION,
    HEADER,
    MAGIC,
    MAX_FILE_SIZE,
    MAX_MATCH_FRAMES,
    OFFSETS,
    OLD_ROUNDS,
    OLD_TIMER,
    ONLINE_INTERVAL,
    RUN,
    TAGS_CODES,
    TRAILER,
    Header,
    check_fields,
    check_file,
    read_header,
)
from game.sim import FrameInput, Match
from game.sim.match import MATCH_ROUNDS


class ReplayError(ValueError):
    """A replay file cannot be used; the message names the file, field, byte offset and fix."""


class ReplayMismatch(ReplayError):
    """Playback diverged from the recording; ``frame`` is the frame whose check found it: the
    first frame that differs, or in a replay without tags the checkpoint (or last) frame after it."""

    def __init__(self, message: str, frame: int):
        super().__init__(message)
        self.frame = frame


@dataclass(frozen=True)
class Replay:
    """A decoded replay.  ``inputs`` ``(frames, 2) uint16`` input bits per frame;
    ``tags`` ``(frames,) uint16`` state-hash tag after each frame (``(0,)`` when the file
    has none: ``tagged`` False); ``checkpoints`` ``(n, 8) uint8`` hash prefixes after frames
    ``interval, 2*interval, ...``; ``final`` the 8-byte hash prefix after the last frame;
    ``arena`` the match's arena setting (``Match.new(arena=...)``)."""

    path: str
    game_version: str
    seed: int
    cpu: tuple[str | None, str | None]
    interval: int
    inputs: np.ndarray
    tags: np.ndarray
    checkpoints: np.ndarray
    final: bytes
    #: True: recorded on the arena; False: on a bare floor (``Match.new(arena=False)``).
    arena: bool = True
    #: The match was best of this many rounds (``Match.new(rounds=...)``).
    rounds: int = OLD_ROUNDS
    #: Seconds each round lasted (``Match.new(timer=...)``).
    timer: int = OLD_TIMER
    #: True: a state tag after every frame (``tags``); False: the checkpoints only (online).
    tagged: bool = True

    @property
    def frames(self) -> int:
        return int(self.inputs.shape[0])


# ---------------------------------------------------------------- encoding
def _runs(inputs: np.ndarray) -> np.ndarray:
    """Run-length encode ``(F, 2) uint16`` -> RUN records (counts split at 65535)."""
    out = []
    if len(inputs):
        key = inputs[:, 0].astype(np.uint32) << 16 | inputs[:, 1]
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        lengths = np.diff(np.r_[starts, len(key)])
        for s, n in zip(starts.tolist(), lengths.tolist()):
            while n > 0:
                c = min(n, 0xFFFF)
                out.append((int(inputs[s, 0]), int(inputs[s, 1]), c))
                n -= c
    return np.array(out, dtype=RUN)


def encode(seed: int, cpu, inputs: np.ndarray, tags: np.ndarray | None, checkpoints: np.ndarray, final: bytes,
           game_version: str = game.__version__, interval: int = CHECK_INTERVAL, arena: bool = True,
           rounds: int = OLD_ROUNDS, timer: int = OLD_TIMER) -> bytes:
    """The bytes of a replay file (see docs/replay-format.md), format version 4; ``tags``
    None: a file without per-frame tags (its ``tags`` field 0)."""
    runs = _runs(np.asarray(inputs, dtype=np.uint16).reshape(-1, 2))
    tag_bytes = b"" if tags is None else np.asarray(tags, dtype="<u2").tobytes()
    raw = runs.tobytes() + tag_bytes + np.asarray(checkpoints, dtype=np.uint8).reshape(-1, 8).tobytes() + bytes(final)
    payload = zlib.compress(raw, 9)
    gv = game_version.encode("ascii")[:16]
    header = HEADER.pack(MAGIC, FORMAT_VERSION, HEADER.size, gv, int(seed), CPU_CODES[cpu[0]], CPU_CODES[cpu[1]],
                         interval, len(inputs), len(runs), len(checkpoints), len(payload), zlib.crc32(payload),
                         ARENA_CODES[bool(arena)], rounds, timer, TAGS_CODES[tags is not None])
    body = header + payload
    return body + TRAILER.pack(zlib.crc32(body))


#: ``(field, what, fix=...) -> ReplayError`` naming the file, the field and its byte offset
ErrorFactory = Callable[..., ReplayError]


def decode(data: bytes, path: str = "<bytes>") -> Replay:
    """Parse and verify replay bytes; raise :class:`ReplayError` naming field and offset.

    In the order a reader can trust them: the header's own fields, the file's size and
    CRCs, the header's values, then the decompressed payload (``game.replay_header``'s
    :func:`read_header`, :func:`check_file`, :func:`check_fields`; :func:`_inflate`, :func:`_payload`)."""
    field_offsets: dict[str, int] = {}

    def err(field: str, what: str, fix: str = "the file is damaged; record it again") -> ReplayError:
        return ReplayError(f"{path}: {field} at byte {OFFSETS.get(field, field_offsets.get(field, 0))}: "
                           f"{what}; {fix}")

    h = read_header(data, err)
    field_offsets["payload"] = h.size
    field_offsets["crc"] = h.file_size - TRAILER.size
    check_file(data, h, err)
    game_version = check_fields(h, err)
    inputs, tags, chk, final = _payload(_inflate(data, h, err), h, err)
    c1, c2 = h.cpu_codes
    return Replay(str(path), game_version, h.seed, (CPU_NAMES[c1], CPU_NAMES[c2]), h.interval, inputs, tags, chk,
                  bytes(final), h.arena_code == ARENA_CODES[True], h.rounds, h.timer, h.tagged)


def _inflate(data: bytes, h: Header, err: ErrorFactory) -> bytes:
    """The decompressed payload, exactly the size the header implies."""
    want = h.raw_size
    cap = want + (1 << 16)
    try:
        # Bounded: a small file could otherwise inflate to a thousand times its size (zlib's
        # limit) before its size is found wrong.
        inflate = zlib.decompressobj()
        raw = inflate.decompress(data[h.size:h.size + h.payload_size], cap)
    except zlib.error as exc:
        raise err("payload", f"zlib data is invalid ({exc})") from None
    if not inflate.eof and len(raw) == cap:
        raise err("payload", f"decompressed payload is over {cap:,} bytes, the header implies {want}")
    if not inflate.eof:
        raise err("payload", "zlib data is invalid (incomplete or truncated stream)")
    if inflate.unused_data:
        raise err("payload", f"{len(inflate.unused_data)} bytes after the end of the zlib data")
    if len(raw) != want:
        raise err("payload", f"decompressed payload is {len(raw)} bytes, the header implies {want}")
    return raw


def _payload(raw: bytes, h: Header, err: ErrorFactory) -> tuple[np.ndarray, np.ndarray, np.ndarray, bytes]:
    """``(inputs (frames, 2) uint16, tags (frames,) or (0,) uint16, checkpoints (n, 8) uint8,
    final)`` from the decompressed payload, after its input runs are checked."""
    frames, nruns, nchk = h.frames, h.runs, h.checkpoints
    runs = np.frombuffer(raw, dtype=RUN, count=nruns)
    if not runs["count"].all():
        raise err("runs", f"input run {int(np.flatnonzero(runs['count'] == 0)[0])} lasts 0 frames")
    if int(runs["count"].sum()) != frames:
        raise err("runs", f"input runs cover {int(runs['count'].sum())} frames, header says {frames}")
    if (runs["p1"] >> FrameInput.BITS).any() or (runs["p2"] >> FrameInput.BITS).any():
        raise err("runs", f"an input uses bits above the {FrameInput.BITS} buttons")
    inputs = np.empty((frames, 2), dtype=np.uint16)
    inputs[:, 0] = np.repeat(runs["p1"], runs["count"])
    inputs[:, 1] = np.repeat(runs["p2"], runs["count"])
    o = nruns * RUN.itemsize
    tagged = frames if h.tagged else 0
    tags = np.frombuffer(raw, dtype="<u2", count=tagged, offset=o).astype(np.uint16)
    o += tagged * 2
    chk = np.frombuffer(raw, dtype=np.uint8, count=nchk * 8, offset=o).reshape(nchk, 8).copy()
    final = raw[o + nchk * 8:]
    if frames and frames % h.interval == 0 and chk[-1].tobytes() != final:
        raise err("payload", f"the final hash differs from the checkpoint of the same frame ({frames}): "
                             f"the file contradicts itself")
    return inputs, tags, chk, final


class ReplayFileError(ReplayError):
    """A replay's path cannot be read as one: missing, a directory, a FIFO, a device, a socket,
    a symbolic-link loop, unreadable, or over :data:`MAX_FILE_SIZE`; nothing is read.
    ``reason`` is :attr:`game.files.FileUnusable.reason`."""

    def __init__(self, message: str, reason: str):
        super().__init__(message)
        self.reason = reason


def load_replay(path) -> Replay:
    """Read and verify a replay file; every problem raises :class:`ReplayError`.

    The path is checked with ``stat`` before it is opened (:func:`game.files.read_bounded`):
    a directory, FIFO, device, socket or symbolic-link loop, or a file over
    :data:`MAX_FILE_SIZE` bytes, is refused unread (a FIFO would block, ``/dev/zero`` would
    fill the memory) with :class:`ReplayFileError`."""
    if str(path) == "":
        raise ReplayError("--replay: empty path; pass a replay file (.rpl)")
    too_big = (f"a replay is at most {MAX_FILE_SIZE:,} bytes ({MAX_MATCH_FRAMES:,} frames, the longest "
               f"match); pass a file written by python3 main.py --record")
    try:
        data = files.read_bounded(path, "a replay file", MAX_FILE_SIZE)
    except files.FileUnusable as exc:
        if exc.reason == files.MISSING:
            text = f"{exc}; check the path given to --replay"
        elif exc.reason == files.PERMISSION:
            text = f"{exc}; make it readable (chmod u+r {path}) or run as its owner"
        elif exc.reason == files.NOT_REGULAR and exc.kind == files.DIRECTORY:
            text = f"{path}: is a directory; pass a replay file to --replay"
        elif exc.reason == files.NOT_REGULAR:
            text = f"{exc}; pass a replay file to --replay"
        elif exc.reason == files.TOO_LARGE:
            size = f"file grew past {MAX_FILE_SIZE:,} bytes" if exc.grew else f"file is {exc.size:,} bytes"
            text = f"{path}: {size}, {too_big}"
        else:
            text = f"{exc}; check the path given to --replay"
        raise ReplayFileError(text, exc.reason) from None
    return decode(data, str(path))


# ---------------------------------------------------------------- recording
class ReplayRecorder:
    """Collects a match's effective inputs and hashes.  Call :meth:`record`
    after every ``match.step``; then :meth:`to_bytes` or :meth:`save`.

    ``tags``: the file holds a state tag after every frame (offline play), or only the
    checkpoints (False: online play, with ``interval`` :data:`ONLINE_INTERVAL`; see the
    module docstring).

    Recording is transactional: :meth:`record` computes a frame's input bits and state hash
    first and commits them in one ``list.append`` of a finished pair, which no signal handler
    or exception can split (Python runs handlers between bytecodes, never inside that call).
    So whenever a save happens (a signal, a crash, the display lost), the file holds whole
    frames only and decodes and verifies up to its last one.  That is why even a recording
    without tags hashes every frame: any frame may turn out to be the last, whose hash the
    file ends with.

    ``final_at_save`` (only with ``tags=False``): hash only the checkpoint frames, and the
    last frame when the file is made (:meth:`to_bytes`), from the match last recorded.  For
    an owner that never saves in the middle of a step, as the server's referee: its loop
    saves between datagrams, and its signal handlers only ask the loop to stop.  (Should the
    match have moved on unrecorded, the file ends at its last hashed frame.)"""

    def __init__(self, seed: int, cpu: tuple[str | None, str | None], interval: int = CHECK_INTERVAL, *,
                 arena: bool = True, rounds: int = OLD_ROUNDS, timer: int = OLD_TIMER, tags: bool = True,
                 final_at_save: bool = False):
        # Checked here, not by save() at the end of a recorded match: the header's fields are a u64
        # seed, a CPU code per side, a u16 interval and the arena setting.
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
            raise ValueError(f"ReplayRecorder: seed {seed!r}: a replay stores a whole number from 0 to "
                             f"2**64 - 1; record a match made with such a seed")
        if not isinstance(cpu, (tuple, list)) or len(cpu) != 2:
            raise ValueError(f"ReplayRecorder: cpu {cpu!r}: pass a pair (p1_cpu, p2_cpu)")
        for c in cpu:
            if not (c is None or isinstance(c, str)) or c not in CPU_CODES:
                raise ValueError(f"ReplayRecorder: cpu {c!r}: choose None or one of easy, medium, normal, hard")
        if isinstance(interval, bool) or not isinstance(interval, int) or not 1 <= interval <= 0xFFFF:
            raise ValueError(f"ReplayRecorder: interval {interval!r}: a whole number of frames from 1 to 65535")
        if not isinstance(arena, (bool, np.bool_)):
            raise ValueError(f"ReplayRecorder: arena {arena!r}: True (the arena) or False (a bare floor), "
                             f"as given to Match.new")
        if rounds not in MATCH_ROUNDS or isinstance(timer, bool) or not isinstance(timer, int) \
                or not 1 <= timer <= OLD_TIMER:
            raise ValueError(f"ReplayRecorder: rounds {rounds!r}, timer {timer!r}: as given to Match.new "
                             f"(best of {', '.join(map(str, MATCH_ROUNDS))}; 1 to {OLD_TIMER} s)")
        if final_at_save and tags:
            raise ValueError("ReplayRecorder: final_at_save=True is for a recording without tags (tags=False)")
        self.seed, self.cpu, self.interval, self.arena = int(seed), tuple(cpu), interval, bool(arena)
        self.rounds, self.timer = int(rounds), timer
        self.tags, self.final_at_save = bool(tags), bool(final_at_save)
        #: one committed pair per frame: (P1's input bits | P2's << 16, the 8-byte state-hash prefix
        #: after the frame, or b"" where ``final_at_save`` left it out); tags, checkpoints and
        #: the final hash are all read from it
        self._frames: list[tuple[int, bytes]] = []
        #: ``final_at_save``: the match last recorded, and its hash at the newest checkpoint
        #: (frame, 64 hex digits), which its owner may reuse (:meth:`checkpoint_hash`)
        self._match = None
        self._checkpoint: tuple[int, str] = (-1, "")

    @classmethod
    def for_match(cls, match, *, online: bool = False, final_at_save: bool = False) -> ReplayRecorder:
        """A recorder for ``match``, on its frame 0: its seed, CPU config and arena setting
        (on the arena, or a bare floor: ``Match.new(arena=False)``); ``online``: without
        per-frame tags, a checkpoint every :data:`ONLINE_INTERVAL` frames."""
        if match.frame != 0:
            raise ValueError("ReplayRecorder.for_match: start recording on frame 0")
        return cls.of_settings(match, online=online, final_at_save=final_at_save)

    @classmethod
    def of_settings(cls, match, *, online: bool = False, final_at_save: bool = False) -> ReplayRecorder:
        """An empty recorder with ``match``'s seed, CPU config and arena setting, whatever its
        frame (a step listener meets a new match after its first step; :meth:`record` still
        refuses a match that is not one frame past the recording); ``online`` as
        :meth:`for_match`'s."""
        # (a stand-in match without a stage counts as on the arena)
        return cls(match.seed, match.cpu, ONLINE_INTERVAL if online else CHECK_INTERVAL,
                   arena=getattr(match, "stage", True) is not None, rounds=getattr(match, "rounds", OLD_ROUNDS),
                   timer=getattr(match, "timer_seconds", OLD_TIMER), tags=not online, final_at_save=final_at_save)

    @property
    def frames(self) -> int:
        return len(self._frames)

    def record(self, match) -> None:
        """Store the inputs the match used on the frame just stepped, and its hash.  Once after
        every step from frame 0: a frame recorded twice or skipped would make a file whose
        every later frame "diverges", so it raises ValueError here instead.  Everything is
        computed before the one-step commit (see the class docstring)."""
        held = len(self._frames)
        if match.frame != held + 1:
            raise ValueError(f"ReplayRecorder.record: the match is at frame {match.frame}, the recording holds "
                             f"{held} frames; call record(match) once after every step, from "
                             f"frame 0 (a match restored to another frame cannot be recorded on)")
        p1, p2 = match.last_inputs
        if not self.final_at_save:
            entry = (p1.bits | p2.bits << 16, bytes.fromhex(match.state_hash()[:16]))
        elif match.frame % self.interval:
            entry = (p1.bits | p2.bits << 16, b"")
        else:
            full = match.state_hash()
            self._checkpoint = (match.frame, full)
            entry = (p1.bits | p2.bits << 16, bytes.fromhex(full[:16]))
        if self.final_at_save:
            self._match = match
        self._frames.append(entry)                 # the commit: one call, all of the frame or none

    def checkpoint_hash(self, frame: int) -> str | None:
        """``final_at_save``: the match's ``state_hash()`` after ``frame`` frames, if that is the
        newest checkpoint recorded (its owner need not hash the same state twice), else None."""
        at, full = self._checkpoint
        return full if at == frame else None

    def to_bytes(self, *, match_whole: bool = True) -> bytes:
        """The replay file of the frames committed so far.  ``match_whole`` False: the match
        last recorded may be between two frames (its owner's step raised), so with
        ``final_at_save`` the file ends at its newest hashed frame."""
        frames = self._frames[:]                   # one call: a frame committed meanwhile is left out whole
        if frames and not frames[-1][1]:           # final_at_save: the last frame's hash, now
            match = self._match
            if match_whole and match is not None and match.frame == len(frames):
                frames[-1] = (frames[-1][0], bytes.fromhex(match.state_hash()[:16]))
            else:                                  # moved on unrecorded, or torn: end at the newest hashed frame
                del frames[len(frames) // self.interval * self.interval:]
        n = len(frames)
        packed = np.fromiter((bits for bits, _h in frames), dtype=np.uint32, count=n)
        inputs = np.stack((packed & 0xFFFF, packed >> 16), axis=1).astype(np.uint16)
        step = self.interval
        marked = [h for _b, h in frames[step - 1::step]]                    # after frames interval, 2 interval, ...
        checkpoints = np.frombuffer(b"".join(marked), dtype=np.uint8).reshape(len(marked), 8)
        final = frames[-1][1] if frames else b"\0" * 8
        tags = None
        if self.tags:
            hashes = np.frombuffer(b"".join(h for _b, h in frames), dtype=np.uint8).reshape(n, 8)
            tags = (hashes[:, 0].astype(np.uint16) << 8) | hashes[:, 1]    # the hash's first 4 hex digits
        return encode(self.seed, self.cpu, inputs, tags, checkpoints, final, interval=self.interval,
                      arena=self.arena, rounds=self.rounds, timer=self.timer)

    def save(self, path, *, force: bool = False) -> int:
        """Write the replay atomically; return its size in bytes."""
        data = self.to_bytes()
        write_atomic(path, data, force=force)
        return len(data)


# ---------------------------------------------------------------- playback
def _describe(bits: int) -> str:
    return str(FrameInput.from_bits(int(bits)))


def match_settings(replay: Replay) -> str:
    """The call that builds the match ``replay`` plays into, for messages."""
    p1, p2 = replay.cpu
    length = "" if (replay.rounds, replay.timer) == (OLD_ROUNDS, OLD_TIMER) else \
        f", rounds={replay.rounds}, timer={replay.timer}"          # named only where not Match.new's defaults
    return f"Match.new(seed={replay.seed}, p1_cpu={p1!r}, p2_cpu={p2!r}, arena={replay.arena}{length})"


def _settings_differ(replay: Replay, match) -> str | None:
    """What of ``match``'s seed, CPU config and arena setting differs from the recording, or None.
    (A stand-in match without these attributes passes.)"""
    seed, cpu = getattr(match, "seed", replay.seed), tuple(getattr(match, "cpu", replay.cpu))
    arena = getattr(match, "stage", True) is not None
    if seed != replay.seed:
        return f"seed {seed}, the replay was recorded with seed {replay.seed}"
    if cpu != tuple(replay.cpu):
        return f"CPU config {cpu}, the replay was recorded with {tuple(replay.cpu)}"
    length = (getattr(match, "rounds", replay.rounds), getattr(match, "timer_seconds", replay.timer))
    if length != (replay.rounds, replay.timer):
        return (f"best of {length[0]} rounds of {length[1]} s, the replay was recorded best of {replay.rounds} "
                f"rounds of {replay.timer} s")
    if arena != replay.arena:
        where = ("on the arena", "on a bare floor (arena=False)")
        return f"{where[not arena]}, the replay was recorded {where[not replay.arena]}"
    return None


class ReplayPlayer:
    """An input source that plays a :class:`Replay` into a match built as recorded:
    ``replay.seed``, ``replay.cpu`` and ``replay.arena`` (:func:`match_settings`; another
    match is refused on frame 0, naming the setting).  Per frame: ``p1, p2 = player.next_inputs(match)``,
    ``match.step(p1, p2)``, ``player.check(match)``.  ``done`` is True after the last frame."""

    def __init__(self, replay: Replay):
        self.replay = replay
        self.checked = 0          # checkpoint hashes verified so far
        self._i = 0               # next frame index

    @property
    def done(self) -> bool:
        return self._i >= self.replay.frames

    @property
    def position(self) -> int:
        """The frames played and checked so far: the match frame ``next_inputs`` expects."""
        return self._i

    def resume_at(self, frame: int) -> None:
        """Go on from ``frame`` (0 to ``replay.frames``) in a match restored to the state this
        replay reached after that many frames, checked then (a viewer's seek: it restores a
        snapshot it took after :meth:`check` passed).  ``checked`` then counts the hashes up
        to that frame."""
        r = self.replay
        if isinstance(frame, bool) or not isinstance(frame, (int, np.integer)) or not 0 <= frame <= r.frames:
            raise ValueError(f"ReplayPlayer.resume_at: frame {frame!r}: a whole number from 0 to {r.frames} "
                             f"(the replay's length)")
        self._i = int(frame)
        self.checked = min(self._i // r.interval, len(r.checkpoints)) + (1 if self.done and r.frames else 0)

    def next_inputs(self, match) -> tuple[FrameInput, FrameInput]:
        if self.done:
            raise IndexError(f"{self.replay.path}: replay has ended after {self.replay.frames} frames")
        if match.frame != self._i:
            raise ReplayMismatch(f"{self.replay.path}: the match is at frame {match.frame}, the replay at "
                                 f"frame {self._i}; start playback on a fresh match", self._i)
        if self._i == 0:
            differ = _settings_differ(self.replay, match)
            if differ is not None:      # it would "diverge" at once, blaming the file
                raise ReplayMismatch(f"{self.replay.path}: the match to play into is built with {differ}; "
                                     f"play it into {match_settings(self.replay)}", 0)
        a, b = self.replay.inputs[self._i]
        return FrameInput.from_bits(int(a)), FrameInput.from_bits(int(b))

    def check(self, match) -> None:
        """Verify the frame just stepped; raise :class:`ReplayMismatch` naming the first frame that differs."""
        r, i = self.replay, self._i
        if self.done or match.frame != i + 1:
            raise ReplayMismatch(f"{r.path}: the match is at frame {match.frame}, the replay checks frame {i} "
                                 f"(match frame {i + 1}); call next_inputs(match), step the match once, then "
                                 f"check(match)", i)
        where = f"{r.path}: replay diverged at frame {i}"
        fix = (f"it was recorded with Rangebox {r.game_version}, this is {game.__version__}; "
               f"record it again with this version" if r.game_version != game.__version__ else
               f"the file was altered or recorded by another build of Rangebox {r.game_version}: record it again "
               f"(if neither, the simulation is not deterministic: report it with this file)")
        for side, got in enumerate(match.last_inputs):
            want = int(r.inputs[i, side])
            if got.bits != want:
                raise ReplayMismatch(f"{where}: P{side + 1} {'CPU ' if r.cpu[side] else ''}input recorded "
                                     f"{_describe(want)}, replayed {got}; {fix}", i)
        last = i + 1 == r.frames
        if not (r.tagged or last or match.frame % r.interval == 0):
            self._i += 1                           # no hash of this frame to check (a replay without tags)
            return
        h = match.state_hash()
        if r.tagged and int(h[:4], 16) != int(r.tags[i]):
            raise ReplayMismatch(f"{where}: state hash differs after this frame; {fix}", i)
        since = "" if r.tagged else f" (the file holds no per-frame tags: it diverged in frames " \
                                    f"{(match.frame - 1) // r.interval * r.interval} to {i})"
        if match.frame % r.interval == 0:
            k = match.frame // r.interval - 1
            if bytes.fromhex(h[:16]) != r.checkpoints[k].tobytes():
                raise ReplayMismatch(f"{where}: checkpoint hash at frame {match.frame} differs{since}; {fix}", i)
            self.checked += 1
        self._i += 1
        if self.done:
            if bytes.fromhex(h[:16]) != r.final:
                raise ReplayMismatch(f"{where}: final hash differs{since}; {fix}", i)
            self.checked += 1


def check_version(replay: Replay) -> None:
    """Refuse a replay recorded by another game version (its frames would not match)."""
    if replay.game_version != game.__version__:
        raise ReplayError(f"{replay.path}: game_version at byte {OFFSETS['game_version']}: recorded with "
                          f"Rangebox {replay.game_version}, this is {game.__version__}; play it with that "
                          f"version or record it again")


def play_replay(replay: Replay, make_match=None, frames: int | None = None) -> dict:
    """Play a replay headless: all of it, or only its first ``frames`` frames (at most
    ``replay.frames``).  The match is ``make_match(seed, p1_cpu, p2_cpu)``, by default
    :func:`match_settings` (``Match.new(seed=..., p1_cpu=..., p2_cpu=..., arena=replay.arena)``);
    a ``make_match`` of one's own must build it as recorded, arena setting included: a match
    built otherwise raises :class:`ReplayMismatch` on frame 0, naming the setting.

    Returns ``{frames, hashes_checked, final_hash, ok}``; a divergence raises
    :class:`ReplayMismatch`.
    """
    if frames is not None and (isinstance(frames, bool) or not isinstance(frames, (int, np.integer))
                               or frames < 0):
        raise ValueError(f"play_replay: frames {frames!r}: None (the whole replay) or a whole number >= 0")
    stop = replay.frames if frames is None else min(int(frames), replay.frames)
    if make_match is None:
        match = Match.new(seed=replay.seed, p1_cpu=replay.cpu[0], p2_cpu=replay.cpu[1], arena=replay.arena,
                          rounds=replay.rounds, timer=replay.timer)
    else:
        match = make_match(replay.seed, replay.cpu[0], replay.cpu[1])
    differ = _settings_differ(replay, match)
    if differ is not None:              # also when no frame is played (frames=0, an empty replay)
        raise ReplayMismatch(f"{replay.path}: make_match built a match with {differ}; build it as "
                             f"{match_settings(replay)}", 0)
    player = ReplayPlayer(replay)
    while match.frame < stop:
        p1, p2 = player.next_inputs(match)
        match.step(p1, p2)
        player.check(match)
    return {"frames": match.frame, "hashes_checked": player.checked, "final_hash": match.state_hash(), "ok": True}
