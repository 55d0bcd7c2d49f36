"""Shared by the method-C tests: random models and scenes, the quadtree's C1 invariants, the
hypothesis strategies for scenes and rays, and the scene files' checksums recomputed
independently of the writer (so that a hand-edited file can be made self-consistent again)."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np
from hypothesis import strategies as st

from game.collision import CollisionModel, Scene


def random_models(rng, n, spread=20.0):
    models = []
    for _ in range(n):
        c = rng.uniform(-spread, spread, 3)
        size = rng.uniform(0.05, 6.0)
        tris = c + rng.normal(0, size, (int(rng.integers(1, 40)), 3, 3))
        models.append(CollisionModel(tris, int(rng.integers(0, 3))))
    return models


def xz_overlap(a, b):
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def assert_c1_invariants(scene: Scene):
    qt = scene.quadtree
    rects = {i: m.rect_xz() for i, m in enumerate(scene.models)}
    for n in range(qt.node_count):
        kids = qt.children[n]
        if kids is not None:
            assert qt.models[n] == []  # splitting pushed the node's models down
            assert len(kids) == 4
            x0, z0, x1, z1 = qt.rect[n]
            xm, zm = (x0 + x1) / 2, (z0 + z1) / 2
            assert sorted(qt.rect[k] for k in kids) == sorted(
                [(x0, z0, xm, zm), (xm, z0, x1, zm), (x0, zm, xm, z1), (xm, zm, x1, z1)])
            assert all(qt.depth[k] == qt.depth[n] + 1 for k in kids)
            continue
        held = set(qt.models[n])
        assert len(held) == len(qt.models[n])
        want = {i for i, r in rects.items() if xz_overlap(r, qt.rect[n])}
        assert held == want, f"leaf {n}"  # every overlapping leaf holds the model, no other leaf does
        assert qt.depth[n] <= qt.max_depth
        if qt.depth[n] < qt.max_depth:
            assert len(held) <= qt.leaf_capacity


# coordinates on a half-unit grid make shared edges, axis-parallel rays, rays in a
# face's plane and rays through edges/vertices common; floats make generic cases.
grid = st.integers(-8, 8).map(lambda k: k * 0.5)


fine = st.floats(-4.0, 4.0, allow_nan=False, allow_infinity=False)


coord = st.one_of(grid, fine)


point = st.tuples(coord, coord, coord)


triangle = st.tuples(point, point, point)


@st.composite
def scenes(draw):
    n = draw(st.integers(1, 6))
    models = []
    for _ in range(n):
        tris = draw(st.lists(triangle, min_size=1, max_size=24))
        level = draw(st.integers(0, 2))
        shift = draw(st.tuples(grid, grid, grid))
        m = np.eye(4)
        m[3, :3] = shift
        models.append(CollisionModel(np.array(tris, dtype=float), level, m))
    cap = draw(st.integers(1, 4))
    depth = draw(st.integers(0, 5))
    return Scene.build(models, leaf_capacity=cap, max_depth=depth)


@st.composite
def rays(draw, scene):
    n = draw(st.integers(1, 24))
    out_o, out_d = [], []
    verts = np.concatenate([m.world_triangles.reshape(-1, 3) for m in scene.models])
    for _ in range(n):
        kind = draw(st.sampled_from(["free", "at_vertex", "at_edge", "axis"]))
        o = np.array(draw(point))
        if kind == "free":
            d = np.array(draw(point))
        elif kind == "axis":
            d = np.zeros(3)
            d[draw(st.integers(0, 2))] = draw(st.sampled_from([-1.0, 1.0, 3.5]))
        else:
            tri = draw(st.integers(0, len(verts) // 3 - 1))
            a = verts[3 * tri + draw(st.integers(0, 2))]
            b = verts[3 * tri + draw(st.integers(0, 2))]
            target = a if kind == "at_vertex" else 0.5 * (a + b)
            d = target - o
        if not np.any(d):
            d = np.array([0.0, -1.0, 0.0])
        out_o.append(o)
        out_d.append(d)
    return np.array(out_o), np.array(out_d)


ASSETS = Path(__file__).resolve().parents[2] / "assets"


SHIPPED = (ASSETS / "arena.models.bin", ASSETS / "arena.quadtree.bin")


MODELS_CRC_AT, QUAD_CRC_AT, QUAD_PAIR_AT = 28, 36, 40     # from docs/scene-format.md


MODELS_HDR, QUAD_HDR = 64, 44


def format_crc(data: bytes, at: int) -> int:
    """The format's checksum, computed here independently: CRC-32 of the file without its crc32 field."""
    return zlib.crc32(bytes(data[:at]) + bytes(data[at + 4:]))


def seal(data, at: int) -> bytes:
    data = bytearray(data)
    struct.pack_into("<I", data, at, format_crc(data, at))
    return bytes(data)


def reseal(mb, qb) -> tuple[bytes, bytes]:
    """Make a hand-edited pair self-consistent again: both checksums and the pairing field."""
    mb = seal(mb, MODELS_CRC_AT)
    qb = bytearray(qb)
    if len(qb) >= QUAD_PAIR_AT + 4:
        struct.pack_into("<I", qb, QUAD_PAIR_AT, format_crc(mb, MODELS_CRC_AT))
    if len(qb) >= QUAD_CRC_AT + 4:
        qb = seal(qb, QUAD_CRC_AT)
    return mb, bytes(qb)


def random_scene(seed=3, n=30):
    rng = np.random.default_rng(seed)
    models = random_models(rng, n)
    m = np.eye(4)
    m[:3, :3] = [[0, 0, 1], [0, 1, 0], [-1, 0, 0]]  # a rotation, row-vector convention
    m[3, :3] = [1, 2, 3]
    models.append(CollisionModel(rng.normal(0, 1, (10, 3, 3)), 1, m))
    return Scene.build(models, leaf_capacity=3, max_depth=5)
