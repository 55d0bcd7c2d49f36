"""The window's netplay game (game/render/net_game.py) against a headless NetMatch on the
loopback address, in one process on a simulated clock: the waiting screen, the live match
(the local keys on either side, the network display), the leave confirmation, and the end
message when the opponent goes."""

from __future__ import annotations

import secrets

import numpy as np
import pytest

pytestmark = [pytest.mark.gl, pytest.mark.slow]


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def _pair(gl_window, *, mine: str | None, other: str | None = "normal", host_side_game: bool = True):
    """A NetGame on one side (the host, or the joiner) and a headless NetMatch on the other;
    ``mine`` and ``other``: the CPU level playing each (None: a player)."""
    from game.net.handshake import MatchSettings
    from game.online.digest import game_digest
    from game.online.netmatch import NetMatch, NetOptions
    from game.online.udp import UdpLink
    from game.render.net_game import NetGame

    pyglet, window = gl_window
    clock = Clock()
    hl, jl = UdpLink(("127.0.0.1", 0)), UdpLink(("127.0.0.1", 0))
    digest = game_digest()
    host_cpu, join_cpu = (mine, other) if host_side_game else (other, mine)
    host = NetMatch.host(hl, digest, MatchSettings(5, host_cpu, None, 3, 60, 0), NetOptions(cpu_level=host_cpu))
    join = NetMatch.join(jl, hl.address, digest, secrets.randbits(32), clock(), NetOptions(cpu_level=join_cpu))
    game_net, other_net = (host, join) if host_side_game else (join, host)
    game = NetGame(pyglet, window, where="Waiting on UDP port 7000", clock=clock)
    game.attach(game_net)
    return game, other_net, clock, (hl, jl)


def _run(game, other, clock, ticks: int, bits: int = 0) -> None:
    for _ in range(ticks):
        other.tick(clock(), bits)
        game.step()
        clock.t += 1 / 60


def _close(game, links) -> None:
    for link in links:
        link.close()
    game.window.pop_handlers()          # the game's key handlers (its key state, its keys)
    game.window.pop_handlers()


def test_the_waiting_screen_says_where_and_esc_cancels(gl_window):
    from game.render.offscreen import frame_pixels

    game, other, clock, links = _pair(gl_window, mine=None)
    try:
        for _ in range(5):
            game.step()
            clock.t += 1 / 60
        assert game.screen == "title" and game.net.state == "waiting"
        info = game.title_info()
        assert info["versus"] == "Waiting on UDP port 7000" and "WAITING" in info["hint"]
        assert info["controls"][0].startswith("Your keys") and "P2" not in " ".join(info["controls"])
        assert frame_pixels(game).std() > 10                  # the arena drawn behind the title
        game.on_key_press(game.key.ESCAPE, 0)
        assert game.quit and game.cancelled and game.net.agreed is None
    finally:
        _close(game, links)


def test_the_live_match_is_played_on_the_local_keys_and_shown_with_the_network_display(gl_window):
    from game.render.offscreen import frame_pixels
    from game.sim import FrameInput

    game, other, clock, links = _pair(gl_window, mine=None, other=None, host_side_game=False)    # this window: P2
    try:
        _run(game, other, clock, 30)
        assert game.screen == "fight" and game.net.side == 1 and game.match is game.net.match
        while game.match.phase != "fight":
            _run(game, other, clock, 1)
        x0 = game.match.fighters[1].x
        window = game.window
        window.dispatch_event("on_key_press", game.key.D, 0)    # P1's layout: "right" walks P2 (on the right) away
        window.dispatch_events()
        _run(game, other, clock, 40)
        window.dispatch_event("on_key_release", game.key.D, 0)
        window.dispatch_events()
        assert game.match.fighters[1].x > x0 + 0.2
        assert game.match.fighters[0].x == pytest.approx(other.match.fighters[0].x)
        want = FrameInput(back=True).bits
        assert any(p2 == want for _f, _p1, p2 in other._inputs)   # the opponent received the input
        game.show_stats = False
        off = frame_pixels(game).astype(int)
        game.on_key_press(game.key.F10, 0)
        assert game.show_stats
        on = frame_pixels(game).astype(int)
        panel = np.abs(on - off)[100:260, 10:350].sum(axis=2) > 30     # top left, under P1's bar
        assert panel.mean() > 0.3
        assert np.abs(on - off)[300:, :].sum(axis=2).max() < 30      # nothing else changed
    finally:
        _close(game, links)


def test_esc_asks_before_leaving_and_the_match_plays_on_meanwhile(gl_window):
    game, other, clock, links = _pair(gl_window, mine="normal")
    try:
        _run(game, other, clock, 40)
        frame = game.match.frame
        game.on_key_press(game.key.ESCAPE, 0)
        assert game.menu_sel == 0 and game.menu_spec()[2] == "LEAVE THE MATCH?"
        _run(game, other, clock, 20)
        assert game.match.frame >= frame + 15                          # no pause in netplay
        game.on_key_press(game.key.ENTER, 0)                           # "Keep playing"
        assert game.menu_sel is None and game.net.state == "playing"
        game.on_key_press(game.key.ESCAPE, 0)
        game.on_key_press(game.key.DOWN, 0)
        game.on_key_press(game.key.ENTER, 0)                           # "Leave the match"
        assert game.net.state == "ended" and game.net.ending.kind == "left"
        _run(game, other, clock, 10)
        assert other.state == "ended" and other.ending.kind == "disconnected"
    finally:
        _close(game, links)


def test_the_opponent_gone_is_shown_then_the_window_closes(gl_window):
    from game.render.net_game import END_SECONDS
    from game.render.offscreen import frame_pixels

    game, other, clock, links = _pair(gl_window, mine="hard")
    try:
        _run(game, other, clock, 200)
        before = frame_pixels(game).astype(int)
        other.close(clock())
        _run(game, other, clock, 3)
        assert game.net.state == "ended" and game.message().heading == "OPPONENT GONE"
        after = frame_pixels(game).astype(int)
        box = np.abs(after - before)[380:480, 380:900].sum(axis=2) > 30      # the message's box, mid screen
        assert box.mean() > 0.5
        assert not game.quit
        _run(game, other, clock, int(END_SECONDS * 60) + 2)
        assert game.quit
    finally:
        _close(game, links)
