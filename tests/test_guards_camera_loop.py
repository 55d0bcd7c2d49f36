"""Guards for the window's fixed-step loop (game/cli/timestep.py) and game/render/camera.py found missing by mutation
testing: a clock that steps back, the fraction kept after the catch-up cap, the camera's
segment-vs-box blocker against a sampled brute force, its smoothing, shake, interpolation,
distance, wall clamp and low-obstacle lift (no GL)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st


# ---------------------------------------------------------------- FixedStep (game/cli/timestep.py)
def counter():
    from game.cli.timestep import FixedStep

    n = [0]
    return n, FixedStep(lambda: n.__setitem__(0, n[0] + 1))


def test_fixed_step_clock_going_back_counts_as_no_time():
    """A negative frame time (the clock stepped back) must not eat time already owed."""
    from game.cli.timestep import SIM_STEP

    n, loop = counter()
    a0 = loop.advance(0.5 * SIM_STEP)
    for back in (-0.001, -0.2, -5.0):
        assert loop.advance(back) == pytest.approx(a0) and n[0] == 0
    loop.advance(0.5 * SIM_STEP + 1e-9)
    assert n[0] == 1


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-0.05, 0.25, allow_nan=False), min_size=1, max_size=80))
def test_fixed_step_keeps_the_fraction_of_a_step_after_the_cap(elapsed):
    """Real time (negative frame times count as none) against the loop: every frame, steps
    run + alpha = steps owed; on a frame that hits the catch-up cap the whole steps are
    dropped but the fraction of a step is kept (alpha), as without the cap."""
    from game.cli.timestep import MAX_CATCH_UP, SIM_STEP

    n, loop = counter()
    owed = 0.0
    for e in elapsed:
        before = n[0]
        alpha = loop.advance(e)
        ran = n[0] - before
        owed += max(e, 0.0) / SIM_STEP
        assert 0.0 <= alpha < 1.0
        if abs(owed - round(owed)) > 1e-6:          # (on a whole number of steps: either side of the edge)
            assert ran == min(MAX_CATCH_UP, math.floor(owed))
        frac = (owed - ran) % 1.0
        assert min(abs(alpha - frac), 1.0 - abs(alpha - frac)) < 1e-6, (alpha, owed, ran)
        owed = alpha


# ---------------------------------------------------------------- first_blocker vs brute force
_coord = st.integers(-8, 8).map(lambda v: v * 0.5)          # on a half-metre lattice: faces, origins and
_point = st.tuples(_coord, _coord, _coord)                   # axis-parallel segments coincide often


@st.composite
def _boxes(draw):
    out = []
    for _ in range(draw(st.integers(0, 4))):
        a, b = np.array(draw(_point)), np.array(draw(_point))
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        hi = np.where(hi - lo < 0.5, lo + 0.5, hi)          # no flat box: the samples can see it
        out.append([lo, hi])
    return np.array(out, dtype=float).reshape(-1, 2, 3)


@settings(max_examples=200, deadline=None)
@given(_point, _point, st.tuples(st.booleans(), st.booleans(), st.booleans()), _boxes())
def test_camera_first_blocker_matches_sampled_segment(origin, end, flat, boxes):
    """The first entry into a box along the segment, boxes holding the origin (faces included)
    ignored: no sample before it is in such a box, and the point at t lies on one's surface.
    ``flat`` keeps some of the origin's coordinates: segments parallel to a box's faces."""
    from game.render.sightlines import first_blocker

    o = np.array(origin)
    e = np.where(flat, o, np.array(end))
    if np.allclose(o, e):
        return
    t = first_blocker(o, e, boxes)
    assert 0.0 < t <= 1.0
    keep = ~np.all((boxes[:, 0] <= o) & (o <= boxes[:, 1]), axis=1)
    live = boxes[keep]
    s = np.linspace(0.0, 1.0, 801)[1:]
    pts = o + s[:, None] * (e - o)                                       # (S, 3)
    inside = np.all((live[None, :, 0] <= pts[:, None]) & (pts[:, None] <= live[None, :, 1]), axis=2).any(axis=1)
    first = s[inside].min() if inside.any() else None
    if t < 1.0:
        p = o + t * (e - o)
        on = np.all((live[:, 0] - 1e-9 <= p) & (p <= live[:, 1] + 1e-9), axis=1)
        assert on.any(), f"t={t}: the point is in no box"
        assert first is None or first >= t - 1e-9
    else:
        assert first is None or first >= 1.0 - 1e-9, f"missed a box entered at t={first}"


def test_camera_first_blocker_ignores_a_box_whose_face_holds_the_origin():
    from game.render.sightlines import first_blocker

    box = np.array([[[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]])
    assert first_blocker([0.0, 0.5, 0.5], [2.0, 0.5, 0.5], box) == 1.0           # starts on its face
    assert first_blocker([-1.0, 0.5, 0.5], [2.0, 0.5, 0.5], box) == pytest.approx(1 / 3)
    assert first_blocker([-1.0, 0.5, 0.5], [2.0, 0.5, 0.5], np.zeros((0, 2, 3))) == 1.0
    assert first_blocker([-1.0, 1.5, 0.5], [2.0, 1.5, 0.5], box) == 1.0          # parallel, beside it
    assert first_blocker([0.5, 1.0, -1.0], [0.5, 1.0, 3.0], box) == pytest.approx(0.25)   # along its top face


# ---------------------------------------------------------------- FightCamera
P1, P2 = np.array([-1.5, 0.0, 0.0]), np.array([1.5, 0.0, 0.0])


def test_camera_closes_the_documented_fraction_of_its_error_each_frame():
    """SMOOTH_POS: the fraction of the remaining target error closed per frame."""
    from game.render.camera import SMOOTH_POS, TARGET_HEIGHT, FightCamera

    cam = FightCamera(P1, P2)
    shift = np.array([2.0, 0.0, -1.0])
    goal = (P1 + P2) / 2 + shift
    goal[1] = TARGET_HEIGHT
    err = np.linalg.norm(cam.target - goal)
    for _ in range(30):
        cam.update(P1 + shift, P2 + shift)
        new = np.linalg.norm(cam.target - goal)
        assert new == pytest.approx(err * (1 - SMOOTH_POS), rel=1e-9)
        err = new


def test_camera_shake_decays_and_ends_after_its_frames():
    """A kick moves the view for its frames only; afterwards the camera is where an
    unkicked one is, bit for bit."""
    from game.render.camera import FightCamera

    calm, shaken = FightCamera(P1, P2), FightCamera(P1, P2)
    shaken.kick(0.05, frames=12)
    offsets = []
    for f in range(20):
        p1, p2 = P1 + [0.01 * f, 0, 0], P2
        calm.update(p1, p2, f)
        shaken.update(p1, p2, f)
        offsets.append(np.linalg.norm(shaken.current[0] - calm.current[0]))
    assert max(offsets[:12]) > 0.01 and all(o <= 0.05 * math.sqrt(3) + 1e-12 for o in offsets)
    assert offsets[12:] == [0.0] * 8


def test_camera_eye_target_interpolates_linearly_between_the_last_two_states():
    from game.render.camera import FightCamera

    cam = FightCamera(P1, P2)
    cam.update(P1 + [1.0, 0, 0.5], P2 + [2.0, 0, 0])
    (e0, t0), (e1, t1) = cam.prev, cam.current
    assert not np.allclose(e0, e1)
    for a in (0.0, 0.25, 0.5, 1.0):
        e, t = cam.eye_target(a)
        assert np.allclose(e, (1 - a) * e0 + a * e1, atol=1e-12) and np.allclose(t, (1 - a) * t0 + a * t1, atol=1e-12)
    view, _, eye = cam.matrices(16 / 9, 0.25)
    assert np.allclose(eye, cam.eye_target(0.25)[0])


def test_camera_backs_off_with_separation_between_its_limits():
    """MIN_DIST for fighters together, DIST_PER_SEP more per metre apart up to MAX_DIST, and
    beyond that only what framing them needs (``_need``: they no longer leave the screen)."""
    from game.render.camera import DIST_PER_SEP, MAX_DIST, MIN_DIST, TARGET_HEIGHT, WALL, FightCamera

    dists = []
    for sep in np.linspace(0.0, 14.0, 57):
        a, b = np.array([-sep / 2, 0.0, 0.0]), np.array([sep / 2, 0.0, 0.0])
        cam = FightCamera(a, b)
        eye, tgt = cam.eye_target()
        assert np.allclose(tgt, [0.0, TARGET_HEIGHT, 0.0])
        assert abs(eye[0]) < 1e-9, "the eye looks across the fighters' line"
        dists.append(math.hypot(eye[0] - tgt[0], eye[2] - tgt[2]))
        formula = min(max(2.4 + DIST_PER_SEP * sep, MIN_DIST), MAX_DIST)
        need = cam._need(tgt, cam.dir, (a, b))
        assert dists[-1] == pytest.approx(min(max(formula, need), WALL)), sep      # (the eye looks along z)
    d = np.array(dists)
    assert d[0] == pytest.approx(MIN_DIST) and d[-1] > MAX_DIST
    assert (np.diff(d) >= -1e-12).all() and (np.diff(d) > 1e-3).sum() > 10


def test_camera_eye_stays_inside_the_arena_walls():
    from game.render.camera import WALL, FightCamera

    for x in (12.5, -12.5):
        s = np.sign(x)
        cam = FightCamera([x, 0.0, s], [x, 0.0, -s])              # the eye would sit beyond the wall
        eye = cam.eye_target()[0]
        assert abs(eye[0]) == pytest.approx(WALL)
        cam = FightCamera([-x, 0.0, s], [-x, 0.0, -s])            # the eye toward the middle: free
        assert abs(cam.eye_target()[0][0]) < abs(x)


def test_camera_rises_over_a_low_obstacle_near_the_eye_only():
    from game.render.camera import EYE_HEIGHT, LIFT_CLEAR, FightCamera

    free_eye = FightCamera(P1, P2).eye_target()[0]
    ex, ez = free_eye[0], free_eye[2]

    def cam_with(dx, top):
        box = np.array([[[ex + dx - 0.5, 0.0, ez - 0.5], [ex + dx + 0.5, top, ez + 0.5]]])
        return FightCamera(P1, P2, obstacles=box)

    eye, tgt = cam_with(0.0, 1.2).eye_target()
    assert eye[1] == pytest.approx(1.2 + LIFT_CLEAR) and tgt[1] > FightCamera(P1, P2).eye_target()[1][1]
    assert cam_with(1.8, 1.2).eye_target()[0][1] == pytest.approx(1.2 + LIFT_CLEAR)  # 1.3 m away: within reach
    assert cam_with(2.0, 1.2).eye_target()[0][1] == pytest.approx(EYE_HEIGHT)       # 1.5 m away: out of reach
    assert cam_with(3.0, 1.2).eye_target()[0][1] == pytest.approx(EYE_HEIGHT)       # too far to matter
    assert cam_with(0.0, 0.2).eye_target()[0][1] == pytest.approx(EYE_HEIGHT)       # low enough to look over


def test_camera_without_a_ray_stops_in_front_of_a_tall_obstacle():
    """Without a scene ray the grown boxes block: the eye leaves the blocked spot (now by
    swinging round, since the pulled-in eye would not frame the fighters) and the pillar is
    not between target and eye."""
    from game.render.camera import FightCamera
    from game.render.sightlines import first_blocker

    free_eye, tgt = FightCamera(P1, P2).eye_target()
    mid = (free_eye + tgt) / 2
    pillar = np.array([[mid[0] - 0.4, 0.0, mid[2] - 0.4], [mid[0] + 0.4, 3.0, mid[2] + 0.4]])
    eye, tgt2 = FightCamera(P1, P2, obstacles=pillar[None]).eye_target()
    assert np.allclose(tgt, tgt2)
    assert np.linalg.norm(eye - free_eye) > 0.5
    assert first_blocker(tgt, eye, pillar[None]) == 1.0, "the pillar is not between target and eye"


def test_camera_turns_gradually_when_the_fighters_line_turns():
    """SMOOTH_DIR: a sudden quarter turn of the fighters' line swings the camera round over
    many frames, never in one."""
    from game.render.camera import SMOOTH_DIR, FightCamera

    cam = FightCamera(P1, P2)
    d0 = cam.dir.copy()
    a, b = np.array([0.0, 0.0, -1.5]), np.array([0.0, 0.0, 1.5])          # the line now along z
    cam.update(a, b)
    turned = math.degrees(math.acos(np.clip(cam.dir @ d0, -1, 1)))
    assert 0.5 < turned < 90 * 2 * SMOOTH_DIR, turned
    for _ in range(200):
        cam.update(a, b)
    assert abs(cam.dir @ d0) < 1e-3                                             # across the new line


def test_camera_rises_gradually_when_it_comes_near_a_low_obstacle():
    from game.render.camera import EYE_HEIGHT, LIFT_CLEAR, FightCamera

    far_a, far_b = P1 + [0.0, 0.0, -6.0], P2 + [0.0, 0.0, -6.0]
    free_eye = FightCamera(P1, P2).eye_target()[0]
    box = np.array([[[free_eye[0] - 0.5, 0.0, free_eye[2] - 0.5], [free_eye[0] + 0.5, 1.2, free_eye[2] + 0.5]]])
    cam = FightCamera(far_a, far_b, obstacles=box)
    assert cam.eye_y == pytest.approx(EYE_HEIGHT)
    heights = []
    for _ in range(150):
        cam.update(P1, P2)
        heights.append(cam.eye_y)
    assert heights[-1] == pytest.approx(1.2 + LIFT_CLEAR, abs=1e-3)
    steps = np.diff([EYE_HEIGHT] + heights)
    assert steps.min() >= -1e-12 and steps.max() < 0.25 * (1.2 + LIFT_CLEAR - EYE_HEIGHT), "the eye jumped up"


def test_camera_project_puts_up_at_the_top_of_the_image_and_right_at_the_right():
    from game.render.camera import FightCamera
    from game.render.projection import project

    cam = FightCamera(P1, P2)
    view, proj, eye = cam.matrices(16 / 9)
    right, _fwd = cam.screen_axes()
    tgt = cam.eye_target()[1]
    c, up, r = project(np.stack([tgt, tgt + [0.0, 0.5, 0.0], tgt + 0.5 * np.array([right[0], 0.0, right[1]])]),
                       proj @ view, 1280, 720)
    assert np.allclose(c, [640, 360], atol=1e-6)
    assert up[1] < c[1] - 20 and abs(up[0] - c[0]) < 1e-6
    assert r[0] > c[0] + 20
