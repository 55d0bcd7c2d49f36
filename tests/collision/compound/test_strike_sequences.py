"""Method B, strikes again and again (B9): the same strike twice, overlapping strikes, long random
sequences; the compound stays valid, the struck volume goes, the rest stays, and every strike
equals the per-box reference strike (``game.reference.compound.reference_strike``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compoundhelp import (
    CRATE,
    T,
    covered,
    face_plane_rect,
    fresh,
    front_punch,
    in_shell,
    rect_area,
    strictly_overlaps,
    tunnels_through,
    union_area,
)
from game.collision import tolerances as tol
from game.collision.compound import (
    FILL,
    Compound,
    InvalidCompound,
)
from game.collision.range_box import overlaps
from game.reference.compound import reference_strike


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


def _cells_covered(boxes: np.ndarray, xs: list) -> np.ndarray:
    """(cells,) bool: the centre of each cell of the grid ``xs`` (3 sorted coordinate lists) lies in
    the open interior of some box.  Per-box loop; with every box edge on the grid this compares
    two unions of boxes exactly."""
    cs = [0.5 * (x[1:] + x[:-1]) for x in xs]
    pts = np.stack(np.meshgrid(*cs, indexing="ij"), -1).reshape(-1, 3)
    out = np.zeros(len(pts), dtype=bool)
    for b in boxes:
        out |= ((pts > b[0]) & (pts < b[1])).all(axis=1)
    return out


def _same_union(a: np.ndarray, b: np.ndarray) -> bool:
    xs = [np.unique(np.concatenate((a[:, :, k].ravel(), b[:, :, k].ravel()))) for k in range(3)]
    if any(len(x) < 2 for x in xs):
        return len(a) == len(b) == 0
    return np.array_equal(_cells_covered(a, xs), _cells_covered(b, xs))


@st.composite
def _struck_crates(draw):
    """A crate (thickness down to 2e-6) and strikes whose coordinates are often exactly on the
    crate's faces, its walls' inner planes or its middle: edge, corner, face-covering, touching
    and zero-volume strikers, margins from 0 to 2 cm."""
    ext = [draw(st.sampled_from([0.5, 1.0, 1.2])) for _ in range(3)]
    t = draw(st.sampled_from([2e-6, 1e-5, 0.01, 0.1, 0.2]))
    crate = Compound.from_box([[0.0, 0.0, 0.0], ext], t)
    strikes = []
    for _ in range(draw(st.integers(1, 6))):
        lo, hi = [], []
        for e in ext:
            near = st.sampled_from([0.0, t, e - t, e, e / 2, -0.1, e + 0.1])
            a = draw(st.one_of(near, st.floats(-0.2, e + 0.2)))
            b = draw(st.one_of(near, st.floats(-0.2, e + 0.2)))
            lo.append(min(a, b))
            hi.append(max(a, b))
        strikes.append((np.array([lo, hi]), draw(st.sampled_from([0.0, 1e-6, 5e-6, 0.02]))))
    return crate, strikes


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_struck_crates())
def test_B1_B4_B9_strike_equals_reference_strike_on_edges_corners_whole_faces_and_thin_walls(case):
    """The fast strike (float layer cuts, row merging) against ``reference_strike`` (per-box
    loops, pairwise merging): the same miss / hit verdict, the same union of small boxes
    (compared exactly on the grid of all their edges), the same volume, B9 invariants."""
    crate, strikes = case
    for s, m in strikes:
        ref = reference_strike(crate, s, m)
        before = crate.boxes
        r = crate.strike(s, m)
        assert (ref is None) == (r is None), (s.tolist(), m)
        if r is None:
            assert crate.boxes is before
            continue
        crate.validate()
        assert _same_union(ref[0], crate.boxes), (s.tolist(), m)
        assert np.prod(ref[0][:, 1] - ref[0][:, 0], axis=1).sum() == pytest.approx(crate.volume(), abs=1e-12)
