"""The asset JSON files (fighters, moves, the arena description) are read as files of one
kind and size, and a key written twice in one object is refused, naming it: a JSON parser
keeps the last one silently (``"max_health": 100, "max_health": 1`` played with 1)."""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import pytest

from game.sim.arena import DESCRIPTION_NAME, ArenaDescriptionError, read_description
from game.sim.data import AssetError, load_game_data
from game.sim.fields import read_json

ASSETS = Path(__file__).resolve().parents[2] / "assets"


@pytest.fixture
def assets(tmp_path):
    """A private copy of the asset folder (JSON, meshes, scene files)."""
    dst = tmp_path / "assets"
    shutil.copytree(ASSETS, dst)
    return dst


def _with_duplicate(text: str, anchor: str, extra: str) -> str:
    """``text`` with ``extra`` (a ``"key": value,`` pair) written right before ``anchor``."""
    assert text.count(anchor) >= 1, anchor
    return text.replace(anchor, extra + anchor, 1)


def test_duplicate_max_health_is_refused_naming_key_and_file(assets):
    path = assets / "fighters.json"
    doc = json.loads(path.read_text())
    assert doc["max_health"] != 1
    path.write_text(_with_duplicate(path.read_text(), '"max_health"', '"max_health": 1, '))
    with pytest.raises(AssetError) as info:
        load_game_data(str(assets))
    msg = str(info.value)
    assert msg.startswith(f"{path}: max_health: key 'max_health' is written twice"), msg
    assert "\n" not in msg and "keep one" in msg


def test_duplicate_key_deep_in_moves_names_its_field_path(assets):
    path = assets / "moves.json"
    doc = json.loads(path.read_text())
    move = doc["moves"]["lp"]
    key = next(k for k in move if not k.startswith("_"))
    text = json.dumps(doc, indent=1)
    anchor = '"lp": {\n'
    i = text.index(anchor) + len(anchor)
    text = text[:i] + f'  {json.dumps(key)}: {json.dumps(move[key])},\n' + text[i:]
    path.write_text(text)
    with pytest.raises(AssetError, match=rf"moves\.json: moves\.lp\.{key}: key '{key}' is written twice"):
        load_game_data(str(assets))


def test_duplicate_key_in_the_arena_description_is_refused(assets):
    path = assets / DESCRIPTION_NAME
    path.write_text(_with_duplicate(path.read_text(), '"clear_radius"', '"clear_radius": 0.5, '))
    with pytest.raises(ArenaDescriptionError, match=r"clear_radius: key 'clear_radius' is written twice"):
        read_description(path)


def test_the_same_key_in_two_objects_is_no_duplicate(tmp_path):
    path = tmp_path / "a.json"
    path.write_text('{"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 3}, {"x": 4}]}')
    assert read_json(path) == {"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 3}, {"x": 4}]}
    path.write_text('{"c": [{"x": 3}, {"x": 4, "x": 5}]}')
    with pytest.raises(AssetError, match=r"c\[1\]\.x: key 'x' is written twice"):
        read_json(path)


def _raised_within(call, seconds: float = 20.0) -> BaseException:
    """What ``call()`` raises, run in a thread that must finish within ``seconds``."""
    out: list[BaseException] = []

    def target():
        try:
            call()
        except BaseException as exc:
            out.append(exc)

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still blocked after {seconds} s"
    assert out, "nothing was raised"
    return out[0]


def _symlink_loop(path: Path) -> None:
    path.unlink()
    other = path.with_name(path.name + ".other")
    path.symlink_to(other)
    other.symlink_to(path)


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _directory(path: Path) -> None:
    path.unlink()
    path.mkdir()


@pytest.mark.parametrize("make, words", [(_symlink_loop, "symbolic link loop"), (_fifo, "is a FIFO"),
                                         (_directory, "is a folder")])
@pytest.mark.parametrize("name", ["fighters.json", "moves.json"])
def test_asset_json_that_is_not_a_regular_file_is_an_asset_error(assets, make, words, name):
    make(assets / name)
    exc = _raised_within(lambda: load_game_data(str(assets)))      # a FIFO must not block the reader
    assert isinstance(exc, AssetError), repr(exc)                 # not RuntimeError (a loop)
    assert str(exc).startswith(f"{assets / name}: ") and words in str(exc)
    assert getattr(exc, "reason", None)


def test_asset_json_over_the_cap_is_refused_unread(assets):
    from game.sim.fields import MAX_JSON_BYTES

    path = assets / "moves.json"
    with open(path, "ab") as fh:
        fh.truncate(MAX_JSON_BYTES + 1)
    with pytest.raises(AssetError, match=rf"moves\.json: is {MAX_JSON_BYTES + 1:,} bytes"):
        load_game_data(str(assets))
