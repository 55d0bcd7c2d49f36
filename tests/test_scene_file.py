"""C3/C4 scene files, C5 loading: round trip, specific errors, fuzzing."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from game.collision import CollisionModel, Scene, SceneFileError, load_scene, save_scene
from game.collision.scene_file import scene_from_bytes, scene_to_bytes
from test_scene_quadtree import _random_models, assert_c1_invariants


def _scene(seed=3, n=30):
    rng = np.random.default_rng(seed)
    models = _random_models(rng, n)
    m = np.eye(4)
    m[:3, :3] = [[0, 0, 1], [0, 1, 0], [-1, 0, 0]]  # a rotation, row-vector convention
    m[3, :3] = [1, 2, 3]
    models.append(CollisionModel(rng.normal(0, 1, (10, 3, 3)), 1, m))
    return Scene.build(models, leaf_capacity=3, max_depth=5)


def _rays(n=400, seed=9):
    rng = np.random.default_rng(seed)
    return rng.uniform(-25, 25, (n, 3)), rng.normal(size=(n, 3))


def test_C3_C4_C5_save_load_round_trip_gives_equal_results(tmp_path):
    sc = _scene()
    save_scene(sc, tmp_path / "a.models.bin", tmp_path / "a.quadtree.bin")
    back = load_scene(tmp_path / "a.models.bin", tmp_path / "a.quadtree.bin")
    assert len(back) == len(sc)
    for a, b in zip(sc.models, back.models):
        assert a.level == b.level
        assert np.array_equal(a.triangles, b.triangles) and np.array_equal(a.transform, b.transform)
        assert np.array_equal(a.aabb, b.aabb)
    assert back.quadtree.rect == sc.quadtree.rect and back.quadtree.models == sc.quadtree.models
    assert back.quadtree.children == sc.quadtree.children
    assert_c1_invariants(back)
    o, d = _rays()
    for lv in (None, 0, 1):
        for x, y in zip(sc.cast_nearest_many(o, d, 30, lv), back.cast_nearest_many(o, d, 30, lv)):
            assert np.array_equal(x, y)
        assert np.array_equal(sc.cast_any_many(o, d, 30, lv), back.cast_any_many(o, d, 30, lv))
    # a loaded scene is a full scene: update_model works on it, and re-saving is byte-identical
    assert scene_to_bytes(back) == scene_to_bytes(sc)
    back.update_model(0, transform=np.eye(4))
    assert_c1_invariants(back)


def test_C3_C4_file_layout_headers():
    mb, qb = scene_to_bytes(_scene(n=4))
    magic, version, reserved, meshes, models, size = struct.unpack_from("<8sHHIIQ", mb)
    assert magic == b"RBXMODL\x00" and version == 1 and meshes == models == 5 and size == len(mb)
    magic, version, reserved, models, nodes, cap, depth, size = struct.unpack_from("<8sHHIIIIQ", qb)
    assert magic == b"RBXQUAD\x00" and models == 5 and size == len(qb) and cap == 3 and depth == 5
    assert nodes >= 1
    # first node record is the root: rect, depth 0, id 0
    x0, z0, x1, z1, dep, nid = struct.unpack_from("<4dII", qb, 36)
    assert dep == 0 and nid == 0 and x0 < x1 and z0 < z1


def _bad(mb, qb, match):
    with pytest.raises(SceneFileError, match=match):
        scene_from_bytes(mb, qb, models_name="M.bin", quadtree_name="Q.bin")


def test_C3_C4_specific_errors_name_file_field_and_offset():
    mb, qb = scene_to_bytes(_scene(n=6))
    _bad(b"XXXXXXXX" + mb[8:], qb, r"M\.bin: field magic at byte 0")
    _bad(mb[:8] + struct.pack("<H", 7) + mb[10:], qb, r"M\.bin: field version at byte 8")
    _bad(mb[:-3], qb, r"M\.bin: field file_size")
    _bad(mb, qb[:-3], r"Q\.bin: field file_size")
    _bad(mb[:10], qb, r"M\.bin: field header at byte 0: file truncated")
    # NaN coordinate in the first mesh's first triangle (after the 28-byte header and its count)
    nan = mb[:32] + struct.pack("<d", float("nan")) + mb[40:]
    _bad(nan, qb, r"M\.bin: field meshes\[0\]\.triangles at byte 32: NaN")
    # mesh count larger than the data: header size still right, counts do not match
    big = bytearray(mb)
    struct.pack_into("<I", big, 12, 100)
    _bad(bytes(big), qb, r"M\.bin: field (meshes|model_count)")
    # model count larger than the records: reported at model_count's own offset (16), not file_size's (20)
    more = bytearray(mb)
    struct.pack_into("<I", more, 16, 99)
    _bad(bytes(more), qb, r"M\.bin: field model_count at byte 16: 99 model records")
    # model count in the quadtree file does not match the model file
    q2 = bytearray(qb)
    struct.pack_into("<I", q2, 12, 99)
    _bad(mb, bytes(q2), r"Q\.bin: field model_count at byte 12")


def _tiny_quadtree_bytes(children_of_root, depth_of=None, models_of=None):
    """Hand-made quadtree file: 5 nodes, the root's children as given."""
    nodes = []
    depth_of = depth_of or {0: 0, 1: 1, 2: 1, 3: 1, 4: 1}
    rects = [(-10, -10, 10, 10), (-10, -10, 0, 0), (0, -10, 10, 0), (-10, 0, 0, 10), (0, 0, 10, 10)]
    for i in range(5):
        nodes.append(struct.pack("<4dII", *rects[i], depth_of[i], i))
    body = b"".join(nodes)
    for i in range(5):
        ms = (models_of or {}).get(i, [])
        body += struct.pack("<I", len(ms)) + struct.pack(f"<{len(ms)}I", *ms)
    for i in range(5):
        kids = children_of_root.get(i)
        if kids is None:
            body += struct.pack("<IBB", i, 0, 0)
        else:
            body += struct.pack("<IBB", i, 1, len(kids)) + struct.pack(f"<{len(kids)}I", *kids)
    size = 36 + len(body)
    return struct.pack("<8sHHIIIIQ", b"RBXQUAD\x00", 1, 0, 1, 5, 4, 3, size) + body


def test_C4_bad_relations_cycle_double_child_bad_depth_index_range():
    model = CollisionModel([[[0, 0, 0], [1, 0, 0], [0, 0, 1]]], 0)
    mb, _ = scene_to_bytes(Scene.build([model]))
    everywhere = {1: [0], 2: [0], 3: [0], 4: [0]}  # the model touches all four quadrants at (0, 0)
    ok = _tiny_quadtree_bytes({0: [1, 2, 3, 4]}, models_of=everywhere)
    assert len(scene_from_bytes(mb, ok)) == 1
    _bad(mb, _tiny_quadtree_bytes({0: [1, 2, 3, 4]}, models_of={1: [0], 2: [0], 3: [0]}),
         r"node_models\[4\] .*leaf 4 misses model 0 whose AABB overlaps it")
    far = CollisionModel([[[50, 0, 50], [51, 0, 50], [50, 0, 51]]], 0)
    mb_far, _ = scene_to_bytes(Scene.build([far]))
    _bad(mb_far, ok, r"nodes\[0\]\.rect .*does not cover model 0")
    _bad(mb, _tiny_quadtree_bytes({0: [1, 2, 3, 3]}), r"Q\.bin: field relations\[0\]\.children\[3\] .*cycle")
    _bad(mb, _tiny_quadtree_bytes({0: [1, 2, 3, 0]}), r"children\[3\] .*cycle")
    _bad(mb, _tiny_quadtree_bytes({0: [1, 2, 3, 9]}), r"children\[3\] .*out of range")
    _bad(mb, _tiny_quadtree_bytes({0: [1, 2, 3, 4], 1: [2, 3, 4, 1]}), r"relations\[1\]\.children\[0\] .*cycle")
    _bad(mb, _tiny_quadtree_bytes({0: [1, 2, 3, 4]}, depth_of={0: 0, 1: 1, 2: 2, 3: 1, 4: 1}), r"bad depth")
    _bad(mb, _tiny_quadtree_bytes({0: [1, 2, 3, 4]}, models_of={2: [5]}), r"node_models\[2\]\.indices .*out of range")
    _bad(mb, _tiny_quadtree_bytes({0: [1, 2, 3, 4]}, models_of={0: [0]}), r"inner node holds models")
    _bad(mb, _tiny_quadtree_bytes({}, depth_of={0: 0, 1: 1, 2: 1, 3: 1, 4: 1}), r"not reachable from the root")
    _bad(mb, _tiny_quadtree_bytes({0: [2, 1, 3, 4]}), r"children\[0\] .*not quadrant 0")


def test_C5_load_scene_missing_file_is_a_scene_file_error(tmp_path):
    with pytest.raises(SceneFileError, match="nope.bin"):
        load_scene(tmp_path / "nope.bin", tmp_path / "nope2.bin")


def test_C3_C4_fuzzed_files_raise_only_scene_file_error():
    rng = np.random.default_rng(1234)
    mb, qb = scene_to_bytes(_scene(seed=5, n=8))
    outcomes = {"ok": 0, "error": 0}
    for k in range(2500):
        which = k % 2
        data = bytearray((mb, qb)[which])
        op = rng.integers(5)
        if op == 0:  # truncate
            data = data[: int(rng.integers(0, len(data)))]
        elif op == 1:  # flip bits
            for _ in range(int(rng.integers(1, 4))):
                i = int(rng.integers(len(data)))
                data[i] ^= 1 << int(rng.integers(8))
        elif op == 2:  # overwrite a 4-byte count-like field with a small or huge number
            i = int(rng.integers(0, len(data) - 4))
            struct.pack_into("<I", data, i, int(rng.choice([0, 1, 2, 5, 2**31, 2**32 - 1])))
        elif op == 3:  # swap two 4-byte words
            i, j = (int(x) for x in rng.integers(0, len(data) - 4, 2))
            data[i:i + 4], data[j:j + 4] = data[j:j + 4], data[i:i + 4]
        else:  # random bytes appended or a random byte range zeroed
            if rng.integers(2):
                data += bytes(rng.integers(0, 256, int(rng.integers(1, 16)), dtype=np.uint8))
            else:
                i = int(rng.integers(len(data)))
                data[i:i + 8] = bytes(8)
        args = (bytes(data), qb) if which == 0 else (mb, bytes(data))
        try:
            scene_from_bytes(*args)
            outcomes["ok"] += 1
        except SceneFileError as exc:
            assert "field" in str(exc) and "byte" in str(exc)
            outcomes["error"] += 1
    assert outcomes["error"] > 1500  # most mutations are caught
