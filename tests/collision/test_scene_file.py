"""The scene files (C3, C4) and loading them (C5): a round trip answers alike, the headers and
records are the documented layout, errors name the file, the field and the byte offset, and a
quadtree file may omit empty quadrants."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from game.collision import (
    CollisionModel,
    Scene,
    SceneFileError,
    load_scene,
    save_scene,
)
from game.collision.quadtree import quadrants
from game.collision.scene_file import load_baked, scene_from_bytes, scene_to_bytes
from game.collision.scene_format import FORMAT_VERSION, NO_DIGEST
from scenehelp import (
    MODELS_CRC_AT,
    MODELS_HDR,
    QUAD_CRC_AT,
    QUAD_HDR,
    SHIPPED,
    assert_c1_invariants,
    format_crc,
    random_scene,
    reseal,
    seal,
)


def _rays(n=400, seed=9):
    rng = np.random.default_rng(seed)
    return rng.uniform(-25, 25, (n, 3)), rng.normal(size=(n, 3))


@pytest.mark.slow
def test_C3_C4_C5_save_load_round_trip_gives_equal_results(tmp_path):
    sc = random_scene()
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
    mb, qb = scene_to_bytes(random_scene(n=4))
    magic, version, reserved, meshes, models, size, crc, digest = struct.unpack_from("<8sHHIIQI32s", mb)
    assert magic == b"RBXMODL\x00" and version == 3 and reserved == 0 and meshes == models == 5
    assert size == len(mb) and crc == format_crc(mb, MODELS_CRC_AT)
    assert digest == NO_DIGEST == bytes(32)             # saved from code: no description it was baked from
    magic, version, reserved, models, nodes, cap, depth, size, qcrc, pair = struct.unpack_from("<8sHHIIIIQII", qb)
    assert magic == b"RBXQUAD\x00" and version == 3 and reserved == 0 and models == 5 and size == len(qb)
    assert cap == 3 and depth == 5 and nodes >= 1
    assert qcrc == format_crc(qb, QUAD_CRC_AT) and pair == crc  # the quadtree file records its models file's checksum
    # first mesh starts right after the header; first node record is the root: rect, depth 0, id 0
    assert struct.unpack_from("<I", mb, MODELS_HDR)[0] >= 1
    x0, z0, x1, z1, dep, nid = struct.unpack_from("<4dII", qb, QUAD_HDR)
    assert dep == 0 and nid == 0 and x0 < x1 and z0 < z1


def _bad(mb, qb, match):
    with pytest.raises(SceneFileError, match=match):
        scene_from_bytes(mb, qb, models_name="M.bin", quadtree_name="Q.bin")


def test_C3_C4_specific_errors_name_file_field_and_offset():
    mb, qb = scene_to_bytes(random_scene(n=6))
    _bad(b"XXXXXXXX" + mb[8:], qb, r"M\.bin: field magic at byte 0")
    _bad(mb[:8] + struct.pack("<H", 7) + mb[10:], qb, r"M\.bin: field version at byte 8")
    _bad(mb[:-3], qb, r"M\.bin: field file_size at byte 20: .*python3 -m game\.tools\.bake")
    _bad(mb, qb[:-3], r"Q\.bin: field file_size at byte 28")
    _bad(mb[:10], qb, r"M\.bin: field header at byte 0: file truncated")
    _bad(mb[:20], qb, r"M\.bin: field header at byte 0: file truncated")
    # NaN coordinate in the first mesh's first triangle (after the 64-byte header and its count)
    nan = mb[:MODELS_HDR + 4] + struct.pack("<d", float("nan")) + mb[MODELS_HDR + 12:]
    _bad(*reseal(nan, qb), rf"M\.bin: field meshes\[0\]\.triangles at byte {MODELS_HDR + 4}: NaN")
    # mesh count larger than the data: header size still right, counts do not match
    big = bytearray(mb)
    struct.pack_into("<I", big, 12, 100)
    _bad(*reseal(big, qb), r"M\.bin: field (meshes|model_count)")
    # model count larger than the records: reported at model_count's own offset (16), not file_size's (20)
    more = bytearray(mb)
    struct.pack_into("<I", more, 16, 99)
    _bad(*reseal(more, qb), r"M\.bin: field model_count at byte 16: 99 model records")
    # model count in the quadtree file does not match the model file
    q2 = bytearray(qb)
    struct.pack_into("<I", q2, 12, 99)
    _bad(*reseal(mb, q2), r"Q\.bin: field model_count at byte 12")


def _tiny_quadtree_bytes(mb, children_of_root, depth_of=None, models_of=None):
    """Hand-made quadtree file paired with model data file ``mb``: 5 nodes, the root's children as given."""
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
    size = QUAD_HDR + len(body)
    head = struct.pack("<8sHHIIIIQII", b"RBXQUAD\x00", FORMAT_VERSION, 0, 1, 5, 4, 3, size, 0,
                       format_crc(mb, MODELS_CRC_AT))
    return seal(head + body, QUAD_CRC_AT)


def test_C4_bad_relations_cycle_double_child_bad_depth_index_range():
    model = CollisionModel([[[0, 0, 0], [1, 0, 0], [0, 0, 1]]], 0)
    mb, _ = scene_to_bytes(Scene.build([model]))
    everywhere = {1: [0], 2: [0], 3: [0], 4: [0]}  # the model touches all four quadrants at (0, 0)
    ok = _tiny_quadtree_bytes(mb, {0: [1, 2, 3, 4]}, models_of=everywhere)
    assert len(scene_from_bytes(mb, ok)) == 1
    _bad(mb, _tiny_quadtree_bytes(mb, {0: [1, 2, 3, 4]}, models_of={1: [0], 2: [0], 3: [0]}),
         r"node_models\[4\] .*leaf 4 misses model 0 whose AABB overlaps it")
    far = CollisionModel([[[50, 0, 50], [51, 0, 50], [50, 0, 51]]], 0)
    mb_far, _ = scene_to_bytes(Scene.build([far]))
    _bad(*reseal(mb_far, ok), r"nodes\[0\]\.rect .*does not cover model 0")
    _bad(mb, _tiny_quadtree_bytes(mb, {0: [1, 2, 3, 3]}), r"Q\.bin: field relations\[0\]\.children\[3\] .*cycle")
    _bad(mb, _tiny_quadtree_bytes(mb, {0: [1, 2, 3, 0]}), r"children\[3\] .*cycle")
    _bad(mb, _tiny_quadtree_bytes(mb, {0: [1, 2, 3, 9]}), r"children\[3\] .*out of range")
    _bad(mb, _tiny_quadtree_bytes(mb, {0: [1, 2, 3, 4], 1: [2, 3, 4, 1]}), r"relations\[1\]\.children\[0\] .*cycle")
    _bad(mb, _tiny_quadtree_bytes(mb, {0: [1, 2, 3, 4]}, depth_of={0: 0, 1: 1, 2: 2, 3: 1, 4: 1}), r"bad depth")
    _bad(mb, _tiny_quadtree_bytes(mb, {0: [1, 2, 3, 4]}, models_of={2: [5]}),
         r"node_models\[2\]\.indices .*out of range")
    _bad(mb, _tiny_quadtree_bytes(mb, {0: [1, 2, 3, 4]}, models_of={0: [0]}), r"inner node holds models")
    _bad(mb, _tiny_quadtree_bytes(mb, {}, depth_of={0: 0, 1: 1, 2: 1, 3: 1, 4: 1}), r"not reachable from the root")
    # a child is placed by its rect, not by its position in the list (C4 gives no order)
    swapped = scene_from_bytes(mb, _tiny_quadtree_bytes(mb, {0: [2, 1, 3, 4]}, models_of=everywhere))
    assert swapped.quadtree.children[0] == [1, 2, 3, 4]


# ---- C4: 1-4 children per inner node (omitted quadrants are empty leaves) ----------------------
def _quadtree_file(mb, rects, depths, node_models, relations, leaf_capacity=4, max_depth=3) -> bytes:
    """A quadtree file paired with model data file ``mb``, written here from node lists, independently of
    ``scene_to_bytes``: ``relations[i]`` is None (a leaf) or the child node indices as listed in the file."""
    q = len(rects)
    body = b"".join(struct.pack("<4dII", *rects[i], depths[i], i) for i in range(q))
    body += b"".join(struct.pack(f"<I{len(ms)}I", len(ms), *ms) for ms in node_models)
    for i, kids in enumerate(relations):
        kids = kids or []
        body += struct.pack(f"<IBB{len(kids)}I", i, relations[i] is not None, len(kids), *kids)
    head = struct.pack("<8sHHIIIIQII", b"RBXQUAD\x00", FORMAT_VERSION, 0, struct.unpack_from("<I", mb, 16)[0], q,
                       leaf_capacity, max_depth, QUAD_HDR + len(body), 0, format_crc(mb, MODELS_CRC_AT))
    return seal(head + body, QUAD_CRC_AT)


def _quadtree_file_of(scene, mb, omit_empty_leaves: bool) -> bytes:
    """``scene``'s quadtree file, optionally as a writer that omits every empty leaf child (no models,
    no children) from its parent's relations and from the node list (ids renumbered) would write it."""
    qt = scene.quadtree
    keep = [True] * qt.node_count
    if omit_empty_leaves:
        for kids in qt.children:
            if kids is not None:
                empty = [k for k in kids if qt.children[k] is None and not qt.models[k]]
                for k in empty[: 3 if len(empty) == 4 else 4]:   # C4 needs at least one child
                    keep[k] = False
    order = [n for n in range(qt.node_count) if keep[n]]
    new = {n: i for i, n in enumerate(order)}
    return _quadtree_file(mb, [qt.rect[n] for n in order], [qt.depth[n] for n in order],
                          [qt.models[n] for n in order],
                          [None if qt.children[n] is None else [new[k] for k in qt.children[n] if keep[k]]
                           for n in order], qt.leaf_capacity, qt.max_depth)


def _same_tree(a, b, na=0, nb=0):
    """The two quadtrees are the same tree (rects, depths, models, quadrant order), node indices aside."""
    assert (a.rect[na], a.depth[na], a.models[na]) == (b.rect[nb], b.depth[nb], b.models[nb])
    assert (a.children[na] is None) == (b.children[nb] is None)
    for ka, kb in zip(a.children[na] or (), b.children[nb] or ()):
        _same_tree(a, b, ka, kb)


def _assert_same_casts(a, b, o, d, md):
    """Every query answers exactly alike on scenes ``a`` and ``b`` (scalar and batched, all levels)."""
    hits = 0
    for lv in (None, 0, 1, 2):
        for x, y in zip(a.cast_nearest_many(o, d, md, lv), b.cast_nearest_many(o, d, md, lv)):
            assert np.array_equal(x, y)
        assert np.array_equal(a.cast_any_many(o, d, md, lv), b.cast_any_many(o, d, md, lv))
        for oi, di in zip(o, d):
            ha, hb = a.cast_nearest(oi, di, md, lv), b.cast_nearest(oi, di, md, lv)
            assert (ha is None) == (hb is None)
            if ha is not None:
                hits += 1
                assert (ha.distance, ha.model, ha.triangle) == (hb.distance, hb.model, hb.triangle)
                assert np.array_equal(ha.point, hb.point) and np.array_equal(ha.normal, hb.normal)
            assert a.cast_any(oi, di, md, lv) == b.cast_any(oi, di, md, lv) == (ha is not None)
    assert 0 < hits < 4 * len(o)                       # the rays both hit and miss


def _arena_rays(n=300, seed=21):
    rng = np.random.default_rng(seed)
    o = np.column_stack([rng.uniform(-18, 18, n), rng.uniform(-1, 7, n), rng.uniform(-18, 18, n)])
    return o, rng.normal(size=(n, 3))


def _c4_scene(name):
    if name == "random":
        return random_scene(), _rays(300), 30.0
    if name == "random, sparse":                        # small scattered models, one per leaf: many empty leaves
        rng = np.random.default_rng(17)
        models = [CollisionModel(rng.uniform(-20, 20, 3) + rng.normal(0, 0.6, (int(rng.integers(1, 12)), 3, 3)),
                                 int(rng.integers(0, 3))) for _ in range(40)]
        return Scene.build(models, leaf_capacity=1, max_depth=6), _rays(300), 30.0
    shipped = load_scene(*SHIPPED)                      # its floor (model 0) is in every leaf: none is empty
    if name == "shipped, floor shrunk":                 # leaves are not merged back: many become empty
        shipped.update_model(0, transform=np.diag([0.2, 1.0, 0.2, 1.0]))
    return shipped, _arena_rays(), 50.0


@pytest.mark.slow
@pytest.mark.parametrize("name", ["shipped", "shipped, floor shrunk", "random", "random, sparse"])
def test_C4_omitted_empty_quadrants_load_as_empty_leaves_and_answer_alike(name):
    full, (o, d), md = _c4_scene(name)
    mb, qb = scene_to_bytes(full)
    assert _quadtree_file_of(full, mb, omit_empty_leaves=False) == qb     # the test writer is the format's
    short = _quadtree_file_of(full, mb, omit_empty_leaves=True)
    file_nodes = struct.unpack_from("<I", short, 16)[0]
    omitted = full.quadtree.node_count - file_nodes
    assert (omitted == 0) == (name == "shipped")
    back = scene_from_bytes(mb, short)
    qt = back.quadtree
    # in memory: four children per inner node in quadrant order; omitted ones are new empty leaves at the end
    assert qt.node_count == full.quadtree.node_count
    for n in range(file_nodes, qt.node_count):
        assert qt.children[n] is None and qt.models[n] == []
    for n, kids in enumerate(qt.children):
        if kids is not None:
            assert [qt.rect[k] for k in kids] == list(quadrants(qt.rect[n]))
    _same_tree(full.quadtree, qt)
    assert_c1_invariants(back)
    assert len(back) == len(full)
    for m, n in zip(full.models, back.models):
        assert np.array_equal(m.aabb, n.aabb) and np.array_equal(m.root_box, n.root_box)
    _assert_same_casts(full, back, o, d, md)
    assert scene_to_bytes(back)[0] == mb                 # and writing it back gives the full file
    assert len(scene_to_bytes(back)[1]) == len(qb)
    # dynamic geometry on the loaded tree: move the smallest model onto a quadrant that was omitted
    if omitted:
        j = int(np.argmin([np.prod(np.diff(np.reshape(m.rect_xz(), (2, 2)), axis=0)) for m in full.models]))
        x0, z0, x1, z1 = qt.rect[file_nodes]
        r = full.models[j].rect_xz()
        t = full.models[j].transform.copy()
        t[3, 0] += 0.5 * (x0 + x1 - r[0] - r[2])
        t[3, 2] += 0.5 * (z0 + z1 - r[1] - r[3])
        for sc in (full, back):
            sc.update_model(j, transform=t)
            assert_c1_invariants(sc)
        assert any(j in qt.models[n] for n in range(file_nodes, qt.node_count))
        _assert_same_casts(full, back, o, d, md)
        k = (j + 1) % len(full)
        for sc in (full, back):
            sc.replace_model(k, CollisionModel(full.models[j].triangles, 2, t))
            assert_c1_invariants(sc)
        _assert_same_casts(full, back, o, d, md)


_ROOT = (-10.0, -10.0, 10.0, 10.0)


_Q = quadrants(_ROOT)


def test_C4_partial_children_are_placed_by_rect_and_checked_for_membership():
    corner = CollisionModel([[[-8, 0, -8], [-7, 0, -8], [-8, 0, -7]]], 0)   # only in quadrant 0
    mb, _ = scene_to_bytes(Scene.build([corner]))
    # quadrants 1-3 omitted: the model sits in a node whose siblings are all omitted
    sc = scene_from_bytes(mb, _quadtree_file(mb, [_ROOT, _Q[0]], [0, 1], [[], [0]], [[1], None]))
    qt = sc.quadtree
    assert qt.children[0] == [1, 2, 3, 4] and qt.rect[1:] == list(_Q) and qt.depth == [0, 1, 1, 1, 1]
    assert qt.models == [[], [0], [], [], []]
    assert_c1_invariants(sc)
    assert sc.cast_nearest((-7.8, 1, -7.8), (0, -1, 0), 5).model == 0
    assert not sc.cast_any((7.8, 1, 7.8), (0, -1, 0), 5)
    # listed out of quadrant order: each child goes to the quadrant its rect is
    sc = scene_from_bytes(mb, _quadtree_file(mb, [_ROOT, _Q[3], _Q[0]], [0, 1, 1], [[], [], [0]],
                                             [[1, 2], None, None]))
    assert sc.quadtree.children[0] == [2, 3, 4, 1] and sc.quadtree.rect[3:] == [_Q[1], _Q[2]]
    # the membership checks still see the listed leaf ...
    _bad(mb, _quadtree_file(mb, [_ROOT, _Q[0]], [0, 1], [[], []], [[1], None]),
         r"Q\.bin: field node_models\[1\] at byte \d+: leaf 1 misses model 0")
    # ... and the omitted quadrants: a model overlapping one cannot be left out
    far = CollisionModel([[[6, 0, -8], [7, 0, -8], [6, 0, -7]]], 0)       # only in quadrant 1
    mb_far, _ = scene_to_bytes(Scene.build([far]))
    rel0 = QUAD_HDR + 2 * 40 + 2 * 4                                        # after 2 nodes, 2 empty model lists
    _bad(mb_far, _quadtree_file(mb_far, [_ROOT, _Q[0]], [0, 1], [[], [0]], [[1], None]),
         r"node_models\[1\] .*leaf 1 holds model 0 whose AABB does not overlap it")
    _bad(mb_far, _quadtree_file(mb_far, [_ROOT, _Q[0]], [0, 1], [[], []], [[1], None]),
         rf"Q\.bin: field relations\[0\]\.children at byte {rel0}: quadrant 1 of node 0 is omitted "
         r"\(read as an empty leaf\) but model 0's AABB overlaps it")
    # equal quadrants (a zero-size root, no models) are interchangeable
    empty_mb, _ = scene_to_bytes(Scene.build([]))
    dot = (0.0, 0.0, 0.0, 0.0)
    sc = scene_from_bytes(empty_mb, _quadtree_file(empty_mb, [dot] * 3, [0, 1, 1], [[]] * 3, [[1, 2], None, None]))
    assert sc.quadtree.children[0] == [1, 2, 3, 4] and sc.quadtree.rect == [dot] * 5


def test_C4_bad_partial_relations_name_the_field():
    corner = CollisionModel([[[-8, 0, -8], [-7, 0, -8], [-8, 0, -7]]], 0)
    mb, _ = scene_to_bytes(Scene.build([corner]))
    kids_at = QUAD_HDR + 3 * 40 + (4 + 8 + 8) + 6                           # relations[0].children
    # a child whose rect is not a quadrant of its parent
    _bad(mb, _quadtree_file(mb, [_ROOT, (-10, -10, 0, 5)], [0, 1], [[], [0]], [[1], None]),
         r"Q\.bin: field relations\[0\]\.children\[0\] at byte \d+: child 1's rect \[-10\.0, -10\.0, 0\.0, 5\.0\] "
         r"is not a quadrant of node 0")
    # two children in the same quadrant
    _bad(mb, _quadtree_file(mb, [_ROOT, _Q[0], _Q[0]], [0, 1, 1], [[], [0], [0]], [[1, 2], None, None]),
         rf"Q\.bin: field relations\[0\]\.children\[1\] at byte {kids_at + 4}: child 2 is in quadrant 0 "
         r".*which child 1 \(children\[0\]\) already takes: two children in one quadrant")
    # child_count 0 with has_children=1, 5, and children on a leaf
    no_kids = _quadtree_file(mb, [_ROOT], [0], [[0]], [[]])
    _bad(mb, no_kids, rf"Q\.bin: field relations\[0\]\.child_count at byte {QUAD_HDR + 40 + 8 + 5}: "
         r"must be 1 to 4 when has_children=1, got 0")
    five = [_ROOT, *_Q, _Q[0]]
    _bad(mb, _quadtree_file(mb, five, [0, 1, 1, 1, 1, 1], [[]] + [[0]] * 5, [[1, 2, 3, 4, 5]] + [None] * 5),
         r"relations\[0\]\.child_count at byte \d+: must be 1 to 4 when has_children=1, got 5")
    leaf_kids = bytearray(_quadtree_file(mb, [_ROOT, _Q[0]], [0, 1], [[], [0]], [[1], [1]]))
    _bad(mb, leaf_kids, r"relations\[1\]\.children\[0\] .*cycle")
    struct.pack_into("<B", leaf_kids, len(leaf_kids) - 6, 0)                # has_children=0, child_count 1
    _bad(mb, seal(leaf_kids, QUAD_CRC_AT), r"relations\[1\]\.child_count .*must be 0 when has_children=0, got 1")
    # the existing checks still apply to partial lists: depth, range, cycles, reachability
    _bad(mb, _quadtree_file(mb, [_ROOT, _Q[0]], [0, 2], [[], [0]], [[1], None]), r"children\[0\] .*bad depth")
    _bad(mb, _quadtree_file(mb, [_ROOT, _Q[0]], [0, 1], [[], [0]], [[7], None]), r"children\[0\] .*out of range")
    _bad(mb, _quadtree_file(mb, [_ROOT, _Q[0]], [0, 1], [[], [0]], [[1, 1], None]), r"children\[1\] .*cycle")
    _bad(mb, _quadtree_file(mb, [_ROOT, _Q[0], _Q[1]], [0, 1, 1], [[], [0], []], [[1], None, None]),
         r"node 2 is not reachable from the root")


def test_C4_shipped_files_load_unchanged_and_are_full():
    """The writer still writes all four children: the shipped files load, every relation lists 0 or 4
    children, nothing is filled in, and writing the loaded scene reproduces both files byte for byte."""
    mb, qb = (p.read_bytes() for p in SHIPPED)
    sc = load_scene(*SHIPPED)
    q = struct.unpack_from("<I", qb, 16)[0]
    assert sc.quadtree.node_count == q
    at = QUAD_HDR + 40 * q
    for _ in range(q):
        at += 4 + 4 * struct.unpack_from("<I", qb, at)[0]
    for i in range(q):
        index, has, cnt = struct.unpack_from("<IBB", qb, at)
        assert index == i and cnt == (4 if has else 0)
        at += 6 + 4 * cnt
    assert at == len(qb)
    assert scene_to_bytes(sc, source_digest=load_baked(*SHIPPED).source_digest) == (mb, qb)


def test_C5_load_scene_missing_file_is_a_scene_file_error(tmp_path):
    with pytest.raises(SceneFileError, match="nope.bin"):
        load_scene(tmp_path / "nope.bin", tmp_path / "nope2.bin")


def test_C3_checksum_mismatch_names_file_field_values_and_fix():
    mb, qb = (p.read_bytes() for p in SHIPPED)
    # a vertex x from 1.0 to -7.0 (byte 36032 behind version 1's 28-byte header), inside the AABB
    at = 36032 + MODELS_HDR - 28
    assert struct.unpack_from("<d", mb, at)[0] == 1.0
    data = bytearray(mb)
    struct.pack_into("<d", data, at, -7.0)
    stored = struct.unpack_from("<I", mb, MODELS_CRC_AT)[0]
    computed = format_crc(data, MODELS_CRC_AT)
    with pytest.raises(SceneFileError) as info:
        scene_from_bytes(bytes(data), qb, models_name="arena.models.bin")
    msg = str(info.value)
    assert msg.startswith(f"arena.models.bin: field crc32 at byte {MODELS_CRC_AT}: checksum mismatch"), msg
    assert f"stored 0x{stored:08x}" in msg and f"computed 0x{computed:08x}" in msg
    assert "python3 -m game.tools.bake" in msg
    q = bytearray(qb)
    q[-1] ^= 1
    with pytest.raises(SceneFileError, match=r"^arena\.quadtree\.bin: field crc32 at byte 36: checksum mismatch"):
        scene_from_bytes(mb, bytes(q), quadtree_name="arena.quadtree.bin")


def test_C3_C4_old_version_1_and_2_files_say_to_rebake():
    mb, qb = scene_to_bytes(random_scene(n=3))
    # a version-1 file: the old 28/36-byte headers (no checksum) in front of the same payload
    v1m = struct.pack("<8sHHIIQ", b"RBXMODL\x00", 1, 0, 4, 4, 28 + len(mb) - MODELS_HDR) + mb[MODELS_HDR:]
    v1q = struct.pack("<8sHHIIIIQ", b"RBXQUAD\x00", 1, 0, 4, 1, 3, 5, 36 + len(qb) - QUAD_HDR) + qb[QUAD_HDR:]
    want = r"field version at byte 8: version 1 is an older format \(no checksum\).*`python3 -m game\.tools\.bake`"
    _bad(v1m, qb, r"^M\.bin: " + want)
    _bad(mb, v1q, r"^Q\.bin: " + want)
    _bad(v1m[:12], qb, r"^M\.bin: " + want)                  # even a stub is told it is old, not truncated
    # a version-2 file: a checksum but no digest of the description (32-byte model data header)
    body = mb[MODELS_HDR:]
    v2m = seal(struct.pack("<8sHHIIQI", b"RBXMODL\x00", 2, 0, 4, 4, 32 + len(body), 0) + body, 28)
    v2q = bytearray(qb)
    struct.pack_into("<H", v2q, 8, 2)
    want = r"field version at byte 8: version 2 is an older format \(no digest .*`python3 -m game\.tools\.bake`"
    _bad(v2m, qb, r"^M\.bin: " + want)
    _bad(mb, seal(v2q, QUAD_CRC_AT), r"^Q\.bin: " + want)
    newer = FORMAT_VERSION + 1
    _bad(mb[:8] + struct.pack("<H", newer) + mb[10:], qb,
         rf"unsupported version {newer}.*python3 -m game\.tools\.bake")


def test_C3_C4_files_from_different_bakes_are_refused_with_the_fix(tmp_path):
    a, b = random_scene(seed=3, n=6), random_scene(seed=4, n=6)              # same model count, different scenes
    (ma, _), (mb_, qb_) = scene_to_bytes(a), scene_to_bytes(b)
    with pytest.raises(SceneFileError) as info:
        scene_from_bytes(ma, qb_, models_name="M.bin", quadtree_name="Q.bin")
    msg = str(info.value)
    assert msg.startswith("Q.bin: field models_crc32 at byte 40:") and "M.bin" in msg
    assert "different bakes" in msg and "python3 -m game.tools.bake" in msg
    assert f"0x{format_crc(ma, MODELS_CRC_AT):08x}" in msg and f"0x{format_crc(mb_, MODELS_CRC_AT):08x}" in msg
    # the same through load_scene, with the paths named
    save_scene(a, tmp_path / "m.bin", tmp_path / "q.bin")
    (tmp_path / "q.bin").write_bytes(qb_)
    with pytest.raises(SceneFileError, match=r"q\.bin: field models_crc32 .*m\.bin.*different bakes"):
        load_scene(tmp_path / "m.bin", tmp_path / "q.bin")
