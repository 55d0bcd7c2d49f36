"""Method C scene files: writing the model data file (C3) and the quadtree file (C4) of a scene.

:func:`save_scene` writes both files next to their targets first and replaces the targets
only when both are complete (see its docstring for what a failure leaves behind).  The layout
is :mod:`.scene_format`'s; the reader is :mod:`.scene_file`.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import NamedTuple

import numpy as np

from game.files import DIRECTORY, REGULAR, existing_kind

from .scene import Scene
from .scene_format import (
    DIGEST_SIZE,
    FORMAT_VERSION,
    MAX_LEAF_CAPACITY,
    MAX_MODELS,
    MAX_NODE_ENTRIES,
    MAX_NODES,
    MAX_TRIANGLES,
    MODEL_DT,
    MODELS_CRC_AT,
    MODELS_HEADER,
    MODELS_MAGIC,
    NO_DIGEST,
    NODE_DT,
    QUAD_CRC_AT,
    QUAD_HEADER,
    QUADTREE_MAGIC,
    REL,
    U32,
    sealed,
)

__all__ = ["SceneBytes", "SceneTooLargeError", "scene_to_bytes", "save_scene"]


class SceneTooLargeError(ValueError):
    """A scene holds more than the scene files may (``scene_format``'s caps): the reader would
    refuse the files, so they are not written.  The message names the count, the cap and the fix."""


class SceneBytes(NamedTuple):
    """A scene encoded as its two files (:func:`scene_to_bytes`)."""

    models: bytes       # the model data file (C3)
    quadtree: bytes     # the quadtree file (C4)


def _check_caps(scene: Scene) -> None:
    """Refuse a scene the reader's caps would refuse (:class:`SceneTooLargeError`)."""
    qt = scene.quadtree
    counts = (("models", len(scene.models), MAX_MODELS, "use fewer objects"),
              ("triangles", sum(m.triangle_count for m in scene.models), MAX_TRIANGLES,
               "use fewer grid cells, prism sides or mesh faces"),
              ("quadtree nodes", qt.node_count, MAX_NODES, "raise the quadtree's leaf_capacity or lower its max_depth"),
              ("quadtree node-to-model entries", sum(len(ms) for ms in qt.models), MAX_NODE_ENTRIES,
               "raise the quadtree's leaf_capacity or lower its max_depth"),
              ("leaf capacity", qt.leaf_capacity, MAX_LEAF_CAPACITY, "lower the quadtree's leaf_capacity"))
    for what, n, cap, fix in counts:
        if n > cap:
            raise SceneTooLargeError(f"the scene has {n:,} {what}, the scene files hold at most {cap:,}; {fix}")


def scene_to_bytes(scene: Scene, *, source_digest: bytes = NO_DIGEST) -> SceneBytes:
    """C3, C4: encode ``scene`` as the bytes of its two files.

    Each model gets its own mesh (mesh index = model index) holding its local triangles.
    ``source_digest`` (32 bytes) goes in the model data file's header: the digest of the
    description the scene was baked from (``game.sim.arena``), :data:`NO_DIGEST` for none.
    A scene over the files' caps raises :class:`SceneTooLargeError`.
    """
    if not isinstance(source_digest, bytes) or len(source_digest) != DIGEST_SIZE:
        raise ValueError(f"source_digest: {DIGEST_SIZE} bytes (a SHA-256 digest), got {source_digest!r}")
    _check_caps(scene)
    models = scene.models
    parts = []
    for m in models:
        parts.append(U32.pack(m.triangle_count))
        parts.append(np.ascontiguousarray(m.triangles, dtype="<f8").tobytes())
    recs = np.zeros(len(models), dtype=MODEL_DT)
    for i, m in enumerate(models):
        recs[i] = (m.aabb.reshape(6), m.level, i, m.triangle_count, m.transform.reshape(16))
    parts.append(recs.tobytes())
    body = b"".join(parts)
    size = MODELS_HEADER.size + len(body)
    models_bytes, models_crc = sealed(MODELS_HEADER.pack(MODELS_MAGIC, FORMAT_VERSION, 0, len(models),
                                                           len(models), size, 0, source_digest) + body, MODELS_CRC_AT)

    qt = scene.quadtree
    q = qt.node_count
    nodes = np.zeros(q, dtype=NODE_DT)
    nodes["rect"] = np.asarray(qt.rect, dtype=np.float64).reshape(q, 4)
    nodes["depth"] = qt.depth
    nodes["id"] = np.arange(q)
    parts = [nodes.tobytes()]
    for ms in qt.models:
        parts.append(U32.pack(len(ms)) + np.asarray(ms, dtype="<u4").tobytes())
    for i, kids in enumerate(qt.children):
        if kids is None:
            parts.append(REL.pack(i, 0, 0))
        else:
            parts.append(REL.pack(i, 1, len(kids)) + np.asarray(kids, dtype="<u4").tobytes())
    body = b"".join(parts)
    size = QUAD_HEADER.size + len(body)
    quad_bytes, _ = sealed(QUAD_HEADER.pack(QUADTREE_MAGIC, FORMAT_VERSION, 0, len(models), q,
                                              qt.leaf_capacity, qt.max_depth, size, 0, models_crc) + body,
                            QUAD_CRC_AT)
    return SceneBytes(models_bytes, quad_bytes)


def _check_target(path: Path) -> None:
    """``path`` must be a regular file or absent: anything else (a directory, a device) is refused
    with an :class:`OSError` naming it, before any write."""
    kind = existing_kind(path)
    if kind not in (None, REGULAR):
        raise OSError(errno.EISDIR if kind == DIRECTORY else errno.EEXIST,
                      f"is {kind}, not a regular file, so it cannot be replaced; remove it or write elsewhere",
                      str(path))


def _write_synced(path: Path, data: bytes) -> None:
    """Write ``data`` to a new file ``path`` and force it to disk (flush + fsync)."""
    with open(path, "xb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def save_scene(scene: Scene, models_path: str | os.PathLike[str], quadtree_path: str | os.PathLike[str], *,
               source_digest: bytes = NO_DIGEST) -> None:
    """Write the model data file (C3) and the quadtree file (C4) of ``scene`` as a pair.

    ``source_digest``: the digest of the description the scene was baked from (see
    :func:`scene_to_bytes`); a scene over the files' caps raises :class:`SceneTooLargeError`
    before anything is written.

    Both files are first written in full next to their targets (``<name>.tmp``,
    flushed and fsynced); only when both are complete do they replace the
    targets, one ``os.replace`` right after the other.  Each target must be a
    regular file or absent (checked first).  On any failure the temporary
    files are removed and the old pair is left untouched (an :class:`OSError`
    is raised).  The two renames cannot be atomic together: if the second
    fails (or the process dies between them) the new models file sits with the
    old quadtree file; the raised error then has ``partial = True``, and the
    quadtree header's ``models_crc32`` makes loading such a pair fail with a
    :class:`SceneFileError` saying the files are from different bakes.
    """
    mb, qb = scene_to_bytes(scene, source_digest=source_digest)
    targets = [Path(models_path), Path(quadtree_path)]
    if os.path.realpath(targets[0]) == os.path.realpath(targets[1]):     # (realpath: a link loop is no error here)
        raise OSError(errno.EINVAL, "the model data file and the quadtree file must be two different files",
                      str(targets[0]))
    temps = [p.with_name(p.name + ".tmp") for p in targets]
    for path in (*targets, *temps):
        _check_target(path)
    written: list[Path] = []
    try:
        for tmp, data in zip(temps, (mb, qb)):
            tmp.unlink(missing_ok=True)               # a leftover of an interrupted run: ours to replace
            written.append(tmp)
            _write_synced(tmp, data)
        for k, (tmp, path) in enumerate(zip(temps, targets)):
            try:
                os.replace(tmp, path)
            except OSError as exc:
                if k:                                  # the first file is new already: say so
                    exc.strerror = (f"{exc.strerror}; {targets[0]} was already replaced, so the pair is "
                                    f"mismatched until the next successful save (loading reports it)")
                    exc.partial = True  # type: ignore[attr-defined]  # an attribute of this error only (documented above)
                raise
            written.remove(tmp)
    finally:
        for tmp in written:
            try:
                tmp.unlink()
            except OSError:
                pass
    _sync_dir(targets[0].parent)
    if targets[1].parent != targets[0].parent:
        _sync_dir(targets[1].parent)


def _sync_dir(folder: Path) -> None:
    """Make the renames durable (best effort: not every platform can fsync a directory)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
