"""The fight camera (game/render/camera.py) on its own: framing, smoothing, shake, interpolation,
distance, the walls, lifting over low obstacles, its segment-vs-box blocker against a sampled
brute force, and its matrices against pyrr and OpenGL's conventions (no GL)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.sim import FrameInput, Match

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


@pytest.mark.slow
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
    """Without a scene ray the grown boxes block: the eye leaves the blocked spot (by
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


# ---------------------------------------------------------------- camera
@pytest.mark.slow
def test_render_camera_frames_both_fighters_and_follows_a_sidestep():
    from game.render.camera import FightCamera
    from game.render.projection import project

    m = Match.new(seed=0)
    cam = FightCamera(m.fighters[0].position, m.fighters[1].position)
    side = FrameInput(side_l=True)
    while m.phase != "fight":
        m.step()
    seen_dirs = []
    for _ in range(400):               # P1 circles around P2 by sidestepping
        m.step(side, FrameInput())
        cam.update(m.fighters[0].position, m.fighters[1].position, m.frame)
        seen_dirs.append(cam.dir.copy())
    a, b = m.fighters[0].position, m.fighters[1].position
    line = (b - a)[[0, 2]]
    line /= np.linalg.norm(line)
    start_line = np.array([1.0, 0.0])
    assert abs(line @ start_line) < 0.9, "the sidestep did not turn the fighters' line"
    assert abs(cam.dir @ line) < 0.2, "camera is not looking across the fighters' line"
    steps = np.array(seen_dirs)
    assert (np.einsum("ij,ij->i", steps[1:], steps[:-1]) > 0.99).all(), "camera direction jumped"
    view, proj, _ = cam.matrices(16 / 9)
    px = project(np.stack([a + [0, 1, 0], b + [0, 1, 0]]), proj @ view, 1280, 720)
    assert ((px > [0, 0]) & (px < [1280, 720])).all(), "a fighter is off screen"


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(-50, 50), min_size=9, max_size=9))
def test_render_look_at_equals_pyrr_create_look_at_transposed(coords):
    """The per-frame look_at on floats gives pyrr's matrix (the reference), transposed."""
    from pyrr import matrix44

    from game.render.projection import look_at
    eye, target, up = np.array(coords[:3]), np.array(coords[3:6]), np.array(coords[6:])
    d = target - eye
    if np.linalg.norm(d) < 1e-2 or np.linalg.norm(up) < 1e-2 or \
            np.linalg.norm(np.cross(d, up)) < 1e-2 * np.linalg.norm(d) * np.linalg.norm(up):
        return                                            # no view direction, or up along it
    ref = matrix44.create_look_at(eye, target, up, dtype=float).T
    got = look_at(eye, target, up)
    assert got.shape == (4, 4) and got.dtype == np.float64 and got.flags.c_contiguous
    assert np.allclose(got, ref, rtol=1e-12, atol=1e-12 * (1.0 + np.abs(eye).max()))
    assert np.array_equal(look_at(list(eye), tuple(target), list(up)), got)      # any sequence of 3


def test_render_look_at_without_a_view_direction_says_so():
    from game.render.projection import look_at
    for eye, target, up in (((1.0, 2.0, 3.0), (1.0, 2.0, 3.0), (0.0, 1.0, 0.0)),    # eye on the target
                            ((0.0, 0.0, 0.0), (0.0, 5.0, 0.0), (0.0, 1.0, 0.0))):   # looking straight up
        with pytest.raises(ValueError, match="no view direction"):
            look_at(eye, target, up)


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-20, 20), min_size=6, max_size=6), st.floats(20, 90), st.floats(0.5, 3.0))
def test_render_camera_matrices_follow_opengl_conventions(coords, fovy, aspect):
    """look_at puts the eye at the origin looking down -z with +y up; perspective maps the
    near plane to NDC depth -1, the far plane to +1 and the view cone's edge to +-1."""
    from game.render.projection import FAR, NEAR, look_at, perspective
    eye, target = np.array(coords[:3]), np.array(coords[3:])
    d = target - eye
    if np.linalg.norm(d) < 1e-3 or np.linalg.norm(np.cross(d, [0.0, 1.0, 0.0])) < 1e-3 * np.linalg.norm(d):
        return                                           # no view direction, or looking straight up or down
    v = look_at(eye, target)
    assert v.flags.c_contiguous and v.shape == (4, 4)
    assert np.allclose(v @ [*eye, 1.0], [0, 0, 0, 1], atol=1e-9)
    t = v @ [*target, 1.0]
    assert np.allclose(t[:2], 0, atol=1e-9) and t[2] == pytest.approx(-np.linalg.norm(d))
    assert np.allclose(v[:3, :3] @ v[:3, :3].T, np.eye(3), atol=1e-12)        # a rigid motion
    assert (v @ [*(eye + [0.0, 1.0, 0.0]), 1.0])[1] > 0                          # world up stays up
    p = perspective(fovy, aspect)
    half = np.tan(np.radians(fovy) / 2)
    for z, depth in ((NEAR, -1.0), (FAR, 1.0)):
        h = p @ [aspect * half * z, half * z, -z, 1.0]           # the cone's top-right edge at distance z
        assert h[:3] / h[3] == pytest.approx([1.0, 1.0, depth])
