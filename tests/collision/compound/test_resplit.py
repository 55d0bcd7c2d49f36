"""Method B, the cut of a struck layer (game/collision/compound/resplit.py, rects.py): the
strike's float per-layer cut and its region equal their batched numpy forms in
``game.reference.compound``, and the B9 re-merge tiles the cells exactly, both ways."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compoundhelp import (
    CRATE,
    fresh,
)


@pytest.mark.slow
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


@pytest.mark.slow
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


# ------------------------------------------- the strike's float per-layer cut vs its numpy form
@pytest.mark.slow
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
