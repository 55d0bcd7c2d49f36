"""CpuPlayer (game/net/cpu_player.py): a CPU that plays a netplay side through its bits decides
as the match's own CPU would, leaves the match's state untouched, and repeats itself."""

from __future__ import annotations

import pytest

from game.net.cpu_player import CpuPlayer
from game.net.requests import LoadState
from game.net.runner import MatchRunner
from game.sim import FrameInput, Match


def _play(frames: int, seed: int = 2) -> tuple[list[int], Match]:
    m = Match.new(seed)
    cpu = CpuPlayer("hard", 1, seed)
    bits = []
    for _ in range(frames):
        before = m.state_hash()
        b = cpu.bits(m)
        assert m.state_hash() == before            # deciding changed nothing in the match
        bits.append(b)
        m.step(FrameInput(forward=True), FrameInput.from_bits(b))
    return bits, m


@pytest.mark.slow
def test_the_cpu_player_fights_without_touching_the_match_and_repeats_itself():
    bits, m = _play(400)
    assert len(set(bits[100:])) > 3                # it acts once the fight is on
    assert _play(400)[0] == bits


def test_a_load_of_a_frame_no_save_holds_is_refused():
    runner = MatchRunner(Match.new(0, arena=False), 3)
    with pytest.raises(RuntimeError, match="no state saved for frame 4"):
        runner.carry_out([LoadState(4, 1)])


def test_an_unknown_cpu_level_is_refused():
    with pytest.raises(ValueError, match="'expert'"):
        CpuPlayer("expert", 0, 1)
