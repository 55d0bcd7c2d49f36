"""ReplayRecorder.record commits a frame whole or not at all (issue #33, point 1).

An interrupt (Ctrl-C's KeyboardInterrupt, or the game's own signal handlers' exception) can
arrive between any two bytecodes of ``record``; whatever the recorder holds then must save
as a file that decodes and verifies to its last frame.  The tests raise at every bytecode of
``record`` (a trace function that raises, as a signal handler would) and inside the state hash
it computes."""

from __future__ import annotations

import copy
import sys

import pytest

from game.replay import CHECK_INTERVAL, ReplayRecorder, decode, play_replay
from game.sim import FrameInput, Match

#: frames recorded before the interrupted one: a plain frame and a checkpoint frame next
BEFORE = (100, CHECK_INTERVAL * 2 - 1)


def _recorded(frames: int, online: bool = False) -> tuple[Match, ReplayRecorder]:
    m = Match.new(seed=7, p2_cpu="hard")
    rec = ReplayRecorder.for_match(m, online=online)
    for i in range(frames):
        m.step(FrameInput(forward=i % 30 < 12, lp=i % 17 == 0), FrameInput())
        rec.record(m)
    return m, rec


def _assert_whole(rec: ReplayRecorder, frames: tuple[int, ...]) -> None:
    """The recorder's bytes decode, hold one of ``frames`` frames and verify to the last one."""
    replay = decode(rec.to_bytes())
    assert replay.frames in frames, (replay.frames, frames)
    out = play_replay(replay)
    assert out["ok"] and out["frames"] == replay.frames


@pytest.mark.parametrize("before", BEFORE)
def test_an_interrupt_in_the_state_hash_leaves_the_recording_whole(before):
    """The defect's deterministic reproduction: the input was appended, then state_hash()
    raised, and the saved file said "decompressed payload is N bytes, the header implies N+2"."""
    m, rec = _recorded(before)
    m.step(FrameInput(), FrameInput())

    def interrupted() -> str:
        raise KeyboardInterrupt
    m.state_hash = interrupted                      # type: ignore[method-assign]
    with pytest.raises(KeyboardInterrupt):
        rec.record(m)
    del m.state_hash
    assert rec.frames == before
    _assert_whole(rec, (before,))
    rec.record(m)                                   # the same frame again: it is still the next one
    _assert_whole(rec, (before + 1,))


class _Interrupt(BaseException):
    """What the trace raises: as the game's signal handlers' exception, not an Exception."""


@pytest.mark.parametrize("online", [False, True], ids=["tagged", "online"])
@pytest.mark.parametrize("before", BEFORE)
def test_an_interrupt_at_any_bytecode_of_record_leaves_the_recording_whole(before, online):
    """Raise at the k-th bytecode of ``record`` for every k: the recording then holds the
    frames before it or those and the new one, never part of a frame (a recording without
    tags too: it hashes every frame, any of which may be the file's last)."""
    code = ReplayRecorder.record.__code__
    m, whole = _recorded(before, online)
    m.step(FrameInput(lp=True), FrameInput())
    k = 0
    outcomes: dict[int, ReplayRecorder] = {}
    while True:
        rec = copy.deepcopy(whole)
        seen = [0]

        def trace(frame, event, arg, k=k, seen=seen):
            if frame.f_code is not code:
                return None
            frame.f_trace_opcodes = True
            if event == "opcode":
                if seen[0] == k:
                    raise _Interrupt
                seen[0] += 1
            return trace
        sys.settrace(trace)
        try:
            rec.record(m)
            finished = True
        except _Interrupt:
            finished = False
        finally:
            sys.settrace(None)
        assert decode(rec.to_bytes()).frames == rec.frames in (before, before + 1)
        outcomes.setdefault(rec.frames - before, rec)
        if finished:
            break
        k += 1
    assert k > 20, f"only {k} bytecodes traced: the trace did not see record()'s frame"
    assert sorted(outcomes) == [0, 1], sorted(outcomes)
    for added, rec in outcomes.items():
        _assert_whole(rec, (before + added,))
