"""The replay file format (game/replay.py, docs/replay-format.md): run-length encoded inputs,
compactness and the size bound, the header's documented offsets, the arena field and version 1
files, and every error branch of ``decode`` reached by a file forged with plain ``struct``."""

from __future__ import annotations

import re
import struct
import tracemalloc
import zlib

import numpy as np
import pytest

# ------------------------------------------------------------------ RLE vs a per-frame reference
from hypothesis import given, settings
from hypothesis import strategies as st

import game
from clihelp import ROOT
from game import replay as rp
from game import replay_header as rh
from game.replay import (
    HEADER,
    MAX_FILE_SIZE,
    MAX_MATCH_FRAMES,
    TRAILER,
    ReplayError,
    decode,
    encode,
    load_replay,
    play_replay,
)
from game.sim import FrameInput, Match
from replayhelp import record, record_script

#: docs/replay-format.md's header (format version 4), field by field: (name, struct code)
DOC_HEADER = (("magic", "4s"), ("format_version", "H"), ("header_size", "H"), ("game_version", "16s"),
              ("seed", "Q"), ("p1_cpu", "B"), ("p2_cpu", "B"), ("interval", "H"), ("frames", "I"),
              ("runs", "I"), ("checkpoints", "I"), ("payload_size", "I"), ("payload_crc", "I"),
              ("arena", "I"), ("rounds", "H"), ("timer", "H"), ("tags", "H"))
#: Format version 3: the same fields without ``tags`` (a tag after every frame).
DOC_HEADER_V3 = DOC_HEADER[:-1]
#: Format version 2: version 3 without ``rounds`` and ``timer`` (best of 3, 60 s rounds).
DOC_HEADER_V2 = DOC_HEADER[:-3]
#: Format version 1: version 2 without ``arena`` (every version-1 replay is on the arena).
DOC_HEADER_V1 = DOC_HEADER[:-4]


def doc_offset(field: str) -> int:
    """A header field's byte offset, from the sizes of the fields before it (little-endian, packed)."""
    names = [n for n, _ in DOC_HEADER]
    return struct.calcsize("<" + "".join(c for _, c in DOC_HEADER[:names.index(field)]))


def forge(raw: bytes | None = None, *, compressed: bytes | None = None, **fields) -> bytes:
    """A replay file built field by field with struct and zlib, both CRCs right; ``fields``
    override the header (defaults: a valid empty replay, format version 4 on the arena, best of
    3 rounds of 60 s, a tag every frame; ``format_version=1``, ``2`` or ``3`` forges that
    version's layout)."""
    layout = {1: DOC_HEADER_V1, 2: DOC_HEADER_V2, 3: DOC_HEADER_V3}.get(fields.get("format_version", 4), DOC_HEADER)
    h = dict(magic=b"RBXR", format_version=4, header_size=struct.calcsize("<" + "".join(c for _, c in layout)),
             game_version=game.__version__.encode(), seed=1, p1_cpu=0, p2_cpu=0, interval=60, frames=0, runs=0,
             checkpoints=0, arena=1, rounds=3, timer=60, tags=1)
    h.update(fields)
    payload = compressed if compressed is not None else zlib.compress(b"\0" * 8 if raw is None else raw)
    h.setdefault("payload_size", len(payload))
    h.setdefault("payload_crc", zlib.crc32(payload))
    head = struct.pack("<" + "".join(c for _, c in layout), *(h[n] for n, _ in layout))
    body = head + payload
    return body + struct.pack("<I", zlib.crc32(body))


def runs_bytes(*runs) -> bytes:
    return b"".join(struct.pack("<HHH", *r) for r in runs)


def assert_error(data: bytes, field: str, offset: int, *words: str) -> str:
    with pytest.raises(ReplayError) as ei:
        decode(data, "f.rpl")
    msg = str(ei.value)
    assert type(ei.value) is ReplayError and "\n" not in msg
    assert msg.startswith(f"f.rpl: {field} at byte {offset}: "), msg
    for w in words:
        assert w in msg, msg
    return msg


def test_forged_valid_file_decodes():
    """The forger writes what the reader reads (so the error cases below differ in one field only)."""
    raw = runs_bytes((3, 2047, 61)) + np.arange(61, dtype="<u2").tobytes() + bytes(range(8)) + b"\5" * 8
    r = decode(forge(raw, frames=61, runs=1, checkpoints=1, p1_cpu=3, p2_cpu=1, seed=2**64 - 1))
    assert r.frames == 61 and r.cpu == ("hard", "easy") and r.seed == 2**64 - 1
    assert r.inputs.tolist() == [[3, 2047]] * 61 and r.tags.tolist() == list(range(61))
    assert r.checkpoints.tolist() == [list(range(8))] and r.final == b"\5" * 8


def test_header_offsets_in_messages_are_the_documented_layout():
    """Every offset a message can name is the field's offset in the documented header."""
    assert [n for n, _ in DOC_HEADER] == list(rh._FIELDS)
    assert {n: doc_offset(n) for n, _ in DOC_HEADER} == rh.OFFSETS
    assert struct.calcsize("<" + "".join(c for _, c in DOC_HEADER)) == rp.HEADER.size == 66
    assert struct.calcsize("<" + "".join(c for _, c in DOC_HEADER_V3)) == rh.HEADER_V3.size == 64
    assert struct.calcsize("<" + "".join(c for _, c in DOC_HEADER_V2)) == rh.HEADER_V2.size == 60
    assert struct.calcsize("<" + "".join(c for _, c in DOC_HEADER_V1)) == rh.HEADER_V1.size == 56


@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_file_shorter_than_the_version_fields_is_a_magic_error_not_a_struct_error(n):
    assert_error(forge()[:n], "magic", 0, f"file is {n} bytes")


@pytest.mark.parametrize("version", [0, 5, 0xFFFF])
def test_any_other_format_version_is_refused_older_or_newer(version):
    data = bytearray(forge())
    data[4:6] = struct.pack("<H", version)
    assert_error(bytes(data), "format_version", doc_offset("format_version"), f"replay format version {version}, ")


@pytest.mark.parametrize("version, size, other", [(4, 66, 64), (3, 64, 66), (2, 60, 56), (1, 56, 60)])
def test_other_header_size_is_refused(version, size, other):
    data = bytearray(forge(format_version=version))
    data[6:8] = struct.pack("<H", other)
    assert_error(bytes(data), "header_size", doc_offset("header_size"),
                 f"expected {size}, found {other} (format version {version})")


def test_trailer_crc_error_names_the_trailer_offset():
    data = bytearray(forge())
    data[-1] ^= 0x01
    assert_error(bytes(data), "crc", len(data) - 4, "corrupted")


def test_non_ascii_game_version_is_a_field_error():
    assert_error(forge(game_version="é1".encode("utf-8")), "game_version", doc_offset("game_version"), "not ASCII")


@pytest.mark.parametrize("side", ["p1_cpu", "p2_cpu"])
def test_unknown_cpu_code_on_either_side_is_named(side):
    unknown = max(rp.CPU_CODES.values()) + 1
    assert_error(forge(**{side: unknown}), side, doc_offset(side), f"unknown CPU code {unknown}")


def test_zero_checkpoint_interval_is_refused():
    assert_error(forge(interval=0), "interval", doc_offset("interval"), "interval is 0")


def test_checkpoint_count_must_match_the_frames():
    raw = runs_bytes((0, 0, 120)) + bytes(240) + bytes(8) + bytes(8)      # one checkpoint, two due
    assert_error(forge(raw, frames=120, runs=1, checkpoints=1), "checkpoints", doc_offset("checkpoints"),
                 "1 checkpoints for 120 frames every 60, expected 2")


def test_payload_that_is_not_zlib_is_a_field_error():
    assert_error(forge(compressed=b"this is not zlib data"), "payload", rp.HEADER.size, "zlib data is invalid")
    assert_error(forge(compressed=b"not zlib", format_version=1), "payload", rh.HEADER_V1.size, "zlib data")


@pytest.mark.parametrize("extra", [-1, 1])
def test_payload_of_the_wrong_length_is_refused(extra):
    raw = runs_bytes((0, 0, 5)) + bytes(10) + bytes(8)
    raw = raw[:extra] if extra < 0 else raw + b"\0"
    assert_error(forge(raw, frames=5, runs=1), "payload", rp.HEADER.size, f"is {len(raw)} bytes, the header implies 24")


def test_runs_must_cover_the_frames():
    raw = runs_bytes((0, 0, 4)) + bytes(10) + bytes(8)
    assert_error(forge(raw, frames=5, runs=1), "runs", doc_offset("runs"), "cover 4 frames, header says 5")


@pytest.mark.parametrize("bits", [(1 << 11, 0), (0, 1 << 11), (0, 0xFFFF)])
def test_input_bits_above_the_buttons_are_refused_on_either_side(bits):
    raw = runs_bytes((*bits, 5)) + bytes(10) + bytes(8)
    assert_error(forge(raw, frames=5, runs=1), "runs", doc_offset("runs"), "bits above the 11 buttons")


# ------------------------------------------------------------------ files
def test_file_of_exactly_the_size_bound_is_read(tmp_path):
    """MAX_FILE_SIZE bytes is allowed (the bound is inclusive): such a file gets decode's own error."""
    p = tmp_path / "edge.rpl"
    p.write_bytes(forge() + bytes(MAX_FILE_SIZE - len(forge())))
    with pytest.raises(ReplayError) as ei:
        rp.load_replay(p)
    assert "payload_size at byte 48" in str(ei.value) and "at most" not in str(ei.value)


def test_size_bound_holds_an_incompressible_payload_of_the_longest_match():
    """The bound against zlib itself: the longest match's payload (one run per frame, a tag per
    frame, every checkpoint, the final hash) filled with random bytes, which zlib cannot
    shrink, compressed as the writer does, still fits, within a few hundred bytes; and the
    documented figure is the bound."""
    frames = rp.MAX_MATCH_FRAMES
    raw_len = frames * 6 + frames * 2 + (frames // 60) * 8 + 8
    raw = np.random.default_rng(3).integers(0, 256, raw_len, dtype=np.uint8).tobytes()
    size = rp.HEADER.size + len(zlib.compress(raw, 9)) + 4
    assert size <= MAX_FILE_SIZE < size + 300, (size, MAX_FILE_SIZE)
    doc = (ROOT / "docs" / "replay-format.md").read_text()
    assert f"`game.replay.MAX_FILE_SIZE` = {MAX_FILE_SIZE:,} bytes" in doc


def test_long_game_version_keeps_its_sixteen_characters():
    v = "1234567890abcdef"
    r = decode(rp.encode(0, (None, None), np.zeros((0, 2), np.uint16), np.zeros(0, np.uint16),
                         np.zeros((0, 8), np.uint8), bytes(8), game_version=v + "XYZ"))
    assert r.game_version == v
    assert re.fullmatch(r"[ -~]{1,16}", game.__version__)


def test_three_minute_match_is_well_under_100_kb():
    """Worst realistic case: both inputs change every 4 frames for 10,800 frames."""
    r = np.random.default_rng(0)
    frames = 3 * 60 * 60
    held = r.integers(0, 1 << FrameInput.BITS, size=(frames // 4, 2)).astype(np.uint16)
    inputs = np.repeat(held, 4, axis=0)
    tags = r.integers(0, 1 << 16, size=frames).astype(np.uint16)
    chk = r.integers(0, 256, size=(frames // 60, 8)).astype(np.uint8)
    data = encode(1, (None, "hard"), inputs, tags, chk, chk[-1].tobytes())     # the final: the last checkpoint's frame
    assert len(data) < 100_000
    back = decode(data)
    assert np.array_equal(back.inputs, inputs) and np.array_equal(back.tags, tags)
    assert np.array_equal(back.checkpoints, chk)


def test_run_length_encoding_splits_long_runs():
    inputs = np.zeros((70_000, 2), dtype=np.uint16)
    data = encode(0, (None, None), inputs, np.zeros(70_000, np.uint16), np.zeros((70_000 // 60, 8), np.uint8),
                  b"\0" * 8)
    h = HEADER.unpack_from(data)
    assert h[9] == 2                                    # two runs: 65535 + 4465
    raw = zlib.decompress(data[HEADER.size:-4])
    assert struct.unpack_from("<6H", raw) == (0, 0, 65_535, 0, 0, 4_465)
    # more frames than the longest match holds: the reader refuses it from the header
    with pytest.raises(ReplayError, match=r"frames at byte 36: 70,000 frames, more than the longest match"):
        decode(data)


# ------------------------------------------------------------------ bad files
def _good() -> bytes:
    return record(frames=200)[0]


def _refit(buf: bytearray) -> bytes:
    """Recompute the trailer CRC so a deeper check is reached."""
    body = bytes(buf[:-4])
    return body + struct.pack("<I", zlib.crc32(body))


@pytest.mark.slow
@pytest.mark.parametrize("mutate, field", [
    (lambda d: d[:3], "magic"),
    (lambda d: b"XXXX" + d[4:], "magic"),
    (lambda d: d[:4] + struct.pack("<H", 9) + d[6:], "format_version"),
    (lambda d: d[:30], "header_size"),
    (lambda d: d[:-10], "payload_size"),
    (lambda d: d + b"\0", "payload_size"),
    (lambda d: d[:70] + bytes([d[70] ^ 0xFF]) + d[71:], "crc"),
    (lambda d: _refit(bytearray(d[:70] + bytes([d[70] ^ 0xFF]) + d[71:])), "payload_crc"),
    (lambda d: _refit(bytearray(d[:32] + b"\x07" + d[33:])), "p1_cpu"),
])
def test_bad_file_raises_replay_error_naming_field_and_offset(mutate, field):
    data = mutate(_good())
    with pytest.raises(ReplayError) as ei:
        decode(data, "x.rpl")
    msg = str(ei.value)
    assert msg.startswith(f"x.rpl: {field} at byte ") and "\n" not in msg      # "crc", not "payload_crc"
    assert isinstance(ei.value, ValueError)


def test_other_game_version_is_refused():
    data, _ = record(frames=60)
    r = decode(data)
    old = rp.Replay(r.path, "0.0.1", r.seed, r.cpu, r.interval, r.inputs, r.tags, r.checkpoints, r.final)
    with pytest.raises(ReplayError, match="game_version.*0.0.1"):
        rp.check_version(old)


def test_longest_replay_fits_the_file_size_bound(tmp_path):
    """Worst case: the longest match with both inputs changing every frame (nothing compresses)."""
    r = np.random.default_rng(1)
    n = MAX_MATCH_FRAMES
    inputs = r.integers(0, 1 << FrameInput.BITS, size=(n, 2)).astype(np.uint16)
    chk = r.integers(0, 256, size=(n // 60, 8)).astype(np.uint8)
    data = encode(2**64 - 1, ("hard", "hard"), inputs, r.integers(0, 1 << 16, size=n).astype(np.uint16), chk,
                  chk[-1].tobytes())                                # n is a whole number of intervals
    assert MAX_FILE_SIZE // 2 < len(data) <= MAX_FILE_SIZE           # a bound, and not a loose one
    (tmp_path / "long.rpl").write_bytes(data)
    assert rp.load_replay(tmp_path / "long.rpl").frames == n
    (tmp_path / "big.rpl").write_bytes(data + bytes(MAX_FILE_SIZE + 1 - len(data)))
    with pytest.raises(ReplayError, match=f"at most {MAX_FILE_SIZE:,} bytes"):
        rp.load_replay(tmp_path / "big.rpl")


def _reference_runs(inputs):
    """Per-frame loop: the run-length encoding a reader would write by hand."""
    out = []
    for a, b in inputs:
        if out and out[-1][0] == a and out[-1][1] == b and out[-1][2] < 0xFFFF:
            out[-1][2] += 1
        else:
            out.append([a, b, 1])
    return [tuple(r) for r in out]


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2047), st.integers(0, 2047), st.integers(1, 40)), max_size=60))
def test_run_length_encoding_matches_reference(spans):
    inputs = np.array([(a, b) for a, b, n in spans for _ in range(n)], dtype=np.uint16).reshape(-1, 2)
    runs = rp._runs(inputs)
    assert [tuple(int(v) for v in r) for r in runs] == _reference_runs(inputs.tolist())
    n = len(inputs)
    chk = np.full((n // 60, 8), 7, np.uint8)                        # the final hash is the last checkpoint's
    data = encode(3, ("hard", None), inputs, np.arange(n, dtype=np.uint16), chk, b"\7" * 8)
    back = decode(data)
    assert np.array_equal(back.inputs, inputs) and back.cpu == ("hard", None) and back.final == b"\7" * 8


def test_bare_floor_and_arena_replays_differ_only_in_the_arena_field():
    bare, arena = (record_script(Match.new(seed=2, arena=a), 0)[0].to_bytes() for a in (False, True))
    off = rh.OFFSETS["arena"]
    assert len(bare) == len(arena) and off == rh.HEADER_V2.size - 4
    diff = [i for i in range(len(bare) - 4) if bare[i] != arena[i]]          # the trailer CRC differs too
    assert diff == [off]
    assert struct.unpack_from("<I", bare, off) == (0,) and struct.unpack_from("<I", arena, off) == (1,)


def _as_version_1(data: bytes) -> bytes:
    """A version-4 file (best of 3, 60 s rounds, a tag every frame) rewritten by hand in the
    version-1 layout (no arena, rounds, timer or tags field)."""
    v4 = struct.Struct("<4sHH16sQBBHIIIIIIHHH")
    fields = list(v4.unpack_from(data))
    assert fields[1] == 4 and fields[-4:] == [1, 3, 60, 1], "not a version-4 tagged arena replay of the defaults"
    head = struct.pack("<4sHH16sQBBHIIIII", fields[0], 1, 56, *fields[3:-4])
    body = head + data[v4.size:-4]
    return body + struct.pack("<I", zlib.crc32(body))


@pytest.mark.slow
def test_a_version_1_file_is_still_read_and_plays_on_the_arena(tmp_path):
    """Every version-1 replay was recorded on the arena (bare floors were refused)."""
    m = Match.new(seed=4, p1_cpu="normal")
    rec, hashes = record_script(m, 200)
    (tmp_path / "old.rpl").write_bytes(_as_version_1(rec.to_bytes()))
    r = load_replay(tmp_path / "old.rpl")
    assert r.arena is True and r.frames == 200
    assert play_replay(r)["final_hash"] == hashes[-1]


def _as_version_3(data: bytes) -> bytes:
    """A version-4 file with a tag every frame rewritten by hand in the version-3 layout (no
    ``tags`` field)."""
    fields = list(HEADER.unpack_from(data))
    assert fields[1] == 4 and fields[-1] == 1, "not a version-4 replay with tags"
    head = rh.HEADER_V3.pack(fields[0], 3, rh.HEADER_V3.size, *fields[3:-1])
    body = head + data[HEADER.size:-4]
    return body + struct.pack("<I", zlib.crc32(body))


def test_a_version_3_file_is_read_as_tagged_and_plays(tmp_path):
    m = Match.new(seed=4, p1_cpu="normal")
    rec, hashes = record_script(m, 130)
    (tmp_path / "v3.rpl").write_bytes(_as_version_3(rec.to_bytes()))
    r = load_replay(tmp_path / "v3.rpl")
    assert r.tagged and r.frames == 130 and r.tags.shape == (130,)
    assert play_replay(r)["final_hash"] == hashes[-1]


@pytest.mark.parametrize("code", [2, 0xFFFF])
def test_unknown_tags_code_is_a_field_error(code):
    assert_error(forge(tags=code), "tags", doc_offset("tags"), f"unknown tags code {code}")


def test_a_final_hash_other_than_the_checkpoint_of_the_same_frame_is_refused():
    """60 frames every 60: the checkpoint and the final hash are of the same state."""
    raw = runs_bytes((0, 0, 60)) + bytes(120) + bytes(range(8))
    decode(forge(raw + bytes(range(8)), frames=60, runs=1, checkpoints=1))
    assert_error(forge(raw + b"\1" * 8, frames=60, runs=1, checkpoints=1), "payload", HEADER.size,
                 "final hash differs from the checkpoint of the same frame (60)")


def test_bytes_after_the_payloads_zlib_data_are_refused():
    assert_error(forge(compressed=zlib.compress(b"\0" * 8) + b"junk"), "payload", HEADER.size,
                 "4 bytes after the end of the zlib data")


def test_a_file_without_tags_holds_none_in_its_payload():
    """``tags`` 0: the payload is the runs, the checkpoints and the final hash (no u16 a frame)."""
    raw = runs_bytes((3, 5, 61)) + bytes(range(16)) + b"\5" * 8
    r = decode(forge(raw, frames=61, runs=1, checkpoints=2, interval=30, tags=0))
    assert not r.tagged and r.tags.shape == (0,) and r.checkpoints.tolist() == [list(range(8)), list(range(8, 16))]
    assert_error(forge(raw, frames=61, runs=1, checkpoints=2, interval=30, tags=1), "payload", HEADER.size,
                 "the header implies")


def _forge(arena: int) -> bytes:
    raw = bytes(8)                                                  # 0 frames: just the final hash
    payload = zlib.compress(raw)
    head = rp.HEADER.pack(b"RBXR", 4, rp.HEADER.size, rp.game.__version__.encode(), 0, 0, 0, 60, 0, 0, 0,
                          len(payload), zlib.crc32(payload), arena, 3, 60, 1)
    return head + payload + struct.pack("<I", zlib.crc32(head + payload))


@pytest.mark.parametrize("code", [2, 0xFFFFFFFF])
def test_unknown_arena_code_is_a_field_error(code):
    decode(_forge(1))                                               # the forger's file is valid
    with pytest.raises(ReplayError) as ei:
        decode(_forge(code), "a.rpl")
    assert str(ei.value).startswith(f"a.rpl: arena at byte {rh.OFFSETS['arena']}: unknown arena code {code}")


def _file(payload: bytes, frames: int, runs: int) -> bytes:
    import game

    header = HEADER.pack(b"RBXR", 4, HEADER.size, game.__version__.encode(), 0, 0, 0, 60, frames, runs,
                         frames // 60, len(payload), zlib.crc32(payload), 1, 3, 60, 1)
    return header + payload + TRAILER.pack(zlib.crc32(header + payload))


@pytest.mark.slow
def test_payload_that_inflates_far_past_its_header_is_refused_without_inflating_it():
    """A file under the size limit whose zlib payload (valid CRCs) inflates to ~100 MB: one
    ReplayError naming the payload, without the 100 MB ever being made."""
    z = zlib.compressobj(9)
    chunk = bytes(1 << 20)
    payload = b"".join(z.compress(chunk) for _ in range(100)) + z.flush()
    data = _file(payload, 60, 1)
    tracemalloc.start()
    try:
        with pytest.raises(ReplayError,
                           match=rf"bomb.rpl: payload at byte {HEADER.size}: decompressed payload is over"):
            decode(data, "bomb.rpl")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * len(data) + (1 << 20)


def test_truncated_zlib_stream_is_named_as_such():
    raw = struct.pack("<HHH", 0, 0, 1) + bytes(2) + bytes(8)   # one run of 1 frame, its tag, the final hash
    full = zlib.compress(raw, 9)
    with pytest.raises(ReplayError, match=rf"x.rpl: payload at byte {HEADER.size}: zlib data is invalid"):
        decode(_file(full[:-3], 1, 1), "x.rpl")


@pytest.mark.parametrize("field, value, words", [("rounds", 4, "best of 4 rounds"), ("timer", 0, "0 s round timer"),
                                                 ("timer", 61, "61 s round timer")])
def test_rounds_and_timer_out_of_range_are_field_errors(field, value, words):
    assert_error(forge(**{field: value}), field, doc_offset(field), words)
