"""Recording and playing back: a recorded match plays back to the same hashes (CPU sides re-run),
a changed input is caught on its very frame, tampered checkpoints and tags are caught, and the
recorder and player refuse to be driven out of step or into a match built otherwise."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zlib

import pytest

# ------------------------------------------------------------------ RLE vs a per-frame reference
import game
from clihelp import ROOT
from game import replay as rp
from game import replay_header as rh
from game.replay import (
    MAX_MATCH_FRAMES,
    ReplayMismatch,
    ReplayPlayer,
    ReplayRecorder,
    decode,
    load_replay,
    play_replay,
)
from game.sim import FrameInput, Match
from replayhelp import make_match, record, record_script


@pytest.fixture(scope="module")
def recorded():
    """A 150-frame recording (P2 the hard CPU, P1 pressing a changing button): (bytes, final match)."""
    m = make_match(5, None, "hard")
    rec = ReplayRecorder.for_match(m)
    while m.frame < 150:
        m.step(FrameInput.from_bits((m.frame // 7) * 37 % (1 << FrameInput.BITS)), FrameInput())
        rec.record(m)
    return rec.to_bytes(), m


# ------------------------------------------------------------------ playback checks
def _with(r, **kw):
    d = dict(path=r.path, game_version=r.game_version, seed=r.seed, cpu=r.cpu, interval=r.interval,
             inputs=r.inputs, tags=r.tags, checkpoints=r.checkpoints, final=r.final)
    d.update(kw)
    return rp.Replay(**d)


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
@pytest.mark.parametrize("cpu", [(None, None), (None, "hard"), ("easy", "normal")])
def test_round_trip_plays_back_to_the_same_hash(cpu):
    data, m = record(cpu=cpu)
    r = decode(data)
    assert r.cpu == cpu and r.seed == 3 and r.game_version == game.__version__
    out = rp.play_replay(r, make_match)
    assert out["ok"] and out["frames"] == m.frame and out["final_hash"] == m.state_hash()
    assert out["hashes_checked"] == m.frame // 60 + 1


@pytest.mark.slow
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


@pytest.mark.slow
def test_cpu_inputs_fed_to_a_no_cpu_match_give_other_hashes():
    """Documents the design choice: CPU sides are re-run, not replaced by their inputs."""
    data, m = record(cpu=("hard", "hard"), frames=600)
    r = decode(data)
    plain = make_match(r.seed, None, None)
    for a, b in r.inputs:
        plain.step(FrameInput.from_bits(int(a)), FrameInput.from_bits(int(b)))
    assert [f.health for f in plain.fighters] == [f.health for f in m.fighters]
    assert plain.state_hash() != m.state_hash()


@pytest.mark.slow
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


@pytest.mark.slow
def test_cpu_input_divergence_is_named():
    data, _ = record(cpu=(None, "hard"), frames=600)
    r = decode(data)
    want = next(i for i in range(r.frames) if r.inputs[i, 1] != 0)
    inputs = r.inputs.copy()
    inputs[want, 1] = 0
    bad = rp.Replay(r.path, r.game_version, r.seed, r.cpu, r.interval, inputs, r.tags, r.checkpoints, r.final)
    with pytest.raises(ReplayMismatch, match=f"frame {want}: P2 CPU input recorded FrameInput\\(neutral\\)"):
        rp.play_replay(bad, make_match)


@pytest.mark.slow
def test_different_seed_diverges_at_the_first_live_frame():
    data, _ = record(cpu=(None, "hard"), frames=300)
    r = decode(data)
    with pytest.raises(ReplayMismatch) as ei:
        rp.play_replay(r, lambda s, a, b: make_match(s + 1, a, b))
    assert ei.value.frame == 0          # the RNG state is in the hash from frame 0


@pytest.mark.slow
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


# ------------------------------------------------------------------ size bound
@pytest.mark.slow
def test_longest_match_is_five_full_rounds():
    """Two neutral humans draw every round on time: the match lasts MAX_MATCH_FRAMES."""
    m = make_match(0, None, None)
    while not m.over and m.frame <= MAX_MATCH_FRAMES:
        m.step(FrameInput(), FrameInput())
    assert m.over and m.frame == MAX_MATCH_FRAMES


@pytest.mark.slow
def test_play_replay_checks_only_the_first_frames():
    data, _ = record(cpu=(None, "hard"), frames=300)
    r = decode(data)
    m = make_match(r.seed, *r.cpu)
    for i in range(130):
        m.step(*(FrameInput.from_bits(int(b)) for b in r.inputs[i]))
    out = rp.play_replay(r, make_match, frames=130)
    assert out == {"frames": 130, "hashes_checked": 2, "final_hash": m.state_hash(), "ok": True}


# ---------------------------------------------------------------- replays and the dummy
@pytest.mark.parametrize("seed", [-1, 2**64, 1.5])
def test_recorder_refuses_a_seed_no_replay_can_hold_up_front(seed):
    """Refused when the recorder is made, not by a struct.error in save() after the whole match."""
    with pytest.raises(ValueError, match="ReplayRecorder: seed"):
        ReplayRecorder(seed, (None, None))


@pytest.mark.parametrize("cpu", [("hard",), "hard", (None, None, None), (["hard"], None)])
def test_recorder_refuses_a_cpu_config_that_is_no_pair_of_levels(cpu):
    with pytest.raises(ValueError, match="ReplayRecorder: cpu"):
        ReplayRecorder(0, cpu)


# ================================================================ 1. the arena field
@pytest.mark.slow
@pytest.mark.parametrize("arena", [False, True])
def test_any_match_records_and_plays_back_with_its_arena_setting(arena, tmp_path):
    """A bare-floor match and an arena match both record (the file's arena field) and play
    back on their own setting."""
    m = Match.new(seed=6, p2_cpu="hard", arena=arena)
    rec, hashes = record_script(m, 400)
    rec.save(tmp_path / "m.rpl")
    r = load_replay(tmp_path / "m.rpl")
    assert r.arena is arena and r.cpu == (None, "hard") and r.frames == 400
    out = play_replay(r)                                    # the default match: as recorded
    assert out == {"frames": 400, "hashes_checked": 400 // 60 + 1, "final_hash": hashes[-1], "ok": True}
    own = play_replay(r, lambda s, a, b: Match.new(seed=s, p1_cpu=a, p2_cpu=b, arena=r.arena), frames=200)
    assert own["final_hash"] == hashes[199]


@pytest.mark.slow
@pytest.mark.parametrize("make, words", [
    (lambda s, a, b: Match.new(seed=s, p1_cpu=a, p2_cpu=b, arena=False), ["on a bare floor (arena=False)",
                                                                          "recorded on the arena"]),
    (lambda s, a, b: Match.new(seed=s, p1_cpu=a, p2_cpu=None), ["CPU config (None, None)", "(None, 'hard')"]),
    (lambda s, a, b: Match.new(seed=s + 1, p1_cpu=a, p2_cpu=b), ["seed 4", "recorded with seed 3"]),
])
def test_playback_into_a_match_built_otherwise_names_the_setting_not_a_damaged_file(make, words):
    """The message names the setting that differs, not "replay diverged at frame 0 ... the file
    was altered", which would blame the file."""
    rec, _ = record_script(Match.new(seed=3, p2_cpu="hard"), 30)
    r = decode(rec.to_bytes(), "r.rpl")
    for frames in (None, 0):                                        # also when no frame is played
        with pytest.raises(ReplayMismatch) as ei:
            play_replay(r, make, frames=frames)
        msg = str(ei.value)
        assert ei.value.frame == 0 and msg.startswith("r.rpl: ") and "altered" not in msg
        assert "Match.new(seed=3, p1_cpu=None, p2_cpu='hard', arena=True)" in msg
        for w in words:
            assert w in msg, msg
    with pytest.raises(ReplayMismatch, match="arena=False"):        # the player itself, on frame 0
        ReplayPlayer(r).next_inputs(Match.new(seed=3, p2_cpu="hard", arena=False))


@pytest.mark.parametrize("frames", [-1, 2.5, "10", True])
def test_play_replay_refuses_frames_it_cannot_play(frames):
    """frames=-1 must not check nothing and return ok: True."""
    r = decode(record_script(Match.new(seed=0, arena=False), 10)[0].to_bytes())
    with pytest.raises(ValueError, match="play_replay: frames"):
        play_replay(r, frames=frames)


def test_recorder_refuses_a_frame_recorded_twice_or_skipped():
    """Either would write a file whose every later frame "diverged"."""
    m = Match.new(seed=0, arena=False)
    rec = ReplayRecorder.for_match(m)
    m.step()
    rec.record(m)
    with pytest.raises(ValueError, match="ReplayRecorder.record: the match is at frame 1, the recording holds 1"):
        rec.record(m)
    m.step()
    m.step()
    with pytest.raises(ValueError, match="once after every step"):
        rec.record(m)
    assert rec.frames == 1


def test_player_check_without_a_step_names_the_calling_order():
    rec, _ = record_script(Match.new(seed=0, arena=False), 20)
    r = decode(rec.to_bytes(), "r.rpl")
    m, player = Match.new(seed=0, arena=False), ReplayPlayer(r)
    m.step(*player.next_inputs(m))
    player.check(m)
    with pytest.raises(ReplayMismatch, match=r"r.rpl: the match is at frame 1, the replay checks frame 1 .*step "
                                             r"the match once"):
        player.check(m)
    m.step(*player.next_inputs(m))                                  # and playback goes on
    player.check(m)




# ---------------------------------------------------------------- replays
RECORD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from game.sim import FrameInput, Match
from game.replay import ReplayRecorder
inputs = [(FrameInput.from_bits(a), FrameInput.from_bits(b)) for a, b in json.loads(sys.stdin.read())]
m = Match.new(seed=0)
rec = ReplayRecorder.for_match(m)
for p1, p2 in inputs:
    m.step(p1, p2)
    rec.record(m)
rec.save(sys.argv[2])
print(m.state_hash())
"""


@pytest.mark.slow
def test_B9_replay_with_crate_strikes_recorded_in_one_process_plays_in_another(crate_fight_run, tmp_path):
    inputs, strikes, broke, straight = crate_fight_run
    path = tmp_path / "crates.rpl"
    data = json.dumps([(a.bits, b.bits) for a, b in inputs])
    rec = subprocess.run([sys.executable, "-c", RECORD, str(ROOT), str(path)], input=data, capture_output=True,
                         text=True, timeout=300, env=dict(os.environ, PYTHONHASHSEED="5", OPENBLAS_CORETYPE="Haswell"))
    assert rec.returncode == 0, rec.stderr
    play = subprocess.run([sys.executable, str(ROOT / "main.py"), "--headless", "--replay", str(path)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env=dict(os.environ, PYTHONHASHSEED="99", OPENBLAS_CORETYPE="Sandybridge"))
    assert play.returncode == 0, play.stderr
    out = json.loads(play.stdout)
    assert out["ok"] and out["frames"] == len(inputs)
    assert out["final_hash"] == rec.stdout.strip() == straight[-1][1]


@pytest.mark.slow
def test_B9_replay_of_a_crate_fight_round_trips_through_bytes(crate_fight_run):
    """The recorder's bytes decode to the fight's own inputs and per-frame tags."""
    inputs, _, _, straight = crate_fight_run
    m = Match.new(seed=0)
    rec = ReplayRecorder.for_match(m)
    for p1, p2 in inputs:
        m.step(p1, p2)
        rec.record(m)
    r = decode(rec.to_bytes(), "mem.rpl")
    assert r.inputs.tolist() == [[a.bits, b.bits] for a, b in inputs]
    assert r.tags.tolist() == [int(h[:4], 16) for _, h, _, _ in straight]


# ---------------------------------------------------------------- rounds and timer (format 3)
def test_version_2_file_reads_as_best_of_3_with_60_s_rounds_and_plays_back(recorded):
    """A file of format version 2 (no rounds or timer) was recorded with Match.new's defaults."""
    data, final = recorded
    head = rp.HEADER.unpack_from(data, 0)
    old = rh.HEADER_V2.pack(head[0], 2, rh.HEADER_V2.size, *head[3:14])
    body = old + data[rp.HEADER.size:-4]
    r = decode(body + struct.pack("<I", zlib.crc32(body)))
    assert (r.rounds, r.timer) == (3, 60)
    assert rp.play_replay(r)["final_hash"] == final.state_hash()


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
