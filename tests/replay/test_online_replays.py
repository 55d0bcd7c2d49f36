"""Replays of online matches (``ReplayRecorder.for_match(match, online=True)``): no per-frame
tags, a checkpoint every ``ONLINE_INTERVAL`` frames (the frames the referee checks), the same
bytes whether every frame is hashed (a player's recorder) or only the checkpoints and the last
frame at save time (the referee's, ``final_at_save``), and playback that still names a
divergence: a CPU input at its frame, a state difference with the frames it lies in."""

from __future__ import annotations

import dataclasses
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game import replay_header as rh
from game.net.cpu_player import cpu_fight_inputs
from game.replay import ONLINE_INTERVAL, ReplayMismatch, ReplayRecorder, decode, play_replay
from game.server.referee import HASH_INTERVAL
from game.sim import FrameInput, Match

SEED = 5
FIGHT = cpu_fight_inputs(SEED, 480)


def _record(frames: int, *, online: bool = True, final_at_save: bool = False, p2_cpu: str | None = None,
            unrecorded: int = 0) -> bytes:
    """The replay of the first ``frames`` frames of a recorded CPU fight (P2 a CPU of its own
    with ``p2_cpu``), then ``unrecorded`` more frames stepped without recording."""
    m = Match.new(SEED, p2_cpu=p2_cpu)
    rec = ReplayRecorder.for_match(m, online=online, final_at_save=final_at_save)
    for k, (a, b) in enumerate(FIGHT[:frames + unrecorded]):
        m.step(FrameInput.from_bits(a), FrameInput.from_bits(b))
        if k < frames:
            rec.record(m)
    return rec.to_bytes()


def test_the_online_interval_is_the_referees_and_the_sessions_hash_interval():
    import inspect

    from game.net.session import P2PSession

    default = inspect.signature(P2PSession.__init__).parameters["hash_interval"].default
    assert ONLINE_INTERVAL == HASH_INTERVAL == default == 30


def test_an_online_replay_holds_no_tags_and_a_checkpoint_every_30_frames_and_plays_back():
    data = _record(437)
    r = decode(data)
    assert (r.tagged, r.interval, r.frames, r.tags.shape, r.checkpoints.shape) == (False, 30, 437, (0,), (14, 8))
    assert struct.unpack_from("<HH", data, 4) == (4, 66) and struct.unpack_from("<H", data, rh.OFFSETS["tags"]) == (0,)
    out = play_replay(r)
    assert out["ok"] and out["frames"] == 437 and out["hashes_checked"] == 15      # 14 checkpoints and the final
    tagged = decode(_record(437, online=False))
    assert tagged.tagged and tagged.interval == 60 and len(data) < len(_record(437, online=False))


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 130))
def test_hashing_only_checkpoints_and_the_last_frame_at_save_writes_the_same_bytes(frames):
    """The referee's recorder (``final_at_save``) and a player's (a hash every frame) make the
    same file at any length: the server's replay equals the players'."""
    assert _record(frames, final_at_save=True) == _record(frames)


def test_final_at_save_is_only_for_a_recording_without_tags():
    with pytest.raises(ValueError, match="final_at_save"):
        ReplayRecorder.for_match(Match.new(1), final_at_save=True)


def test_final_at_save_ends_at_the_last_checkpoint_if_the_match_moved_on_unrecorded():
    r = decode(_record(75, final_at_save=True, unrecorded=2))
    assert r.frames == 60 and play_replay(r)["ok"]
    assert _record(75, final_at_save=True, unrecorded=2) == _record(60)


@pytest.mark.parametrize("k, covers", [(0, "frames 0 to 29"), (1, "frames 30 to 59"), (13, "frames 390 to 419")])
def test_a_changed_checkpoint_is_named_with_the_frames_it_covers(k, covers):
    r = decode(_record(437))
    chk = r.checkpoints.copy()
    chk[k, 0] ^= 1
    with pytest.raises(ReplayMismatch) as ei:
        play_replay(dataclasses.replace(r, checkpoints=chk))
    assert ei.value.frame == 30 * (k + 1) - 1
    assert f"checkpoint hash at frame {30 * (k + 1)} differs" in str(ei.value) and covers in str(ei.value)


def test_a_changed_final_hash_is_named_with_the_frames_after_the_last_checkpoint():
    r = decode(_record(437))
    with pytest.raises(ReplayMismatch) as ei:
        play_replay(dataclasses.replace(r, final=bytes(8)))
    assert ei.value.frame == 436 and "final hash differs" in str(ei.value) and "frames 420 to 436" in str(ei.value)


def test_a_cpu_input_changed_in_an_online_replay_is_named_at_its_frame():
    """Without tags a CPU side's recorded input is still checked after every frame."""
    r = decode(_record(200, p2_cpu="hard"))
    assert play_replay(r)["ok"]
    inputs = r.inputs.copy()
    inputs[117, 1] ^= 1
    with pytest.raises(ReplayMismatch) as ei:
        play_replay(dataclasses.replace(r, inputs=inputs))
    assert ei.value.frame == 117 and "P2 CPU input" in str(ei.value)
