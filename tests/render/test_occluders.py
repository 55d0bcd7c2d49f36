"""See-through occluders (game/render/occluders.py, the FADE programs of shaders/lit.frag):
a pillar or crate between the eye and a fighter is drawn with screen-door transparency.

The sight-line test is checked against a per-pair Python reference; the picture in
pixels, with the fighters found by rendering the same view without them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.render.occluders import FADE_STEP, Occluders, occluding
from glhelp import fresh, game_env


def _segment_meets_box(o, p, lo, hi) -> bool:
    """Reference: does the segment o + t (p - o), t in [0, 1), meet the box [lo, hi] that does
    not hold p?  Per axis clipping of the parameter interval, in Python floats."""
    if all(lo[k] <= p[k] <= hi[k] for k in range(3)):
        return False
    t0, t1 = 0.0, 1.0
    for k in range(3):
        d = p[k] - o[k]
        if d == 0.0:
            if not lo[k] <= o[k] <= hi[k]:
                return False
            continue
        a, b = (lo[k] - o[k]) / d, (hi[k] - o[k]) / d
        a, b = min(a, b), max(a, b)
        t0, t1 = max(t0, a), min(t1, b)
        if t0 > t1:
            return False
    return t0 < 1.0


coord = st.floats(-6, 6, allow_nan=False).map(lambda v: round(v, 1))     # exact hits on faces too


point = st.lists(coord, min_size=3, max_size=3)


size = st.lists(st.floats(0.1, 3), min_size=3, max_size=3)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(point, st.lists(point, min_size=1, max_size=5), st.lists(st.tuples(point, size), min_size=1, max_size=6))
def test_render_occluding_equals_a_per_pair_segment_box_reference(eye, points, boxes):
    arr = np.array([[c, np.add(c, s)] for c, s in boxes])
    got = occluding(eye, points, arr)
    want = [any(_segment_meets_box(eye, p, b[0].tolist(), b[1].tolist()) for p in points) for b in arr]
    assert got.tolist() == want


def test_render_occluders_ease_in_and_out_and_a_gone_crate_never_fades():
    boxes = np.array([[[-0.5, 0, -0.5], [0.5, 2, 0.5]], [[3, 0, 3], [4, 2, 4]]])
    occ = Occluders(boxes, [(4,), (3, 8)])
    assert occ.uniforms() is None                          # nothing fades yet
    eye, pts = np.array([0.0, 1.0, -5.0]), np.array([[0.0, 1.0, 5.0]])     # the first box is in the way
    seen = []
    for _ in range(10):
        occ.update(eye, pts)
        seen.append(occ.amount.copy())
    assert [round(s[0], 3) for s in seen[:3]] == [FADE_STEP, 2 * FADE_STEP, 3 * FADE_STEP]
    assert seen[-1].tolist() == [1.0, 0.0]
    lo, hi, amount, mats = occ.uniforms()
    assert lo.shape == hi.shape == (1, 3) and amount.tolist() == [1.0] and mats == {4}
    assert np.allclose(lo[0], boxes[0, 0] - 0.02) and np.allclose(hi[0], boxes[0, 1] + 0.02)
    occ.update(eye, pts, present=[False, True])           # broken: eases out like any other
    assert occ.amount.tolist() == [1.0 - FADE_STEP, 0.0]
    occ.update(np.array([0.0, 1.0, 10.0]), pts)             # the point now between eye and box
    assert occ.amount[0] == 1.0 - 2 * FADE_STEP


W, H = 640, 360


@pytest.fixture(scope="module")
def env():
    yield from game_env(W, H)


@pytest.mark.slow
@pytest.mark.gl
def test_render_fighters_behind_a_pillar_show_through_it_while_it_fades(env):
    """Both fighters just behind pillar_en as seen from the arena's centre: with the pillar
    faded their pixels show through it; unfaded it hides them.  The fighters' pixels are
    those that change when they are moved out of the view (same camera, same frame)."""
    from game.render.offscreen import frame_pixels
    from game.render.projection import look_at, perspective

    _, _, game = env
    fresh(game, p2="human")
    m = game.match
    while m.phase != "fight" or m.phase_frame < 45:        # past the FIGHT! banner
        game.step()
    eye, tgt = np.array([4.0, 1.6, 4.0]), np.array([9.0, 1.0, 9.0])
    game.matrices = lambda alpha, aspect: (look_at(eye, tgt), perspective(45.0, aspect), eye)
    a, b = m.fighters

    def frame(at, fade_frames):
        (a.x, a.z), (b.x, b.z) = at
        game.step()
        game.camera.prev = game.camera.current = (eye, tgt)
        game.occluders.clear()
        for _ in range(fade_frames):
            game._update_occluders()
        return frame_pixels(game).astype(int)

    try:
        behind = ((8.6, 8.4), (9.6, 9.6))
        away = ((-8.0, -3.0), (-9.0, -3.0))                 # behind the camera
        faded, plain = frame(behind, 10), frame(behind, 0)
        pillar = game._fade_names.index("pillar_en")
        assert game.occluders.amount[pillar] == 0.0
        empty = frame(away, 10)
        assert game.occluders.amount[pillar] == 0.0, "nothing behind the pillar: it stays solid"
    finally:
        del game.matrices
    seen_faded = (np.abs(faded - empty).sum(axis=2) > 60).sum()
    seen_plain = (np.abs(plain - empty).sum(axis=2) > 60).sum()
    assert seen_plain < 200, f"the solid pillar lets {seen_plain} fighter pixels through"
    assert seen_faded > 1500, f"only {seen_faded} pixels of the fighters show through the faded pillar"
