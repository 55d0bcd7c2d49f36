"""game/render/showcase.py: which struck crate face the fight camera shows, and the turn that
shows it (no GL)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.render.showcase import SHOW_ANGLE, SHOW_MAX, SHOW_REACH, StruckFaces, show_turn
from game.sim import Match


def seen_sine(n, target, dist, centre, normal) -> float:
    """The sine of the angle an eye ``dist`` from ``target`` along ``n`` sees the face at (from edge-on)."""
    e = np.array([target[0] + dist * n[0] - centre[0], target[2] + dist * n[1] - centre[2]])
    return float(e @ normal / np.linalg.norm(e))


@settings(max_examples=200, deadline=None)
@given(st.floats(0, 2 * math.pi), st.floats(-1.5, 1.5), st.floats(-1.5, 1.5), st.floats(3.0, 9.0),
       st.sampled_from([(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)]))
def test_render_show_turn_sees_the_face_at_the_angle_by_the_least_turn_or_leaves_the_view(a, cx, cz, dist, normal):
    n = np.array([math.cos(a), math.sin(a)])
    target = np.array([0.0, 0.95, 0.0])
    centre = np.array([cx, 0.75, cz])
    f = np.array(normal)
    u = show_turn(n, target, dist, centre, f)
    turn = math.acos(max(min(float(u @ n), 1.0), -1.0))
    assert abs(float(np.linalg.norm(u)) - 1.0) < 1e-9 and turn <= SHOW_MAX + 1e-6
    want = math.sin(SHOW_ANGLE)
    before = seen_sine(n, target, dist, centre, f)
    if turn < 1e-6:
        # left alone: seen well enough already, or no turn up to SHOW_MAX (either way) shows it
        turned = [seen_sine(np.array([math.cos(a + s * SHOW_MAX), math.sin(a + s * SHOW_MAX)]), target, dist, centre, f)
                  for s in (-1, 1)]
        assert before >= want - 1e-9 or max(turned) < want + 1e-6
    else:
        assert before < want
        assert seen_sine(u, target, dist, centre, f) == pytest.approx(want, abs=1e-3)
        # turned toward the face's side: a turn the other way by as much sees it less
        back = math.atan2(n[0] * u[1] - n[1] * u[0], float(n @ u))
        other = np.array([math.cos(a - back), math.sin(a - back)])
        assert seen_sine(other, target, dist, centre, f) < want


def test_render_struck_faces_show_the_nearest_struck_crates_side_toward_the_nearest_fighter():
    """No face while no crate is struck; once crate_north's south and east walls have holes,
    the south face while the fighter nearest to it stands south of it (within SHOW_REACH),
    the east face once one stands east of it nearer, none when both are farther; a broken crate
    shows nothing."""
    m = Match.new(seed=0)
    st_ = m.stage
    i = next(k for k, c in enumerate(st_.crates) if c.obj.name == "crate_north")
    crate = st_.crates[i]
    faces = StruckFaces()
    near = (np.array([0.0, 0.0, 3.8]), np.array([0.0, 0.0, 7.0]))
    assert faces.face(st_, near) is None
    st_.strike(i, np.array([[-0.2, 0.6, 4.3], [0.2, 1.0, 4.55]]))                     # south wall
    st_.strike(i, np.array([[0.45, 0.6, 4.9], [0.6, 0.9, 5.2]]))                      # east wall
    assert not crate.broken
    centre, normal = faces.face(st_, near)
    assert normal.tolist() == [0.0, -1.0]
    assert np.allclose(centre, [0.0, 0.75, 4.5])
    centre, normal = faces.face(st_, (np.array([1.2, 0.0, 5.1]), near[1]))
    assert normal.tolist() == [1.0, 0.0]
    assert np.allclose(centre, [0.5, 0.75, 5.0])
    far = (np.array([0.0, 0.0, 4.5 - SHOW_REACH - 0.1]), np.array([4.0, 0.0, 0.0]))
    assert faces.face(st_, far) is None
    crate.broken = True
    assert faces.face(st_, near) is None
