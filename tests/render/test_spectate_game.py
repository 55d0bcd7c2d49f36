"""The window's spectator game (game/render/spectate_game.py) against a stand-in room on the
loopback address, in one process on a simulated clock: the joining screen, the match drawn with
the "SPECTATING" label (catching up from frame 0, then the delay behind), Esc leaving, and the
end message with the verdict."""

from __future__ import annotations

import numpy as np
import pytest

from game.net import room_protocol as wire
from roomhelp import ROOM, FakeRoom

pytestmark = [pytest.mark.gl, pytest.mark.slow]

DT = 1 / 60


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def fight(frames: int) -> list[tuple[int, int]]:
    """Both sides walk in, then punch and kick (their bits change every few frames)."""
    from game.sim import FrameInput

    walk = FrameInput(forward=True).bits
    return [(walk, walk) if f < 200 else ((f // 4 * 37) % 2048, (f // 6 * 53 + 9) % 2048) for f in range(frames)]


class Setup:
    """A SpectateGame watching a FakeRoom over loopback UDP."""

    def __init__(self, gl_window, inputs) -> None:
        from game.online.digest import game_digest
        from game.online.spectate import RECV_BYTES, WINDOW_CATCH_UP, SpectateOptions, Spectator
        from game.online.udp import UdpLink
        from game.render.spectate_game import SpectateGame

        pyglet, window = gl_window
        self.clock = Clock()
        self.room = FakeRoom(inputs, digest=game_digest())
        self.server = UdpLink(("127.0.0.1", 0), recv_bytes=RECV_BYTES)
        self.spectator = Spectator.open(self.server.address, ROOM, SpectateOptions(catch_up=WINDOW_CATCH_UP),
                                        self.clock())
        self.game = SpectateGame(pyglet, window, room=ROOM, where="Joining room dojo ...", clock=self.clock)
        self.game.attach(self.spectator)

    def run(self, ticks: int, *, confirm: int | None = None) -> None:
        import time

        for _ in range(ticks):
            if confirm is not None:
                self.room.confirm_to(confirm)
            for data, addr in self.server.receive():
                self.room.handle(data, addr, self.clock())
            for data, addr in self.room.poll(self.clock()):
                self.server.send(data, addr)
            time.sleep(0.0003)
            self.game.step()
            self.clock.t += DT

    def close(self) -> None:
        self.spectator.link.close()
        self.server.close()
        self.game.window.pop_handlers()
        self.game.window.pop_handlers()


def test_the_joining_screen_then_the_match_caught_up_with_the_spectating_label(gl_window):
    from game.render.offscreen import frame_pixels

    s = Setup(gl_window, fight(2000))
    try:
        s.game.step()                                     # nothing answered yet: the joining screen
        assert s.game.screen == "title" and "SPECTATOR" in s.game.title_info()["hint"]
        s.run(3, confirm=900)                             # the room is at frame 900 when it joins
        assert s.game.screen == "fight" and s.game.match is s.spectator.match
        s.run(5, confirm=900)
        assert 0 < s.game.match.frame <= 8 * 30           # catching up: 30 frames a tick at most
        s.run(60, confirm=900)
        assert s.game.match.frame == 900 - 30             # caught up (the last frames fast-forwarded): the delay behind
        label_on = frame_pixels(s.game).astype(int)
        label = label_on[-60:-10, 400:880]
        assert (np.abs(label - label.mean(axis=(0, 1))).sum(axis=2) > 60).mean() > 0.02    # text drawn there
        s.run(60, confirm=None)
        assert s.game.match.frame == 900 - 30             # the live match paused: it stays the delay behind
    finally:
        s.close()


def test_the_verdict_is_shown_and_esc_leaves(gl_window):
    s = Setup(gl_window, fight(300))
    try:
        s.run(20, confirm=300)
        s.room.finish(wire.RoomEnd(0, 0, 0, 300, bytes(32)))
        s.run(50)
        e = s.spectator.ending
        assert e is not None and e.kind == "finished" and e.agrees is False     # the stand-in's hash is zeros
        msg = s.game.message()
        assert msg is not None and msg.heading == "MATCH OVER" and any("DIFFERS" in line for line in msg.lines)
        s.game.on_key_press(s.game.key.ESCAPE, 0)
        assert s.game.quit
    finally:
        s.close()
    s = Setup(gl_window, fight(300))
    try:
        s.run(10, confirm=100)
        s.game.on_key_press(s.game.key.ESCAPE, 0)
        assert s.game.quit and s.spectator.ending is not None and s.spectator.ending.kind == "left"
        s.run(1)
        assert s.room.left == [s.spectator.join.token]    # the room was told
    finally:
        s.close()
