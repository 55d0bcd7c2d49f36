"""The server benchmark's simulated clients are what real clients send: every room's referee
takes every frame, agrees with every hash report and reaches the end, nothing dropped."""

from __future__ import annotations

import pytest

from game.bench.server import fight, serve


@pytest.mark.slow
def test_the_bench_rooms_are_refereed_to_their_end_with_every_hash_agreeing_and_nothing_dropped():
    inputs, hashes = fight(100)
    seconds, server = serve(2, inputs, hashes)
    assert len(seconds) == 2
    for room in server.rooms.values():
        assert room.ending is not None and room.ending.reason == "finished"
        assert room.referee.frame == 100 and room.referee.desync_frame is None and not room.dropped
    assert not server.dropped
