"""Fuzz every file reader with damaged files and with paths that are not regular files.

Seeded, so every run (CI's included) sees the same cases:

* replays: bit flips, truncations, header counts inflated with both CRCs made valid again,
  and headers spliced onto other payloads (another replay's, the other format version's);
* scene files: the same four kinds of damage on the shipped pair and on a small random
  scene, the checksums and the pairing field made valid again where the case needs it;
* special paths for each reader (asset JSON, the arena description, an ``.obj`` mesh it
  names, both scene files directly and through ``load_arena``, replays, shaders): a FIFO,
  ``/dev/zero``, a directory, a symbolic-link loop, a socket, and a file the open is
  refused (the tests run as root, so the refusal is simulated at ``os.open``).

Only the documented exceptions may come out (a replay decodes or raises ``ReplayError``; a
scene pair loads or raises ``SceneFileError``; a special path raises the reader's file
error with its ``reason``), every message is one line naming the file, and no reader blocks.
A few cases go through ``main.py`` in a child: exit 2 and one line on stderr.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import threading
import zlib
from pathlib import Path

import numpy as np
import pytest

from clihelp import ROOT, copy_program
from game import files
from game.collision import CollisionModel, Scene, SceneFileError, SceneFileUnusable, load_scene
from game.collision.scene_file import scene_from_bytes, scene_to_bytes
from game.collision.scene_format import MODELS_CRC_AT, MODELS_HEADER, QUAD_CRC_AT, QUAD_HEADER, QUAD_PAIR_AT
from game.replay import HEADER, ReplayError, ReplayFileError, ReplayRecorder, decode, load_replay
from game.replay_header import HEADER_V1
from game.sim import FrameInput, Match
from game.sim.arena import (
    DESCRIPTION_NAME,
    MODELS_NAME,
    QUADTREE_NAME,
    ArenaDescriptionError,
    ArenaDescriptionFileError,
    ArenaFileError,
    load_arena,
    read_description,
)
from game.sim.fields import AssetError, AssetFileError, read_json

pytestmark = pytest.mark.slow

ASSETS = ROOT / "assets"
SEED = 20_33
N_REPLAYS = 320
N_SCENES = 320


# ------------------------------------------------------------------ replays
def _record(seed: int, frames: int, p2_cpu: str | None, online: bool = False) -> bytes:
    m = Match.new(seed=seed, p2_cpu=p2_cpu)
    rec = ReplayRecorder.for_match(m, online=online)
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 1 << FrameInput.BITS, frames // 8 + 1)
    while m.frame < frames:
        m.step(FrameInput.from_bits(int(bits[m.frame // 8])), FrameInput())
        rec.record(m)
    return rec.to_bytes()


def _reseal_replay(data: bytearray) -> bytes:
    """The trailing CRC right again (the payload, and so payload_crc, untouched)."""
    struct.pack_into("<I", data, len(data) - 4, zlib.crc32(bytes(data[:-4])))
    return bytes(data)


def _damaged_replays(good: list[bytes], rng: np.random.Generator) -> list[tuple[str, bytes]]:
    out: list[tuple[str, bytes]] = []
    count_fields = {"frames": 36, "runs": 40, "checkpoints": 44, "payload_size": 48, "interval": 34, "tags": 64}
    short = ("interval", "tags")                                # u16 fields
    big = [1, 2, 59, 60, 61, 19_200, 19_201, 65_535, 2**20, 74_000_000, 2**31, 2**32 - 1]
    while len(out) < N_REPLAYS:
        src = good[int(rng.integers(len(good)))]
        kind = len(out) % 4
        data = bytearray(src)
        if kind == 0:                                           # bit flips, anywhere
            for _ in range(int(rng.integers(1, 4))):
                data[int(rng.integers(len(data)))] ^= 1 << int(rng.integers(8))
            out.append(("flip", bytes(data)))
        elif kind == 1:                                         # truncated (or cut and padded)
            cut = int(rng.integers(0, len(data)))
            tail = bytes(rng.integers(0, 256, int(rng.integers(0, 3)) * 7, dtype=np.uint8))
            out.append(("truncate", bytes(data[:cut]) + tail))
        elif kind == 2:                                         # a count inflated, CRCs valid
            name = list(count_fields)[int(rng.integers(len(count_fields)))]
            fmt = "<H" if name in short else "<I"
            value = int(rng.choice(big + [0])) & (0xFFFF if name in short else 0xFFFFFFFF)
            struct.pack_into(fmt, data, count_fields[name], value)
            out.append((f"inflate {name}", _reseal_replay(data)))
        else:                                                   # a header spliced onto another payload
            other = good[int(rng.integers(len(good)))]
            if rng.random() < 0.5:
                spliced = bytearray(src[:HEADER.size] + other[HEADER.size:])
            else:                                               # the other version's header length
                v1 = HEADER_V1.pack(*HEADER.unpack_from(src)[:-4])             # no arena, rounds, timer, tags
                v1 = v1[:4] + struct.pack("<HH", 1, HEADER_V1.size) + v1[8:]
                spliced = bytearray(v1 + other[HEADER.size:])
            out.append(("splice", _reseal_replay(spliced)))
    return out


@pytest.fixture(scope="module")
def replays():
    return [_record(1, 400, "hard"), _record(2, 130, None), _record(3, 61, "easy"), _record(4, 250, "normal", True)]


def test_damaged_replays_decode_or_raise_replay_error(replays):
    rng = np.random.default_rng(SEED)
    cases = _damaged_replays(replays, rng)
    assert len(cases) >= 300
    outcomes = {"decoded": 0, "refused": 0}
    for i, (kind, data) in enumerate(cases):
        try:
            decode(data, f"case{i}.rpl")
        except ReplayError as exc:
            msg = str(exc)
            assert "\n" not in msg and msg.startswith(f"case{i}.rpl: "), (kind, msg)
            outcomes["refused"] += 1
        except Exception as exc:
            pytest.fail(f"case {i} ({kind}): {type(exc).__name__}: {exc}")
        else:
            outcomes["decoded"] += 1
    assert outcomes["refused"] > 0.9 * len(cases), outcomes


# ------------------------------------------------------------------ scene files
def _reseal_scene(mb: bytes, qb: bytes) -> tuple[bytes, bytes]:
    mb_, qb_ = bytearray(mb), bytearray(qb)
    if len(mb_) >= MODELS_CRC_AT + 4:
        struct.pack_into("<I", mb_, MODELS_CRC_AT, zlib.crc32(bytes(mb_[:MODELS_CRC_AT] + mb_[MODELS_CRC_AT + 4:])))
        if len(qb_) >= QUAD_PAIR_AT + 4:
            struct.pack_into("<I", qb_, QUAD_PAIR_AT, struct.unpack_from("<I", mb_, MODELS_CRC_AT)[0])
    if len(qb_) >= QUAD_CRC_AT + 4:
        struct.pack_into("<I", qb_, QUAD_CRC_AT, zlib.crc32(bytes(qb_[:QUAD_CRC_AT] + qb_[QUAD_CRC_AT + 4:])))
    return bytes(mb_), bytes(qb_)


def _damaged_scenes(pairs: list[tuple[bytes, bytes]], rng: np.random.Generator) -> list[tuple[str, bytes, bytes]]:
    out: list[tuple[str, bytes, bytes]] = []
    # (file, offset, struct code) of every header count, and the first mesh's triangle count
    counts = [(0, 12, "<I"), (0, 16, "<I"), (0, 20, "<Q"), (0, MODELS_HEADER.size, "<I"),
              (1, 12, "<I"), (1, 16, "<I"), (1, 20, "<I"), (1, 24, "<I"), (1, 28, "<Q")]
    big = [0, 1, 5, 17, 1024, 1025, 4096, 4097, 65_536, 65_537, 262_145, 2**31, 2**32 - 1]
    while len(out) < N_SCENES:
        pick = int(rng.integers(len(pairs)))
        mb, qb = pairs[pick]
        kind = len(out) % 4
        files_ = [bytearray(mb), bytearray(qb)]
        which = int(rng.integers(2))
        if kind == 0:                                           # bit flips, mostly headers, resealed half the time
            target = files_[which]
            span = len(target) if rng.random() < 0.5 else min(len(target), 200)
            target[int(rng.integers(span))] ^= 1 << int(rng.integers(8))
            m, q = bytes(files_[0]), bytes(files_[1])
            out.append(("flip", *(_reseal_scene(m, q) if rng.random() < 0.5 else (m, q))))
        elif kind == 1:                                         # truncated
            cut = int(rng.integers(0, len(files_[which])))
            files_[which] = files_[which][:cut]
            out.append(("truncate", bytes(files_[0]), bytes(files_[1])))
        elif kind == 2:                                         # a count inflated, checksums valid
            f, at, code = counts[int(rng.integers(len(counts)))]
            value = int(rng.choice(big)) & (2**64 - 1 if code == "<Q" else 2**32 - 1)
            struct.pack_into(code, files_[f], at, value)
            out.append((f"inflate {f}@{at}", *_reseal_scene(bytes(files_[0]), bytes(files_[1]))))
        else:                                                   # headers spliced across the pairs
            om, oq = pairs[(pick + 1) % len(pairs)]                 # another scene's header
            if which == 0:
                m = om[:MODELS_HEADER.size] + mb[MODELS_HEADER.size:]
                q = qb
            else:
                m = mb
                q = oq[:QUAD_HEADER.size] + qb[QUAD_HEADER.size:]
            out.append(("splice", *_reseal_scene(m, q)))
    return out


@pytest.fixture(scope="module")
def scene_pairs():
    rng = np.random.default_rng(7)
    models = [CollisionModel(rng.uniform(-6, 6, 3) + rng.normal(0, 0.5, (int(rng.integers(1, 6)), 3, 3)),
                             int(rng.integers(0, 3))) for _ in range(9)]
    small = scene_to_bytes(Scene.build(models, leaf_capacity=2, max_depth=4))
    shipped = ((ASSETS / MODELS_NAME).read_bytes(), (ASSETS / QUADTREE_NAME).read_bytes())
    return [tuple(small), shipped]


def test_damaged_scene_files_load_or_raise_scene_file_error(scene_pairs):
    rng = np.random.default_rng(SEED + 1)
    cases = _damaged_scenes(scene_pairs, rng)
    assert len(cases) >= 300
    refused = 0
    for i, (kind, mb, qb) in enumerate(cases):
        try:
            scene_from_bytes(mb, qb, models_name=f"m{i}.bin", quadtree_name=f"q{i}.bin")
        except SceneFileError as exc:
            msg = str(exc)
            assert "\n" not in msg and msg.startswith((f"m{i}.bin: field ", f"q{i}.bin: field ")), (kind, msg)
            refused += 1
        except Exception as exc:
            pytest.fail(f"case {i} ({kind}): {type(exc).__name__}: {exc}")
    # the rest are damage that changes nothing checked: a resealed flip in source_digest or in
    # the last bits of a stored AABB (within the tolerance), a truncation of nothing
    assert refused > 0.75 * len(cases), refused


# ------------------------------------------------------------------ special paths, every reader
def _raised_within(call, seconds: float = 20.0) -> BaseException:
    out: list[BaseException] = []

    def target():
        try:
            call()
        except BaseException as exc:
            out.append(exc)

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"the reader blocked for {seconds} s"
    assert out, "the reader raised nothing"
    return out[0]


SPECIALS = ("fifo", "dev_zero", "directory", "link_loop", "socket", "unreadable")


def _make_special(path: Path, kind: str, monkeypatch, sockets: list) -> None:
    """Replace whatever is at ``path`` with a special path of ``kind``."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev_zero":
        path.symlink_to("/dev/zero")
    elif kind == "directory":
        path.mkdir()
    elif kind == "link_loop":
        path.symlink_to(path.with_name(path.name + ".loop"))
        path.with_name(path.name + ".loop").symlink_to(path)
    elif kind == "socket":
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(path))
        sockets.append(s)
    else:                                                       # a file the open is refused
        shutil.copy2(ASSETS / "fighters.json", path)
        real_open, denied = os.open, os.path.realpath(path)

        def refusing(p, flags, *args, **kwargs):
            if os.path.realpath(p) == denied:
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(p))
            return real_open(p, flags, *args, **kwargs)
        monkeypatch.setattr(os, "open", refusing)


READERS = {
    # name: (file in a copy of assets/ to replace, the call, the error class, the file the message names)
    "asset json": ("moves.json", lambda a: read_json(a / "moves.json"), AssetFileError, "moves.json"),
    "description": (DESCRIPTION_NAME, lambda a: read_description(a / DESCRIPTION_NAME), ArenaDescriptionFileError,
                    DESCRIPTION_NAME),
    "obj mesh": ("arena_grass.obj", lambda a: read_description(a / DESCRIPTION_NAME), ArenaDescriptionFileError,
                 "arena_grass.obj"),
    "models file": (MODELS_NAME, lambda a: load_scene(a / MODELS_NAME, a / QUADTREE_NAME), SceneFileUnusable,
                    MODELS_NAME),
    "quadtree file": (QUADTREE_NAME, lambda a: load_scene(a / MODELS_NAME, a / QUADTREE_NAME), SceneFileUnusable,
                      QUADTREE_NAME),
    "arena bake": (MODELS_NAME, lambda a: load_arena(a), ArenaFileError, MODELS_NAME),
    "replay": ("x.rpl", lambda a: load_replay(a / "x.rpl"), ReplayFileError, "x.rpl"),
}


@pytest.mark.parametrize("kind", SPECIALS)
@pytest.mark.parametrize("reader", list(READERS))
def test_every_reader_refuses_every_special_path_with_its_file_error(tmp_path, monkeypatch, reader, kind):
    assets = tmp_path / "assets"
    shutil.copytree(ASSETS, assets)
    (assets / "x.rpl").write_bytes(b"placeholder")
    name, call, error, named = READERS[reader]
    sockets: list = []
    try:
        _make_special(assets / name, kind, monkeypatch, sockets)
        exc = _raised_within(lambda: call(assets))
    finally:
        for s in sockets:
            s.close()
    assert isinstance(exc, error), f"{type(exc).__name__}: {exc}"
    msg = str(exc)
    assert "\n" not in msg and named in msg, msg
    want = files.PERMISSION if kind == "unreadable" else files.NOT_REGULAR
    assert exc.reason == want, (exc.reason, msg)
    assert any(word in msg for word in SAID[kind]), msg


#: What a message says for each special path (a directory is "a folder" in the asset readers' words).
SAID = {"fifo": ("a FIFO",), "dev_zero": ("a character device",), "directory": ("a directory", "a folder"),
        "link_loop": ("a symbolic link loop",), "socket": ("a socket",), "unreadable": ("Permission denied",)}


@pytest.mark.gl
@pytest.mark.parametrize("kind", SPECIALS)
def test_shader_reads_refuse_every_special_path(tmp_path, monkeypatch, kind):
    from game.render import glutil

    sockets: list = []
    path = tmp_path / "lit.frag"
    path.write_text("x")
    try:
        _make_special(path, kind, monkeypatch, sockets)
        exc = _raised_within(lambda: glutil._read_shader(path))
    finally:
        for s in sockets:
            s.close()
    assert isinstance(exc, glutil.ShaderFileError), f"{type(exc).__name__}: {exc}"
    assert exc.reason == (files.PERMISSION if kind == "unreadable" else files.NOT_REGULAR)


def test_the_family_errors_are_the_documented_ones():
    """Each reader's file error is a subclass of the family error the CLI reports in one line."""
    assert issubclass(AssetFileError, AssetError) and issubclass(ArenaDescriptionFileError, ArenaDescriptionError)
    assert issubclass(SceneFileUnusable, SceneFileError) and issubclass(ReplayFileError, ReplayError)
    from game.sim.arena import ArenaAssetError
    assert issubclass(ArenaFileError, ArenaAssetError)


# ------------------------------------------------------------------ through main.py
def _main(args, cwd, main=ROOT / "main.py"):
    return subprocess.run([sys.executable, str(main), *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          check=False, env=dict(os.environ, PYGLET_HEADLESS="1"))


def test_main_exits_2_with_one_line_on_damaged_replays(tmp_path, replays):
    rng = np.random.default_rng(SEED + 2)
    cases = _damaged_replays(replays, rng)
    picks = [next(c for c in cases if c[0].startswith(k)) for k in ("flip", "truncate", "inflate", "splice")]
    os.mkfifo(tmp_path / "fifo.rpl")
    names = ["fifo.rpl"]
    for i, (_, data) in enumerate(picks):
        (tmp_path / f"c{i}.rpl").write_bytes(data)
        names.append(f"c{i}.rpl")
    for name in names:
        p = _main(["--headless", "--replay", name], tmp_path)
        assert p.returncode == 2 and len(p.stderr.splitlines()) == 1, (name, p.stderr)
        assert name in p.stderr and "Traceback" not in p.stderr


def test_main_exits_2_with_one_line_on_damaged_scene_files(tmp_path, scene_pairs):
    rng = np.random.default_rng(SEED + 3)
    cases = []
    for case in _damaged_scenes(scene_pairs, rng):              # one refused case of each kind
        if case[0].split()[0] not in {c[0].split()[0] for c in cases}:
            try:
                scene_from_bytes(case[1], case[2])
            except SceneFileError:
                cases.append(case)
    assert len(cases) == 4
    main, assets = copy_program(tmp_path)
    for kind, mb, qb in cases:
        (assets / MODELS_NAME).write_bytes(mb)
        (assets / QUADTREE_NAME).write_bytes(qb)
        p = _main(["--headless", "--frames", "5"], tmp_path, main)
        assert p.returncode == 2 and len(p.stderr.splitlines()) == 1, (kind, p.stderr)
        assert "Traceback" not in p.stderr and ".bin" in p.stderr, p.stderr
    doc = json.loads((assets / DESCRIPTION_NAME).read_text())
    assert doc["format"] == "rangebox-arena"                   # the copy is the shipped program's
