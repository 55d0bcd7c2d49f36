"""Method B (B1-B9): compounds of small boxes re-split by strikes.

References used here are deliberately simple: per-box Python loops, a slab
test for segments, and point sampling of the shell.
"""

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
    fresh_hash,
    front_punch,
    in_shell,
    rect_area,
    region_reference,
    segment_hits,
    strictly_overlaps,
    struck_hash,
    tunnels_through,
    union_area,
)
from game.collision import tolerances as tol
from game.collision.compound import (
    FILL,
    INNER,
    OUTER,
    Compound,
    CompoundError,
    CompoundGroup,
    InvalidCompound,
)
from game.collision.range_box import overlaps
from game.reference.compound import boundary_face_records

# ---------------------------------------------------------------- references


# -------------------------------------------------------------- construction


def test_B6_from_box_six_slabs_fill_the_shell_once():
    c = fresh()
    c.validate()
    assert len(c) == 6
    inner = (CRATE[1] - CRATE[0]) - 2 * T
    assert c.volume() == pytest.approx(np.prod(CRATE[1] - CRATE[0]) - np.prod(inner))
    rng = np.random.default_rng(0)
    pts = rng.uniform(CRATE[0] - 0.05, CRATE[1] + 0.05, (20000, 3))
    count = np.zeros(len(pts), int)
    for b in c.boxes:  # every shell point in exactly one slab
        count += ((pts > b[0]) & (pts < b[1])).all(axis=1)
    shell = in_shell(pts)
    assert (count[shell] <= 1).all() and (count[~shell] == 0).all()
    assert (covered(c.boxes, pts) == shell).all()
    # each slab spans its wall thickness along its own axis (the face it was extruded from)
    for b, lay in zip(c.boxes, c.layers):
        axis = lay // 2
        assert b[1, axis] - b[0, axis] == pytest.approx(T)


def test_B6_faces_of_fresh_crate_outer_and_inner_surfaces():
    c = fresh()
    f = c.faces
    areas = f.areas()
    ext = CRATE[1] - CRATE[0]
    inner = ext - 2 * T
    surf = lambda e: 2 * (e[0] * e[1] + e[1] * e[2] + e[0] * e[2])  # noqa: E731
    assert areas[f.kinds == OUTER].sum() == pytest.approx(surf(ext))
    assert areas[f.kinds == INNER].sum() == pytest.approx(surf(inner))
    assert not (f.kinds == FILL).any()


def test_B6_box_faces_keep_vertex_data_on_outer_planes():
    c = fresh()
    for face, b, lay in zip(c.box_faces(), c.boxes, c.layers):
        axis, side = lay // 2, lay % 2
        assert face.normal[axis] == (1 if side else -1)
        assert np.allclose(face.vertices[:, axis], CRATE[side, axis])
        assert face.area == pytest.approx(rect_area(b, axis))


def test_B8_sphere_becomes_circumscribed_cube():
    c = Compound.from_sphere([1.0, 2.0, 3.0], 0.5, 0.05)
    assert np.allclose(c.bounds, [[0.5, 1.5, 2.5], [1.5, 2.5, 3.5]])
    assert c.state_bytes() == Compound.from_box([[0.5, 1.5, 2.5], [1.5, 2.5, 3.5]], 0.05).state_bytes()
    c.validate()
    # it is a cube: every face has the same area
    f = c.faces
    outer = f.areas()[f.kinds == OUTER]
    assert outer.sum() == pytest.approx(6 * 1.0)


@pytest.mark.parametrize(
    "box, thickness, word",
    [
        ([[0, 0, 0], [1, 1, 1]], 0.5, "thickness"),
        ([[0, 0, 0], [1, 1, 1]], -0.1, "thickness"),
        ([[0, 0, 0], [1, 1, 1]], "x", "thickness"),
        ([[0, 0], [1, 1]], 0.1, "box"),
        ([[1, 0, 0], [0, 1, 1]], 0.1, "box"),
        ([[0, 0, 0], [np.nan, 1, 1]], 0.1, "box"),
    ],
)
def test_B6_bad_input_names_the_argument(box, thickness, word):
    with pytest.raises(CompoundError, match=word):
        Compound.from_box(box, thickness)


def test_B8_bad_sphere_input():
    with pytest.raises(CompoundError, match="radius"):
        Compound.from_sphere([0, 0, 0], 0.0, 0.1)
    with pytest.raises(CompoundError, match="center"):
        Compound.from_sphere([0, 0], 1.0, 0.1)
    with pytest.raises(CompoundError, match="center: coordinates must be finite"):  # not "box"
        Compound.from_sphere([np.nan, 0, 0], 1.0, 0.1)
    with pytest.raises(CompoundError, match="center: expected 3 numbers"):
        Compound.from_sphere("abc", 1.0, 0.1)


def test_B7_group_of_non_compounds_names_the_entry():
    with pytest.raises(CompoundError, match=r"compounds\[1\]: expected a Compound, got int"):
        CompoundGroup([fresh(), 1])


def test_B1_bad_striker_and_margin():
    c = fresh()
    with pytest.raises(CompoundError, match="striker_box"):
        c.strike([[0, 0, 0], [1, 1]])
    with pytest.raises(CompoundError, match="margin"):
        c.strike([[0, 0, 0], [1, 1, 1]], margin=-1)


# ------------------------------------------------------------------ a strike


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


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    x=st.floats(-0.2, 1.1), y=st.floats(-0.2, 0.9), w=st.floats(0.001, 0.5), h=st.floats(0.001, 0.5),
    margin=st.floats(0.0, 0.2),
)
def test_B4_split_area_accounting(x, y, w, h, margin):
    c = fresh()
    s = np.array([[x, y, -0.3], [x + w, y + h, 0.02]])
    faces_before = {int(l): b.copy() for b, l in zip(c.boxes, c.layers)}
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


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from([0.0, 0.02, 0.05]))
def test_B2_B4_repeated_strikes_every_cut_face_is_a_target_with_at_most_8_split_faces(seed, margin):
    """After earlier strikes a face is many small boxes, and the region (the footprint
    grown by the margin) can cut boxes the striker itself does not touch.  Each strike's
    target faces are exactly the boxes of its layers that the region cuts (a per-box
    reference), and each target face yields at most 8 split faces, all inside it and off
    the region, whose areas sum to its area minus the region's part of it.  The struck boxes
    are the ones the striker touches (B1, A4), which need not be cut: a box it touches only
    along an edge, with no margin, is struck and keeps its face."""
    rng = np.random.default_rng(seed)
    c = fresh()
    for _ in range(25):
        p = rng.uniform(CRATE[0] - 0.03, CRATE[1] + 0.03)
        h = rng.uniform(0.01, 0.12, 3)
        s = np.array([p - h, p + h])
        before, lay_before = c.boxes.copy(), c.layers.copy()
        r = c.strike(s, margin=margin)
        if r is None:
            continue
        want = []   # reference: every box a tunnel cuts, its own layer's or a neighbour's through its rim
        slabs = Compound.from_box(CRATE, T).boxes
        through = {lay: tunnels_through(r, lay, before, lay_before, slabs[lay]) for lay in range(6)}
        for b, bl in zip(before, lay_before):
            axis = bl // 2
            cuts = []
            for tun in through[int(bl)]:
                ov = [min(b[1, a], tun[1, a]) - max(b[0, a], tun[0, a]) for a in range(3) if a != axis]
                if min(ov) > tol.PLANE_EPS:
                    cuts.append(np.stack((np.maximum(b[0], tun[0]), np.minimum(b[1], tun[1]))))
            if cuts:
                want.append((int(bl), b, cuts))
        got = r.target_faces
        assert len(got) == len(want) and len(r.split_target) == len(r.split_faces)
        # B1: the struck boxes are the boxes of the target layers the striker touches (A4, touching
        # counts), a per-box reference; one it only touches (an edge, margin 0) is struck, not cut
        touched = {i for i, (b, bl) in enumerate(zip(before, lay_before))
                   if int(bl) in r.layers.tolist() and overlaps(s, b)}
        assert set(r.struck_boxes.tolist()) == touched
        for t, (face, (lay, b, cuts)) in enumerate(zip(got, want)):
            axis, plane, rect = face_plane_rect(face)
            assert axis == lay // 2 and plane == b[lay % 2, axis]
            assert np.array_equal(np.delete(rect, axis, axis=1), np.delete(b, axis, axis=1))
            mine = [f for f, o in zip(r.split_faces, r.split_target.tolist()) if o == t]
            assert len(mine) <= 8 * len(cuts)
            for f in mine:
                _, fplane, fr = face_plane_rect(f)
                assert fplane == plane and (fr[0] >= rect[0] - 1e-12).all() and (fr[1] <= rect[1] + 1e-12).all()
                for inter in cuts:
                    ext = np.minimum(fr[1], inter[1]) - np.maximum(fr[0], inter[0])
                    assert not all(ext[a] > 1e-9 for a in range(3) if a != axis)
            assert sum(f.area for f in mine) == pytest.approx(rect_area(b, axis) - union_area(cuts, axis), abs=1e-9)
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


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_B5_every_strike_fill_face_is_fill_in_the_face_set(seed):
    """Over random strike sequences near the faces' borders: every wall the strike reports
    (``fill_faces``, from the tunnels) is covered by FILL faces of ``compound.faces``, and
    no INNER face leaves the core's rectangle."""
    rng = np.random.default_rng(seed)
    c = fresh()
    for _ in range(12):
        p = rng.uniform(CRATE[0] - 0.05, CRATE[1] + 0.05)
        p = np.where(rng.random(3) < 0.5, np.clip(p, CRATE[0] + 0.02, CRATE[1] - 0.02), p)
        h = rng.uniform(0.02, 0.1, 3)
        r = c.strike(np.array([p - h, p + h]), margin=float(rng.choice([0.0, 0.05])))
        if r is None:
            continue
        f = c.faces
        for g in r.fill_faces:
            assert fill_cover(f, g) == pytest.approx(g.area, abs=1e-9)
        assert_inner_faces_within_the_core(c)


def test_B5_notch_at_face_border_has_three_walls():
    c = fresh()
    face_box = c.boxes[c.layers == 4][0].copy()
    # striker overlapping the bottom border of the -z face (inset at y = T)
    s = np.array([[0.4, 0.05, -0.2], [0.5, 0.2, 0.03]])
    r = c.strike(s, margin=0.02)
    r4 = [k for k, l in enumerate(r.layers.tolist()) if l == 4][0]
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


def test_B7_faces_are_a_closed_surface_of_the_union():
    """Divergence theorem on the face set: sum(area * n) = 0 and
    (1/3) sum(area * n . centroid) = volume of the union of the small boxes."""
    c = fresh()
    rng = np.random.default_rng(3)
    for _ in range(25):
        p = rng.uniform(CRATE[0] - 0.1, CRATE[1] + 0.1)
        h = rng.uniform(0.02, 0.15, 3)
        c.strike([p - h, p + h], margin=0.02)
    f = c.faces
    a = f.areas()
    assert np.allclose((a[:, None] * f.normals).sum(axis=0), 0, atol=1e-9)
    cen = f.vertices.mean(axis=1)
    vol = (a * (f.normals * cen).sum(axis=1)).sum() / 3
    assert vol == pytest.approx(c.volume(), rel=1e-9)
    # winding agrees with the normals, in quads and triangles
    v = f.vertices
    assert (np.einsum("ij,ij->i", np.cross(v[:, 1] - v[:, 0], v[:, 3] - v[:, 0]), f.normals) > 0).all()
    tri, tn, tk = c.triangles()
    assert tri.shape == (2 * f.count, 3, 3) and tk.shape == (2 * f.count,)
    cr = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    assert (np.einsum("ij,ij->i", cr, tn) > 0).all()
    assert 0.5 * np.linalg.norm(cr, axis=1).sum() == pytest.approx(a.sum())


# ------------------------------------------------------------- edges, corners


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


# ---------------------------------------- B3 at a face's corner and edge: the neighbouring walls' rims

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


# ------------------------------------------------------------------- repeats


def test_B9_same_strike_twice_changes_nothing_more():
    c = fresh()
    s = front_punch()
    assert c.strike(s, margin=0.02) is not None
    n, before = len(c), c.state_bytes()
    assert c.strike(s, margin=0.02) is None
    assert len(c) == n and c.state_bytes() == before


def test_B9_overlapping_strikes_grow_the_hole():
    c = fresh()
    r1 = c.strike(front_punch(x0=0.3), margin=0.02)
    r2 = c.strike(front_punch(x0=0.36), margin=0.02)
    assert r2 is not None and r2.removed_volume < rect_area(r2.tunnels[0], 2) * T  # partly empty already
    for tun in (r1.tunnels[0], r2.tunnels[0]):
        assert not strictly_overlaps(c.boxes, tun).any()
    f = c.faces
    lo, hi = r1.tunnels[0][0], r2.tunnels[0][1]
    perim = 2 * ((hi[0] - lo[0]) + (hi[1] - lo[1]))
    assert f.areas()[f.kinds == FILL].sum() == pytest.approx(perim * T)
    c.validate()


def test_B9_200_random_strikes_stay_valid_against_point_sampling():
    rng = np.random.default_rng(2024)
    c = fresh()
    pts = rng.uniform(CRATE[0], CRATE[1], (40000, 3))
    pts = pts[in_shell(pts)]
    ever_cut = np.zeros(len(pts), bool)  # inside a superset of every possible tunnel
    hits = 0
    prev_volume = c.volume()
    for i in range(200):
        p = rng.uniform(CRATE[0] - 0.15, CRATE[1] + 0.15)
        h = rng.uniform(0.01, 0.12, 3)
        s = np.array([p - h, p + h])
        margin = float(rng.uniform(0, 0.04))
        touched = overlaps(s, c.boxes).any()
        r = c.strike(s, margin=margin)
        if r is None:
            assert c.volume() == prev_volume
        else:
            assert touched
            hits += 1
            assert c.volume() == pytest.approx(prev_volume - r.removed_volume, abs=1e-9)
            # the striker's own volume is empty afterwards
            assert not strictly_overlaps(c.boxes, s, eps=2 * tol.SNAP_EPS).any()
            # reported tunnels are empty
            for tun in r.tunnels:
                assert not strictly_overlaps(c.boxes, tun, eps=2 * tol.SNAP_EPS).any()
        # superset tunnel of each wall: footprint grown by margin (+ snap slack) through the wall,
        # on the bounding box's face
        grow = s.copy()
        grow[0] -= margin + 2 * tol.SNAP_EPS
        grow[1] += margin + 2 * tol.SNAP_EPS
        for lay in range(6):
            axis = lay // 2
            slab = Compound.from_box(CRATE, T).boxes[lay]
            tb = grow.copy()
            tb[:, axis] = slab[:, axis]
            # B3: where it reaches into a neighbouring wall's rim, the rim opens whole
            tb[0] = np.where(tb[0] < slab[0], CRATE[0] - 1.0, tb[0])
            tb[1] = np.where(tb[1] > slab[1], CRATE[1] + 1.0, tb[1])
            tb[:, axis] = slab[:, axis]
            if overlaps(s, slab):
                ever_cut |= ((pts > tb[0]) & (pts < tb[1])).all(axis=1)
        prev_volume = c.volume()
        if i % 25 == 0:
            c.validate()
    c.validate()
    assert hits > 50
    cov = covered(c.boxes, pts)
    # never-struck shell points are still solid
    assert cov[~ever_cut].all()
    # and material really went away
    assert (~cov).sum() > 0.2 * len(pts)
    # bounded count: no more boxes than the grid bound, and far fewer than 8 per hit
    assert len(c) <= c.max_boxes()
    assert len(c) <= 6 + 3 * hits
    assert c.solid_fraction() == pytest.approx(cov.mean(), abs=0.03)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.floats(-0.1, 1.3), st.floats(-0.1, 0.9), st.floats(-0.1, 1.3),
                          st.floats(0.0, 0.2), st.floats(0.0, 0.2), st.floats(0.0, 0.2),
                          st.floats(0.0, 0.05)), min_size=1, max_size=12))
def test_B9_any_strike_sequence_keeps_invariants(strikes):
    c = fresh()
    for x, y, z, w, h, d, m in strikes:
        s = np.array([[x, y, z], [x + w, y + h, z + d]])
        c.strike(s, margin=m)
        c.validate()
        assert not strictly_overlaps(c.boxes, s, eps=2 * tol.SNAP_EPS).any()
    f = c.faces
    a = f.areas()
    cen = f.vertices.mean(axis=1)
    assert (a * (f.normals * cen).sum(axis=1)).sum() / 3 == pytest.approx(c.volume(), rel=1e-9, abs=1e-12)


# ------------------------------------------------------- validation catches


def test_B9_validate_catches_duplicates_zero_size_and_unmerged():
    c = fresh()
    b, lay = c.boxes.copy(), c.layers.copy()
    dup = Compound(c.bounds, T, np.concatenate((b, b[:1])), np.concatenate((lay, lay[:1])), 1.0)
    with pytest.raises(InvalidCompound, match="duplicate"):
        dup.validate()
    z = b.copy()
    z[5, 1, 0] = z[5, 0, 0]
    with pytest.raises(InvalidCompound, match="zero-size"):
        Compound(c.bounds, T, z, lay, 1.0).validate()
    # split the -z slab in two halves along x: union is a box -> must be merged
    s = b[4].copy()
    left, right = s.copy(), s.copy()
    left[1, 0] = right[0, 0] = 0.5
    um = Compound(c.bounds, T, np.concatenate((b[:4], [left, right], b[5:])), np.array([0, 1, 2, 3, 4, 4, 5]), 1.0)
    with pytest.raises(InvalidCompound, match="merged"):
        um.validate()


# ------------------------------------------------------------------- state


def test_B9_copy_snapshot_restore_and_state_bytes():
    c = fresh()
    c.strike(front_punch(), margin=0.02)
    snap = c.snapshot()
    d = c.copy()
    key = c.state_bytes()
    d.strike(front_punch(x0=0.7), margin=0.02)
    assert c.state_bytes() == key and d.state_bytes() != key  # copies are independent
    c.strike(front_punch(x0=0.1), margin=0.02)
    assert c.state_bytes() != key
    back = Compound.restore(snap)
    assert back.state_bytes() == key
    back.validate()
    # same strikes, same bytes, in a fresh object
    e = fresh()
    e.strike(front_punch(), margin=0.02)
    assert e.state_bytes() == key
    with pytest.raises(CompoundError):
        Compound.restore("nope")


def test_B9_boxes_are_read_only_contiguous():
    c = fresh()
    c.strike(front_punch(), margin=0.02)
    assert c.boxes.flags.c_contiguous and c.boxes.dtype == np.float64
    with pytest.raises(ValueError):
        c.boxes[0, 0, 0] = 5.0


def test_B9_solid_fraction_tracks_removed_volume():
    c = fresh()
    v0 = c.volume()
    assert c.solid_fraction() == 1.0
    r = c.strike(front_punch(), margin=0.02)
    assert c.solid_fraction() == pytest.approx(1 - r.removed_volume / v0)


def test_B7_group_concatenates_and_caches_until_a_strike():
    crates = [Compound.from_box(CRATE + [i * 2.0, 0, 0], T) for i in range(3)]
    g = CompoundGroup(crates)
    first = g.boxes
    assert np.array_equal(first, np.concatenate([c.boxes for c in crates]))
    assert g.boxes is first  # cached
    assert g.owner.tolist() == [0] * 6 + [1] * 6 + [2] * 6
    crates[1].strike(front_punch() + [2.0, 0, 0], margin=0.02)
    assert g.boxes is not first
    assert np.array_equal(g.boxes, np.concatenate([c.boxes for c in crates]))
    assert g.offsets.tolist() == [0, 6, 6 + len(crates[1]), 12 + len(crates[1])]
    # one method A call finds the same pairs as a per-compound loop
    limbs = np.array([[[2.3, 0.2, -0.1], [2.6, 0.5, 0.02]], [[9, 9, 9], [10, 10, 10]]])
    hits = overlaps(limbs[:, None], g.boxes[None])
    ref = np.zeros_like(hits)
    for li, limb in enumerate(limbs):
        for bi, box in enumerate(g.boxes):
            ref[li, bi] = bool(overlaps(limb, box))
    assert np.array_equal(hits, ref)


def test_B7_group_touching_and_overlaps_follow_strikes_without_the_concatenated_arrays():
    """After every strike, ``touching`` names each touched compound's own box rows (the
    struck compound's new boxes), and ``overlaps`` equals one method-A call on the
    concatenated arrays."""
    rng = np.random.default_rng(11)
    contacts = 0
    crates = [Compound.from_box(CRATE + [i * 2.0, 0, 0], T) for i in range(4)]
    g = CompoundGroup(crates)
    for step in range(40):
        i = int(rng.integers(0, 4))
        c = rng.uniform(CRATE[0], CRATE[1]) + [i * 2.0, 0, 0]
        crates[i].strike(np.stack((c - 0.08, c + 0.08)), margin=0.01)
        limbs = rng.uniform(-0.2, 7.2, (5, 2, 3)) * [1, 0.15, 0.2]
        limbs = np.stack((limbs.min(axis=1), limbs.min(axis=1) + rng.uniform(0.05, 0.6, (5, 3))), axis=1)
        ok = g.overlaps(limbs)
        cat = np.concatenate([x.boxes for x in crates])
        assert np.array_equal(ok, overlaps(limbs[:, None], cat[None]))
        contacts += int(ok.sum())
        seen = set()
        for t in g.touching(limbs):
            ref = overlaps(limbs[:, None], crates[t.compound].boxes[None])
            assert list(zip(t.limbs.tolist(), t.rows.tolist())) == list(zip(*(x.tolist() for x in np.nonzero(ref))))
            seen.add(t.compound)
        assert seen == {j for j in range(4) if overlaps(limbs[:, None], crates[j].boxes[None]).any()}
    assert contacts > 20


def test_B4_B9_fast_strike_matches_per_box_reference():
    """Each fast strike gives the same union as the per-box-loop reference
    (same volume, same points covered), the same miss/hit verdict, and a merged
    decomposition no larger than the reference's pairwise-greedy one (+ slack)."""
    from game.reference.compound import reference_strike

    rng = np.random.default_rng(7)
    c = fresh()
    pts = rng.uniform(CRATE[0], CRATE[1], (20000, 3))
    pts = pts[in_shell(pts)]
    for _ in range(60):
        p = rng.uniform(CRATE[0] - 0.1, CRATE[1] + 0.1)
        h = rng.uniform(0.01, 0.15, 3)
        s = np.array([p - h, p + h])
        ref = reference_strike(c, s, margin=0.03)
        r = c.strike(s, margin=0.03)
        assert (ref is None) == (r is None)
        if ref is None:
            continue
        rb, rl = ref
        assert np.prod(rb[:, 1] - rb[:, 0], axis=1).sum() == pytest.approx(c.volume(), abs=1e-12)
        assert np.array_equal(covered(rb, pts), covered(c.boxes, pts))
        for lay in range(6):
            assert (c.layers == lay).sum() <= (rl == lay).sum() + 2


def _struck_arena(seed: int) -> CompoundGroup:
    """4 crates and a barrel, 20 random strikes each (hits and misses), as one group."""
    rng = np.random.default_rng(seed)
    crates = [Compound.from_box(CRATE + [i * 1.5, 0, 0], T) for i in range(4)]
    crates.append(Compound.from_sphere([0.5, 0.4, 3.0], 0.5, 0.06))
    for c in crates:
        for _ in range(20):
            p = rng.uniform(c.bounds[0] - 0.1, c.bounds[1] + 0.1)
            h = rng.uniform(0.01, 0.15, 3)
            c.strike([p - h, p + h], margin=0.02)
    return CompoundGroup(crates)


_PAIRS_ARENA = _struck_arena(12)


def test_B7_group_overlaps_equals_method_A_on_struck_arena():
    g = _struck_arena(11)
    rng = np.random.default_rng(11)
    for _ in range(30):
        centres = rng.uniform([-0.5, -0.2, -0.5], [6.5, 1.0, 3.6], (22, 3))
        half = rng.uniform(0.01, 0.3, (22, 3))
        limbs = np.stack((centres - half, centres + half), axis=1)
        # exact touching counts (A4): snap one limb face onto a box face
        k = int(rng.integers(len(g.boxes)))
        limbs[0, 0, 0] = g.boxes[k, 1, 0]
        limbs[0, 1, 0] = g.boxes[k, 1, 0] + 0.1
        limbs[0, :, 1:] = g.boxes[k, :, 1:]
        ref = overlaps(limbs[:, None], g.boxes[None])
        assert ref[0, k]
        assert np.array_equal(g.overlaps(limbs), ref)
    with pytest.raises(CompoundError, match="limbs"):
        g.overlaps(np.zeros((3, 3)))


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(0, 24), st.floats(0.0, 1.0), st.booleans())
def test_B7_group_pairs_equal_nonzero_of_method_A(seed, n_limbs, spread, snap):
    """``pairs`` lists exactly the (limb, row) pairs of the brute-force A2-A4 matrix, in
    ``np.nonzero`` order, whether the limbs are at no crate, at one, or spread over
    several (``spread`` from a fist's reach to the whole arena); touching counts."""
    g = _PAIRS_ARENA
    rng = np.random.default_rng(seed)
    lo_c, hi_c = np.array([-0.5, -0.2, -0.5]), np.array([6.5, 1.0, 3.6])
    centre = rng.uniform(lo_c, hi_c)
    centres = centre + (rng.uniform(lo_c, hi_c, (n_limbs, 3)) - centre) * spread
    half = rng.uniform(0.0, 0.3, (n_limbs, 3))
    limbs = np.stack((centres - half, centres + half), axis=1)
    if snap and n_limbs:                      # a limb face exactly on a small box's face
        k = int(rng.integers(len(g.boxes)))
        limbs[0, 0, 0] = g.boxes[k, 1, 0]
        limbs[0, 1, 0] = g.boxes[k, 1, 0] + 0.1
        limbs[0, :, 1:] = g.boxes[k, :, 1:]
    ref = overlaps(limbs[:, None], g.boxes[None]).reshape(n_limbs, len(g.boxes))
    k, n = g.pairs(limbs)
    rk, rn = np.nonzero(ref)
    assert k.tolist() == rk.tolist() and n.tolist() == rn.tolist()
    assert np.array_equal(g.overlaps(limbs), ref)
    touch = g.touching(limbs)                 # the same pairs, compound by compound, own rows
    assert [t.compound for t in touch] == sorted(set(g.owner[rn].tolist()))
    for t in touch:
        mine = g.owner[rn] == t.compound
        assert t.limbs.tolist() == rk[mine].tolist()
        assert t.rows.tolist() == (rn[mine] - g.offsets[t.compound]).tolist()


def test_B7_group_pairs_spanning_two_crates_keep_limb_then_row_order():
    """Limbs at two crates at once: the pairs of both, merged in limb-then-row order."""
    g = _PAIRS_ARENA
    b0 = g.compounds[0].bounds
    b1 = g.compounds[1].bounds
    # limb 0 and 2 in crate 1's -x wall, limb 1 in crate 0's +x wall
    # (each across a whole wall, so that the arena's holes cannot leave it untouched)
    limbs = np.array([[[b1[0, 0] - 0.05, 0.0, 0.0], [b1[0, 0] + 0.05, 0.8, 0.6]],
                      [[b0[1, 0] - 0.05, 0.0, 0.0], [b0[1, 0] + 0.05, 0.8, 1.2]],
                      [[b1[0, 0] - 0.05, 0.0, 0.6], [b1[0, 0] + 0.05, 0.8, 1.2]]])
    k, n = g.pairs(limbs)
    owner = g.owner[n]
    assert set(owner.tolist()) == {0, 1}
    assert set(k[owner == 0].tolist()) == {1} and set(k[owner == 1].tolist()) == {0, 2}
    rk, rn = np.nonzero(overlaps(limbs[:, None], g.boxes[None]))
    assert k.tolist() == rk.tolist() and n.tolist() == rn.tolist()
    k, n = g.pairs(np.zeros((0, 2, 3)))
    assert k.shape == n.shape == (0,)
    with pytest.raises(CompoundError, match="limbs"):
        g.pairs(np.zeros((2, 3)))


@pytest.mark.parametrize("impl", ["grid_rects_rows", "grid_rects_batched"])
@settings(max_examples=80, deadline=None)
@given(st.integers(1, 20), st.integers(1, 20), st.integers(0, 2**31 - 1), st.floats(0.1, 0.95))
def test_B9_merge_rectangles_tile_the_cells_exactly(impl, ny, nx, seed, fill):
    """The B9 re-decomposition of a cell grid, both implementations (the row walk for
    small grids, the batched one for large): rectangles cover exactly the filled cells,
    once each, with maximal row runs (reference: cell loops), and both give the same."""
    from game.reference import compound

    occ = np.random.default_rng(seed).random((ny, nx)) < fill
    rects = getattr(compound, impl)(occ)
    assert np.array_equal(rects, compound.grid_rects_batched(occ))
    assert rects.dtype == np.int64 and rects.shape[1:] == (4,)
    assert np.array_equal(rects[np.lexsort((rects[:, 0], rects[:, 2]))], rects)
    count = np.zeros((ny, nx), int)
    for x0, x1, y0, y1 in rects.tolist():
        assert x1 > x0 and y1 > y0
        count[y0:y1, x0:x1] += 1
    assert np.array_equal(count, occ.astype(int))
    for x0, x1, y0, y1 in rects.tolist():  # runs are maximal within their rows
        assert x0 == 0 or not occ[y0:y1, x0 - 1].any()
        assert x1 == nx or not occ[y0:y1, x1].any()


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 60))
def test_B9_merge_small_grid_row_walk_equals_the_batched_path(seed, n):
    """B9: a strike re-merges each cut layer by marking its grid cells in Python
    (``rects.merge_layer``); the batched form (``cut_layer_batched``, every layer forced onto
    cover counts and batched rectangles: ``SMALL_GRID`` -1) leaves the same bytes after every
    strike."""
    from unittest import mock

    import game.collision.compound.resplit as C
    from game.reference import compound

    def batched_cut(rows, tunnels, axis):
        return compound.cut_layer_batched(np.array(rows, dtype=float).reshape(-1, 2, 3), tunnels, axis)

    rng = np.random.default_rng(seed)
    a, b = fresh(), fresh()
    for _ in range(n):
        c = rng.uniform(CRATE[0] - 0.1, CRATE[1] + 0.1)
        s = np.stack((c - rng.uniform(0.02, 0.2, 3), c + rng.uniform(0.02, 0.2, 3)))
        ra = a.strike(s, margin=0.01)
        with mock.patch.object(C, "cut_layer", batched_cut), mock.patch.object(compound, "SMALL_GRID", -1):
            rb = b.strike(s, margin=0.01)
        assert (ra is None) == (rb is None)
        assert a.boxes.tobytes() == b.boxes.tobytes() and a.layers.tobytes() == b.layers.tobytes()


def test_B7_faces_are_exactly_the_exposed_box_sides():
    """Reference by sampling: every point on a face has solid just behind it and
    empty space just in front; every exposed point of any box side lies on a
    face of the same normal."""
    rng = np.random.default_rng(5)
    c = fresh()
    for _ in range(40):
        p = rng.uniform(CRATE[0] - 0.1, CRATE[1] + 0.1)
        h = rng.uniform(0.01, 0.15, 3)
        c.strike([p - h, p + h], margin=float(rng.choice([0.0, 0.02])))
    f = c.faces
    eps = 1e-6
    # points on faces
    u = rng.random((f.count, 3, 2))
    v = f.vertices
    pts = (v[:, None, 0] + u[..., :1] * (v[:, None, 1] - v[:, None, 0]) + u[..., 1:] * (v[:, None, 3] - v[:, None, 0]))
    n = np.repeat(f.normals[:, None], 3, axis=1)
    pts, n = pts.reshape(-1, 3), n.reshape(-1, 3)
    assert covered(c.boxes, pts - eps * n).all()
    assert not covered(c.boxes, pts + eps * n).any()
    # points on all box sides
    found = 0
    for ax in range(3):
        for d in (0, 1):
            q = rng.uniform(c.boxes[:, 0], c.boxes[:, 1], (20, len(c), 3))
            q[..., ax] = c.boxes[:, d, ax]
            q = q.reshape(-1, 3)
            nrm = np.zeros(3)
            nrm[ax] = 1 if d else -1
            exposed = ~covered(c.boxes, q + eps * nrm)
            sel = np.flatnonzero((f.normals == nrm).all(axis=1))
            lo, hi = f.vertices[sel].min(axis=1), f.vertices[sel].max(axis=1)
            qe = q[exposed]
            on_face = ((qe[:, None] >= lo[None] - 1e-12) & (qe[:, None] <= hi[None] + 1e-12)).all(axis=2).any(axis=1)
            assert on_face.all()
            found += len(qe)
    assert found > 1000


def test_B7_fast_faces_match_reference_faces():
    from game.reference.compound import reference_faces

    rng = np.random.default_rng(8)
    c = fresh()
    for _ in range(60):
        p = rng.uniform(CRATE[0] - 0.1, CRATE[1] + 0.1)
        h = rng.uniform(0.01, 0.15, 3)
        c.strike([p - h, p + h], margin=float(rng.choice([0.0, 1e-7, 0.02])))
    f, g = c.faces, reference_faces(c)
    for kind in (OUTER, FILL, INNER):
        for ax in range(3):
            for sgn in (-1.0, 1.0):
                mf = (f.kinds == kind) & (f.normals[:, ax] == sgn)
                mg = (g.kinds == kind) & (g.normals[:, ax] == sgn)
                assert f.areas()[mf].sum() == pytest.approx(g.areas()[mg].sum(), abs=1e-12)


def face_records(f) -> list[tuple]:
    """The FaceSet as ``(axis, d, plane, (v0, v1, w0, w1), kind, box)`` tuples, in order."""
    recs = []
    for i in range(f.count):
        axis = int(np.flatnonzero(f.normals[i])[0])
        v, w = [a for a in range(3) if a != axis]
        q = f.vertices[i]
        assert (q[:, axis] == q[0, axis]).all()
        recs.append((axis, int(f.normals[i, axis] > 0), float(q[0, axis]),
                     (q[:, v].min(), q[:, v].max(), q[:, w].min(), q[:, w].max()), int(f.kinds[i]), int(f.box_index[i])))
    return recs


def C_boundary_faces(boxes, layers, bounds):
    from game.collision.compound.boundary import boundary_faces

    return boundary_faces(boxes, layers, bounds)


def assert_faces_match_reference(boxes, layers, bounds):
    from game.collision.compound.boundary import boundary_faces

    f = boundary_faces(boxes, layers, bounds)
    ref = boundary_face_records(boxes, layers, bounds)
    got = face_records(f)
    assert set(got) == set(ref)  # exact floats: faces are cut, never computed
    assert got == ref  # and in the documented order
    assert (np.abs(f.normals).sum(axis=1) == 1).all()
    assert f.kinds.dtype == np.int8 and f.box_index.dtype == np.int64


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.booleans(),
       st.lists(st.tuples(st.floats(-0.1, 1.3), st.floats(-0.1, 0.9), st.floats(-0.1, 1.3),
                          st.floats(0.0, 0.3), st.floats(0.0, 0.3), st.floats(0.0, 0.3),
                          st.sampled_from([0.0, 1e-7, 0.02]) | st.floats(0.0, 0.05)), min_size=1, max_size=15))
def test_B5_B7_boundary_faces_match_a_per_side_reference_on_strikes(sphere, strikes):
    c = Compound.from_sphere([0.5, 0.4, 0.6], 0.6, 0.1) if sphere else fresh()
    for x, y, z, w, h, d, m in strikes:
        c.strike(np.array([[x, y, z], [x + w, y + h, z + d]]), margin=m)
    assert_faces_match_reference(c.boxes, c.layers, c.bounds)
    # the cached property is the same faces, with the INNER sides beside the core cut off as FILL
    f, raw = c.faces, C_boundary_faces(c.boxes, c.layers, c.bounds)
    assert f.areas().sum() == pytest.approx(raw.areas().sum(), abs=1e-12)
    assert (f.kinds == OUTER).sum() == (raw.kinds == OUTER).sum()
    assert_inner_faces_within_the_core(c)


def test_B5_B7_boundary_faces_match_a_per_side_reference_after_many_strikes():
    """Limb-sized strikes driven into the faces of a crate and a barrel (as in the
    game), checked along the way up to a few hundred small boxes."""
    rng = np.random.default_rng(21)
    for c in (Compound.from_box([[0, 0, 0], [1, 1, 1]], 0.08), Compound.from_sphere([0, 0.5, 4], 0.5, 0.06)):
        lo, hi = c.bounds
        for i in range(120):
            axis, side = int(rng.integers(3)), int(rng.integers(2))
            centre, half = rng.uniform(lo, hi), rng.uniform(0.025, 0.125, 3)
            depth = rng.uniform(0.02, 0.15)
            centre[axis] = hi[axis] - depth + half[axis] if side else lo[axis] + depth - half[axis]
            c.strike([centre - half, centre + half], margin=float(rng.choice([0.0, 0.03])))
            if i in (3, 10, 30, 119):
                assert_faces_match_reference(c.boxes, c.layers, c.bounds)
        assert len(c) > 60


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.0, 3e-8, 1e-7, 2e-7]))
def test_B5_B7_boundary_faces_match_a_per_side_reference_on_near_coplanar_grids(seed, jitter):
    """Adversarial input: cells of a random grid (spacing down to 1e-6), every coordinate
    moved by up to ``jitter`` (across the PLANE_EPS limit), random layers and bounds, so
    that coverers of one side lie on slightly different planes (their order counts) and
    overlaps and plane distances fall on both sides of PLANE_EPS."""
    rng = np.random.default_rng(seed)
    coords = [np.cumsum(rng.choice([1e-6, 1e-3, 0.1, 0.3], size=int(rng.integers(2, 6)))) - 0.2 for _ in range(3)]
    cells = [(i, j, k) for i in range(len(coords[0]) - 1) for j in range(len(coords[1]) - 1)
             for k in range(len(coords[2]) - 1) if rng.random() < 0.7]
    boxes = np.array([[[coords[a][c[a]] for a in range(3)], [coords[a][c[a] + 1] for a in range(3)]] for c in cells])
    boxes = boxes.reshape(-1, 2, 3) + rng.choice([-jitter, 0.0, jitter], size=(len(cells), 2, 3))
    boxes = np.ascontiguousarray(boxes[rng.permutation(len(cells))])
    layers = rng.integers(0, 6, len(cells)).astype(np.int8)
    bounds = np.array([[c[0] for c in coords], [c[-1] for c in coords]]) + rng.choice([-2e-7, 0.0, 5e-8], size=(2, 3))
    assert_faces_match_reference(boxes, layers, bounds)


def test_B9_pickle_round_trip_keeps_state_and_read_only_arrays():
    import pickle

    c = fresh()
    c.strike(front_punch(), margin=0.02)
    d = pickle.loads(pickle.dumps(c))
    assert d.state_bytes() == c.state_bytes()
    assert not d.boxes.flags.writeable
    d.validate()
    assert d.strike(front_punch(x0=0.7), margin=0.02) is not None
    assert d.state_bytes() != c.state_bytes()


def test_B9_a_strike_bigger_than_the_crate_removes_everything():
    c = fresh()
    r = c.strike([[-1, -1, -1], [3, 3, 3]], margin=0.0)
    assert sorted(r.layers.tolist()) == list(range(6))
    assert len(c) == 0 and c.solid_fraction() == 0.0
    assert r.removed_volume == pytest.approx(fresh().volume())
    c.validate()
    assert c.faces.count == 0 and c.triangles()[0].shape == (0, 3, 3)
    assert c.strike([[-1, -1, -1], [3, 3, 3]]) is None


def test_B9_state_bytes_are_the_same_in_another_process():
    import subprocess
    import sys
    from pathlib import Path

    import compoundhelp

    helpers = Path(compoundhelp.__file__).parent
    code = f"import sys; sys.path.insert(0, {str(helpers)!r}); import compoundhelp; print(compoundhelp.struck_hash())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=str(helpers.parents[1]))
    assert out.stdout.strip() == struck_hash()
    assert struck_hash() != fresh_hash()


# ------------------------------------------- the strike's float per-layer cut vs its numpy form
@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from([0.0, 0.01, 0.03]), st.sampled_from([0.01, 0.05, 0.15]))
def test_B3_B4_B9_float_layer_cut_equals_the_batched_cut(seed, margin, size):
    """``Compound.strike`` finds each struck layer's tunnel (``face_region``) and cuts each layer
    by the tunnels through it (``cut_layer``) on Python floats.  Over a long random strike
    sequence (long enough for layers past SMALL_GRID cells), the numpy forms
    (``face_region_batched``, ``cut_layer_batched``) give, layer by layer, the same verdict,
    tunnel and pieces (in order), the same re-merged boxes bit for bit and the same removed
    volume, also for a layer cut by a neighbour's tunnel through its rim; and a compound struck
    through either stays byte-identical, with equal strike results."""
    from unittest import mock

    import game.collision.compound.resplit as C
    import game.reference.compound as R
    from game.collision.compound.layout import TANGENTS

    def batched_cut(rows, tunnels, axis):
        return R.cut_layer_batched(np.array(rows, dtype=float).reshape(-1, 2, 3), tunnels, axis)

    def batched_region(rows, slab, bounds, s, m, axis):
        return R.face_region_batched(np.array(rows, dtype=float).reshape(-1, 2, 3), slab, bounds, s, m, axis)

    rng = np.random.default_rng(seed)
    fast, ref = fresh(), fresh()
    big_grid = False
    for _ in range(120):
        p = rng.uniform(CRATE[0] - 0.05, CRATE[1] + 0.05)
        h = rng.uniform(0.2, 1.0, 3) * size
        s = np.array([p - h, p + h])
        boxes, off = fast.boxes, fast.layer_offsets
        slabs, bounds = fast.slabs.tolist(), fast.bounds.tolist()
        tunnels = {}
        for lay in range(6):
            lb = boxes[off[lay]:off[lay + 1]]
            got = C.face_region(lb.tolist(), slabs[lay], bounds, s.tolist(), margin, lay // 2)
            want = R.face_region_batched(lb, slabs[lay], bounds, s.tolist(), margin, lay // 2)
            assert got == want
            if got is not None:
                tunnels[lay] = got
        for lay in range(6):
            lb = boxes[off[lay]:off[lay + 1]]
            if not len(lb):
                continue
            through = [tunnels[lay]] if lay in tunnels else []
            through += [C.tunnel_on_layer(lb.tolist(), slabs[lay], tun, lay // 2) for k, tun in tunnels.items()
                        if k != lay and C.reaches(tun, slabs[lay])]
            through = [t for t in through if t is not None]
            got = C.cut_layer(lb.tolist(), through, lay // 2)
            want = R.cut_layer_batched(lb, through, lay // 2)
            assert (got is None) == (want is None)
            if got is None:
                continue
            assert [[list(a), list(b)] for a, b in got.pieces] == want.pieces
            assert got.merged.shape == want.merged.shape and np.array_equal(got.merged, want.merged)
            assert got.removed == pytest.approx(want.removed, rel=1e-12, abs=1e-15)
            assert got.cut == want.cut and got.owner == want.owner and got.used == want.used
            u, v = TANGENTS[lay // 2]
            big_grid |= (len(np.unique(lb[:, :, u])) - 1) * (len(np.unique(lb[:, :, v])) - 1) > R.SMALL_GRID
        r1 = fast.strike(s, margin=margin)
        with mock.patch.object(C, "cut_layer", batched_cut), mock.patch.object(C, "face_region", batched_region):
            r2 = ref.strike(s, margin=margin)
        assert (r1 is None) == (r2 is None)
        assert fast.state_bytes() == ref.state_bytes() and fast.layer_offsets == ref.layer_offsets
        if r1 is not None:
            for name in ("layers", "tunnels", "struck_boxes", "split_target"):
                assert np.array_equal(getattr(r1, name), getattr(r2, name)), name
            assert r1.removed_volume == pytest.approx(r2.removed_volume, rel=1e-12, abs=1e-15)
            for a, b in zip(r1.split_faces, r2.split_faces):
                assert np.array_equal(a.vertices, b.vertices)
    fast.validate()
    assert big_grid, "the sequence should reach a layer past SMALL_GRID cells (the batched merge)"
