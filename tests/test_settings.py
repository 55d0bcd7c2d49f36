"""The settings file (issue #34, "menus a player expects"): saved atomically in the user's
configuration folder, loaded at start, and a bad file is one line naming the file and the
field, then the defaults, never a crash.  Every test here works in a tmp folder; the test
process's XDG_CONFIG_HOME is a tmp folder too (tests/conftest.py), never the real one."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from game import settings as saved


def test_tests_never_see_the_real_user_config():
    """conftest points XDG_CONFIG_HOME at a tmp folder for the whole test process (and its children)."""
    real = Path.home() / ".config"
    assert not saved.default_path().is_relative_to(real)
    assert saved.default_path().parts[-2:] == ("rangebox", "settings.json")


def test_default_path_follows_xdg_config_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert saved.default_path() == tmp_path / "rangebox" / "settings.json"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/dir")        # the XDG spec: ignored
    assert saved.default_path() == Path.home() / ".config" / "rangebox" / "settings.json"


def test_round_trip_keeps_every_option(tmp_path):
    s = saved.Settings()
    s.level, s.rounds, s.timer, s.volume, s.fullscreen = "hard", 5, 30, 40, True
    s.bindings[0]["lp"] = ("O",)
    s.bindings[1]["guard"] = ("NUM_6", "NUM_RIGHT")
    path = saved.save(s, tmp_path / "deep" / "settings.json")          # the folder is made
    got = saved.load(path)
    assert got.problem is None
    assert got.settings == s
    assert json.loads(path.read_text())["bindings"]["p1"]["lp"] == ["O"]
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]        # no temp file left


def test_missing_file_is_the_defaults_silently(tmp_path):
    got = saved.load(tmp_path / "none.json")
    assert got.problem is None and got.settings == saved.Settings()


@pytest.mark.parametrize("content, field", [
    (b"{not json", None),
    (b"\xff\xfe\x00", None),
    (b"[1, 2]", None),
    (b'{"volume": "loud"}', "volume"),
    (b'{"rounds": 4}', "rounds"),
    (b'{"level": "impossible"}', "level"),
    (b'{"fullscreen": 1}', "fullscreen"),
    (b'{"timer": true}', "timer"),
    (b'{"colour": "red"}', "colour"),
    (b'{"volume": 10, "volume": 20}', "volume"),
    (b'{"bindings": {"p1": {"lp": "U"}}}', "bindings.p1.lp"),
    (b'{"bindings": {"p1": {"punch": ["U"]}}}', "bindings.p1.punch"),
    (b'{"bindings": {"p1": {"lp": ["K"]}}}', "bindings.p1"),          # K is also P1's hk
    (b'{"bindings": {"p3": {}}}', "bindings"),
    (b"[" * 100000, None),
])
def test_bad_file_is_one_line_naming_file_and_field_then_defaults(tmp_path, content, field):
    path = tmp_path / "settings.json"
    path.write_bytes(content)
    got = saved.load(path)
    assert got.problem is not None
    assert "\n" not in got.problem and str(path) in got.problem
    if field is not None:
        assert repr(field)[:-1] in got.problem, got.problem          # 'bindings.p1... names the field
    assert got.settings == saved.Settings()


def test_a_bad_field_keeps_the_good_ones(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"level": "easy", "volume": 300, "rounds": 1}))
    got = saved.load(path)
    assert "'volume'" in got.problem
    assert (got.settings.level, got.settings.rounds, got.settings.volume) == ("easy", 1, 100)


def test_a_folder_or_huge_file_is_refused_unread(tmp_path):
    (tmp_path / "dir.json").mkdir()
    got = saved.load(tmp_path / "dir.json")
    assert got.problem is not None and "dir.json" in got.problem and got.settings == saved.Settings()
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (saved.MAX_SIZE + 1))
    assert "big.json" in saved.load(big).problem


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file_is_one_line(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text("{}")
    path.chmod(0)
    got = saved.load(path)
    assert got.problem is not None and str(path) in got.problem and got.settings == saved.Settings()


def test_unknown_key_name_is_named():
    b = saved.Settings().bindings
    b[1]["hk"] = ("NOT_A_KEY",)
    assert saved.unknown_key(b, frozenset({"A", "B"} | {k for m in saved.DEFAULT_BINDINGS.values()
                                                         for keys in m.values() for k in keys})) \
        == "field 'bindings.p2.hk': unknown key name 'NOT_A_KEY'"
