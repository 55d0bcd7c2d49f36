"""Damaged scene files: truncated at every offset, bytes flipped (with and without the checksums
made consistent again), fuzzed, extreme values in any float field: a ``SceneFileError`` naming
the file and field, or a clean load; never another exception or a numpy warning."""

from __future__ import annotations

import struct
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.collision import (
    CollisionModel,
    Scene,
    SceneFileError,
)
from game.collision.scene_file import scene_from_bytes, scene_to_bytes
from scenehelp import (
    MODELS_HDR,
    QUAD_HDR,
    SHIPPED,
    random_scene,
    reseal,
)


def _fix_size(data: bytes, at: int) -> bytes:
    """``data`` with its header's u64 file_size (at byte ``at``) set to its real length."""
    data = bytearray(data)
    if len(data) >= at + 8:
        struct.pack_into("<Q", data, at, len(data))
    return bytes(data)


_SMALL_PAIR = scene_to_bytes(random_scene(seed=5, n=4))


_SIZE_AT = (20, 28)                                     # file_size in the models / quadtree header


@pytest.mark.slow
@pytest.mark.parametrize("which", [0, 1], ids=["models", "quadtree"])
def test_C3_C4_C5_truncation_at_every_offset_names_the_file_and_field(which):
    """Every prefix of either file, as is and with its size and checksums made consistent again
    (so the structural decoder, not only the size check, meets the cut): a SceneFileError whose
    message starts with that file's name and a field, never struct.error/IndexError/ValueError."""
    name = ("M.bin", "Q.bin")[which]
    orig = _SMALL_PAIR[which]
    for cut in range(len(orig)):
        part = orig[:cut]
        pair = [*_SMALL_PAIR]
        pair[which] = part
        msg = _only_scene_file_error(*pair)
        assert msg is not None and msg.startswith(f"{name}: field "), (cut, msg)
        if cut < 32:                                    # too short to hold a checksum to reseal
            continue
        pair[which] = _fix_size(part, _SIZE_AT[which])
        msg = _only_scene_file_error(*reseal(*pair))
        assert msg is not None and msg.startswith(f"{name}: field "), (cut, msg)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.integers(0, 1), st.data())
def test_C3_C4_C5_resealed_byte_flips_raise_only_scene_file_error(which, data):
    """Random byte flips (1-3 bytes, any mask) with the checksums and pairing recomputed, so that
    every field's own check is reached: either the pair loads or a SceneFileError names the file."""
    orig = bytearray(_SMALL_PAIR[which])
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(orig) - 1))
        orig[i] ^= data.draw(st.integers(1, 255))
    pair = [*_SMALL_PAIR]
    pair[which] = bytes(orig)
    msg = _only_scene_file_error(*reseal(*pair))
    assert msg is None or msg.startswith(("M.bin: field ", "Q.bin: field ")), msg


def _only_scene_file_error(mb, qb) -> str | None:
    """Load; return the SceneFileError's message or None.  Any other exception or a warning fails the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")                      # a numpy RuntimeWarning would raise here
        try:
            scene_from_bytes(mb, qb, models_name="M.bin", quadtree_name="Q.bin")
        except SceneFileError as exc:
            assert "field" in str(exc) and "byte" in str(exc)
            return str(exc)
    return None


@pytest.mark.slow
def test_C3_C4_fuzzed_files_raise_only_scene_file_error():
    """Every damaged file is caught (checksum); damaged-then-resealed ones (a writer bug, not damage)
    still raise only SceneFileError, never another exception or a numpy warning."""
    rng = np.random.default_rng(1234)
    mb, qb = scene_to_bytes(random_scene(seed=5, n=8))
    outcomes = {"ok": 0, "error": 0}
    for k in range(2500):
        which = k % 2
        orig = (mb, qb)[which]
        data = bytearray(orig)
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
        if bytes(data) == orig:
            continue                                        # a no-op mutation (e.g. zeroing zeros)
        raw = (bytes(data), qb) if which == 0 else (mb, bytes(data))
        assert _only_scene_file_error(*raw) is not None, f"damage {op} at mutation {k} loaded"
        if _only_scene_file_error(*reseal(*raw)) is None:
            outcomes["ok"] += 1
        else:
            outcomes["error"] += 1
    assert outcomes["error"] > 1500  # most resealed mutations are caught by the structural checks


# ---- checksum and version (C3, C4) ---------------------------------------------------------------
@pytest.mark.slow
def test_C3_C4_shipped_files_every_byte_flip_raises_scene_file_error():
    """Every byte of the shipped quadtree file and of the models file's header, and a large random
    sample of the models file's bytes, XORed with a random non-zero mask: always SceneFileError,
    never another exception, never a load."""
    mb, qb = (p.read_bytes() for p in SHIPPED)
    assert _only_scene_file_error(mb, qb) is None              # the shipped pair loads
    rng = np.random.default_rng(7)
    picks = [(1, i) for i in range(len(qb))] + [(0, i) for i in range(MODELS_HDR)]
    picks += [(0, int(i)) for i in rng.choice(np.arange(MODELS_HDR, len(mb)), 12_000, replace=False)]
    kinds = {"crc32": 0}
    for which, i in picks:
        data = bytearray((mb, qb)[which])
        data[i] ^= int(rng.integers(1, 256))
        args = (bytes(data), qb) if which == 0 else (mb, bytes(data))
        try:
            scene_from_bytes(*args, models_name="M.bin", quadtree_name="Q.bin")
        except SceneFileError as exc:
            msg = str(exc)
            assert msg.startswith(("M.bin" if which == 0 else "Q.bin") + ": field "), msg
            kinds["crc32"] += "crc32" in msg
        except Exception as exc:
            pytest.fail(f"byte {i} of {SHIPPED[which].name}: {type(exc).__name__}: {exc}")
        else:
            pytest.fail(f"byte {i} of {SHIPPED[which].name} flipped and the pair still loaded")
    assert kinds["crc32"] > len(picks) * 0.9                 # payload damage is reported as a checksum error


# ---- no numpy warning escapes the loader -------------------------------------------------------
def _model_record_at(mb: bytes, j: int) -> int:
    n = struct.unpack_from("<I", mb, 16)[0]
    return len(mb) - 185 * (n - j)


def test_C5_huge_values_raise_scene_file_error_without_numpy_warnings():
    mb, qb = scene_to_bytes(random_scene(seed=2, n=5))
    # a transform entry of 1e308 (file resealed, as a buggy writer would make it): the product overflows,
    # or (a translation) the stored AABB no longer matches; either way the model's field is named
    for j, k in ((0, 0), (5, 2), (5, 9), (5, 13)):
        for big in (1e308, -1e308):
            data = bytearray(mb)
            struct.pack_into("<d", data, _model_record_at(mb, j) + 57 + 8 * k, big)
            msg = _only_scene_file_error(*reseal(data, qb))
            assert msg is not None and f"M.bin: field models[{j}]." in msg, msg
            if k == 0:
                assert f"models[{j}].transform" in msg and "overflow" in msg, msg
    # a vertex of 1e308: the stored AABB no longer matches
    data = bytearray(mb)
    struct.pack_into("<d", data, MODELS_HDR + 4, 1e308)
    msg = _only_scene_file_error(*reseal(data, qb))
    assert msg is not None and "models[0].aabb" in msg, msg
    # a model spanning -1e308..1e308 with a matching stored AABB: its padded box overflows
    hm, hq = scene_to_bytes(Scene.build([CollisionModel([[[-1, 0, 0], [1, 0, 0], [0, 0, 1]]], 0)]))
    data = bytearray(hm)
    struct.pack_into("<3d", data, MODELS_HDR + 4, -1e308, 0, 0)
    struct.pack_into("<3d", data, MODELS_HDR + 4 + 24, 1e308, 0, 0)
    struct.pack_into("<6d", data, _model_record_at(hm, 0), -1e308, 0, 0, 1e308, 0, 1)
    msg = _only_scene_file_error(*reseal(data, hq))
    assert msg is not None and f"field meshes[0].triangles at byte {MODELS_HDR + 4}" in msg and "too large" in msg


@pytest.mark.slow
def test_C5_extreme_values_in_any_float_field_never_warn():
    """Random f64 slots of both files (vertices, AABBs, transforms, node rects) set to extreme values,
    then resealed: SceneFileError or a clean load, never a numpy warning or another exception."""
    mb, qb = scene_to_bytes(random_scene(seed=6, n=6))
    rng = np.random.default_rng(11)
    n_models = struct.unpack_from("<I", mb, 16)[0]
    slots = [(0, MODELS_HDR + 4 + 8 * int(i)) for i in rng.integers(0, 200, 40)]
    slots += [(0, _model_record_at(mb, j) + off) for j in range(n_models) for off in (0, 24, 57, 65, 121, 145)]
    nodes = struct.unpack_from("<I", qb, 16)[0]
    slots += [(1, QUAD_HDR + 40 * i + 8 * c) for i in range(nodes) for c in range(4)]
    for which, at in slots:
        for v in (1e308, -1e308, 1.7e308, 1e300, 1e-320, float("inf"), float("nan")):
            pair = [bytearray(mb), bytearray(qb)]
            struct.pack_into("<d", pair[which], at, v)
            _only_scene_file_error(*reseal(*pair))
