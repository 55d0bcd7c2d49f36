"""The frame-step API as a tools engineer drives it, second review: replays of any match
(the ``arena`` field, replay format version 2), pose arrays and every other public array as
read-only values, and what a tool writer meets next (events compared, a match copied or
pickled, a recorder or player driven out of step).

Each test would fail if its guard went; results are computed from the matches themselves.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import pickle
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from game import replay as rp
from game import replay_header as rh
from game.replay import ReplayError, ReplayMismatch, ReplayPlayer, ReplayRecorder, decode, load_replay, play_replay
from game.sim import CrateStruck, FrameInput, Hit, Match
from simhelp import fight

ROOT = Path(__file__).resolve().parents[1]
POSE_ARRAYS = ("pose", "pose_from", "local", "body")




def _inputs(i: int) -> tuple[FrameInput, FrameInput]:
    """A fixed, varied input script: walking, jabs, kicks, a guard."""
    return (FrameInput(forward=i % 50 < 30, lp=i % 17 == 0, hk=i % 41 == 0),
            FrameInput(back=i % 70 < 20, lk=i % 23 == 0, guard=i % 90 > 80))


def _record(m: Match, frames: int) -> tuple[ReplayRecorder, list[str]]:
    rec = ReplayRecorder.for_match(m)
    hashes = []
    for i in range(frames):
        m.step(*_inputs(i))
        rec.record(m)
        hashes.append(m.state_hash())
    return rec, hashes


# ================================================================ 1. the arena field
@pytest.mark.parametrize("arena", [False, True])
def test_any_match_records_and_plays_back_with_its_arena_setting(arena, tmp_path):
    """A bare-floor match used to be refused by ReplayRecorder.for_match (the file had no
    arena setting and playback always rebuilt the arena)."""
    m = Match.new(seed=6, p2_cpu="hard", arena=arena)
    rec, hashes = _record(m, 400)
    rec.save(tmp_path / "m.rpl")
    r = load_replay(tmp_path / "m.rpl")
    assert r.arena is arena and r.cpu == (None, "hard") and r.frames == 400
    out = play_replay(r)                                    # the default match: as recorded
    assert out == {"frames": 400, "hashes_checked": 400 // 60 + 1, "final_hash": hashes[-1], "ok": True}
    own = play_replay(r, lambda s, a, b: Match.new(seed=s, p1_cpu=a, p2_cpu=b, arena=r.arena), frames=200)
    assert own["final_hash"] == hashes[199]


def test_bare_floor_and_arena_replays_differ_only_in_the_arena_field():
    bare, arena = (_record(Match.new(seed=2, arena=a), 0)[0].to_bytes() for a in (False, True))
    off = rh.OFFSETS["arena"]
    assert len(bare) == len(arena) and off == rh.HEADER_V2.size - 4
    diff = [i for i in range(len(bare) - 4) if bare[i] != arena[i]]          # the trailer CRC differs too
    assert diff == [off]
    assert struct.unpack_from("<I", bare, off) == (0,) and struct.unpack_from("<I", arena, off) == (1,)


def _as_version_1(data: bytes) -> bytes:
    """A version-3 file (best of 3, 60 s rounds) rewritten by hand in the version-1 layout
    (no arena, rounds or timer field)."""
    v2 = struct.Struct("<4sHH16sQBBHIIIIIIHH")
    fields = list(v2.unpack_from(data))
    assert fields[1] == 3 and fields[-3:] == [1, 3, 60], "not a version-3 arena replay of the defaults"
    head = struct.pack("<4sHH16sQBBHIIIII", fields[0], 1, 56, *fields[3:-3])
    body = head + data[v2.size:-4]
    return body + struct.pack("<I", zlib.crc32(body))


def test_a_version_1_file_is_still_read_and_plays_on_the_arena(tmp_path):
    """Every version-1 replay was recorded on the arena (bare floors were refused)."""
    m = Match.new(seed=4, p1_cpu="normal")
    rec, hashes = _record(m, 200)
    (tmp_path / "old.rpl").write_bytes(_as_version_1(rec.to_bytes()))
    r = load_replay(tmp_path / "old.rpl")
    assert r.arena is True and r.frames == 200
    assert play_replay(r)["final_hash"] == hashes[-1]


def _forge(arena: int) -> bytes:
    raw = bytes(8)                                                  # 0 frames: just the final hash
    payload = zlib.compress(raw)
    head = rp.HEADER.pack(b"RBXR", 3, rp.HEADER.size, rp.game.__version__.encode(), 0, 0, 0, 60, 0, 0, 0,
                          len(payload), zlib.crc32(payload), arena, 3, 60)
    return head + payload + struct.pack("<I", zlib.crc32(head + payload))


@pytest.mark.parametrize("code", [2, 0xFFFFFFFF])
def test_unknown_arena_code_is_a_field_error(code):
    decode(_forge(1))                                               # the forger's file is valid
    with pytest.raises(ReplayError) as ei:
        decode(_forge(code), "a.rpl")
    assert str(ei.value).startswith(f"a.rpl: arena at byte {rh.OFFSETS['arena']}: unknown arena code {code}")


def _run_main(*args, cwd):
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, PYGLET_HEADLESS="1"), check=False)


def test_cli_checks_a_bare_floor_replay_headless_and_the_window_names_the_fix(tmp_path):
    m = Match.new(seed=9, p1_cpu="easy", arena=False)
    rec, hashes = _record(m, 150)
    rec.save(tmp_path / "bare.rpl")
    ok = _run_main("--headless", "--replay", "bare.rpl", cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout) == {"frames": 150, "hashes_checked": 3, "final_hash": hashes[-1], "ok": True}
    win = _run_main("--replay", "bare.rpl", cwd=tmp_path)       # refused before any window opens
    assert win.returncode == 2 and win.stderr.count("\n") == 1
    assert "bare.rpl" in win.stderr and "bare floor" in win.stderr and "--headless" in win.stderr


@pytest.mark.parametrize("make, words", [
    (lambda s, a, b: Match.new(seed=s, p1_cpu=a, p2_cpu=b, arena=False), ["on a bare floor (arena=False)",
                                                                          "recorded on the arena"]),
    (lambda s, a, b: Match.new(seed=s, p1_cpu=a, p2_cpu=None), ["CPU config (None, None)", "(None, 'hard')"]),
    (lambda s, a, b: Match.new(seed=s + 1, p1_cpu=a, p2_cpu=b), ["seed 4", "recorded with seed 3"]),
])
def test_playback_into_a_match_built_otherwise_names_the_setting_not_a_damaged_file(make, words):
    """It used to report "replay diverged at frame 0 ... the file was altered", blaming the file."""
    rec, _ = _record(Match.new(seed=3, p2_cpu="hard"), 30)
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
    """frames=-1 used to check nothing and return ok: True."""
    r = decode(_record(Match.new(seed=0, arena=False), 10)[0].to_bytes())
    with pytest.raises(ValueError, match="play_replay: frames"):
        play_replay(r, frames=frames)


def test_recorder_refuses_a_frame_recorded_twice_or_skipped():
    """Either used to write a file whose every later frame "diverged"."""
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
    rec, _ = _record(Match.new(seed=0, arena=False), 20)
    r = decode(rec.to_bytes(), "r.rpl")
    m, player = Match.new(seed=0, arena=False), ReplayPlayer(r)
    m.step(*player.next_inputs(m))
    player.check(m)
    with pytest.raises(ReplayMismatch, match=r"r.rpl: the match is at frame 1, the replay checks frame 1 .*step "
                                             r"the match once"):
        player.check(m)
    m.step(*player.next_inputs(m))                                  # and playback goes on
    player.check(m)


# ================================================================ 2. no writable view of live state
def _blending(m: Match) -> Match:
    """Step ``m`` until P1 is inside a pose blend (its pose arrays are a blend's fresh arrays)."""
    fight(m)
    for i in range(200):
        m.step(FrameInput(lp=i % 25 == 0, forward=i % 25 > 12), FrameInput())
        if m.fighters[0].blend_left > 0:
            return m
    pytest.fail("no pose blend in 200 frames")


def test_fighter_pose_arrays_are_read_only_on_table_and_blend_frames():
    """``f.pose[...] = x`` used to write the match's live array: state_hash() and the next
    poses changed."""
    m = _blending(Match.new(seed=1, arena=False))
    for frame in range(2):                       # a blend frame, then (BLEND_FRAMES later) table rows
        h = m.state_hash()
        for f in m.fighters:
            for name in POSE_ARRAYS:
                a = getattr(f, name)
                assert isinstance(a, np.ndarray) and not a.flags.writeable, (frame, f.index, name)
                with pytest.raises(ValueError, match="read-only"):
                    a[...] += 0.25
        assert m.state_hash() == h
        for _ in range(6):
            m.step()


def test_a_pose_held_by_a_renderer_keeps_its_frames_value():
    """A live array changed under its holder: interpolating between the last two steps'
    poses got the same array twice."""
    m = _blending(Match.new(seed=1, arena=False))
    f = m.fighters[0]
    held = f.pose
    value = np.array(held)
    for _ in range(3):
        m.step(FrameInput(hp=True), FrameInput())
    assert not np.array_equal(f.pose, value)
    np.testing.assert_array_equal(held, value)


def test_assigning_a_pose_stores_a_read_only_copy_of_the_right_shape():
    a, b = fight(Match.new(seed=0, arena=False)), fight(Match.new(seed=0, arena=False))
    mine = a.fighters[0].pose + 0.1
    a.fighters[0].pose = mine
    b.fighters[0].pose = mine.copy()
    mine[...] = 0.0                              # the tool's own array: no longer the match's
    assert a.state_hash() == b.state_hash()
    assert not a.fighters[0].pose.flags.writeable
    with pytest.raises(ValueError, match=r"Fighter.pose: expected shape \(11, 3\)"):
        a.fighters[0].pose = np.zeros((3, 11))
    with pytest.raises(ValueError, match="Fighter.body: expected shape"):
        a.fighters[1].body = np.zeros(4)


def test_restoring_an_unpickled_snapshot_hands_out_no_writable_pose():
    """An unpickled snapshot's arrays are writable: restore takes read-only copies, so neither a
    write through ``f.pose`` nor one into the snapshot afterwards changes the match."""
    m = _blending(Match.new(seed=2, arena=False))
    snap = pickle.loads(pickle.dumps(m.snapshot()))
    h = m.state_hash()
    m.restore(snap)
    assert m.state_hash() == h
    for f in m.fighters:
        assert not any(getattr(f, n).flags.writeable for n in POSE_ARRAYS)
    for poses in snap[3]:
        for arr in poses:
            if arr.flags.writeable:
                arr[...] = 0.0
    assert m.state_hash() == h


def _arrays(obj, path: str, seen: set, out: list, depth: int = 0) -> None:
    """Every ndarray reachable from ``obj`` through public attributes and properties
    (and the items of tuples, lists and dicts): ``(path, array)``."""
    if isinstance(obj, np.ndarray):                 # listed under every path that reaches it
        out.append((path, obj))
        return
    if id(obj) in seen or depth > 8 or isinstance(obj, (str, bytes, int, float, bool, type(None), np.generic, type)):
        return
    seen.add(id(obj))
    if isinstance(obj, dict):
        for k, v in obj.items():
            _arrays(v, f"{path}[{k!r}]", seen, out, depth + 1)
        return
    if isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            _arrays(v, f"{path}[{i}]", seen, out, depth + 1)
        return
    if not type(obj).__module__.startswith("game."):
        return
    names = set(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        names.update(getattr(cls, "__slots__", ()))
        names.update(n for n, v in vars(cls).items() if isinstance(v, property))
    for n in sorted(names):
        if n.startswith("_"):
            continue
        try:
            v = getattr(obj, n)
        except Exception:       # noqa: BLE001 - a property that needs more state
            continue
        if callable(v) and not isinstance(v, np.ndarray):
            continue
        _arrays(v, f"{path}.{n}", seen, out, depth + 1)


def _crate_strike(m: Match) -> Match:
    """``m`` on the frame P1's straight strikes crate_north (P2 behind the crate), mid-blend."""
    fight(m)
    a, b = m.fighters
    a.x, a.z, b.x, b.z = 0.0, 3.72, 0.0, 8.0
    for i in range(60):
        if any(isinstance(e, CrateStruck) for e in m.step(FrameInput(hp=i == 3), FrameInput())):
            return m
    pytest.fail("the straight never struck crate_north")


def test_no_public_array_of_a_match_fighter_or_stage_is_live_state_a_tool_can_write():
    """Every array reachable from a match's public attributes (fighters, stage, scene, crates,
    compounds, contacts, the shared data and arena) is written in place: the match must
    play on exactly as an untouched twin.  (The fighters' pose arrays and the AABB trees,
    shared by every match's scene, used to be live and writable.)"""
    m, twin = _crate_strike(Match.new(seed=0)), _crate_strike(Match.new(seed=0))
    assert m.crate_contacts and m.state_hash() == twin.state_hash()
    found = []
    _arrays(m, "match", set(), found)
    paths = {p for p, _ in found}
    assert {"match.fighters[0].pose", "match.fighters[1].body", "match.stage.crates[0].compound.boxes",
            "match.arena.scene.models[0].tree.v0"} <= paths
    written = []
    for path, arr in found:
        if arr.flags.writeable and arr.size:
            arr[...] = np.ones((), dtype=arr.dtype) * 3          # a tool writing where it should not
            written.append(path)
    for i in range(90):
        m.step(*_inputs(i))
        twin.step(*_inputs(i))
        assert m.state_hash() == twin.state_hash(), (i, written)


def test_collision_trees_shared_by_every_matchs_scene_are_read_only():
    """A match's scene shares its models' AABB trees with the cached arena (and so with every
    other match of the process): a tool writing one moved every match's rays."""
    m, other = Match.new(seed=0), Match.new(seed=1)
    for scene in (m.stage.scene, m.arena.scene):
        for model in scene.models:
            t = model.tree
            assert other.stage.scene.models[0].tree is m.stage.scene.models[0].tree
            for name in ("box", "child", "leaf", "slot_tri", "v0", "e1", "e2"):
                assert not getattr(t, name).flags.writeable, name
    with pytest.raises(ValueError, match="read-only"):
        m.stage.scene.models[0].tree.v0[:] += 1.0


# ================================================================ 3. what a tool writer meets next
def test_events_of_a_rerun_compare_equal_and_hash():
    """Hit and the other events holding arrays used to raise ValueError on ==
    (array truth value) and TypeError on hash(): a rollback check could not compare runs."""
    m = Match.new(seed=0, p1_cpu="hard", p2_cpu="hard")
    snap = m.snapshot()
    first = [e for _ in range(1200) for e in m.step()]
    m.restore(snap)
    again = [e for _ in range(1200) for e in m.step()]
    hits = [e for e in first if isinstance(e, Hit)]
    assert hits and first == again and len(set(first)) == len(first)
    h = hits[0]
    moved = dataclasses.replace(h, point=h.point + 1e-9)
    assert moved != h and dataclasses.replace(h, point=h.point.copy()) == h
    assert dataclasses.replace(h, damage=h.damage + 1) != h


@pytest.mark.parametrize("arena", [True, False])
def test_deepcopy_of_a_match_is_an_independent_match_in_the_same_state(arena):
    """The copy's fighters used to stay linked to the original: their limb_boxes() were the
    original's, and the copy's shared tables became writable private copies."""
    m, ref = fight(Match.new(seed=5, p2_cpu="hard", arena=arena), 30), fight(
        Match.new(seed=5, p2_cpu="hard", arena=arena), 30)
    c = copy.deepcopy(m)
    assert c.state_hash() == m.state_hash() and c.data is m.data
    before = m.state_hash()
    for i in range(120):
        c.step(*_inputs(i))
        ref.step(*_inputs(i))
    assert m.state_hash() == before and c.state_hash() == ref.state_hash()
    for f, g in zip(c.fighters, ref.fighters):
        np.testing.assert_array_equal(f.limb_boxes(), g.limb_boxes())
        assert not f.pose.flags.writeable
    assert copy.copy(c).state_hash() == c.state_hash()


def test_pickling_a_match_names_the_snapshot_fix():
    with pytest.raises(TypeError, match=r"pickle match.snapshot\(\)"):
        pickle.dumps(Match.new(seed=0, arena=False))
