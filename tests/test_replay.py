"""Replay files: round trip, CPU playback, exact divergence frame, compactness, bad files."""

from __future__ import annotations

import errno
import json
import os
import stat
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

import game
from game import replay as rp
from game.replay import (
    HEADER,
    MAX_FILE_SIZE,
    MAX_MATCH_FRAMES,
    ReplayError,
    ReplayMismatch,
    ReplayPlayer,
    ReplayRecorder,
    decode,
    encode,
)
from game.sim import FrameInput

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("cpu", [(None, None), (None, "hard"), ("easy", "normal")])
def test_round_trip_plays_back_to_the_same_hash(cpu):
    data, m = record(cpu=cpu)
    r = decode(data)
    assert r.cpu == cpu and r.seed == 3 and r.game_version == game.__version__
    out = rp.play_replay(r, make_match)
    assert out["ok"] and out["frames"] == m.frame and out["final_hash"] == m.state_hash()
    assert out["hashes_checked"] == m.frame // 60 + 1


def test_recorded_inputs_are_the_effective_ones():
    """A CPU side ignores the given input: the file holds what the CPU pressed."""
    m = make_match(4, None, "hard")
    rec = ReplayRecorder.for_match(m)
    cpu_bits = []
    for _ in range(600):
        m.step(FrameInput(), FrameInput(hk=True))   # the hk is ignored by the CPU side
        rec.record(m)
        cpu_bits.append(m.last_inputs[1].bits)
    r = decode(rec.to_bytes())
    assert r.inputs[:, 1].tolist() == cpu_bits
    assert any(b != FrameInput(hk=True).bits for b in cpu_bits)


def test_cpu_inputs_fed_to_a_no_cpu_match_give_other_hashes():
    """Documents the design choice: CPU sides are re-run, not replaced by their inputs."""
    data, m = record(cpu=("hard", "hard"), frames=600)
    r = decode(data)
    plain = make_match(r.seed, None, None)
    for a, b in r.inputs:
        plain.step(FrameInput.from_bits(int(a)), FrameInput.from_bits(int(b)))
    assert [f.health for f in plain.fighters] == [f.health for f in m.fighters]
    assert plain.state_hash() != m.state_hash()


@pytest.mark.parametrize("frame", [90, 250, 431])
def test_divergence_names_the_exact_frame(frame):
    """A human input changed on one fight frame (the intro ignores inputs, 90 frames):
    the per-frame state tag catches it on that very frame."""
    data, _ = record(cpu=(None, None), frames=600, change=0.3)
    r = decode(data)
    inputs = r.inputs.copy()
    inputs[frame, 0] ^= 1 << 9          # hk pressed (or released) on that frame only
    # the tags still describe the original run; the new inputs drive a different fight
    bad = rp.Replay(r.path, r.game_version, r.seed, r.cpu, r.interval, inputs, r.tags, r.checkpoints, r.final)
    with pytest.raises(ReplayMismatch) as ei:
        rp.play_replay(bad, make_match)
    # the changed press is in the fighter's state (prev_bits) after that very frame, so its
    # tag differs there (a 1-in-65,536 chance of a later report, not met by these inputs)
    assert ei.value.frame == frame
    assert f"frame {ei.value.frame}" in str(ei.value)


def test_cpu_input_divergence_is_named():
    data, _ = record(cpu=(None, "hard"), frames=600)
    r = decode(data)
    want = next(i for i in range(r.frames) if r.inputs[i, 1] != 0)
    inputs = r.inputs.copy()
    inputs[want, 1] = 0
    bad = rp.Replay(r.path, r.game_version, r.seed, r.cpu, r.interval, inputs, r.tags, r.checkpoints, r.final)
    with pytest.raises(ReplayMismatch, match=f"frame {want}: P2 CPU input recorded FrameInput\\(neutral\\)"):
        rp.play_replay(bad, make_match)


def test_different_seed_diverges_at_the_first_live_frame():
    data, _ = record(cpu=(None, "hard"), frames=300)
    r = decode(data)
    with pytest.raises(ReplayMismatch) as ei:
        rp.play_replay(r, lambda s, a, b: make_match(s + 1, a, b))
    assert ei.value.frame == 0          # the RNG state is in the hash from frame 0


def test_player_is_a_clean_input_source():
    data, m = record(frames=300)
    r = decode(data)
    match = make_match(r.seed, *r.cpu)
    player = ReplayPlayer(r)
    n = 0
    while not player.done:
        match.step(*player.next_inputs(match))
        player.check(match)
        n += 1
    assert n == r.frames and match.state_hash() == m.state_hash()
    with pytest.raises(IndexError):
        player.next_inputs(match)


def test_three_minute_match_is_well_under_100_kb():
    """Worst realistic case: both inputs change every 4 frames for 10,800 frames."""
    r = np.random.default_rng(0)
    frames = 3 * 60 * 60
    held = r.integers(0, 1 << FrameInput.BITS, size=(frames // 4, 2)).astype(np.uint16)
    inputs = np.repeat(held, 4, axis=0)
    tags = r.integers(0, 1 << 16, size=frames).astype(np.uint16)
    chk = r.integers(0, 256, size=(frames // 60, 8)).astype(np.uint8)
    data = encode(1, (None, "hard"), inputs, tags, chk, b"\1" * 8)
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
    assert np.array_equal(decode(data).inputs, inputs)


# ------------------------------------------------------------------ bad files
def _good() -> bytes:
    return record(frames=200)[0]


def _refit(buf: bytearray) -> bytes:
    """Recompute the trailer CRC so a deeper check is reached."""
    body = bytes(buf[:-4])
    return body + struct.pack("<I", zlib.crc32(body))


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


def test_atomic_write_never_overwrites_without_force(tmp_path):
    p = tmp_path / "a.rpl"
    p.write_bytes(b"mine")
    rec = ReplayRecorder(0, (None, None))
    with pytest.raises(FileExistsError, match="--force with --record"):
        rec.save(p)
    assert p.read_bytes() == b"mine"
    rec.save(p, force=True)
    assert decode(p.read_bytes()).frames == 0
    assert [x.name for x in tmp_path.iterdir()] == ["a.rpl"]       # no temp file left behind


def test_failed_write_leaves_nothing(tmp_path, monkeypatch):
    p = tmp_path / "b.rpl"

    def boom(*a):
        raise OSError("disk full")
    monkeypatch.setattr(rp.os, "replace", boom)
    with pytest.raises(OSError):
        rp.write_atomic(p, b"data")
    assert list(tmp_path.iterdir()) == []


def test_atomic_write_never_replaces_a_fifo_even_with_force(tmp_path):
    p = tmp_path / "pipe"
    os.mkfifo(p)
    with pytest.raises(FileExistsError, match="FIFO"):
        rp.write_atomic(p, b"data", force=True)
    assert stat.S_ISFIFO(os.stat(p).st_mode)
    assert [x.name for x in tmp_path.iterdir()] == ["pipe"]


def test_check_writable_creates_and_removes_the_save_temp_file(tmp_path):
    rp.check_writable(tmp_path / "a.rpl")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(OSError) as ei:
        rp.check_writable(tmp_path / ("a" * 250 + ".rpl"))     # the temp name adds 13 characters
    assert ei.value.errno == errno.ENAMETOOLONG


# ------------------------------------------------------------------ size bound
def test_longest_match_is_five_full_rounds():
    """Two neutral humans draw every round on time: the match lasts MAX_MATCH_FRAMES."""
    m = make_match(0, None, None)
    while not m.over and m.frame <= MAX_MATCH_FRAMES:
        m.step(FrameInput(), FrameInput())
    assert m.over and m.frame == MAX_MATCH_FRAMES


def test_longest_replay_fits_the_file_size_bound(tmp_path):
    """Worst case: the longest match with both inputs changing every frame (nothing compresses)."""
    r = np.random.default_rng(1)
    n = MAX_MATCH_FRAMES
    inputs = r.integers(0, 1 << FrameInput.BITS, size=(n, 2)).astype(np.uint16)
    data = encode(2**64 - 1, ("hard", "hard"), inputs, r.integers(0, 1 << 16, size=n).astype(np.uint16),
                  r.integers(0, 256, size=(n // 60, 8)).astype(np.uint8), b"\1" * 8)
    assert MAX_FILE_SIZE // 2 < len(data) <= MAX_FILE_SIZE           # a bound, and not a loose one
    (tmp_path / "long.rpl").write_bytes(data)
    assert rp.load_replay(tmp_path / "long.rpl").frames == n
    (tmp_path / "big.rpl").write_bytes(data + bytes(MAX_FILE_SIZE + 1 - len(data)))
    with pytest.raises(ReplayError, match=f"at most {MAX_FILE_SIZE:,} bytes"):
        rp.load_replay(tmp_path / "big.rpl")


def test_load_replay_refuses_a_fifo_without_opening_it(tmp_path):
    os.mkfifo(tmp_path / "pipe.rpl")
    with pytest.raises(ReplayError, match="FIFO.*--replay"):
        rp.load_replay(tmp_path / "pipe.rpl")            # would block forever in open()


def test_play_replay_checks_only_the_first_frames():
    data, _ = record(cpu=(None, "hard"), frames=300)
    r = decode(data)
    m = make_match(r.seed, *r.cpu)
    for i in range(130):
        m.step(*(FrameInput.from_bits(int(b)) for b in r.inputs[i]))
    out = rp.play_replay(r, make_match, frames=130)
    assert out == {"frames": 130, "hashes_checked": 2, "final_hash": m.state_hash(), "ok": True}


# ------------------------------------------------------------------ CLI
def run_main(*args, cwd):
    env = dict(os.environ, PYGLET_HEADLESS="1")
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_cli_record_then_replay(tmp_path):
    p = run_main("--headless", "--p1", "cpu", "--p2", "cpu", "--seed", "7", "--frames", "700",
                 "--record", "m.rpl", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    rec = json.loads(p.stdout)
    q = run_main("--headless", "--replay", "m.rpl", cwd=tmp_path)
    assert q.returncode == 0, q.stderr
    out = json.loads(q.stdout)
    assert out == {"frames": 700, "hashes_checked": 12, "final_hash": rec["state_hash"], "ok": True}


def test_cli_replay_mismatch_exits_2_naming_frame(tmp_path):
    data, _ = record(cpu=(None, None), frames=300, change=0.3)
    r = decode(data)
    tags = r.tags.copy()
    tags[123] ^= 1
    (tmp_path / "bad.rpl").write_bytes(encode(r.seed, r.cpu, r.inputs, tags, r.checkpoints, r.final))
    q = run_main("--headless", "--replay", "bad.rpl", cwd=tmp_path)
    assert q.returncode == 2
    assert q.stderr.count("\n") == 1 and "bad.rpl" in q.stderr and "frame 123" in q.stderr
    assert json.loads(q.stdout)["ok"] is False


def test_window_loop_records_and_replays(tmp_path):
    """The window loop (headless EGL) records through Game.step_listeners and plays
    back through Game.input_source; a tampered frame stops it with exit 2."""
    env_rec = run_main("--p1", "cpu", "--p2", "cpu", "--seed", "4", "--frames", "150", "--record", "w.rpl",
                       cwd=tmp_path)
    if env_rec.returncode == 2 and "OpenGL" in env_rec.stderr:
        pytest.skip("no GL libraries: " + env_rec.stderr.strip())
    assert env_rec.returncode == 0, env_rec.stderr
    head = run_main("--headless", "--replay", "w.rpl", cwd=tmp_path)
    assert head.returncode == 0 and json.loads(head.stdout)["frames"] == 150
    r = rp.load_replay(tmp_path / "w.rpl")
    tags = r.tags.copy()
    tags[120] ^= 1
    (tmp_path / "bad.rpl").write_bytes(encode(r.seed, r.cpu, r.inputs, tags, r.checkpoints, r.final))
    bad = run_main("--replay", "bad.rpl", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "frame 120" in bad.stderr


# ------------------------------------------------------------------ RLE vs a per-frame reference
from hypothesis import given, settings
from hypothesis import strategies as st

from replayhelp import make_match, record


def _reference_runs(inputs):
    """Per-frame loop: the run-length encoding a reader would write by hand."""
    out = []
    for a, b in inputs:
        if out and out[-1][0] == a and out[-1][1] == b and out[-1][2] < 0xFFFF:
            out[-1][2] += 1
        else:
            out.append([a, b, 1])
    return [tuple(r) for r in out]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2047), st.integers(0, 2047), st.integers(1, 40)), max_size=60))
def test_run_length_encoding_matches_reference(spans):
    inputs = np.array([(a, b) for a, b, n in spans for _ in range(n)], dtype=np.uint16).reshape(-1, 2)
    runs = rp._runs(inputs)
    assert [tuple(int(v) for v in r) for r in runs] == _reference_runs(inputs.tolist())
    n = len(inputs)
    data = encode(3, ("hard", None), inputs, np.arange(n, dtype=np.uint16), np.zeros((n // 60, 8), np.uint8),
                  b"\7" * 8)
    back = decode(data)
    assert np.array_equal(back.inputs, inputs) and back.cpu == ("hard", None) and back.final == b"\7" * 8
