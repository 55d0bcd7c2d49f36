"""Method C scene files: the model data file (C3) and the quadtree file (C4); loading (C5).

Both files are little-endian ``struct`` layouts with a magic, a version, the
total file size and a CRC-32 (``zlib.crc32``) of the rest of the file in the
header; the quadtree file's header also records the model data file's CRC, so
two files from different bakes are told apart, and the model data file's header
holds the digest of the description they were baked from (:func:`load_baked` returns
it; ``game.sim.arena`` compares it).  The full layout is in
``docs/scene-format.md``.  Every problem in a file raises
:class:`SceneFileError` whose message names the file, the field, the byte
offset and (for damage) the fix; nothing from ``struct`` or numpy escapes,
not even a numpy warning.  A path that is not a readable regular file within
the size cap raises :class:`SceneFileUnusable` unread (``game.files``), and
every count in a header is checked against ``scene_format``'s caps before
anything is allocated for it.

The layout is :mod:`.scene_format`'s and writing is :mod:`.scene_save`'s (both re-exported
here).  Loading (C5) rebuilds the quadtree from the quadtree file as stored (no
re-insertion; a quadrant the file omits, C4 allowing 1–4 children, becomes an
empty leaf), reads each model's mesh triangles into arrays, recomputes its
AABB (checked against the stored one) and builds its AABB tree.
"""

from __future__ import annotations

import os
from typing import NamedTuple, Sequence

import numpy as np

from game import files

from .quadtree import QuadTree, Rect, quadrants
from .scene import CollisionModel, Scene
from .scene_format import (
    FORMAT_VERSION,
    MAX_DEPTH,
    MAX_LEAF_CAPACITY,
    MAX_MODELS,
    MAX_MODELS_BYTES,
    MAX_NODES,
    MAX_QUADTREE_BYTES,
    MAX_TRIANGLES,
    MODEL_DT,
    MODELS_CRC_AT,
    MODELS_HEADER,
    MODELS_MAGIC,
    NO_DIGEST,
    NODE_DT,
    QUAD_CRC_AT,
    QUAD_HEADER,
    QUAD_PAIR_AT,
    QUADTREE_MAGIC,
    REL,
    U32,
)
from .scene_reader import REBAKE, Reader, SceneFileError, SceneFileUnusable, check_prefix, check_size_and_crc
from .scene_save import SceneBytes, SceneTooLargeError, save_scene, scene_to_bytes
from .tolerances import FILE_AABB_REL

__all__ = [
    "FORMAT_VERSION",
    "REBAKE",
    "MODELS_MAGIC",
    "NO_DIGEST",
    "QUADTREE_MAGIC",
    "BakedScene",
    "SceneFileError",
    "SceneFileUnusable",
    "SceneTooLargeError",
    "load_baked",
    "load_scene",
    "save_scene",
    "scene_from_bytes",
    "scene_to_bytes",
    "SceneBytes",
]

class BakedScene(NamedTuple):
    """A scene as :func:`load_baked` reads it, with the digest of the description it was baked
    from (:data:`~game.collision.scene_format.NO_DIGEST` when saved without one)."""

    scene: Scene
    source_digest: bytes


# ---- reading ---------------------------------------------------------------------
class _ModelsHeader(NamedTuple):
    """What the rest of a model data file is read with."""

    mesh_count: int
    model_count: int
    crc32: int          # the file's checksum (the quadtree file records it: the pair)
    source_digest: bytes    # the digest of the description it was baked from


class _QuadHeader(NamedTuple):
    """What the rest of a quadtree file is read with."""

    model_count: int
    node_count: int
    leaf_capacity: int
    max_depth: int


def _models_header(rd: Reader) -> _ModelsHeader:
    """Check the model data file's header, size and checksum."""
    check_prefix(rd, MODELS_MAGIC)
    _, _, _, mesh_count, model_count, file_size, crc, digest = rd.unpack(MODELS_HEADER, "header")
    check_size_and_crc(rd, file_size, 20, crc, MODELS_CRC_AT)
    # counts within the caps before anything is allocated for them (a crafted file can have a
    # valid checksum); the counts are also checked against the file's size as it is read
    if mesh_count > MAX_MODELS:
        rd.fail("mesh_count", f"{mesh_count:,} meshes, a scene file holds at most {MAX_MODELS:,}", 12, rebake=True)
    if model_count > MAX_MODELS:
        rd.fail("model_count", f"{model_count:,} models, a scene file holds at most {MAX_MODELS:,}", 16, rebake=True)
    return _ModelsHeader(mesh_count, model_count, crc, bytes(digest))


def _quad_header(rd: Reader, models_crc: int, models_name: str) -> _QuadHeader:
    """Check the quadtree file's header, size, checksum and pairing with the model data file."""
    check_prefix(rd, QUADTREE_MAGIC)
    (_, _, _, model_count, node_count, leaf_capacity, max_depth, file_size, crc,
     pair_crc) = rd.unpack(QUAD_HEADER, "header")
    check_size_and_crc(rd, file_size, 28, crc, QUAD_CRC_AT)
    if pair_crc != models_crc:
        rd.fail("models_crc32", f"records model data file checksum 0x{pair_crc:08x} but {models_name} has "
                f"0x{models_crc:08x}: the two files are from different bakes", QUAD_PAIR_AT, rebake=True)
    return _QuadHeader(model_count, node_count, leaf_capacity, max_depth)


def _read_models(rd: Reader, mesh_count: int, model_count: int) -> list[CollisionModel]:
    """The models of a model data file whose header :func:`_models_header` has read."""
    meshes = []
    mesh_at = []
    total = 0
    for i in range(mesh_count):
        at = rd.pos
        (n,) = rd.unpack(U32, f"meshes[{i}].triangle_count")
        if n == 0:
            rd.fail(f"meshes[{i}].triangle_count", "must be >= 1", at)
        total += n
        if total > MAX_TRIANGLES:
            rd.fail(f"meshes[{i}].triangle_count", f"{n:,} triangles bring the meshes to {total:,}, a scene file "
                    f"holds at most {MAX_TRIANGLES:,}", at, rebake=True)
        if n * 72 > len(rd.data) - rd.pos:
            rd.fail(f"meshes[{i}].triangle_count", f"{n} triangles need {n * 72} bytes, only "
                    f"{len(rd.data) - rd.pos} remain (count does not match file size)", at)
        at = rd.pos
        mesh_at.append(at)
        tris = rd.array("<f8", n * 9, f"meshes[{i}].triangles").reshape(n, 3, 3)
        if not np.isfinite(tris).all():
            k = int(np.flatnonzero(~np.isfinite(tris.reshape(-1)))[0])
            rd.fail(f"meshes[{i}].triangles", "NaN or inf coordinate", at + 8 * k)
        meshes.append(tris.astype(np.float64))
    rec_at = rd.pos
    if model_count * MODEL_DT.itemsize != len(rd.data) - rd.pos:
        rd.fail("model_count", f"{model_count} model records need {model_count * MODEL_DT.itemsize} bytes, "
                f"{len(rd.data) - rd.pos} remain (count does not match file size)", 16)
    recs = rd.array(MODEL_DT, model_count, "models")
    models = []
    for j in range(model_count):
        at = rec_at + j * MODEL_DT.itemsize
        r = recs[j]
        aabb = np.asarray(r["aabb"], dtype=np.float64).reshape(2, 3)
        level, mesh, ntri = int(r["level"]), int(r["mesh"]), int(r["tris"])
        m = np.asarray(r["transform"], dtype=np.float64).reshape(4, 4)
        if not np.isfinite(aabb).all():
            rd.fail(f"models[{j}].aabb", "NaN or inf coordinate", at)
        if level > 2:
            rd.fail(f"models[{j}].level", f"must be 0, 1 or 2, got {level}", at + 48)
        if mesh >= mesh_count:
            rd.fail(f"models[{j}].mesh_index", f"{mesh} out of range (mesh_count {mesh_count})", at + 49)
        if ntri != meshes[mesh].shape[0]:
            rd.fail(f"models[{j}].triangle_count", f"{ntri} but mesh {mesh} has {meshes[mesh].shape[0]}", at + 53)
        if not np.isfinite(m).all():
            rd.fail(f"models[{j}].transform", "NaN or inf entry", at + 57)
        try:
            model = CollisionModel(meshes[mesh], level, m)
        except ValueError as exc:
            problem = str(exc).removeprefix("transform: ")
            if "overflow" in problem:
                problem += f" (an entry of the transform or a coordinate of mesh {mesh} is too large)"
            rd.fail(f"models[{j}].transform", problem, at + 57)
        scale = float(np.abs(model.aabb).max()) + 1.0
        if not np.allclose(model.aabb, aabb, rtol=0.0, atol=FILE_AABB_REL * scale):
            rd.fail(f"models[{j}].aabb", f"stored {aabb.tolist()} differs from the AABB of the "
                    f"transformed mesh {model.aabb.tolist()}", at)
        models.append(model)
    if models:                                      # one vectorised test: the padded boxes did not overflow
        boxes = np.array([m.root_box for m in models])
        bad = np.flatnonzero(~np.isfinite(boxes).reshape(len(models), -1).all(axis=1))
        if bad.size:
            j = int(bad[0])
            mesh = int(recs[j]["mesh"])
            rd.fail(f"meshes[{mesh}].triangles", f"coordinates too large: model {j}'s box overflows to inf "
                    "(|coordinate| near 1.8e308)", mesh_at[mesh])
    return models


class _Nodes(NamedTuple):
    """The node records of a quadtree file."""

    at: int                 # byte offset of the first record
    rects: np.ndarray       # (q, 4) float64 (xmin, zmin, xmax, zmax)
    depths: np.ndarray      # (q,) int64


class _Relations(NamedTuple):
    """The node relations of a quadtree file, each inner node's children in quadrant order."""

    children: list[list[int | None] | None]     # per node its 4 quadrant slots (None: omitted), None for a leaf
    partial: list[tuple[int, int]]              # (node, byte offset of its relation) of nodes with 1-3 children


def _read_quadtree(rd: Reader, header: _QuadHeader, model_rects: list[Rect]) -> QuadTree:
    """The quadtree of a quadtree file whose header :func:`_quad_header` has read.

    An inner node lists 1–4 children (C4), each placed in the quadrant whose rect it has; the
    quadrants it omits become new empty leaves after the file's nodes, so every inner node of
    the returned tree has four children in quadrant order, exactly as if they had been written.
    """
    model_count, node_count, leaf_capacity, max_depth = header
    _check_quad_counts(rd, header, len(model_rects))
    nodes = _read_nodes(rd, node_count, max_depth)
    models, models_at = _read_node_models(rd, node_count, len(model_rects))
    rel = _read_relations(rd, nodes, models, models_at, leaf_capacity, max_depth)
    rect_list: list[Rect] = [(r[0], r[1], r[2], r[3]) for r in nodes.rects.tolist()]
    depth_list = nodes.depths.tolist()
    # C4 allows 1-4 children: each omitted quadrant becomes an empty leaf, appended after the file's
    # nodes, so that in memory every inner node has four children in quadrant order (as the walkers need)
    filled: dict[int, tuple[int, int, int]] = {}    # new empty leaf -> (parent, quadrant, relation offset)
    children: list[list[int] | None] = []
    for slots in rel.children:
        children.append(None if slots is None else [-1 if c is None else c for c in slots])
    for i, at in rel.partial:                       # none in a full file: nothing to do
        quads = quadrants(rect_list[i])
        kids = children[i]
        assert kids is not None                     # a partial node has children
        for q in range(4):
            if kids[q] < 0:
                n = len(rect_list)
                kids[q] = n
                filled[n] = (i, q, at)
                rect_list.append(quads[q])
                depth_list.append(depth_list[i] + 1)
                children.append(None)
                models.append([])
    rects = np.asarray(rect_list, dtype=np.float64) if filled else nodes.rects
    _check_membership(rd, rects, children, models, model_rects, nodes.at, models_at, filled)
    return QuadTree.from_nodes(rect_list, depth_list, children, models, model_rects, leaf_capacity, max_depth)


def _check_quad_counts(rd: Reader, header: _QuadHeader, n_models: int) -> None:
    """The quadtree header's counts, against the model data file and the file's size."""
    model_count, node_count, leaf_capacity, max_depth = header
    if model_count != n_models:
        rd.fail("model_count", f"{model_count} but the model data file holds {n_models} models", 12)
    if node_count < 1:
        rd.fail("node_count", "must be >= 1 (the root)", 16)
    if leaf_capacity < 1:
        rd.fail("leaf_capacity", "must be >= 1", 20)
    if max_depth > MAX_DEPTH:
        rd.fail("max_depth", f"must be <= {MAX_DEPTH}, got {max_depth}", 24)
    if node_count > MAX_NODES:
        rd.fail("node_count", f"{node_count:,} nodes, a scene file holds at most {MAX_NODES:,}", 16, rebake=True)
    if leaf_capacity > MAX_LEAF_CAPACITY:
        rd.fail("leaf_capacity", f"must be <= {MAX_LEAF_CAPACITY}, got {leaf_capacity}", 20)
    # minimal size: nodes + a count per node + a relation record per node
    min_size = node_count * (NODE_DT.itemsize + 4 + REL.size)
    if min_size > len(rd.data) - rd.pos:
        rd.fail("node_count", f"{node_count} nodes need at least {min_size} bytes, only "
                f"{len(rd.data) - rd.pos} remain (count does not match file size)", 16)


def _read_nodes(rd: Reader, node_count: int, max_depth: int) -> _Nodes:
    """The node records: finite rects with min <= max, depths within max_depth, ids in order."""
    nodes_at = rd.pos
    nodes = rd.array(NODE_DT, node_count, "nodes")
    rects = np.asarray(nodes["rect"], dtype=np.float64)
    depths = np.asarray(nodes["depth"], dtype=np.int64)
    ids = np.asarray(nodes["id"], dtype=np.int64)
    nsz = NODE_DT.itemsize
    bad = np.flatnonzero(~np.isfinite(rects).all(axis=1))
    if bad.size:
        rd.fail(f"nodes[{bad[0]}].rect", "NaN or inf coordinate", nodes_at + nsz * int(bad[0]))
    bad = np.flatnonzero((rects[:, 0] > rects[:, 2]) | (rects[:, 1] > rects[:, 3]))
    if bad.size:
        rd.fail(f"nodes[{bad[0]}].rect", "min greater than max", nodes_at + nsz * int(bad[0]))
    bad = np.flatnonzero(depths > max_depth)
    if bad.size:
        rd.fail(f"nodes[{bad[0]}].depth", f"{depths[bad[0]]} exceeds max_depth {max_depth}",
                nodes_at + nsz * int(bad[0]) + 32)
    bad = np.flatnonzero(ids != np.arange(node_count))
    if bad.size:
        rd.fail(f"nodes[{bad[0]}].id", f"expected {bad[0]}, got {ids[bad[0]]}", nodes_at + nsz * int(bad[0]) + 36)
    if depths[0] != 0:
        rd.fail("nodes[0].depth", f"the root must have depth 0, got {depths[0]}", nodes_at + 32)
    return _Nodes(nodes_at, rects, depths)


class _NodeModels(NamedTuple):
    """Each node's models as a quadtree file lists them."""

    models: list[list[int]]     # per node its model indices
    at: list[int]               # per node the byte offset of its list


def _read_node_models(rd: Reader, node_count: int, n_models: int) -> _NodeModels:
    """Each node's model indices (in range, none twice)."""
    models: list[list[int]] = []
    models_at: list[int] = []
    for i in range(node_count):
        at = rd.pos
        models_at.append(at)
        (cnt,) = rd.unpack(U32, f"node_models[{i}].count")
        if 4 * cnt > len(rd.data) - rd.pos:
            rd.fail(f"node_models[{i}].count", f"{cnt} indices need {4 * cnt} bytes, only "
                    f"{len(rd.data) - rd.pos} remain (count does not match file size)", at)
        at = rd.pos
        idx = rd.array("<u4", cnt, f"node_models[{i}].indices")
        bad = np.flatnonzero(idx >= n_models)
        if bad.size:
            rd.fail(f"node_models[{i}].indices", f"model index {idx[bad[0]]} out of range (model_count {n_models})",
                    at + 4 * int(bad[0]))
        if np.unique(idx).size != idx.size:
            rd.fail(f"node_models[{i}].indices", "a model index is listed twice", at)
        models.append(idx.astype(np.int64).tolist())
    return _NodeModels(models, models_at)


def _read_relations(rd: Reader, nodes: _Nodes, models: list[list[int]], models_at: list[int], leaf_capacity: int,
                    max_depth: int) -> _Relations:
    """The node relations: each node's children placed in their quadrants, every node but the
    root a child of exactly one node, only leaves holding models (C1), no trailing bytes."""
    node_count = nodes.rects.shape[0]
    children: list[list[int | None] | None] = []
    parent = np.full(node_count, -1, dtype=np.int64)
    partial: list[tuple[int, int]] = []
    rel_at = rd.pos
    for i in range(node_count):
        at = rec_at = rd.pos
        index, has, cnt = rd.unpack(REL, f"relations[{i}]")
        if index != i:
            rd.fail(f"relations[{i}].node_index", f"expected {i}, got {index}", at)
        if has not in (0, 1):
            rd.fail(f"relations[{i}].has_children", f"must be 0 or 1, got {has}", at + 4)
        if (has and not 1 <= cnt <= 4) or (not has and cnt):
            rd.fail(f"relations[{i}].child_count", f"must be {'1 to 4' if has else 0} when has_children={has}, "
                    f"got {cnt}", at + 5)
        kids_at = rd.pos
        kids = rd.array("<u4", cnt, f"relations[{i}].children").astype(np.int64).tolist()
        slots = _place_children(rd, nodes, parent, i, kids, kids_at) if has else None
        if has and models[i]:
            rd.fail(f"node_models[{i}]", "an inner node holds models (only leaves do, C1)", models_at[i])
        if not has and nodes.depths[i] < max_depth and len(models[i]) > leaf_capacity:
            rd.fail(f"node_models[{i}].count", f"{len(models[i])} models exceed leaf_capacity {leaf_capacity} "
                    "above max_depth (C1)", models_at[i])
        if has and cnt < 4:
            partial.append((i, rec_at))
        children.append(slots)
    if rd.pos != len(rd.data):
        rd.fail("relations", f"{len(rd.data) - rd.pos} unexpected trailing bytes")
    orphan = np.flatnonzero(parent[1:] < 0)
    if orphan.size:
        rd.fail("relations", f"node {orphan[0] + 1} is not reachable from the root (cycle among children)",
                rel_at)
    return _Relations(children, partial)


def _place_children(rd: Reader, nodes: _Nodes, parent: np.ndarray, i: int, kids: list[int],
                    at: int) -> list[int | None]:
    """Node ``i``'s children ``kids`` (read at byte ``at``) in their quadrants: the 4 quadrant
    slots, None where a quadrant is omitted; records each child's ``parent``."""
    node_count = nodes.rects.shape[0]
    depths = nodes.depths
    quads = quadrants(nodes.rects[i].tolist())
    slots: list[int | None] = [None] * 4            # the child node in each quadrant, in quadrant order
    for k, c in enumerate(kids):
        f = f"relations[{i}].children[{k}]"
        if c >= node_count:
            rd.fail(f, f"node index {c} out of range (node_count {node_count})", at + 4 * k)
        if c == 0 or c == i or parent[c] >= 0:
            rd.fail(f, f"node {c} is the root, the node itself or already a child of node "
                    f"{parent[c] if parent[c] >= 0 else i} (cycle among children)", at + 4 * k)
        if depths[c] != depths[i] + 1:
            rd.fail(f, f"child {c} has depth {depths[c]}, expected {depths[i] + 1} (bad depth)", at + 4 * k)
        rc = tuple(nodes.rects[c].tolist())
        # the child's quadrant is the one whose rect it has (k in a full file, written in quadrant
        # order); equal quadrants (of a zero-width node) are interchangeable: the first free one
        if rc == quads[k] and slots[k] is None:
            q = k
        else:
            same = [j for j in range(4) if rc == quads[j]]
            if not same:
                rd.fail(f, f"child {c}'s rect {list(rc)} is not a quadrant of node {i} "
                        f"(its quadrants are {[list(r) for r in quads]})", at + 4 * k)
            free = [j for j in same if slots[j] is None]
            if not free:
                j = same[0]
                taken = slots[j]
                assert taken is not None                # no quadrant of ``same`` is free
                rd.fail(f, f"child {c} is in quadrant {j} {list(quads[j])} of node {i}, which child "
                        f"{taken} (children[{kids.index(taken)}]) already takes: two children "
                        "in one quadrant", at + 4 * k)
            q = free[0]
        slots[q] = c
        parent[c] = i
    return slots


#: Leaf-model pairs the membership check tests at once (a few MB of booleans).
_MEMBERSHIP_CELLS = 1 << 20


def _check_membership(rd: Reader, rects: np.ndarray, children: Sequence[list[int] | None],
                      models: Sequence[list[int]], model_rects: Sequence[Rect], nodes_at: int,
                      models_at: list[int], filled: dict[int, tuple[int, int, int]]) -> None:
    """C1 on load: the root covers every model, and each leaf holds exactly the models overlapping it.

    Without this a damaged rect or index list would load and silently make rays
    miss models.  ``model_rects`` are the models' padded x–z rects, as at insertion.
    ``filled`` maps the empty leaves made for omitted quadrants to ``(parent, quadrant,
    byte offset of the parent's relation)``: a model overlapping one is reported there.
    """
    if not model_rects:
        return
    mr = np.asarray(model_rects, dtype=np.float64)
    root = rects[0]
    out = np.flatnonzero((mr[:, 0] < root[0]) | (mr[:, 1] < root[1]) | (mr[:, 2] > root[2]) | (mr[:, 3] > root[3]))
    if out.size:
        rd.fail("nodes[0].rect", f"root rect {root.tolist()} does not cover model {out[0]}'s AABB", nodes_at)
    leaves = np.array([i for i, c in enumerate(children) if c is None])
    # leaves x models booleans, a block of leaves at a time: a file within the caps could ask
    # for hundreds of millions at once
    block = max(1, _MEMBERSHIP_CELLS // len(mr))
    for first in range(0, len(leaves), block):
        rows = leaves[first:first + block]
        lr = rects[rows]
        want = ((mr[None, :, 0] <= lr[:, None, 2]) & (lr[:, None, 0] <= mr[None, :, 2])
                & (mr[None, :, 1] <= lr[:, None, 3]) & (lr[:, None, 1] <= mr[None, :, 3]))
        have = np.zeros_like(want)
        for row, n in enumerate(rows.tolist()):
            have[row, models[n]] = True
        bad = np.argwhere(want != have)
        if not bad.size:
            continue
        row, m = (int(v) for v in bad[0])
        n = int(rows[row])
        if n in filled:
            i, q, at = filled[n]
            rd.fail(f"relations[{i}].children", f"quadrant {q} of node {i} is omitted (read as an empty leaf) "
                    f"but model {m}'s AABB overlaps it (C1)", at)
        what = "misses model" if want[row, m] else "holds model"
        why = "whose AABB overlaps it" if want[row, m] else "whose AABB does not overlap it"
        rd.fail(f"node_models[{n}]", f"leaf {n} {what} {m} {why} (C1)", models_at[n])


def _decode(models_bytes: bytes, quadtree_bytes: bytes, models_name: str, quadtree_name: str) -> BakedScene:
    """Both files' bytes to the scene and the model data file's ``source_digest``."""
    mrd, qrd = Reader(bytes(models_bytes), models_name), Reader(bytes(quadtree_bytes), quadtree_name)
    # both headers, sizes and checksums, and the pairing, before any decoding: damage is found cheaply
    mesh_count, model_count, models_crc, digest = _models_header(mrd)
    qheader = _quad_header(qrd, models_crc, models_name)
    with np.errstate(all="ignore"):
        models = _read_models(mrd, mesh_count, model_count)
        qt = _read_quadtree(qrd, qheader, [m.rect_xz() for m in models])
        return BakedScene(Scene(models, qt), digest)


def scene_from_bytes(models_bytes: bytes, quadtree_bytes: bytes, *, models_name: str = "<models>",
                     quadtree_name: str = "<quadtree>") -> Scene:
    """C5: decode a scene from the bytes of its two files (names are used in error messages).

    Raises :class:`SceneFileError` for any problem; numpy's floating-point
    warnings are silenced while decoding (every result that could overflow is
    checked and reported with its field instead).
    """
    return _decode(models_bytes, quadtree_bytes, models_name, quadtree_name).scene


def _unusable(exc: files.FileUnusable) -> SceneFileUnusable:
    """The error for a scene file's path that cannot be read, with the fix for its reason."""
    path = str(exc.path)
    if exc.reason == files.PERMISSION:
        return SceneFileUnusable(f"{exc}; make it readable (chmod u+r {path}) or run as its owner", exc.reason, path)
    if exc.reason == files.MISSING:
        return SceneFileUnusable(f"{exc}; check the path, or {REBAKE}", exc.reason, path, names_fix=True)
    if exc.reason == files.NOT_REGULAR:
        return SceneFileUnusable(f"{exc}; remove it and {REBAKE}", exc.reason, path, names_fix=True)
    if exc.reason == files.TOO_LARGE:
        return SceneFileUnusable(f"{exc}; {REBAKE}", exc.reason, path, names_fix=True)
    return SceneFileUnusable(f"{exc}; check the disk, then {REBAKE}", exc.reason, path, names_fix=True)


def load_baked(models_path: str | os.PathLike[str], quadtree_path: str | os.PathLike[str]) -> BakedScene:
    """C5: the scene in a model data file (C3) and a quadtree file (C4), with the digest of the
    description it was baked from.

    Each path must be a regular file within the caps (``MAX_MODELS_BYTES``,
    ``MAX_QUADTREE_BYTES``), checked before it is opened (:func:`game.files.read_bounded`):
    otherwise :class:`SceneFileUnusable`.  Any problem in a file raises
    :class:`SceneFileError` naming the file, field and byte offset.
    """
    blobs = []
    for path, cap in ((models_path, MAX_MODELS_BYTES), (quadtree_path, MAX_QUADTREE_BYTES)):
        try:
            blobs.append(files.read_bounded(path, "a scene file", cap))
        except files.FileUnusable as exc:
            raise _unusable(exc) from None
    return _decode(blobs[0], blobs[1], str(models_path), str(quadtree_path))


def load_scene(models_path: str | os.PathLike[str], quadtree_path: str | os.PathLike[str]) -> Scene:
    """C5: load a scene from its model data file (C3) and quadtree file (C4).

    Raises :class:`SceneFileError` naming the file, field and byte offset of any problem
    (:class:`SceneFileUnusable` when a path cannot be read as a file: see :func:`load_baked`).
    """
    return load_baked(models_path, quadtree_path).scene
