"""Method B, one strike (``Compound.strike``): the trigger (B1), the target faces and the
interaction region (B2, B3, at a face's middle, edges and corners), the nine-patch split
(B4), the fill faces (B5), and the hole clear while the wall beside it stays solid (B7)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compoundhelp import (
    CRATE,
    T,
    assert_inner_faces_within_the_core,
    covered,
    face_plane_rect,
    fill_cover,
    fresh,
    front_punch,
    rect_area,
    region_reference,
    segment_hits,
    strictly_overlaps,
    tunnels_through,
    union_area,
)
from game.collision.compound import (
    FILL,
    INNER,
    Compound,
)
from game.collision.range_box import overlaps


def test_B1_miss_returns_none_and_changes_nothing():
    c = fresh()
    before = c.state_bytes()
    for s in (
        [[2, 2, 2], [3, 3, 3]],  # far away
        [[0.3, 0.3, 0.3], [0.6, 0.5, 0.7]],  # inside the hollow, touching no wall
        [[0.4, 0.3, -0.5], [0.5, 0.4, -1e-3]],  # just in front of the face
    ):
        # per-box reference: no box overlaps
        assert not any(overlaps(np.asarray(s, float), b) for b in c.boxes)
        assert c.strike(s, margin=0.05) is None
    assert c.state_bytes() == before and c.version == 0


def test_B2_B3_region_is_footprint_grown_and_clipped():
    c = fresh()
    s = front_punch()
    face_box = c.boxes[c.layers == 4][0].copy()
    r = c.strike(s, margin=0.03)
    assert r is not None and r.layers.tolist() == [4]
    assert len(r.target_faces) == 1 and r.target_faces[0].normal.tolist() == [0, 0, -1]
    axis, plane, rect = face_plane_rect(r.regions[0])
    assert axis == 2 and plane == 0.0
    ref = region_reference(s, 0.03, face_box, 2)
    assert np.allclose(rect[:, :2], ref[:, :2])
    # tunnel = region x wall thickness
    assert np.allclose(r.tunnels[0, :, :2], ref[:, :2]) and np.allclose(r.tunnels[0, :, 2], [0, T])
    assert r.removed_volume == pytest.approx(rect_area(ref, 2) * T)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    x=st.floats(-0.2, 1.1), y=st.floats(-0.2, 0.9), w=st.floats(0.001, 0.5), h=st.floats(0.001, 0.5),
    margin=st.floats(0.0, 0.2),
)
def test_B4_split_area_accounting(x, y, w, h, margin):
    c = fresh()
    s = np.array([[x, y, -0.3], [x + w, y + h, 0.02]])
    faces_before = {int(lay): b.copy() for b, lay in zip(c.boxes, c.layers)}
    touched = any(bool(overlaps(s, b)) for b in c.boxes)  # per-box reference
    r = c.strike(s, margin=margin)
    if r is None:
        # a miss, or an edge-on touch whose region has no area (margin 0)
        assert not touched or margin == 0.0
        return
    assert touched
    before = np.array([faces_before[lay] for lay in range(6)])
    for k, lay in enumerate(r.layers.tolist()):
        axis = lay // 2
        face_box = faces_before[lay]
        region = region_reference(s, margin, face_box, axis)
        # B3: the other tunnels reaching into this wall's rim cut its face too
        others = [np.stack((np.maximum(t[0], face_box[0]), np.minimum(t[1], face_box[1])))
                  for t in tunnels_through(r, lay, before, np.arange(6), face_box)[1:]]
        removed = union_area([region] + others, axis)
        split = [f for f in r.split_faces if int(np.flatnonzero(f.normal)[0]) == axis
                 and f.vertices[0, axis] == face_box[lay % 2, axis]]
        assert 0 < len(split) <= 8 * (1 + len(others)) or removed == pytest.approx(rect_area(face_box, axis), abs=1e-9)
        assert all(f.area > 0 for f in split)
        total = sum(f.area for f in split)
        assert total == pytest.approx(rect_area(face_box, axis) - removed, abs=1e-4)
        # the split faces and the regions tile the face: no piece overlaps a region
        _, _, rrect = face_plane_rect(r.regions[k])
        for f in split:
            _, _, fr = face_plane_rect(f)
            for cut in [rrect] + others:
                ext = np.minimum(fr[1], cut[1]) - np.maximum(fr[0], cut[0])
                assert not all(ext[a] > 1e-9 for a in range(3) if a != axis)
    c.validate()


def test_B4_nine_patch_interior_hole_gives_eight_split_faces():
    c = fresh()
    r = c.strike(front_punch(), margin=0.02)
    assert len(r.split_faces) == 8
    # and B9 merging stores them as 4 rows (bottom, left, right, top), shape unchanged
    assert (c.layers == 4).sum() == 4
    c.validate()


def test_B5_fill_faces_close_the_hole():
    c = fresh()
    r = c.strike(front_punch(w=0.1, h=0.12), margin=0.02)
    _, _, rect = face_plane_rect(r.regions[0])
    wx, wy = rect[1, 0] - rect[0, 0], rect[1, 1] - rect[0, 1]
    assert len(r.fill_faces) == 4
    assert sum(f.area for f in r.fill_faces) == pytest.approx(2 * (wx + wy) * T)
    centre = np.array([(rect[0, 0] + rect[1, 0]) / 2, (rect[0, 1] + rect[1, 1]) / 2, T / 2])
    for f in r.fill_faces:
        assert f.kind == FILL
        assert np.dot(centre - f.center, f.normal) > 0  # faces into the hole
        assert np.allclose(sorted(f.vertices[:, 2]), [0, 0, T, T])  # through the wall
    # target vertices = the hole's four corners on the face plane
    corners = {(rect[i, 0], rect[j, 1], 0.0) for i in (0, 1) for j in (0, 1)}
    assert {tuple(v) for v in r.target_vertices.tolist()} == corners
    # B5 as worded: vertices of the split faces that are vertices of no other face
    split_v = {tuple(v) for f in r.split_faces for v in f.vertices.tolist()}
    other_v = {tuple(v) for f in fresh().box_faces() if f.normal[2] != -1 for v in f.vertices.tolist()}
    assert corners <= split_v and not (corners & other_v)
    # the compound's own faces show the same walls
    f = c.faces
    assert f.areas()[f.kinds == FILL].sum() == pytest.approx(2 * (wx + wy) * T)


@pytest.mark.parametrize("striker, walls", [
    ([[0.15, 0.3, -0.2], [0.2, 0.42, 0.05]], "-z face at its x border"),
    ([[0.4, 0.15, -0.2], [0.5, 0.2, 0.05]], "-z face at its y border"),
    ([[0.8, 0.6, -0.2], [0.85, 0.65, 0.05]], "-z face at its x and y borders"),
    ([[0.4, 0.3, -0.2], [0.5, 0.42, 0.05]], "inside the face"),
])
def test_B5_hole_at_a_face_border_is_walled_by_fill_faces(striker, walls):
    """A hole whose region (footprint + margin) ends at the border of the face's own slab, where
    a neighbouring wall owns the edge, ends on that wall's slab, whose inner side shows there:
    that side is a wall of the hole, FILL in ``compound.faces`` as in the strike's
    ``fill_faces``, and the FILL faces cover the hole's perimeter x the thickness.  (A region
    reaching into the rim would open the rim instead: ``test_B3_edge_strike_...``.)"""
    c = fresh()
    r = c.strike(np.array(striker), margin=0.05)
    assert r.layers.tolist() == [4], walls
    _, _, rect = face_plane_rect(r.regions[0])
    perimeter = 2 * ((rect[1, 0] - rect[0, 0]) + (rect[1, 1] - rect[0, 1]))
    f = c.faces
    assert sum(g.area for g in r.fill_faces) == pytest.approx(perimeter * T)
    assert f.areas()[f.kinds == FILL].sum() == pytest.approx(perimeter * T)
    for g in r.fill_faces:
        assert fill_cover(f, g) == pytest.approx(g.area)
    assert_inner_faces_within_the_core(c)
    # the shell's inside lost only what the hole opened onto it
    before = fresh().faces
    inner = f.areas()[f.kinds == INNER].sum()
    assert inner == pytest.approx(before.areas()[before.kinds == INNER].sum() - _core_opening(rect), abs=1e-9)


def _core_opening(rect) -> float:
    """Area of a -z hole's rectangle (on the face plane) that opens onto the core."""
    core = CRATE + np.array([[T], [-T]])
    ext = [min(rect[1, a], core[1, a]) - max(rect[0, a], core[0, a]) for a in (0, 1)]
    return max(ext[0], 0.0) * max(ext[1], 0.0)


def test_B5_notch_at_face_border_has_three_walls():
    c = fresh()
    face_box = c.boxes[c.layers == 4][0].copy()
    # striker overlapping the bottom border of the -z face (inset at y = T)
    s = np.array([[0.4, 0.05, -0.2], [0.5, 0.2, 0.03]])
    r = c.strike(s, margin=0.02)
    r4 = r.layers.tolist().index(4)
    _, _, rect = face_plane_rect(r.regions[r4])
    assert face_box[0, 1] > CRATE[0, 1]                 # the -y wall owns the face's bottom edge ...
    assert rect[0, 1] == pytest.approx(CRATE[0, 1])     # ... and its rim opens: the region runs to the border (B3)
    walls4 = [f for f in r.fill_faces if f.vertices[:, 2].min() == 0 and f.vertices[:, 2].max() == T]
    wx, wy = rect[1, 0] - rect[0, 0], rect[1, 1] - rect[0, 1]
    # the -z face's notch has walls on its two sides and its top (the -y wall's rim has walls
    # there too); the bottom, the crate's edge, is open
    assert sum(f.area for f in walls4) == pytest.approx((wx + 2 * wy) * T)
    c.validate()


def test_B7_hole_is_clear_and_beside_it_is_solid():
    c = fresh()
    r = c.strike(front_punch(), margin=0.02)
    tun = r.tunnels[0]
    assert not strictly_overlaps(c.boxes, tun).any()
    cx, cy = (tun[0, :2] + tun[1, :2]) / 2
    # a segment along the face normal through the hole, from outside into the hollow
    assert not segment_hits(c.boxes, [cx, cy, -1.0], [cx, cy, 0.5])
    # beside the hole (just outside the region) the wall stops it
    bx = tun[1, 0] + 0.01
    assert segment_hits(c.boxes, [bx, cy, -1.0], [bx, cy, 0.5])
    # method A sees it too: a thin probe box through the hole touches nothing, beside it does
    probe = np.array([[cx - 1e-3, cy - 1e-3, -1.0], [cx + 1e-3, cy + 1e-3, 0.5]])
    assert not overlaps(probe, c.boxes).any()
    assert overlaps(probe + [tun[1, 0] - cx + 0.01, 0, 0], c.boxes).any()


def test_B7_outer_faces_do_not_cover_the_hole():
    c = fresh()
    r = c.strike(front_punch(), margin=0.02)
    tun = r.tunnels[0]
    cx, cy = (tun[0, :2] + tun[1, :2]) / 2
    f = c.faces
    for i in np.flatnonzero(f.kinds != FILL):
        lo, hi = f.vertices[i].min(axis=0), f.vertices[i].max(axis=0)
        if hi[2] - lo[2] < 1e-12 and lo[2] <= T:  # faces of the struck wall, parallel to it
            assert not (lo[0] < cx < hi[0] and lo[1] < cy < hi[1])


def test_B2_corner_strike_targets_every_touched_face():
    c = fresh()
    # the (min, min, min) corner, deep enough to reach past the x wall (which owns the corner)
    s = np.array([[-0.2, -0.2, -0.2], [0.15, 0.15, 0.15]])
    r = c.strike(s, margin=0.02)
    assert sorted(r.layers.tolist()) == [0, 2, 4]
    c.validate()
    for tun in r.tunnels:
        assert not strictly_overlaps(c.boxes, tun).any()
    # the striker's own volume is empty now
    assert not strictly_overlaps(c.boxes, s).any()
    # a segment diagonal into the corner region is clear
    assert not segment_hits(c.boxes, [-0.5, -0.5, -0.5], [0.14, 0.14, 0.14])


def test_B2_edge_strike():
    c = fresh()
    s = np.array([[0.3, -0.2, -0.2], [0.5, 0.15, 0.15]])  # the -y/-z edge
    r = c.strike(s, margin=0.01)
    assert sorted(r.layers.tolist()) == [2, 4]
    c.validate()
    assert not strictly_overlaps(c.boxes, s).any()
    assert segment_hits(c.boxes, [0.7, 0.02, -1], [0.7, 0.02, 0.5])
    assert not segment_hits(c.boxes, [0.4, 0.02, -1], [0.4, 0.02, 0.14])


def test_B3_margin_is_clipped_at_face_borders():
    """The region is the footprint grown by the margin, clipped to the face of the bounding box
    (B3): where the footprint is larger than the face it covers the face to its border, the
    neighbouring walls' rims included."""
    c = fresh()
    big = np.array([[-1.0, -1.0, -0.3], [2.0, 2.0, 0.02]])  # footprint larger than the -z face
    r = c.strike(big, margin=0.5)
    for k, lay in enumerate(r.layers.tolist()):
        axis = lay // 2
        _, _, rect = face_plane_rect(r.regions[k])
        for ax in range(3):
            if ax != axis:
                assert rect[0, ax] == max(big[0, ax] - 0.5, CRATE[0, ax])
                assert rect[1, ax] == min(big[1, ax] + 0.5, CRATE[1, ax])
    c.validate()
    # the whole -z wall is gone
    assert not (c.layers == 4).any()


UNIT = np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]])


RIM_T = 0.1


def _through_the_front_wall(x0, x1, y0, y1, n=16):
    """Sample points strictly inside ``[x0, x1] x [y0, y1] x [0, RIM_T]``: the -z wall of UNIT."""
    gx, gy = np.linspace(x0, x1, n + 2)[1:-1], np.linspace(y0, y1, n + 2)[1:-1]
    gz = np.linspace(0.0, RIM_T, 8)[1:-1]
    return np.array([[x, y, z] for x in gx for y in gy for z in gz])


@pytest.mark.parametrize("depth", [0.0, 0.05])
def test_B3_corner_strike_opens_the_neighbouring_walls_rims_under_the_striker(depth):
    """A strike over [0, 0.2]^2 at the -z face's corner (margin 0), touching the face or 5 cm
    into its 10 cm wall: the x and y walls own the face's edges, so their ends (rims) are part
    of the face under the striker.  The region is the whole footprint and it opens through the
    whole wall, rims included; beside it the wall and the rims stay."""
    from game.reference.compound import reference_strike

    c = Compound.from_box(UNIT, RIM_T)
    s = np.array([[0.0, 0.0, -0.1], [0.2, 0.2, depth]])
    ref = reference_strike(c, s, 0.0)
    r = c.strike(s, margin=0.0)
    assert r is not None and 4 in r.layers.tolist()
    _, _, rect = face_plane_rect(r.regions[r.layers.tolist().index(4)])
    assert rect[:, :2].tolist() == [[0.0, 0.0], [0.2, 0.2]]
    assert not covered(c.boxes, _through_the_front_wall(0.0, 0.2, 0.0, 0.2)).any()
    beside = np.array([[0.05, 0.3, 0.05], [0.3, 0.05, 0.05], [0.05, 0.05, 0.15], [0.15, 0.05, 0.15]])
    assert covered(c.boxes, beside).all()
    c.validate()
    pts = np.random.default_rng(5).uniform(UNIT[0], UNIT[1], (20000, 3))
    assert ref is not None and np.array_equal(covered(ref[0], pts), covered(c.boxes, pts))


def test_B3_edge_strike_opens_the_rim_it_reaches_whole():
    """A strike 5 cm from the -z face's left edge (margin 0): the footprint reaches halfway into
    the x wall's 10 cm rim.  A wall's box spans the wall's whole thickness, so the rim opens
    whole: the region runs on to the face's edge, and the hole is open there through the wall."""
    c = Compound.from_box(UNIT, RIM_T)
    r = c.strike(np.array([[0.05, 0.4, -0.1], [0.3, 0.6, 0.0]]), margin=0.0)
    assert r is not None and r.layers.tolist() == [4]
    _, _, rect = face_plane_rect(r.regions[0])
    assert rect[:, :2].tolist() == [[0.0, 0.4], [0.3, 0.6]]
    assert r.tunnels[0].tolist() == [[0.0, 0.4, 0.0], [0.3, 0.6, RIM_T]]
    assert not covered(c.boxes, _through_the_front_wall(0.0, 0.3, 0.4, 0.6)).any()
    assert covered(c.boxes, np.array([[0.05, 0.3, 0.05], [0.05, 0.7, 0.05], [0.05, 0.5, 0.15]])).all()
    assert r.removed_volume == pytest.approx(0.3 * 0.2 * RIM_T)
    c.validate()


def test_B9_a_strike_bigger_than_the_crate_removes_everything():
    c = fresh()
    r = c.strike([[-1, -1, -1], [3, 3, 3]], margin=0.0)
    assert sorted(r.layers.tolist()) == list(range(6))
    assert len(c) == 0 and c.solid_fraction() == 0.0
    assert r.removed_volume == pytest.approx(fresh().volume())
    c.validate()
    assert c.faces.count == 0 and c.triangles()[0].shape == (0, 3, 3)
    assert c.strike([[-1, -1, -1], [3, 3, 3]]) is None
