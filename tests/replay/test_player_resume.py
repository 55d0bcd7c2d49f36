"""``ReplayPlayer.resume_at``: playback goes on from a restored, checked snapshot (the
replay viewer's seek), checking every later frame as straight playback does."""

from __future__ import annotations

import pytest

from game.replay import ReplayMismatch, ReplayPlayer, ReplayRecorder, decode
from game.sim import Match


def _replay(frames: int):
    m = Match.new(seed=1, p1_cpu="easy", p2_cpu="hard")
    rec = ReplayRecorder.for_match(m)
    while m.frame < frames:
        m.step()
        rec.record(m)
    return decode(rec.to_bytes(), "r.rpl")


def _play(player: ReplayPlayer, m: Match, to: int) -> None:
    while m.frame < to:
        m.step(*player.next_inputs(m))
        player.check(m)


def test_resume_at_a_snapshot_checks_on_to_the_same_end_as_straight_play():
    r = _replay(180)
    straight_m, straight = Match.new(seed=1, p1_cpu="easy", p2_cpu="hard"), ReplayPlayer(r)
    _play(straight, straight_m, 180)
    m, player = Match.new(seed=1, p1_cpu="easy", p2_cpu="hard"), ReplayPlayer(r)
    _play(player, m, 120)
    snap = m.snapshot()
    _play(player, m, 170)
    m.restore(snap)
    player.resume_at(120)
    assert player.position == 120 and player.checked == 2
    _play(player, m, 180)
    assert player.done and player.checked == straight.checked == 4
    assert m.state_hash() == straight_m.state_hash()


def test_resume_at_another_frame_than_the_match_is_refused_by_the_next_step():
    r = _replay(60)
    m, player = Match.new(seed=1, p1_cpu="easy", p2_cpu="hard"), ReplayPlayer(r)
    _play(player, m, 30)
    player.resume_at(10)
    with pytest.raises(ReplayMismatch, match="the match is at frame 30, the replay at frame 10"):
        player.next_inputs(m)


@pytest.mark.parametrize("frame", [-1, 61, 1.5, True, "3"])
def test_resume_at_refuses_a_frame_outside_the_replay(frame):
    with pytest.raises(ValueError, match=r"resume_at: frame .*from 0 to 60"):
        ReplayPlayer(_replay(60)).resume_at(frame)
