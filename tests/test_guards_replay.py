"""Guards for ``game.replay`` found missing by mutation testing: every error branch of
``decode`` reached by a file forged with plain ``struct`` (not the library's writer) and the
byte offset it names checked against the offset derived from the header format itself,
the checkpoint and final hashes checked on their own (not only through the per-frame tags),
playback refusing a match that is not at the replay's frame, the size bound's edge, and a
saved file following the umask."""

from __future__ import annotations

import os
import re
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

import game
from game import replay as rp
from game import replay_header as rh
from game.replay import MAX_FILE_SIZE, ReplayError, ReplayMismatch, ReplayPlayer, ReplayRecorder, decode
from game.sim import FrameInput, Match

#: docs/replay-format.md's header (format version 3), field by field: (name, struct code)
DOC_HEADER = (("magic", "4s"), ("format_version", "H"), ("header_size", "H"), ("game_version", "16s"),
              ("seed", "Q"), ("p1_cpu", "B"), ("p2_cpu", "B"), ("interval", "H"), ("frames", "I"),
              ("runs", "I"), ("checkpoints", "I"), ("payload_size", "I"), ("payload_crc", "I"),
              ("arena", "I"), ("rounds", "H"), ("timer", "H"))
#: Format version 2: the same fields without ``rounds`` and ``timer`` (best of 3, 60 s rounds).
DOC_HEADER_V2 = DOC_HEADER[:-2]
#: Format version 1: version 2 without ``arena`` (every version-1 replay is on the arena).
DOC_HEADER_V1 = DOC_HEADER[:-3]


def doc_offset(field: str) -> int:
    """A header field's byte offset, from the sizes of the fields before it (little-endian, packed)."""
    names = [n for n, _ in DOC_HEADER]
    return struct.calcsize("<" + "".join(c for _, c in DOC_HEADER[:names.index(field)]))


def make_match(seed, p1_cpu, p2_cpu):
    return Match.new(seed=seed, p1_cpu=p1_cpu, p2_cpu=p2_cpu)


@pytest.fixture(scope="module")
def recorded():
    """A 150-frame recording (P2 the hard CPU, P1 pressing a changing button): (bytes, final match)."""
    m = make_match(5, None, "hard")
    rec = ReplayRecorder.for_match(m)
    while m.frame < 150:
        m.step(FrameInput.from_bits((m.frame // 7) * 37 % (1 << FrameInput.BITS)), FrameInput())
        rec.record(m)
    return rec.to_bytes(), m


def forge(raw: bytes | None = None, *, compressed: bytes | None = None, **fields) -> bytes:
    """A replay file built field by field with struct and zlib, both CRCs right; ``fields``
    override the header (defaults: a valid empty replay, format version 3 on the arena, best of
    3 rounds of 60 s; ``format_version=1`` or ``2`` forges that version's layout)."""
    layout = {1: DOC_HEADER_V1, 2: DOC_HEADER_V2}.get(fields.get("format_version", 3), DOC_HEADER)
    h = dict(magic=b"RBXR", format_version=3, header_size=struct.calcsize("<" + "".join(c for _, c in layout)),
             game_version=game.__version__.encode(), seed=1, p1_cpu=0, p2_cpu=0, interval=60, frames=0, runs=0,
             checkpoints=0, arena=1, rounds=3, timer=60)
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
    assert struct.calcsize("<" + "".join(c for _, c in DOC_HEADER)) == rp.HEADER.size == 64
    assert struct.calcsize("<" + "".join(c for _, c in DOC_HEADER_V2)) == rh.HEADER_V2.size == 60
    assert struct.calcsize("<" + "".join(c for _, c in DOC_HEADER_V1)) == rh.HEADER_V1.size == 56


@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_file_shorter_than_the_version_fields_is_a_magic_error_not_a_struct_error(n):
    assert_error(forge()[:n], "magic", 0, f"file is {n} bytes")


@pytest.mark.parametrize("version", [0, 4, 0xFFFF])
def test_any_other_format_version_is_refused_older_or_newer(version):
    data = bytearray(forge())
    data[4:6] = struct.pack("<H", version)
    assert_error(bytes(data), "format_version", doc_offset("format_version"), f"replay format version {version}, ")


@pytest.mark.parametrize("version, size, other", [(3, 64, 60), (2, 60, 56), (1, 56, 60)])
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


# ------------------------------------------------------------------ playback checks
def _with(r, **kw):
    d = dict(path=r.path, game_version=r.game_version, seed=r.seed, cpu=r.cpu, interval=r.interval,
             inputs=r.inputs, tags=r.tags, checkpoints=r.checkpoints, final=r.final)
    d.update(kw)
    return rp.Replay(**d)


def test_tampered_checkpoint_alone_is_caught_on_its_frame(recorded):
    """Tags intact, one 8-byte checkpoint changed: playback stops on that checkpoint's frame."""
    r = decode(recorded[0])
    assert len(r.checkpoints) == 2
    for k in (0, 1):
        chk = r.checkpoints.copy()
        chk[k, 7] ^= 0x01
        with pytest.raises(ReplayMismatch, match=f"checkpoint hash at frame {60 * (k + 1)} differs") as ei:
            rp.play_replay(_with(r, checkpoints=chk), make_match)
        assert ei.value.frame == 60 * (k + 1) - 1


def test_tampered_final_hash_alone_is_caught_on_the_last_frame(recorded):
    r = decode(recorded[0])
    final = bytes([r.final[0] ^ 0x80]) + r.final[1:]
    with pytest.raises(ReplayMismatch, match="final hash differs") as ei:
        rp.play_replay(_with(r, final=final), make_match)
    assert ei.value.frame == r.frames - 1
    # and the recorder stored the real final hash: the untouched file plays through
    assert rp.play_replay(r, make_match)["final_hash"] == recorded[1].state_hash()
    assert r.final == bytes.fromhex(recorded[1].state_hash()[:16])


def test_tampered_tag_of_the_very_first_frame_is_caught(recorded):
    r = decode(recorded[0])
    tags = r.tags.copy()
    tags[0] ^= 0x4000
    with pytest.raises(ReplayMismatch, match="frame 0: state hash differs") as ei:
        rp.play_replay(_with(r, tags=tags), make_match)
    assert ei.value.frame == 0


def test_playback_refuses_a_match_that_is_not_at_the_replays_frame(recorded):
    r = decode(recorded[0])
    m = make_match(r.seed, *r.cpu)
    m.step()
    with pytest.raises(ReplayMismatch, match="the match is at frame 1, the replay at frame 0") as ei:
        ReplayPlayer(r).next_inputs(m)
    assert ei.value.frame == 0


def test_play_replay_with_more_frames_than_recorded_stops_at_the_end(recorded):
    data, m = recorded
    out = rp.play_replay(decode(data), make_match, frames=10_000)
    assert out == {"frames": 150, "hashes_checked": 3, "final_hash": m.state_hash(), "ok": True}


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
    doc = (Path(__file__).resolve().parents[1] / "docs" / "replay-format.md").read_text()
    assert f"`game.replay.MAX_FILE_SIZE` = {MAX_FILE_SIZE:,} bytes" in doc


def test_load_replay_refuses_a_directory(tmp_path):
    with pytest.raises(ReplayError, match="is a directory"):
        rp.load_replay(tmp_path)


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_saved_replay_follows_the_umask_like_any_new_file(tmp_path, umask):
    old = os.umask(umask)
    try:
        ReplayRecorder(0, (None, None)).save(tmp_path / "a.rpl")
        (tmp_path / "plain").write_bytes(b"")
    finally:
        os.umask(old)
    mode = os.stat(tmp_path / "a.rpl").st_mode & 0o777
    assert mode == os.stat(tmp_path / "plain").st_mode & 0o777 == 0o666 & ~umask


def test_long_game_version_keeps_its_sixteen_characters():
    v = "1234567890abcdef"
    r = decode(rp.encode(0, (None, None), np.zeros((0, 2), np.uint16), np.zeros(0, np.uint16),
                         np.zeros((0, 8), np.uint8), bytes(8), game_version=v + "XYZ"))
    assert r.game_version == v
    assert re.fullmatch(r"[ -~]{1,16}", game.__version__)


def test_version_2_file_reads_as_best_of_3_with_60_s_rounds_and_plays_back(recorded):
    """A file of format version 2 (no rounds or timer) was recorded with Match.new's defaults."""
    data, final = recorded
    head = rp.HEADER.unpack_from(data, 0)
    old = rh.HEADER_V2.pack(head[0], 2, rh.HEADER_V2.size, *head[3:14])
    body = old + data[rp.HEADER.size:-4]
    r = decode(body + struct.pack("<I", zlib.crc32(body)))
    assert (r.rounds, r.timer) == (3, 60)
    assert rp.play_replay(r)["final_hash"] == final.state_hash()


@pytest.mark.parametrize("field, value, words", [("rounds", 4, "best of 4 rounds"), ("timer", 0, "0 s round timer"),
                                                 ("timer", 61, "61 s round timer")])
def test_rounds_and_timer_out_of_range_are_field_errors(field, value, words):
    assert_error(forge(**{field: value}), field, doc_offset(field), words)


def test_rounds_and_timer_are_recorded_and_a_match_built_otherwise_is_refused():
    """A best-of-1, 30 s match replays into a match built so; one built with the defaults is
    refused on frame 0, naming the setting."""
    m = Match.new(seed=2, p1_cpu="easy", p2_cpu="hard", rounds=1, timer=30)
    rec = ReplayRecorder.for_match(m)
    while not m.over:
        m.step()
        rec.record(m)
    r = decode(rec.to_bytes())
    assert (r.rounds, r.timer) == (1, 30) and r.frames == m.frame
    assert rp.play_replay(r)["final_hash"] == m.state_hash()
    want = "best of 3 rounds of 60 s, the replay was recorded best of 1 rounds of 30 s"
    with pytest.raises(ReplayMismatch, match=want):
        rp.play_replay(r, lambda s, a, b: Match.new(seed=s, p1_cpu=a, p2_cpu=b))
