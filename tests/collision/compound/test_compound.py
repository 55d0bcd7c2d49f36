"""Method B, the compound itself: a crate's six wall slabs (B6) and a barrel's circumscribed
cube (B8), bad input named, and the compound's state: copies, snapshots, pickles, read-only
arrays, the solid fraction and state bytes that are the same in another process (B9)."""

from __future__ import annotations

import numpy as np
import pytest

from compoundhelp import (
    CRATE,
    T,
    covered,
    fresh,
    fresh_hash,
    front_punch,
    in_shell,
    rect_area,
    struck_hash,
)
from game.collision.compound import (
    OUTER,
    Compound,
    CompoundError,
)


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


def test_B1_bad_striker_and_margin():
    c = fresh()
    with pytest.raises(CompoundError, match="striker_box"):
        c.strike([[0, 0, 0], [1, 1]])
    with pytest.raises(CompoundError, match="margin"):
        c.strike([[0, 0, 0], [1, 1, 1]], margin=-1)


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


@pytest.mark.slow
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
