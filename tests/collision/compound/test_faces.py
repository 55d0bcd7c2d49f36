"""Method B, the compound's faces: the OUTER, INNER and FILL faces are exactly the exposed sides
of the small boxes and a closed surface of their union (B5, B7), against point sampling, the
per-side reference ``game.reference.compound.boundary_face_records`` (bit for bit, in order)
and ``reference_faces``."""

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
    fill_cover,
    fresh,
)
from game.collision.compound import (
    FILL,
    INNER,
    OUTER,
    Compound,
)
from game.reference.compound import boundary_face_records


def test_B6_faces_of_fresh_crate_outer_and_inner_surfaces():
    c = fresh()
    f = c.faces
    areas = f.areas()
    ext = CRATE[1] - CRATE[0]
    inner = ext - 2 * T
    def surf(e):
        return 2 * (e[0] * e[1] + e[1] * e[2] + e[0] * e[2])

    assert areas[f.kinds == OUTER].sum() == pytest.approx(surf(ext))
    assert areas[f.kinds == INNER].sum() == pytest.approx(surf(inner))
    assert not (f.kinds == FILL).any()


@pytest.mark.slow
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
                     (q[:, v].min(), q[:, v].max(), q[:, w].min(), q[:, w].max()),
                     int(f.kinds[i]), int(f.box_index[i])))
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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
