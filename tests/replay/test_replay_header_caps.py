"""A replay header's counts are capped by what a match can record, before anything is
allocated: a crafted 153 kB file with valid CRCs claiming 74,000,000 frames drove the
process to 684 MB before it was refused (its zeros compress 1000:1)."""

from __future__ import annotations

import struct
import tracemalloc
import zlib

import pytest

import game
from game.replay import CHECK_INTERVAL, MAX_FILE_SIZE, MAX_MATCH_FRAMES, ReplayError, decode, load_replay

#: The version-2 header (docs/replay-format.md), written here with plain struct.
HEADER = struct.Struct("<4sHH16sQBBHIIIIII")


def craft(frames: int, runs: list[tuple[int, int, int]], *, interval: int = CHECK_INTERVAL,
          checkpoints: int | None = None) -> bytes:
    """A replay whose payload holds ``runs`` and zero tags and checkpoints for ``frames``
    frames, compressed a megabyte at a time (the raw payload is never held whole), with both
    CRCs right."""
    nchk = frames // interval if checkpoints is None else checkpoints
    z = zlib.compressobj(9)
    parts = [z.compress(b"".join(struct.pack("<HHH", *r) for r in runs))]
    zeros = bytes(1 << 20)
    left = frames * 2 + nchk * 8 + 8                         # tags, checkpoints, final hash
    while left:
        n = min(left, len(zeros))
        parts.append(z.compress(zeros[:n]))
        left -= n
    parts.append(z.flush())
    payload = b"".join(parts)
    head = HEADER.pack(b"RBXR", 2, HEADER.size, game.__version__.encode(), 1, 0, 0, interval, frames, len(runs),
                       nchk, len(payload), zlib.crc32(payload), 1)
    body = head + payload
    return body + struct.pack("<I", zlib.crc32(body))


def runs_for(frames: int) -> list[tuple[int, int, int]]:
    """Neutral inputs for ``frames`` frames, in runs of at most 65,535."""
    out = []
    while frames:
        n = min(frames, 0xFFFF)
        out.append((0, 0, n))
        frames -= n
    return out


@pytest.fixture(scope="module")
def inflated(tmp_path_factory):
    """The tester's file: 74,000,000 frames, every CRC valid, within the file-size cap."""
    data = craft(74_000_000, runs_for(74_000_000))
    assert len(data) <= MAX_FILE_SIZE, len(data)
    path = tmp_path_factory.mktemp("rpl") / "inflated.rpl"
    path.write_bytes(data)
    return path


def _peak_while(call) -> tuple[BaseException | None, int]:
    """What ``call()`` raises (or None) and the peak bytes traced while it ran."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    raised = None
    try:
        call()
    except Exception as exc:
        raised = exc
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return raised, peak


def test_a_frame_count_beyond_the_longest_match_is_refused_before_any_allocation(inflated):
    raised, peak = _peak_while(lambda: load_replay(inflated))
    assert isinstance(raised, ReplayError), raised
    msg = str(raised)
    assert msg.startswith(f"{inflated}: frames at byte 36: 74,000,000 frames, more than the longest match "
                          f"({MAX_MATCH_FRAMES:,}"), msg
    # the file itself (153 kB) and its CRCs: nothing sized by the claimed count
    assert peak < 2 * MAX_FILE_SIZE + (1 << 20), f"peak {peak:,} bytes"


def test_the_longest_match_itself_still_loads():
    data = craft(MAX_MATCH_FRAMES, runs_for(MAX_MATCH_FRAMES))
    assert decode(data, "long.rpl").frames == MAX_MATCH_FRAMES
    with pytest.raises(ReplayError, match=r"frames at byte 36: 19,201 frames, more than the longest match"):
        decode(craft(MAX_MATCH_FRAMES + 1, runs_for(MAX_MATCH_FRAMES + 1)), "long.rpl")


def test_more_runs_than_frames_are_refused_from_the_header():
    data = craft(10, [(0, 0, 0)] * 5000 + [(0, 0, 10)])
    raised, peak = _peak_while(lambda: decode(data, "r.rpl"))
    assert isinstance(raised, ReplayError) and str(raised).startswith(
        "r.rpl: runs at byte 40: 5,001 input runs for 10 frames"), raised
    assert peak < 1 << 20


def test_a_run_of_no_frames_is_refused():
    with pytest.raises(ReplayError, match=r"runs at byte 40: input run 1 lasts 0 frames"):
        decode(craft(10, [(0, 0, 4), (0, 0, 0), (0, 0, 6)]), "z.rpl")
