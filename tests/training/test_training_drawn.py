"""Training mode in pixels (headless EGL): freeze and frame step, the input history, the reset,
the meter's segment lengths and advantage, and the knockdown's own colour in the key."""

from __future__ import annotations

import numpy as np
import pytest

from game.render.training import PHASE_COLORS, TrainingMode
from game.sim import FrameInput, Hit
from glhelp import fresh, game_env
from simhelp import NEUTRAL, PRESS, first_act, gap

#: every test here draws in a headless GL window
pytestmark = pytest.mark.gl

W, H = 640, 360


@pytest.fixture(scope="module")
def env():
    yield from game_env(W, H)


@pytest.mark.slow
def test_render_training_freeze_and_frame_step(env):
    """Training: P freezes the match (frames identical whatever the loop's alpha), '.' steps one frame."""
    from pyglet.window import key

    from game.render.offscreen import frame_pixels

    pyglet, window, game = env
    fresh(game)
    game.training = TrainingMode()
    game.new_match(0)
    assert game.match.phase == "fight"        # training starts at FIGHT, at the start positions
    game.input_source = lambda: (FrameInput(forward=True), FrameInput())   # moving: alpha would matter
    for _ in range(5):
        game.step()
    game.on_key_press(key.P, 0)
    frame = game.match.frame
    game.step()
    game.step()
    assert game.match.frame == frame
    a = frame_pixels(game, 0.1)
    b = frame_pixels(game, 0.9)
    assert np.array_equal(a, b)
    game.on_key_press(key.PERIOD, 0)
    game.step()
    game.step()
    assert game.match.frame == frame + 1
    game.on_key_press(key.P, 0)
    game.step()
    assert game.match.frame == frame + 2
    assert not np.array_equal(frame_pixels(game, 0.1), frame_pixels(game, 0.9)), "running: alpha interpolates"
    game.training = None
    game.input_source = None


@pytest.mark.slow
def test_render_training_input_history_shows_every_row_and_lays_out_one_label_per_new_input(env):
    """Training's input history: every row of both players' histories is shown with its text,
    place (newest on top, 18 units apart) and fade, as the rows say; and a new input lays out
    only its own label (the others keep theirs and only move: a relayout of all 14 rows cost
    ~8 ms in the frame of the input)."""
    import itertools

    from game.render.hud import _Text
    from game.render.training import HISTORY_LEN, InputHistory

    _, _, game = env
    fresh(game)
    game.training = TrainingMode()
    game.new_match(0)
    seq = itertools.cycle([FrameInput(forward=True)] * 6 + [FrameInput(lp=True)] + [FrameInput()] * 5
                          + [FrameInput(down=True, hk=True)] + [FrameInput(back=True)] * 4)
    game.input_source = lambda: (next(seq), FrameInput())
    hud = game.hud
    layouts = []
    orig = _Text.set

    def counting(self, text, *a, **kw):
        if self._state is None or self._state[0] != text:
            layouts.append(self)
        return orig(self, text, *a, **kw)

    _Text.set = counting
    try:
        new_rows = 0
        for frame in range(120):
            tops = [h.rows[0] if h.rows else None for h in game.training.history]
            game.step()
            layouts.clear()
            game.draw(1.0)
            W, H, _ = hud.canvas(game.window.get_size())
            for p, h in enumerate(game.training.history):
                rows = list(h.rows)
                shown = sorted((lbl._state for lbl in hud.hist_lbl[p] if lbl._state and lbl._state[0]),
                               key=lambda st: -st[2])
                want = []
                for k, (bits, held) in enumerate(rows):
                    t = InputHistory.describe(bits)
                    text = f"{min(held, 99):>2}  {t}" if p == 0 else f"{t}  {min(held, 99):>2}"
                    want.append((text, round(16 if p == 0 else W - 16), round(H * 0.62 - k * 18),
                                 (255, 255, 255, 255 - k * 12)))
                assert shown == want, (frame, p)
                assert len(rows) <= HISTORY_LEN
            mine = [lbl for lbl in layouts if any(lbl in col for col in hud.hist_lbl)]
            fresh_rows = sum(1 for h, top in zip(game.training.history, tops) if h.rows and h.rows[0] is not top)
            new_rows += fresh_rows
            assert len(mine) <= 2, (frame, len(mine))     # at most each player's newest row
    finally:
        _Text.set = orig
        game.training, game.input_source = None, None
    assert new_rows >= 15, "the inputs made new history rows (the case under test)"


# ---------------------------------------------------------------- training mode
def test_render_training_reset_frames_the_start_positions_at_once_with_no_fight_banner(env):
    """R puts the fighters back at their start and the view with them: the camera frames the
    start positions as it did when training began (not left where a sidestep swung it to
    drift back over a second or more, a frozen reset showing P1 filling the screen), and no
    FIGHT! banner covers the fighters (R rewinds to the first FIGHT frame)."""
    from pyglet.window import key


    game = fresh(env[2])
    game.training = TrainingMode()
    game.new_match(0)
    start_pos = [(f.x, f.z) for f in game.match.fighters]
    start_cam = tuple(np.array(v) for v in game.camera.current)
    neutral = FrameInput()
    try:
        game.input_source = lambda: (FrameInput(side_l=True), game.training.p2_input(game.match, neutral))
        for _ in range(120):
            game.step()
        game.input_source = lambda: (neutral, game.training.p2_input(game.match, neutral))
        game.step()
        moved = tuple(np.array(v) for v in game.camera.current)
        assert not np.allclose(moved[0], start_cam[0], atol=0.05), "the case under test: the camera had swung"
        game.on_key_press(key.P, 0)                      # frozen, as a player labbing would be
        game.on_key_press(key.R, 0)
        assert [(f.x, f.z) for f in game.match.fighters] == start_pos
        game.draw(1.0)
        for now, then in zip(game.camera.current, start_cam):
            assert np.allclose(now, then, atol=1e-9), (now, then)
        assert game.hud.banner.label.text == ""
        game.on_key_press(key.P, 0)
        game.step()
        game.draw(1.0)
        assert game.match.phase == "fight" and game.match.phase_frame < 40
        assert game.hud.banner.label.text == ""
    finally:
        game.training, game.input_source = None, None


# ------------------------------------------------------------------ the HUD
@pytest.fixture(scope="module")
def training_env():
    yield from game_env(1280, 720, training=True)


def _play(game, script):
    tr = game.training
    for p1 in script:
        game.input_source = lambda p1=p1: (p1, tr.p2_input(game.match, NEUTRAL))
        game.step()


def _hud_segments(game, i):
    """(text, x) of row ``i``'s segment-length labels that are showing."""
    return [(t.label.text, t.label.x) for t in game.hud.seg_lbl[i] if t.label.text and t.label.x > -500]


@pytest.mark.slow
@pytest.mark.parametrize("guard", ["none", "all"])
def test_hud_writes_each_segments_length_and_each_rows_advantage(training_env, guard):
    """The meter's segments carry their lengths (the jab's 6 / 3 / 10 against its hitstun or
    blockstun, from the move table, which the sim follows), each over its own cells, and
    each row ends with its own side's advantage (P2's is P1's negated)."""
    _, _, game = training_env
    game.new_match(0)
    game.training.dummy.guard = guard
    m = game.match
    while gap(m) > 0.9:
        _play(game, [FrameInput(forward=True)])
    _play(game, [NEUTRAL] * 3 + [PRESS["lp"]] + [NEUTRAL] * 50)
    meter = game.training.meter
    assert not meter.active and meter.advantage is not None
    game.draw(1.0)
    mv = m.data.moves["lp"]
    stun = mv.blockstun if guard == "all" else mv.hitstun
    p1, p2 = _hud_segments(game, 0), _hud_segments(game, 1)
    assert [t for t, _ in p1] == [str(mv.startup), str(mv.active), str(mv.recovery)]
    assert [t for t, _ in p2] == [str(stun)]
    # each number over its own segment: its cells, from the runs the meter recorded
    hud_x = dict(zip(("startup", "active", "recovery"), (x for _, x in p1)))
    cell_x = _cell_x(game)
    for ph, n, at in meter.runs[0]:
        if ph in hud_x:
            assert cell_x(at) <= hud_x[ph] <= cell_x(at + n - 1) + 10
    assert game.hud.adv_lbl.label.text == f"{meter.advantage:+d}"
    assert game.hud.adv2_lbl.label.text == f"{-meter.advantage:+d}"
    assert "F9 reversal" in game.hud.keys_lbl.label.text


def _cell_x(game):
    from game.render.training import METER_LEN

    W, _, _ = game.hud.canvas(game.window.get_size())
    x0 = W / 2 - METER_LEN * 12 / 2
    return lambda k: x0 + k * 12


def test_hud_segment_lengths_are_whole_after_the_row_scrolled(training_env):
    """A fireball from 9 m: the exchange outlasts the meter's 80 cells, so the rows scroll
    and the throw's startup leaves the screen.  The numbers still give each segment's whole
    length (a segment cut at the left edge is not shown shorter than it was), and the
    runs the HUD reads hold exactly the cells the rows show."""
    _, _, game = training_env
    game.new_match(0)
    m = game.match
    while gap(m) < 9.0:
        _play(game, [FrameInput(back=True)])
    _play(game, [NEUTRAL] * 3 + [PRESS["fireball"]])
    hit = None
    for _ in range(300):
        _play(game, [NEUTRAL])
        hit = hit or next((e for e in game.last_events if isinstance(e, Hit)), None)
        if hit is not None and not game.training.meter.active:
            break
    meter = game.training.meter
    assert hit is not None and meter.frames > len(meter.rows[0]), "the case under test: the rows scrolled"
    game.draw(1.0)
    for i in range(2):
        row = list(meter.rows[i])
        first = meter.frames - len(row)
        cells = []
        for ph, n, at in meter.runs[i]:
            cells += [ph] * (at + n - max(at, first))
        assert cells == row
        shown = [t for t, _ in _hud_segments(game, i)]
        want = [str(n) for ph, n, at in meter.runs[i]
                if ph != "neutral" and at + n - max(at, first) >= len(str(n))]
        assert shown == want
    mv = m.data.moves["fireball"]
    assert str(mv.recovery) in [t for t, _ in _hud_segments(game, 0)]


SWEEP, DOWN = FrameInput(hk=True, down=True), FrameInput(down=True)


def _play_one(game, p1):
    tr = game.training
    game.input_source = lambda: (p1, tr.p2_input(game.match, NEUTRAL))
    game.step()


@pytest.fixture(scope="module")
def knockdown_env():
    """A training window of its own: the HUD tests above leave the dummy set otherwise."""
    yield from game_env(1280, 720, training=True)


def test_hud_draws_the_knockdown_in_its_own_colour_named_in_the_key(knockdown_env):
    """Rendered headless in the middle of a knockdown: the key names "knockdown" beside a
    swatch of its colour (a colour no other phase has), no name of the key runs into the
    next swatch, the dummy's row has one cell of that colour per knockdown frame so far with
    the segment's length written on it, and the pixels of the swatch are that colour.  Once
    the exchange is over the row's advantage is the measured one."""
    from game.render.hud import LEGEND
    from game.render.offscreen import frame_pixels

    _, _, game = knockdown_env
    game.new_match(0)
    m, tr = game.match, game.training
    while gap(m) > 1.2:
        _play_one(game, FrameInput(forward=True))
    for _ in range(3):
        _play_one(game, NEUTRAL)
    _play_one(game, SWEEP)
    while not any(isinstance(e, Hit) for e in game.last_events):
        _play_one(game, DOWN)
    truth = first_act(m, 1) - first_act(m, 0)
    dummy = m.fighters[1]
    floored = 1                                           # the hit's step: down already
    for _ in range(30):                                   # then each step not frozen by the hitstop
        frozen = all(f.hitstop > 0 for f in m.fighters)
        _play_one(game, NEUTRAL)
        floored += dummy.state == "knockdown" and not frozen
    assert dummy.state == "knockdown"

    color = PHASE_COLORS["knockdown"]
    others = [c for ph, c in PHASE_COLORS.items() if ph != "knockdown"]
    assert all(max(abs(a - b) for a, b in zip(color, c)) > 0.15 for c in others)
    assert "knockdown" in LEGEND
    pixels = frame_pixels(game)                           # draws the frame (and lays out the HUD)
    hud = game.hud
    W, H, _ = hud.canvas(game.window.get_size())
    rects, _ = hud.build(game.window.get_size(), m, screen="fight", fps=None, training=tr)
    rows = rects.array()
    top = rows[:, 8:11]
    cells = rows[(abs(top - color).max(axis=1) < 1e-3) & (rows[:, 2] == 10) & (rows[:, 3] == 16)]
    assert len(cells) == floored > 0
    swatches = rows[(abs(rows[:, 4:7] - color).max(axis=1) < 1e-3) & (rows[:, 2] == 10) & (rows[:, 3] == 10)]
    assert len(swatches) == 1
    labels = {t.label.text: t.label for t in hud.legend_lbl}
    lab = labels["knockdown"]
    sx, sy = swatches[0][:2]
    assert abs(lab.x - (sx + 15)) < 1 and abs(lab.y - sy) < 1
    # each name reads with its own swatch: it ends at least 15 px before the next swatch, three
    # times the 5 px between a swatch and its own name (the long "knockdown" had 7 px)
    names = [labels[n] for n in LEGEND]
    for a, b in zip(names, names[1:]):
        assert (b.x - 15) - (a.x + a.content_width) >= 15, (a.text, b.text)   # swatch at name.x - 15
    assert names[-1].x + names[-1].content_width <= W
    # the knockdown segment's length is written on it
    seg = [t.label.text for t in hud.seg_lbl[1] if t.label.text and t.label.x > -500]
    assert seg == [str(floored)]
    # the swatch's pixels are the colour (the canvas is the window at 1280 x 720)
    px = pixels[int(H - sy - 5), int(sx + 5)].astype(int)
    assert abs(px - [round(v * 255) for v in color]).max() <= 3, px
    while tr.meter.active:
        _play_one(game, NEUTRAL)
    game.draw(1.0)
    assert tr.meter.advantage == truth
    assert hud.adv_lbl.label.text == f"{truth:+d}" and hud.adv2_lbl.label.text == f"{-truth:+d}"
