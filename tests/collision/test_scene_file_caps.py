"""Scene files whose header counts are inflated (with valid checksums) are refused in one line
naming the field, before anything is allocated for them; and a file within the caps cannot
make the loader's C1 membership check allocate leaves x models booleans at once."""

from __future__ import annotations

import re
import struct
import tracemalloc
import zlib

import numpy as np
import pytest

from game.collision import CollisionModel, Scene, SceneFileError
from game.collision.scene_file import scene_from_bytes, scene_to_bytes
from game.collision.scene_format import (
    FORMAT_VERSION,
    MAX_LEAF_CAPACITY,
    MAX_MODELS,
    MAX_NODES,
    MAX_TRIANGLES,
    MODELS_CRC_AT,
    QUAD_CRC_AT,
    QUAD_PAIR_AT,
)

MODELS_HDR, QUAD_HDR = 64, 44                                # docs/scene-format.md


def _crc(data: bytes, at: int) -> int:
    return zlib.crc32(bytes(data[:at]) + bytes(data[at + 4:]))


def _reseal(mb: bytes, qb: bytes) -> tuple[bytes, bytes]:
    """Both checksums and the pairing field right again after an edit."""
    mb = bytearray(mb)
    struct.pack_into("<I", mb, MODELS_CRC_AT, _crc(mb, MODELS_CRC_AT))
    qb = bytearray(qb)
    struct.pack_into("<I", qb, QUAD_PAIR_AT, struct.unpack_from("<I", mb, MODELS_CRC_AT)[0])
    struct.pack_into("<I", qb, QUAD_CRC_AT, _crc(qb, QUAD_CRC_AT))
    return bytes(mb), bytes(qb)


def _peak_while(call) -> tuple[BaseException | None, int]:
    tracemalloc.start()
    tracemalloc.reset_peak()
    raised = None
    try:
        call()
    except Exception as exc:
        raised = exc
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return raised, peak


@pytest.fixture(scope="module")
def pair():
    rng = np.random.default_rng(4)
    models = [CollisionModel(rng.uniform(-5, 5, (3, 3, 3)), 1) for _ in range(6)]
    return scene_to_bytes(Scene.build(models, leaf_capacity=2, max_depth=4))


@pytest.mark.parametrize("which, at, value, field", [
    (0, 12, 2**32 - 1, "mesh_count"), (0, 12, MAX_MODELS + 1, "mesh_count"),
    (0, 16, 2**32 - 1, "model_count"), (0, 16, MAX_MODELS + 1, "model_count"),
    (0, MODELS_HDR, MAX_TRIANGLES + 1, r"meshes\[0\]\.triangle_count"),
    (0, MODELS_HDR, 2**32 - 1, r"meshes\[0\]\.triangle_count"),
    (1, 16, MAX_NODES + 1, "node_count"), (1, 16, 2**32 - 1, "node_count"),
    (1, 20, MAX_LEAF_CAPACITY + 1, "leaf_capacity"),
])
def test_an_inflated_count_with_valid_checksums_is_refused_naming_its_field(pair, which, at, value, field):
    files = [bytearray(pair.models), bytearray(pair.quadtree)]
    struct.pack_into("<I", files[which], at, value)
    mb, qb = _reseal(files[0], files[1])
    raised, peak = _peak_while(lambda: scene_from_bytes(mb, qb, models_name="M.bin", quadtree_name="Q.bin"))
    assert isinstance(raised, SceneFileError), raised
    assert re.match(rf"{'MQ'[which]}\.bin: field {field} at byte \d+: ", str(raised)), raised
    assert peak < 4 * (len(mb) + len(qb)) + (1 << 20), f"peak {peak:,} bytes"


def _corner_models_file(n: int, corner: float) -> bytes:
    """A model data file of ``n`` one-triangle models, all at x = z = ``corner``."""
    tri = np.array([[corner, 0, corner], [corner + 0.001, 0, corner], [corner, 0, corner + 0.001]])
    parts = [struct.pack("<I", 1) + tri.astype("<f8").tobytes() for _ in range(n)]
    aabb = np.concatenate([tri.min(axis=0), tri.max(axis=0)])
    record = aabb.astype("<f8").tobytes() + struct.pack("<BII", 1, 0, 1) + np.eye(4).astype("<f8").tobytes()
    parts += [record[:48] + struct.pack("<BII", 1, j, 1) + record[57:] for j in range(n)]
    body = b"".join(parts)
    head = struct.pack("<8sHHIIQI32s", b"RBXMODL\x00", FORMAT_VERSION, 0, n, n, MODELS_HDR + len(body), 0, bytes(32))
    return head + body


def _full_quadtree_file(n_models: int, depth: int, half: float) -> bytes:
    """A full quadtree of ``depth`` over ``[-half, half]^2``, breadth first, no node listing any
    model (so the leaf at the ``(+, +)`` corner misses the corner models, and is the last leaf)."""
    rects, depths, kids = [(-half, -half, half, half)], [0], []
    i = 0
    while i < len(rects):
        if depths[i] < depth:
            x0, z0, x1, z1 = rects[i]
            xm, zm = (x0 + x1) / 2, (z0 + z1) / 2
            first = len(rects)
            rects += [(x0, z0, xm, zm), (xm, z0, x1, zm), (x0, zm, xm, z1), (xm, zm, x1, z1)]
            depths += [depths[i] + 1] * 4
            kids.append(list(range(first, first + 4)))
        else:
            kids.append(None)
        i += 1
    q = len(rects)
    body = b"".join(struct.pack("<4dII", *rects[k], depths[k], k) for k in range(q))
    body += struct.pack("<I", 0) * q
    body += b"".join(struct.pack("<IBB", k, 0, 0) if c is None else struct.pack("<IBB4I", k, 1, 4, *c)
                     for k, c in enumerate(kids))
    head = struct.pack("<8sHHIIIIQII", b"RBXQUAD\x00", FORMAT_VERSION, 0, n_models, q, 4, depth, QUAD_HDR + len(body),
                       0, 0)
    return head + body


@pytest.mark.slow
def test_the_membership_check_of_a_large_file_within_the_caps_stays_small():
    """16,384 leaves x 2,048 models: 33 million leaf-model pairs, which the check once held as
    several boolean arrays at once (hundreds of MB); block by block it needs a few MB."""
    mb, qb = _reseal(_corner_models_file(2048, 9.99), _full_quadtree_file(2048, 7, 10.0))
    raised, peak = _peak_while(lambda: scene_from_bytes(mb, qb, models_name="M.bin", quadtree_name="Q.bin"))
    assert isinstance(raised, SceneFileError), raised
    assert "misses model 0 whose AABB overlaps it (C1)" in str(raised), raised
    assert peak < 64 << 20, f"peak {peak:,} bytes"
