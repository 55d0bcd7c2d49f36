"""Recording and replaying through main.py (game/cli/replay_io.py): a recording replays to the
same hash headless and in the window, a damaged or tampered replay is refused naming the field
or the frame, ``--frames`` against a replay's length, the largest seed, a bare-floor replay."""

from __future__ import annotations

import json
import struct
import zlib
from types import SimpleNamespace

import pytest

# ------------------------------------------------------------------ RLE vs a per-frame reference
from clihelp import assert_usage_error, run_main
from game import replay as rp
from game.replay import (
    decode,
    encode,
    load_replay,
)
from game.sim import FrameInput, Match
from replayhelp import record, record_script


# ------------------------------------------------------------------ replays
@pytest.fixture(scope="module")
def good_replay_bytes(tmp_path_factory):
    d = tmp_path_factory.mktemp("rpl")
    p = run_main(["--headless", "--p2", "cpu", "--frames", "400", "--record", "good.rpl"], cwd=d)
    assert p.returncode == 0, p.stderr
    return (d / "good.rpl").read_bytes()


def _with_crc(body: bytes) -> bytes:
    return body + struct.pack("<I", zlib.crc32(body))


@pytest.mark.slow
@pytest.mark.parametrize("make, words", [
    (None, ["nope.rpl", "not found", "--replay"]),
    ("dir", ["is a directory"]),
    (lambda d: b"hello, I am text\n" * 4, ["magic", "byte 0", "not a Rangebox replay"]),
    (lambda d: d[:-7], ["payload_size", "truncated", "record it again"]),
    (lambda d: d[:20], ["header_size", "truncated"]),
    (lambda d: d[:100] + bytes([d[100] ^ 0x10]) + d[101:], ["crc", "corrupted"]),
    (lambda d: d[:4] + struct.pack("<H", 5) + d[6:], ["format_version", "byte 4", "version 5"]),
    (lambda d: _with_crc(d[:8] + b"9.9.9".ljust(16, b"\0") + d[24:-4]), ["game_version", "9.9.9", "record it again"]),
])
def test_bad_replay_file(make, words, good_replay_bytes, tmp_path):
    path = tmp_path / "x.rpl"
    if make is None:
        path = tmp_path / "nope.rpl"
    elif make == "dir":
        path.mkdir()
    else:
        path.write_bytes(make(good_replay_bytes))
    for extra in (["--headless"], []):          # headless and window mode check the file first
        assert_usage_error(run_main([*extra, "--replay", path.name], cwd=tmp_path), path.name, *words)


@pytest.fixture(scope="module")
def good_replay(tmp_path_factory):
    """A 300-frame replay (P2 CPU) and the folder it is in."""
    d = tmp_path_factory.mktemp("rpl")
    p = run_main(["--headless", "--p2", "cpu", "--frames", "300", "--record", "good.rpl"], cwd=d)
    assert p.returncode == 0, p.stderr
    return d / "good.rpl"


def test_window_recording_ends_with_its_match(tmp_path):
    """The window keeps stepping after the match (the result screen): the recording stops
    on the match's last frame, so no replay is longer than the longest match."""
    from game.cli.replay_io import attach_replay_io

    class FakeMatch:
        frame, over, seed, cpu = 0, False, 0, (None, None)
        last_inputs = (FrameInput(), FrameInput())

        def state_hash(self):
            return f"{self.frame:064x}"

    m = FakeMatch()
    game = SimpleNamespace(match=m, step_listeners=[])
    args = SimpleNamespace(replay_data=None, record=str(tmp_path / "w.rpl"), force=False)
    finish = attach_replay_io(args, game)
    for _ in range(25):
        m.frame += 1
        m.over = m.frame >= 10
        for listener in game.step_listeners:
            listener(m, ())
    finish()
    assert load_replay(tmp_path / "w.rpl").frames == 10


@pytest.mark.slow
def test_largest_seed_records_and_replays(tmp_path):
    p = run_main(["--headless", "--frames", "5", "--seed", str(2**64 - 1), "--record", "s.rpl"], cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    q = run_main(["--headless", "--replay", "s.rpl"], cwd=tmp_path)
    assert q.returncode == 0 and json.loads(q.stdout)["final_hash"] == json.loads(p.stdout)["state_hash"]


@pytest.mark.slow
@pytest.mark.gl  # the window and the --screenshot run render
def test_zero_frame_replay_plays_back_in_the_window(tmp_path):
    rec = run_main(["--headless", "--frames", "0", "--record", "z.rpl"], cwd=tmp_path)
    assert rec.returncode == 0, rec.stderr
    shot = run_main(["--replay", "z.rpl", "--screenshot", "z.png"], cwd=tmp_path)
    assert shot.returncode == 0, shot.stderr
    assert (tmp_path / "z.png").read_bytes()[:4] == b"\x89PNG"
    window = run_main(["--replay", "z.rpl"], cwd=tmp_path)
    assert window.returncode == 0, window.stderr
    assert_usage_error(run_main(["--replay", "z.rpl", "--screenshot", "z.png", "--frames", "1"], cwd=tmp_path),
                       "--frames 1", "0 frames", "drop --frames")


@pytest.mark.slow
@pytest.mark.parametrize("extra", [["--screenshot", "x.png"], ["--headless"], []])
def test_replay_frames_beyond_its_length_exits_2(good_replay, tmp_path, extra):
    p = run_main([*extra, "--replay", str(good_replay), "--frames", "400"], cwd=tmp_path)
    assert_usage_error(p, "--frames 400", "300 frames", "--frames 300")
    assert not (tmp_path / "x.png").exists()


@pytest.mark.slow
def test_headless_replay_with_frames_checks_only_the_first_frames(good_replay, tmp_path):
    p = run_main(["--headless", "--replay", str(good_replay), "--frames", "90"], cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    ref = run_main(["--headless", "--p2", "cpu", "--frames", "90"], cwd=tmp_path)
    assert out == {"frames": 90, "hashes_checked": 1, "final_hash": json.loads(ref.stdout)["state_hash"],
                   "ok": True, "replay_frames": 300}




@pytest.mark.slow
def test_cli_record_then_replay(tmp_path):
    p = run_main(["--headless", "--p1", "cpu", "--p2", "cpu", "--seed", "7", "--frames", "700",
                 "--record", "m.rpl"], cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    rec = json.loads(p.stdout)
    q = run_main(["--headless", "--replay", "m.rpl"], cwd=tmp_path)
    assert q.returncode == 0, q.stderr
    out = json.loads(q.stdout)
    assert out == {"frames": 700, "hashes_checked": 12, "final_hash": rec["state_hash"], "ok": True}


@pytest.mark.slow
def test_cli_replay_mismatch_exits_2_naming_frame(tmp_path):
    data, _ = record(cpu=(None, None), frames=300, change=0.3)
    r = decode(data)
    tags = r.tags.copy()
    tags[123] ^= 1
    (tmp_path / "bad.rpl").write_bytes(encode(r.seed, r.cpu, r.inputs, tags, r.checkpoints, r.final))
    q = run_main(["--headless", "--replay", "bad.rpl"], cwd=tmp_path)
    assert_usage_error(q, "bad.rpl", "frame 123")
    assert json.loads(q.stdout)["ok"] is False


@pytest.mark.slow
@pytest.mark.gl  # the window renders
def test_window_loop_records_and_replays(tmp_path):
    """The window loop (headless EGL) records through Game.step_listeners and plays
    back through Game.input_source; a tampered frame stops it with exit 2."""
    env_rec = run_main(["--p1", "cpu", "--p2", "cpu", "--seed", "4", "--frames", "150", "--record", "w.rpl"],
                       cwd=tmp_path)
    if env_rec.returncode == 2 and "OpenGL" in env_rec.stderr:
        pytest.skip("no GL libraries: " + env_rec.stderr.strip())
    assert env_rec.returncode == 0, env_rec.stderr
    head = run_main(["--headless", "--replay", "w.rpl"], cwd=tmp_path)
    assert head.returncode == 0 and json.loads(head.stdout)["frames"] == 150
    r = rp.load_replay(tmp_path / "w.rpl")
    tags = r.tags.copy()
    tags[120] ^= 1
    (tmp_path / "bad.rpl").write_bytes(encode(r.seed, r.cpu, r.inputs, tags, r.checkpoints, r.final))
    bad = run_main(["--replay", "bad.rpl"], cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "frame 120" in bad.stderr


@pytest.mark.slow
def test_cli_checks_a_bare_floor_replay_headless_and_the_window_names_the_fix(tmp_path):
    m = Match.new(seed=9, p1_cpu="easy", arena=False)
    rec, hashes = record_script(m, 150)
    rec.save(tmp_path / "bare.rpl")
    ok = run_main(["--headless", "--replay", "bare.rpl"], cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout) == {"frames": 150, "hashes_checked": 3, "final_hash": hashes[-1], "ok": True}
    win = run_main(["--replay", "bare.rpl"], cwd=tmp_path)       # refused before any window opens
    assert win.returncode == 2 and win.stderr.count("\n") == 1
    assert "bare.rpl" in win.stderr and "bare floor" in win.stderr and "--headless" in win.stderr
