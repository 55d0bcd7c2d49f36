"""The replay viewer (issue #34, point 5): label, pause, frame step, fast forward, seek, its
pause menu and the end, driven through ``Game`` as the window drives it (keys through the
window's key handler, ticks through ``Game.step``, frames through ``Game.draw``).

The truth is a plain playback of the same replay into a headless match
(``ReplayPlayer``, as ``--headless --replay`` runs it): the viewer must show exactly
its states, frame for frame, whatever was paused, stepped or sought on the way.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from game.replay import ReplayMismatch, ReplayRecorder, decode
from game.sim import Match
from glhelp import game_env

pytestmark = pytest.mark.gl

SEED, LEVEL, FRAMES = 3, "normal", 800


@pytest.fixture(scope="module")
def replay():
    """An 800-frame replay of CPU against CPU, and the state hash after each of its frames."""
    m = Match.new(seed=SEED, p1_cpu=LEVEL, p2_cpu=LEVEL)
    rec = ReplayRecorder.for_match(m)
    hashes = [m.state_hash()]
    while m.frame < FRAMES:
        m.step()
        rec.record(m)
        hashes.append(m.state_hash())
    return decode(rec.to_bytes(), "test.rpl"), hashes


@pytest.fixture(scope="module")
def online_replay(replay):
    """The same frames recorded as an online match is (a checkpoint every 30, no tags)."""
    rp, _hashes = replay
    m = Match.new(seed=SEED, p1_cpu=LEVEL, p2_cpu=LEVEL)
    rec = ReplayRecorder.for_match(m, online=True)
    while m.frame < FRAMES:
        m.step()
        rec.record(m)
    return decode(rec.to_bytes(), "online.rpl")


@pytest.fixture(scope="module")
def env():
    yield from game_env(640, 360, p1="cpu", p2="cpu", level=LEVEL, seed=SEED)


def _viewer(game, replay, hold: bool = True):
    """``game`` on a fresh match of the replay with a new viewer (``hold``: a window someone watches)."""
    from game.render.replay_view import ReplayView

    game.step_listeners.clear()
    game.input_source, game.training, game.menu_sel, game.quit = None, None, None, False
    game.overlay.enabled = False
    game.p1 = game.p2 = "cpu"
    game.level = LEVEL
    game.new_match(SEED)
    game.replay = ReplayView(game, replay, hold_at_end=hold)
    return game.replay


def _press(window, name: str) -> None:
    from pyglet.window import key

    window.dispatch_event("on_key_press", getattr(key, name), 0)
    window.dispatch_events()


def _ticks(game, n: int) -> None:
    for _ in range(n):
        game.step()


def _label_pixels(pixels: np.ndarray) -> int:
    """Pixels of the REPLAY tag's red in the bottom band of a frame (``(H, W, 3)``, top row first)."""
    h = pixels.shape[0]
    band = pixels[int(h * 0.85):].astype(int)
    r, g, b = band[..., 0], band[..., 1], band[..., 2]
    return int(((r > 200) & (g < 130) & (b < 110)).sum())


def test_replay_label_is_drawn_with_the_frame_the_length_and_the_state(env, replay):
    from game.render.offscreen import frame_pixels

    pyglet, window, game = env
    rp, _h = replay
    view = _viewer(game, rp)
    _ticks(game, 120)
    shown = frame_pixels(game)
    game.replay = None                                  # the same frame without the viewer's label
    bare = frame_pixels(game)
    game.replay = view
    assert _label_pixels(shown) > 40 and _label_pixels(bare) < 5, (_label_pixels(shown), _label_pixels(bare))
    changed = (shown.astype(int) - bare.astype(int)).any(axis=2)
    assert changed[int(360 * 0.8):].sum() > 2000 and not changed[:int(360 * 0.6)].any()
    hud = view.hud
    assert hud.tag.label.text == "REPLAY"
    assert (hud.frame_head.label.text, hud.frame.label.text, hud.total.label.text) == ("frame", "120", f"/ {FRAMES}")
    assert hud.state.label.text == "PLAYING"
    assert "Space/P pause" in hud.keys.label.text          # the keys, for the viewer's first seconds
    _ticks(game, 200)
    game.draw(1.0)
    assert hud.keys.label.text == ""
    _press(window, "F")
    frame_pixels(game)
    assert hud.state.label.text == "x2"
    _press(window, "SPACE")
    frame_pixels(game)
    assert hud.state.label.text == "PAUSED" and "Space/P pause" in hud.keys.label.text


def test_pause_stops_the_frame_counter_and_space_resumes(env, replay):
    pyglet, window, game = env
    rp, hashes = replay
    _viewer(game, rp)
    _ticks(game, 50)
    _press(window, "SPACE")
    _ticks(game, 40)
    assert game.match.frame == 50 and game.match.state_hash() == hashes[50]
    _press(window, "P")
    _ticks(game, 10)
    assert game.match.frame == 60 and game.match.state_hash() == hashes[60]


def test_frame_step_forward_is_one_frame_and_back_one_frame(env, replay):
    pyglet, window, game = env
    rp, hashes = replay
    _viewer(game, rp)
    _ticks(game, 100)
    for want in (101, 102, 103):
        _press(window, "PERIOD")                  # pauses, and steps one frame in the next tick
        _ticks(game, 5)
        assert game.match.frame == want and game.match.state_hash() == hashes[want]
    for want in (102, 101):
        _press(window, "COMMA")
        _ticks(game, 5)
        assert game.match.frame == want and game.match.state_hash() == hashes[want]


def test_fast_forward_runs_two_then_four_steps_per_displayed_frame(env, replay):
    """The window loop's accumulator (``FixedStep``, advanced by the display's frame time
    times ``Game.speed``, as game/cli/window.py does): F gives 2 and 4 steps per displayed
    frame at 60 fps, F again 1; S gives one step every second frame, then every fourth."""
    from game.cli.timestep import FixedStep

    pyglet, window, game = env
    rp, hashes = replay
    _viewer(game, rp)
    loop = FixedStep(game.step)

    def per_frame(frames: int) -> list[int]:
        out = []
        for _ in range(frames):
            before = game.match.frame
            loop.advance(1 / 60 * game.speed)
            out.append(game.match.frame - before)
        return out

    assert per_frame(10) == [1] * 10
    _press(window, "F")
    assert per_frame(10) == [2] * 10
    _press(window, "F")
    assert per_frame(10) == [4] * 10
    _press(window, "F")
    assert per_frame(10) == [1] * 10
    _press(window, "S")
    assert sum(per_frame(20)) == 10
    _press(window, "S")
    assert sum(per_frame(20)) == 5
    assert game.match.state_hash() == hashes[game.match.frame]


def test_seek_back_and_forward_lands_on_the_states_of_straight_play(env, replay):
    """Left / Right seek 5 s, Home to frame 0; each lands on the state straight play has at
    that frame.  A seek back re-simulates at most SNAPSHOT_EVERY frames from a snapshot; a
    seek past what was played simulates forward to it (and checks every frame)."""
    from game.render.replay_view import SEEK_FRAMES, SNAPSHOT_EVERY

    pyglet, window, game = env
    rp, hashes = replay
    view = _viewer(game, rp)
    _ticks(game, 430)
    _press(window, "SPACE")
    steps = [0]
    real_step = game.match.step

    def counted(*a):
        steps[0] += 1
        return real_step(*a)

    game.match.step = counted
    try:
        for key, want in (("LEFT", 430 - SEEK_FRAMES), ("RIGHT", 430), ("RIGHT", 430 + SEEK_FRAMES),
                          ("LEFT", 430), ("HOME", 0), ("RIGHT", SEEK_FRAMES)):
            steps[0] = 0
            _press(window, key)
            assert game.match.frame == want and game.match.state_hash() == hashes[want], key
            if key == "LEFT":
                assert steps[0] < SNAPSHOT_EVERY, steps[0]
        assert view.furthest == 430 + SEEK_FRAMES and view.player.position == SEEK_FRAMES
        view.seek(FRAMES + 50)                        # clipped to the end
        assert game.match.frame == FRAMES and game.match.state_hash() == hashes[FRAMES] and view.ended
    finally:
        del game.match.step
    _press(window, "HOME")                             # Home plays from frame 0 (it was paused)
    _ticks(game, 30)
    assert game.match.frame == 30 and game.match.state_hash() == hashes[30]


def test_a_seek_and_playback_stop_where_the_recording_diverges(env, replay):
    """The viewer keeps checking: a recorded hash tag altered at frame 200 stops playback
    on that frame, and a seek across it too, with ReplayMismatch naming it."""
    import dataclasses

    pyglet, window, game = env
    rp, _h = replay
    tags = rp.tags.copy()
    tags[199] ^= 1                                    # the tag after frame 200 (index: frame - 1)
    bad = dataclasses.replace(rp, tags=tags)
    _viewer(game, bad)
    with pytest.raises(ReplayMismatch, match="diverged at frame 199") as e:
        _ticks(game, 300)
    assert e.value.frame == 199 and game.match.frame == 200
    _viewer(game, bad)
    with pytest.raises(ReplayMismatch, match="diverged at frame 199"):
        _press(window, "RIGHT")


def test_an_online_replay_without_tags_plays_and_seeks_to_the_states_of_straight_play(env, replay, online_replay):
    """A replay of an online match (checkpoints only) plays and seeks as a tagged one does, and
    an altered checkpoint stops playback at that checkpoint."""
    import dataclasses

    from game.render.replay_view import SEEK_FRAMES

    pyglet, window, game = env
    _rp, hashes = replay
    assert not online_replay.tagged
    _viewer(game, online_replay)
    _ticks(game, 437)
    assert game.match.frame == 437 and game.match.state_hash() == hashes[437]
    _press(window, "SPACE")
    for key, want in (("LEFT", 437 - SEEK_FRAMES), ("RIGHT", 437), ("RIGHT", 437 + SEEK_FRAMES)):
        _press(window, key)
        assert game.match.frame == want and game.match.state_hash() == hashes[want], key
    chk = online_replay.checkpoints.copy()
    chk[6, 3] ^= 1                                    # the hash after frame 210
    _viewer(game, dataclasses.replace(online_replay, checkpoints=chk))
    with pytest.raises(ReplayMismatch, match="checkpoint hash at frame 210 differs") as e:
        _ticks(game, 300)
    assert e.value.frame == 209 and game.match.frame == 210


@pytest.mark.parametrize("entry", ["Resume", "Restart", "Quit"])
def test_pause_menu_offers_only_what_applies_and_never_ends_in_an_error(env, replay, entry):
    """Esc opens the replay's menu (no training, no rematch); each entry, chosen at frame 239
    (where the match's own Restart used to start a new match under the replay), goes on
    without an error: Resume plays on, Restart plays from frame 0, Quit ends the game's loop."""
    from game.cli.replay_io import attach_replay_io
    from game.render.replay_view import MENU

    pyglet, window, game = env
    rp, hashes = replay
    _viewer(game, rp)
    game.replay = None
    game.step_listeners.clear()
    attach_replay_io(SimpleNamespace(replay_data=rp, record=None, force=False), game)     # as the window does
    _ticks(game, 239)
    _press(window, "ESCAPE")
    assert game.menu_sel == 0
    game.draw(1.0)
    labels = [lbl.label.text for lbl in game.hud.menu_lbl if lbl.label.text]
    assert labels[1:] == list(MENU) and not any("Training" in t or "ematch" in t for t in labels)
    _ticks(game, 20)
    assert game.match.frame == 239, "the menu holds the replay"
    for _ in range(MENU.index(entry)):
        _press(window, "DOWN")
    _press(window, "RETURN")
    assert game.menu_sel is None
    _ticks(game, 60)
    assert game.quit == (entry == "Quit")
    want = {"Resume": 299, "Restart": 60, "Quit": 299}[entry]
    assert game.match.frame == want and game.match.state_hash() == hashes[want]


def test_the_end_holds_the_last_frame_with_the_result_and_offers_to_watch_again(env, replay):
    pyglet, window, game = env
    rp, hashes = replay
    view = _viewer(game, rp)
    view.seek(FRAMES - 20)
    match = game.match
    _ticks(game, 80)
    assert view.ended and game.match.frame == FRAMES and not game.quit
    game.draw(1.0)
    assert view.hud.state.label.text == "END" and "watch again" in view.hud.end.label.text
    assert "round" in view.hud.end.label.text
    _press(window, "RETURN")                           # never a rematch: from the start again
    assert game.match is match and game.match.frame == 0
    _ticks(game, 10)
    assert game.match.state_hash() == hashes[10]
    view.seek(FRAMES)
    _press(window, "SPACE")
    _ticks(game, 10)
    assert game.match.frame == 10


def test_a_headless_window_quits_at_the_end(env, replay):
    """No one watches a PYGLET_HEADLESS window: it ends with the replay, as a tool run does."""
    pyglet, window, game = env
    rp, _h = replay
    view = _viewer(game, rp, hold=False)
    view.seek(FRAMES - 5)
    _ticks(game, 4)
    assert not game.quit
    _ticks(game, 1)
    assert game.quit and view.ended


def test_pad_buttons_pause_seek_and_step(env, replay):
    """A pauses and plays, the d-pad's right seeks 5 s, RB steps a frame, LB one back."""
    from pyglet.math import Vec2

    from game.render.replay_view import SEEK_FRAMES

    pyglet, window, game = env
    rp, hashes = replay
    _viewer(game, rp)
    pad = SimpleNamespace(dpad=Vec2(0, 0), a=False, rightshoulder=False, leftshoulder=False)
    saved = game.pads.pads
    game.pads.pads = [pad]
    try:
        _ticks(game, 40)
        pad.a = True
        _ticks(game, 3)
        pad.a = False
        _ticks(game, 10)
        assert game.replay.paused and game.match.frame == 40
        pad.dpad = Vec2(1, 0)
        _ticks(game, 3)
        pad.dpad = Vec2(0, 0)
        _ticks(game, 1)
        assert game.match.frame == 40 + SEEK_FRAMES
        pad.rightshoulder = True
        _ticks(game, 2)
        pad.rightshoulder = False
        _ticks(game, 2)
        pad.leftshoulder = True
        _ticks(game, 1)
        pad.leftshoulder = False
        _ticks(game, 1)
        pad.leftshoulder = True
        _ticks(game, 1)
        pad.leftshoulder = False
        _ticks(game, 1)
        want = 40 + SEEK_FRAMES - 1
        assert game.match.frame == want and game.match.state_hash() == hashes[want]
    finally:
        game.pads.pads = saved


def test_restart_and_training_keys_at_frame_239_never_end_in_an_error(env, replay):
    """The issue's case, keys only: at frame 239 of a replay in the window, Esc, then the
    menu's second entry (Restart) and Enter, then T and Enter (which start training or a
    rematch in a match): the replay plays on from frame 0, checked, and nothing quits."""
    from game.cli.replay_io import attach_replay_io

    pyglet, window, game = env
    rp, hashes = replay
    game.step_listeners.clear()
    game.replay, game.input_source, game.menu_sel, game.quit = None, None, None, False
    game.new_match(SEED)
    attach_replay_io(SimpleNamespace(replay_data=rp, record=None, force=False), game)
    _ticks(game, 239)
    for name in ("ESCAPE", "DOWN", "RETURN", "T", "RETURN"):
        _press(window, name)
    _ticks(game, 60)
    assert not game.quit and game.training is None
    assert game.match.frame == 60 and game.match.state_hash() == hashes[60]
