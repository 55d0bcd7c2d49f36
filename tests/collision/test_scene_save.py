"""Writing the scene pair (``save_scene``): a failed write or rename leaves the old pair and no
temp file, and a pair from different bakes is detected at load."""

from __future__ import annotations

import errno
import os

import pytest

from game.collision import (
    SceneFileError,
    load_scene,
    save_scene,
    scene_save,
)
from game.collision.scene_file import scene_to_bytes
from scenehelp import (
    random_scene,
)


# ---- writing the pair (save_scene) ---------------------------------------------------------------
def _pair_state(tmp_path):
    return sorted((p.name, p.read_bytes() if p.is_file() else None) for p in tmp_path.iterdir())


@pytest.fixture
def old_pair(tmp_path):
    """A saved scene in tmp_path: (models path, quadtree path, the directory's state)."""
    m, q = tmp_path / "s.models.bin", tmp_path / "s.quadtree.bin"
    save_scene(random_scene(seed=1, n=4), m, q)
    return m, q, _pair_state(tmp_path)


def _fail_second_call(real, err: int, text: str, calls: list):
    """``real`` wrapped to record its first argument in ``calls`` and raise ``OSError(err)``
    on the second call (the second file of the pair)."""
    def wrapper(path, other):
        calls.append(path)
        if len(calls) == 2:
            raise OSError(err, text, str(path))
        real(path, other)
    return wrapper


def test_C3_C4_save_scene_failed_second_write_leaves_old_pair_and_no_tmp(old_pair, tmp_path, monkeypatch):
    m, q, before = old_pair
    calls = []
    monkeypatch.setattr(scene_save, "_write_synced",
                        _fail_second_call(scene_save._write_synced, errno.ENOSPC, "No space left on device", calls))
    with pytest.raises(OSError, match="No space left"):
        save_scene(random_scene(seed=2, n=5), m, q)
    assert [p.name for p in calls] == ["s.models.bin.tmp", "s.quadtree.bin.tmp"]
    assert _pair_state(tmp_path) == before                     # old pair as it was, no .tmp left
    load_scene(m, q)


def test_C3_C4_save_scene_partial_tmp_write_is_removed(old_pair, tmp_path, monkeypatch):
    m, q, before = old_pair
    real_open = open

    class Full:
        """A file whose write stores half the data, then fails like a full disk."""
        def __init__(self, path, mode):
            self.f = real_open(path, mode)
        def __enter__(self):
            return self
        def __exit__(self, *exc):
            self.f.close()
        def write(self, data):
            self.f.write(data[: len(data) // 2])
            self.f.flush()
            raise OSError(errno.ENOSPC, "No space left on device")
        def fileno(self):
            return self.f.fileno()
        def flush(self):
            self.f.flush()
    monkeypatch.setattr(scene_save, "open", Full, raising=False)
    with pytest.raises(OSError):
        save_scene(random_scene(seed=2, n=5), m, q)
    assert _pair_state(tmp_path) == before


def test_C3_C4_save_scene_refuses_a_directory_target_before_writing(old_pair, tmp_path):
    m, q, _ = old_pair
    q.unlink()
    q.mkdir()
    before = _pair_state(tmp_path)
    with pytest.raises(OSError) as info:
        save_scene(random_scene(seed=2, n=5), m, q)
    assert info.value.filename == str(q) and "directory" in str(info.value)
    assert _pair_state(tmp_path) == before                     # models file untouched, no .tmp
    (tmp_path / "d.tmp").mkdir()
    with pytest.raises(OSError, match="directory"):            # a folder where a temp file would go
        save_scene(random_scene(seed=2, n=5), tmp_path / "d", tmp_path / "e")


def test_C3_C4_save_scene_failed_second_rename_is_reported_and_detected_at_load(old_pair, tmp_path,
                                                                                monkeypatch):
    m, q, _ = old_pair
    calls = []                 # (the temp files renamed: the second rename fails)
    monkeypatch.setattr(scene_save.os, "replace", _fail_second_call(os.replace, errno.EIO, "Input/output error", calls))
    with pytest.raises(OSError) as info:
        save_scene(random_scene(seed=2, n=5), m, q)
    monkeypatch.undo()
    assert getattr(info.value, "partial", False) and "already replaced" in info.value.strerror
    assert sorted(p.name for p in tmp_path.iterdir()) == [m.name, q.name]     # no .tmp left
    with pytest.raises(SceneFileError, match="different bakes"):
        load_scene(m, q)


def test_C3_C4_save_scene_replaces_a_leftover_tmp_and_leaves_none(old_pair, tmp_path):
    m, q, _ = old_pair
    (tmp_path / (m.name + ".tmp")).write_bytes(b"half a file from a crash")
    sc = random_scene(seed=2, n=5)
    save_scene(sc, m, q)
    assert sorted(p.name for p in tmp_path.iterdir()) == [m.name, q.name]
    assert (m.read_bytes(), q.read_bytes()) == scene_to_bytes(sc)
